/// A single location.
public struct Point: Sendable, Hashable, Codable {
    /// The location's coordinate (x, y and optional z).
    public var coordinate: Coordinate
    /// The spatial reference `coordinate` is expressed in.
    public var spatialReference: SpatialReference

    /// Creates a point.
    /// - Parameters:
    ///   - x: Easting in the spatial reference's unit, or longitude in degrees in [-180, 180].
    ///   - y: Northing in the spatial reference's unit, or latitude in degrees in [-90, 90].
    ///   - z: Optional height in the spatial reference's vertical unit (meters for WGS84).
    ///   - spatialReference: The coordinate system of `x`, `y`.
    public init(x: Double, y: Double, z: Double? = nil, spatialReference: SpatialReference) {
        self.coordinate = Coordinate(x: x, y: y, z: z)
        self.spatialReference = spatialReference
    }

    /// Creates a point from a coordinate.
    /// - Parameters:
    ///   - coordinate: The location.
    ///   - spatialReference: The coordinate system of `coordinate`.
    public init(_ coordinate: Coordinate, spatialReference: SpatialReference) {
        self.coordinate = coordinate
        self.spatialReference = spatialReference
    }

    /// Creates a WGS84 point.
    /// - Parameters:
    ///   - latitude: Degrees north, in [-90, 90].
    ///   - longitude: Degrees east, in [-180, 180].
    ///   - altitude: Optional height in meters.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.init(x: longitude, y: latitude, z: altitude, spatialReference: .wgs84)
    }

    /// Easting or longitude.
    public var x: Double { coordinate.x }
    /// Northing or latitude.
    public var y: Double { coordinate.y }
    /// Height, if any.
    public var z: Double? { coordinate.z }

    /// The coordinates of points that share one spatial reference, and that reference: the one rule of
    /// `Multipoint(points:)`, `Polyline(points:)` and `Polygon(points:)`.
    static func shared(_ points: [Point], in what: String, minimumCount: Int) throws(GeometryError)
        -> ([Coordinate], SpatialReference)
    {
        guard let first = points.first else { throw .empty("\(what) needs at least one point") }
        guard points.allSatisfy({ $0.spatialReference == first.spatialReference }) else {
            throw .mixedSpatialReferences
        }
        guard points.count >= minimumCount else {
            throw .malformed("\(what) needs at least \(minimumCount) points, got \(points.count)")
        }
        return (points.map { $0.coordinate }, first.spatialReference)
    }
}

/// An ordered collection of points in one spatial reference.
public struct Multipoint: Sendable, Hashable, Codable {
    /// The points' coordinates.
    public var coordinates: [Coordinate]
    /// The spatial reference of every coordinate.
    public var spatialReference: SpatialReference

    /// Creates a multipoint.
    /// - Parameters:
    ///   - coordinates: The points' coordinates.
    ///   - spatialReference: Their coordinate system.
    public init(_ coordinates: [Coordinate], spatialReference: SpatialReference) {
        self.coordinates = coordinates
        self.spatialReference = spatialReference
    }

    /// Creates a multipoint from points, which must share one spatial reference.
    /// - Parameter points: At least one point.
    /// - Throws: `GeometryError.mixedSpatialReferences` or `.empty`.
    public init(points: [Point]) throws {
        let (coordinates, spatialReference) = try Point.shared(points, in: "a multipoint", minimumCount: 1)
        self.init(coordinates, spatialReference: spatialReference)
    }

    /// The points, each with the multipoint's spatial reference.
    public var points: [Point] { coordinates.map { Point($0, spatialReference: spatialReference) } }
}

/// One or more paths (parts), each a sequence of at least two vertices.
public struct Polyline: Sendable, Hashable, Codable {
    /// The paths; a simple line has one.
    public var parts: [[Coordinate]]
    /// The spatial reference of every vertex.
    public var spatialReference: SpatialReference

    /// Creates a polyline from parts.
    /// - Parameters:
    ///   - parts: Paths of at least two vertices each.
    ///   - spatialReference: Their coordinate system.
    public init(parts: [[Coordinate]], spatialReference: SpatialReference) {
        self.parts = parts
        self.spatialReference = spatialReference
    }

    /// Creates a one-part polyline.
    /// - Parameters:
    ///   - coordinates: The path's vertices.
    ///   - spatialReference: Their coordinate system.
    public init(_ coordinates: [Coordinate], spatialReference: SpatialReference) {
        self.init(parts: [coordinates], spatialReference: spatialReference)
    }

    /// Creates a one-part polyline through points, which must share one spatial reference (as
    /// ``Multipoint/init(points:)``).
    /// - Parameter points: The path's vertices in order, at least two.
    /// - Throws: `GeometryError.empty` for no points, `.malformed` for one, `.mixedSpatialReferences`.
    public init(points: [Point]) throws {
        let (coordinates, spatialReference) = try Point.shared(points, in: "a polyline", minimumCount: 2)
        self.init(coordinates, spatialReference: spatialReference)
    }
}

