import Foundation
import MeridianCore

/// How the edges of geometries are interpreted on the ellipsoid by the geodetic operations.
public enum GeodeticCurveType: String, Sendable, Hashable, Codable, CaseIterable {
    /// The shortest path on the ellipsoid between two vertices (Karney's geodesics, as PROJ computes them).
    case geodesic
}

/// The result of ``GeometryEngine/geodeticDistance(from:to:distanceUnit:azimuthUnit:curveType:)``: the shortest
/// geodesic between two points (ArcGIS's `GeodeticDistanceResult`).
public struct GeodeticDistanceResult: Sendable, Hashable, Codable {
    /// The length of the geodesic, in `distanceUnit`; ≥ 0 and at most half the meridian (≈ 20,003.93 km on WGS84).
    public var distance: Double
    /// The unit of `distance`.
    public var distanceUnit: LinearUnit
    /// The azimuth of the geodesic at the first point, clockwise from north, in `azimuthUnit`: [-180, 180] in
    /// degrees (a half turn either way).
    public var azimuth1: Double
    /// The azimuth of the geodesic at the second point (the direction of travel, not the back azimuth), clockwise
    /// from north, in `azimuthUnit`: [-180, 180] in degrees.
    public var azimuth2: Double
    /// The unit of `azimuth1` and `azimuth2`.
    public var azimuthUnit: AngularUnit

    /// Creates a result.
    /// - Parameters:
    ///   - distance: Length in `distanceUnit`, ≥ 0.
    ///   - distanceUnit: The unit of `distance`.
    ///   - azimuth1: Azimuth clockwise from north at the first point, in `azimuthUnit`: [-180, 180] in degrees.
    ///   - azimuth2: Forward azimuth at the second point, clockwise from north, in `azimuthUnit`: [-180, 180] in
    ///     degrees.
    ///   - azimuthUnit: The unit of the azimuths.
    public init(distance: Double, distanceUnit: LinearUnit, azimuth1: Double, azimuth2: Double,
                azimuthUnit: AngularUnit) {
        self.distance = distance
        self.distanceUnit = distanceUnit
        self.azimuth1 = azimuth1
        self.azimuth2 = azimuth2
        self.azimuthUnit = azimuthUnit
    }
}

// MARK: - Measurements

extension GeometryEngine {
    /// The shortest geodesic between two points on the ellipsoid of the first point's spatial reference
    /// (the second point is projected into it first when the spatial references differ).
    /// - Parameters:
    ///   - point1: The start, in any geographic or projected spatial reference.
    ///   - point2: The end.
    ///   - distanceUnit: The unit of the returned distance (default meters).
    ///   - azimuthUnit: The unit of the returned azimuths (default degrees).
    ///   - curveType: How the path between the points is measured (`.geodesic`).
    /// - Returns: Distance (accurate to ~15 nm, Karney's algorithm in PROJ) and the azimuths at both ends.
    /// - Throws: `EngineError.badGeometry` for non-finite coordinates or latitudes outside [-90, 90],
    ///   `.projectionFailed`.
    public static func geodeticDistance(
        from point1: Point, to point2: Point, distanceUnit: LinearUnit = .meters,
        azimuthUnit: AngularUnit = .degrees, curveType: GeodeticCurveType = .geodesic
    ) throws(EngineError) -> GeodeticDistanceResult {
        let frame = try GeodeticFrame(input: point1.spatialReference, output: nil)
        let a = try geodeticVertices(of: point1.geometry, in: frame)[0][0]
        let b = try geodeticVertices(of: point2.geometry, in: frame)[0][0]
        let inv = frame.geodesic.inverse(a, b)
        return GeodeticDistanceResult(
            distance: LinearUnit.meters.convert(inv.distance, to: distanceUnit), distanceUnit: distanceUnit,
            azimuth1: AngularUnit.degrees.convert(inv.azimuth1, to: azimuthUnit),
            azimuth2: AngularUnit.degrees.convert(inv.azimuth2, to: azimuthUnit), azimuthUnit: azimuthUnit)
    }

    /// The geodesic length of a geometry on its spatial reference's ellipsoid: the sum of its edges, each taken as
    /// the shortest geodesic between its vertices. Polylines: the length of all parts; polygons and envelopes: the
    /// perimeter of every ring (holes included); points: 0. A longitude/latitude polygon's edges lying on ±180° are
    /// cuts, not boundary (RFC 7946 §3.1.9, as `geodeticBuffer` writes a buffer crossing the antimeridian and reads
    /// a polygon's): they do not count, so a circle split there has the perimeter of the whole circle (edges along
    /// ±90° have no length anyway).
    /// - Parameters:
    ///   - geometry: A geometry in a geographic or projected spatial reference.
    ///   - lengthUnit: The unit of the result (default meters).
    ///   - curveType: How edges are measured (`.geodesic`).
    /// - Returns: The length in `lengthUnit`, ≥ 0.
    /// - Throws: `EngineError.badGeometry`, `.projectionFailed`.
    public static func geodeticLength(
        of geometry: some GeometryConvertible, lengthUnit: LinearUnit = .meters,
        curveType: GeodeticCurveType = .geodesic
    ) throws(EngineError) -> Double {
        let g = geometry.geometry
        let frame = try GeodeticFrame(input: g.spatialReference, output: nil)
        var meters = 0.0
        switch g {
        case .point, .multipoint: return 0
        case .polyline:
            for path in try geodeticVertices(of: g, in: frame) { meters += frame.geodesic.pathLength(path) }
        case .polygon, .envelope:
            let planar: [[Coordinate]] = switch g {
            case .polygon(let p) where g.spatialReference.isGeographic: p.rings
            case .envelope(let e) where g.spatialReference.isGeographic: e.polygon.rings
            default: []
            }
            for (k, ring) in try geodeticVertices(of: g, in: frame).enumerated() {
                let closed = Polygon.closed(ring)
                guard planar.indices.contains(k) else {
                    meters += frame.geodesic.pathLength(closed)
                    continue
                }
                // Edges on ±180° (both ends at the same ±180 longitude in the input's own coordinates) are cuts.
                let input = Polygon.closed(planar[k])
                for i in 0..<(closed.count - 1) where !(abs(input[i].x) == 180 && input[i].x == input[i + 1].x) {
                    meters += frame.geodesic.distance(closed[i], closed[i + 1])
                }
            }
        }
        return LinearUnit.meters.convert(meters, to: lengthUnit)
    }

    /// The geodesic area of a polygon (or envelope) on its spatial reference's ellipsoid, edges taken as geodesics;
    /// 0 for points and lines.
    ///
    /// Ring orientation does not matter: each shell counts positively and each hole is subtracted. The inside of a
    /// ring is the side its own coordinates enclose: for longitude/latitude rings the region enclosed in the
    /// longitude/latitude plane (so a ring with an edge along ±90° contains that pole, and one ring may enclose more
    /// than half the ellipsoid); for projected rings the smaller of the two sides (< half the ellipsoid).
    /// - Parameters:
    ///   - geometry: A geometry in a geographic or projected spatial reference.
    ///   - unit: The unit of the result (default square meters), e.g. `.acres` or `.squareMiles`.
    ///   - curveType: How edges are measured (`.geodesic`).
    /// - Returns: Area in `unit`, in [0, area of the ellipsoid].
    /// - Throws: `EngineError.badGeometry`, `.projectionFailed`.
    public static func geodeticArea(
        of geometry: some GeometryConvertible, unit: AreaUnit = .squareMeters,
        curveType: GeodeticCurveType = .geodesic
    ) throws(EngineError) -> Double {
        let g = geometry.geometry
        let polygon: Polygon
        switch g {
        case .point, .multipoint, .polyline: return 0
        case .polygon(let p): polygon = p
        case .envelope(let e): polygon = e.polygon
        }
        let frame = try GeodeticFrame(input: g.spatialReference, output: nil)
        var total = 0.0
        for part in polygon.parts {
            let computed = try geodeticVertices(of: .polygon(Polygon(parts: [part], spatialReference: g.spatialReference)),
                                                in: frame)
            let planar = g.spatialReference.isGeographic ? part.rings : []
            for (i, ring) in computed.enumerated() {
                let a = ringArea(ring, planarRing: planar.isEmpty ? nil : planar[i], geodesic: frame.geodesic)
                total += i == 0 ? a : -a
            }
        }
        return AreaUnit.squareMeters.convert(max(0, total), to: unit)
    }

    /// The area enclosed by one ring of compute lon/lat (see `geodeticArea`).
    static func ringArea(_ ring: [Coordinate], planarRing: [Coordinate]?, geodesic: Geodesic) -> Double {
        let closed = Polygon.closed(ring)
        guard closed.count >= 4 else { return 0 }
        let s = geodesic.polygonArea(Array(closed.dropLast()), signed: true).area
        let total = geodesic.ellipsoidArea
        guard let planarRing else { return abs(s) }
        // Unwrap longitudes; a ring winding around a pole without an edge along ±90° has no planar inside.
        var unwrapped: [Coordinate] = []
        unwrapped.reserveCapacity(planarRing.count)
        for c in Polygon.closed(planarRing) {
            let x = unwrapped.last.map { prev in
                abs(prev.y) == 90 && abs(c.y) == 90 ? c.x : unwrappedLongitude(c.x, near: prev.x)
            } ?? c.x
            unwrapped.append(Coordinate(x: x, y: c.y))
        }
        if let f = unwrapped.first, let l = unwrapped.last, abs(l.x - f.x) > 1e-9 { return abs(s) }
        let planar = Polygon.signedArea(unwrapped)
        if planar == 0 { return abs(s) }
        if planar > 0 { return s >= 0 ? s : s + total }
        return s <= 0 ? -s : total - s
    }