/// An area: one or more parts, each an outer ring (shell) with optional holes.
///
/// Rings are closed (first vertex equals last). Meridian writes shells counter-clockwise and holes clockwise
/// (RFC 7946 §3.1.6) and accepts either orientation on input.
public struct Polygon: Sendable, Hashable, Codable {
    /// One connected area: a shell and the holes inside it.
    public struct Part: Sendable, Hashable, Codable {
        /// The outer ring, closed.
        public var shell: [Coordinate]
        /// Inner rings, closed, each inside `shell`.
        public var holes: [[Coordinate]]

        /// Creates a part.
        /// - Parameters:
        ///   - shell: The outer ring (closed, or closed automatically by the engine).
        ///   - holes: Inner rings.
        public init(shell: [Coordinate], holes: [[Coordinate]] = []) {
            self.shell = shell
            self.holes = holes
        }

        /// The shell followed by the holes.
        public var rings: [[Coordinate]] { [shell] + holes }
    }

    /// The polygon's parts (a simple polygon has one; a unioned buffer may have many).
    public var parts: [Part]
    /// The spatial reference of every vertex.
    public var spatialReference: SpatialReference

    /// Creates a polygon from parts.
    /// - Parameters:
    ///   - parts: Areas, each a shell with holes.
    ///   - spatialReference: Their coordinate system.
    public init(parts: [Part], spatialReference: SpatialReference) {
        self.parts = parts
        self.spatialReference = spatialReference
    }

    /// Creates a one-part polygon.
    /// - Parameters:
    ///   - shell: The outer ring; it is closed for you if its last vertex differs from the first.
    ///   - holes: Inner rings.
    ///   - spatialReference: Their coordinate system.
    public init(shell: [Coordinate], holes: [[Coordinate]] = [], spatialReference: SpatialReference) {
        self.init(parts: [Part(shell: Polygon.closed(shell), holes: holes.map(Polygon.closed))],
                  spatialReference: spatialReference)
    }

    /// Creates a one-part polygon without holes from the points of its outer ring, which must share one spatial
    /// reference (as ``Multipoint/init(points:)``); the ring is closed for you if the last point differs from the
    /// first.
    /// - Parameter points: The ring's vertices in order, at least three (not counting a closing repeat of the first).
    /// - Throws: `GeometryError.empty` for no points, `.malformed` for fewer than three, `.mixedSpatialReferences`.
    public init(points: [Point]) throws {
        var ring = points
        if ring.count > 1, let first = ring.first, let last = ring.last, first.x == last.x, first.y == last.y,
           first.spatialReference == last.spatialReference {
            ring.removeLast()
        }
        let (coordinates, spatialReference) = try Point.shared(ring, in: "a polygon", minimumCount: 3)
        self.init(shell: coordinates, spatialReference: spatialReference)
    }

    /// All rings of all parts, shells and holes.
    public var rings: [[Coordinate]] { parts.flatMap { $0.rings } }

    /// The total number of vertices over every ring.
    public var vertexCount: Int { parts.reduce(0) { $0 + $1.shell.count + $1.holes.reduce(0) { $0 + $1.count } } }

    /// A ring with its first vertex repeated at the end if it was not already.
    /// - Parameter ring: Any ring.
    public static func closed(_ ring: [Coordinate]) -> [Coordinate] {
        var closed = ring
        close(&closed)
        return closed
    }

    /// Repeats a ring's first vertex at its end if it is not already there (in place: `closed(_:)` without a copy
    /// when the ring is uniquely held).
    /// - Parameter ring: Any ring.
    public static func close(_ ring: inout [Coordinate]) {
        guard let first = ring.first, let last = ring.last, first.x != last.x || first.y != last.y else { return }
        ring.append(first)
    }

    /// Twice the signed planar area of a ring (shoelace): positive when counter-clockwise.
    /// - Parameter ring: A closed ring.
    public static func signedArea(_ ring: [Coordinate]) -> Double {
        ring.withUnsafeBufferPointer { signedArea($0) }
    }

    /// `signedArea(_:)` of a ring held in memory the caller owns.
    /// - Parameter ring: A closed ring.
    public static func signedArea(_ ring: UnsafeBufferPointer<Coordinate>) -> Double {
        guard ring.count > 2 else { return 0 }
        var sum = 0.0
        let x0 = ring[0].x, y0 = ring[0].y  // shift for precision
        for i in 0..<(ring.count - 1) {
            sum += (ring[i].x - x0) * (ring[i + 1].y - y0) - (ring[i + 1].x - x0) * (ring[i].y - y0)
        }
        return sum / 2
    }
}