    /// Densifies a geometry along geodesics: every edge longer than `maxSegmentLength` gets evenly spaced vertices
    /// on its geodesic so that no piece is longer than it. Input vertices are kept as they are; new vertices are
    /// computed on the ellipsoid and expressed in the geometry's own spatial reference (longitudes in [-180, 180]).
    /// - Parameters:
    ///   - geometry: A polyline, polygon or envelope (points are returned unchanged) in a geographic or projected
    ///     spatial reference.
    ///   - maxSegmentLength: The longest allowed piece, in `lengthUnit`; > 0.
    ///   - lengthUnit: The unit of `maxSegmentLength` (default meters).
    ///   - curveType: The curve new vertices are placed on (`.geodesic`).
    /// - Returns: The densified geometry, of the input's type (a `Geometry` holding an envelope becomes a polygon).
    /// - Throws: `EngineError.invalidDistance` for a non-positive length or one producing more than 10 million
    ///   vertices, `.badGeometry`, `.projectionFailed`.
    public static func geodeticDensify<G: VertexGeometry>(
        _ geometry: G, maxSegmentLength: Double, lengthUnit: LinearUnit = .meters,
        curveType: GeodeticCurveType = .geodesic
    ) throws(EngineError) -> G {
        try sameType(as: geometry, "geodeticDensify",
                     try geodeticDensified(geometry.geometry, maxSegmentLength: maxSegmentLength, lengthUnit: lengthUnit))
    }

    /// Densifies an envelope's rectangle along geodesics (see
    /// ``geodeticDensify(_:maxSegmentLength:lengthUnit:curveType:)-(G,_,_,_)``): the result is a polygon.
    /// - Parameters:
    ///   - envelope: The rectangle, in a geographic or projected spatial reference.
    ///   - maxSegmentLength: The longest allowed piece, in `lengthUnit`; > 0.
    ///   - lengthUnit: The unit of `maxSegmentLength` (default meters).
    ///   - curveType: The curve new vertices are placed on (`.geodesic`).
    /// - Throws: As the geometry form.
    public static func geodeticDensify(
        _ envelope: Envelope, maxSegmentLength: Double, lengthUnit: LinearUnit = .meters,
        curveType: GeodeticCurveType = .geodesic
    ) throws(EngineError) -> Polygon {
        try geodeticDensify(envelope.polygon, maxSegmentLength: maxSegmentLength, lengthUnit: lengthUnit,
                            curveType: curveType)
    }

    /// The geodesic densification of any geometry (an envelope as its polygon).
    private static func geodeticDensified(
        _ geometry: Geometry, maxSegmentLength: Double, lengthUnit: LinearUnit
    ) throws(EngineError) -> Geometry {
        var g = geometry
        if case .envelope(let e) = g { g = .polygon(e.polygon) }
        guard maxSegmentLength.isFinite, maxSegmentLength > 0 else {
            throw .invalidDistance("the maximum segment length must be a positive number, got \(maxSegmentLength)")
        }
        let step = lengthUnit.convert(maxSegmentLength, to: .meters)
        let frame = try GeodeticFrame(input: g.spatialReference, output: nil)
        let paths = try geodeticVertices(of: g, in: frame)
        let originals: [[Coordinate]]
        switch g {
        case .point, .multipoint, .envelope: return g
        case .polyline(let l): originals = l.parts
        case .polygon(let p): originals = p.rings.map(Polygon.closed)
        }
        var budget = 10_000_000
        var densified: [[Coordinate]] = []
        for (path, original) in zip(paths, originals) {
            let closedPath = original.count == path.count ? path : Polygon.closed(path)
            var out: [Coordinate] = []
            for i in closedPath.indices {
                out.append(original[i])
                guard i + 1 < closedPath.count else { break }
                let a = closedPath[i], b = closedPath[i + 1]
                if abs(a.y) == 90 && abs(b.y) == 90 { continue }  // an edge along a pole has no length
                let line = frame.geodesic.line(from: a, to: b)
                let n = Int((line.length / step).rounded(.up))
                guard n > 1 else { continue }
                budget -= n
                guard budget > 0 else {
                    throw .invalidDistance("a maximum segment length of \(maxSegmentLength) \(lengthUnit) would create more than 10 million vertices")
                }
                try WorkBudget.produce(vertices: n, by: "geodesic densify")
                var added: [Coordinate] = []
                for k in 1..<n {
                    var c = line.position(line.length * Double(k) / Double(n)).coordinate
                    c.x = normalizedLongitude(c.x)
                    added.append(c)
                }
                if g.spatialReference != frame.computeSR {
                    _ = try Transformation.between(frame.computeSR, g.spatialReference).transform(&added)
                }
                out += added
            }
            densified.append(out)
        }
        switch g {
        case .polyline(let l): return .polyline(Polyline(parts: densified, spatialReference: l.spatialReference))
        case .polygon(let p):
            var iterator = densified.makeIterator()
            let parts = p.parts.map { part in
                Polygon.Part(shell: iterator.next()!, holes: part.holes.map { _ in iterator.next()! })
            }
            return .polygon(Polygon(parts: parts, spatialReference: p.spatialReference))
        default: return g
        }
    }