/// An axis-aligned rectangle.
public struct Envelope: Sendable, Hashable, Codable {
    /// Smallest x (west).
    public var xMin: Double
    /// Smallest y (south).
    public var yMin: Double
    /// Largest x (east).
    public var xMax: Double
    /// Largest y (north).
    public var yMax: Double
    /// The spatial reference of the bounds.
    public var spatialReference: SpatialReference

    /// Creates an envelope.
    /// - Parameters:
    ///   - xMin: Smallest x, in the spatial reference's unit (degrees of longitude when geographic).
    ///   - yMin: Smallest y, in the spatial reference's unit (degrees of latitude when geographic).
    ///   - xMax: Largest x, at least `xMin` for a non-empty envelope.
    ///   - yMax: Largest y, at least `yMin` for a non-empty envelope.
    ///   - spatialReference: The coordinate system of the bounds.
    public init(xMin: Double, yMin: Double, xMax: Double, yMax: Double, spatialReference: SpatialReference) {
        self.xMin = xMin
        self.yMin = yMin
        self.xMax = xMax
        self.yMax = yMax
        self.spatialReference = spatialReference
    }

    /// Creates an envelope from its corners.
    /// - Parameters:
    ///   - southWest: The corner with the smallest x and y.
    ///   - northEast: The corner with the largest x and y; both corners must share a spatial reference.
    public init(southWest: Point, northEast: Point) {
        self.init(xMin: southWest.x, yMin: southWest.y, xMax: northEast.x, yMax: northEast.y,
                  spatialReference: southWest.spatialReference)
    }

    /// Width (xMax − xMin).
    public var width: Double { xMax - xMin }
    /// Height (yMax − yMin).
    public var height: Double { yMax - yMin }

    /// The envelope as a counter-clockwise rectangle.
    public var polygon: Polygon {
        Polygon(shell: [Coordinate(x: xMin, y: yMin), Coordinate(x: xMax, y: yMin), Coordinate(x: xMax, y: yMax),
                        Coordinate(x: xMin, y: yMax), Coordinate(x: xMin, y: yMin)],
                spatialReference: spatialReference)
    }

    /// Whether a coordinate lies inside or on the boundary.
    /// - Parameter c: A coordinate in the envelope's spatial reference.
    public func contains(_ c: Coordinate) -> Bool { c.x >= xMin && c.x <= xMax && c.y >= yMin && c.y <= yMax }

    /// The smallest envelope around some coordinates, or `nil` when there are none.
    /// - Parameters:
    ///   - coordinates: Any coordinates.
    ///   - spatialReference: Their coordinate system.
    public init?<S: Sequence>(around coordinates: S, spatialReference: SpatialReference) where S.Element == Coordinate {
        var xMin = Double.infinity, yMin = Double.infinity, xMax = -Double.infinity, yMax = -Double.infinity
        for c in coordinates {
            xMin = Swift.min(xMin, c.x); yMin = Swift.min(yMin, c.y)
            xMax = Swift.max(xMax, c.x); yMax = Swift.max(yMax, c.y)
        }
        guard xMin <= xMax, yMin <= yMax else { return nil }
        self.init(xMin: xMin, yMin: yMin, xMax: xMax, yMax: yMax, spatialReference: spatialReference)
    }
}

// MARK: - Short descriptions (the default print dumps every coordinate)

extension Point: CustomStringConvertible {
    /// `Point(x: …, y: …[, z: …], <spatial reference>)`.
    public var description: String {
        "Point(x: \(x), y: \(y)\(z.map { ", z: \($0)" } ?? ""), \(spatialReference))"
    }
}

extension Multipoint: CustomStringConvertible {
    /// `Multipoint(<n> points, <spatial reference>)`.
    public var description: String { "Multipoint(\(counted(coordinates.count, "point")), \(spatialReference))" }
}

extension Polyline: CustomStringConvertible {
    /// `Polyline(<parts>, <vertices>, <spatial reference>)`.
    public var description: String {
        "Polyline(\(counted(parts.count, "part")), "
            + "\(counted(parts.reduce(0) { $0 + $1.count }, "vertex", "vertices")), \(spatialReference))"
    }
}

extension Polygon: CustomStringConvertible {
    /// `Polygon(<parts>, <holes>, <vertices>, <spatial reference>)`.
    public var description: String {
        "Polygon(\(counted(parts.count, "part")), "
            + "\(counted(parts.reduce(0) { $0 + $1.holes.count }, "hole")), "
            + "\(counted(vertexCount, "vertex", "vertices")), \(spatialReference))"
    }
}

extension Envelope: CustomStringConvertible {
    /// `Envelope(xMin: …, yMin: …, xMax: …, yMax: …, <spatial reference>)`.
    public var description: String {
        "Envelope(xMin: \(xMin), yMin: \(yMin), xMax: \(xMax), yMax: \(yMax), \(spatialReference))"
    }
}

/// "1 point", "2 points".
private func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}