    /// Moves points along geodesics: each point goes `distance` along `azimuth` on its spatial reference's
    /// ellipsoid (the direct geodesic problem).
    /// - Parameters:
    ///   - points: Points in any geographic or projected spatial reference.
    ///   - distance: How far, in `distanceUnit`; negative moves backwards (along `azimuth` + a half turn).
    ///   - distanceUnit: The unit of `distance` (default meters).
    ///   - azimuth: The direction clockwise from north, in `azimuthUnit` (any value; taken modulo a full turn).
    ///   - azimuthUnit: The unit of `azimuth` (default degrees).
    ///   - curveType: The path the points move along (`.geodesic`).
    /// - Returns: The moved points, in each input point's spatial reference (longitudes in [-180, 180]).
    /// - Throws: `EngineError.invalidDistance` for a non-finite distance or azimuth, `.badGeometry`,
    ///   `.projectionFailed`.
    public static func geodeticMove(
        _ points: [Point], distance: Double, distanceUnit: LinearUnit = .meters, azimuth: Double,
        azimuthUnit: AngularUnit = .degrees, curveType: GeodeticCurveType = .geodesic
    ) throws(EngineError) -> [Point] {
        guard distance.isFinite, azimuth.isFinite else {
            throw .invalidDistance("distance and azimuth must be finite, got \(distance) and \(azimuth)")
        }
        let meters = distanceUnit.convert(distance, to: .meters)
        let degrees = azimuthUnit.convert(azimuth, to: .degrees)
        var result: [Point] = []
        result.reserveCapacity(points.count)
        for p in points {
            let frame = try GeodeticFrame(input: p.spatialReference, output: nil)
            let c = try geodeticVertices(of: p.geometry, in: frame)[0][0]
            var moved = [frame.geodesic.move(c, azimuth: degrees, distance: meters)]
            if p.spatialReference != frame.computeSR {
                _ = try Transformation.between(frame.computeSR, p.spatialReference).transform(&moved)
            }
            result.append(Point(Coordinate(x: moved[0].x, y: moved[0].y, z: p.z), spatialReference: p.spatialReference))
        }
        return result
    }

    /// A geometry's vertices in the frame's compute lon/lat, one array per point, path or ring (rings as given),
    /// after checking they are finite and latitudes are within [-90, 90].
    static func geodeticVertices(of geometry: Geometry, in frame: GeodeticFrame) throws(EngineError) -> [[Coordinate]] {
        for c in geometry.coordinates where !c.isFinite {
            throw .badGeometry(.nonFiniteCoordinate("(\(c.x), \(c.y)) in a \(geometry.typeName.lowercased())"))
        }
        let g = try frame.computeCoordinates(of: geometry)
        let groups: [[Coordinate]]
        switch g {
        case .point(let p): groups = [[p.coordinate]]
        case .multipoint(let m): groups = m.coordinates.map { [$0] }
        case .polyline(let l): groups = l.parts
        case .polygon(let p): groups = p.rings
        case .envelope(let e): groups = e.polygon.rings
        }
        if groups.isEmpty || groups.contains(where: \.isEmpty) {
            throw .badGeometry(.empty("a \(geometry.typeName.lowercased()) without vertices"))
        }
        for group in groups {
            for c in group where !(c.y >= -90 && c.y <= 90) || !c.x.isFinite {
                throw .badGeometry(.malformed("latitude \(c.y) is outside [-90, 90]"))
            }
        }
        return groups
    }
}
