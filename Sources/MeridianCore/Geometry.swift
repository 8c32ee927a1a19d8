/// Any Meridian geometry.
public enum Geometry: Sendable, Hashable, Codable {
    /// A single location.
    case point(Point)
    /// Several locations.
    case multipoint(Multipoint)
    /// One or more paths.
    case polyline(Polyline)
    /// One or more areas.
    case polygon(Polygon)
    /// A rectangle.
    case envelope(Envelope)

    /// The spatial reference of the wrapped geometry.
    public var spatialReference: SpatialReference {
        switch self {
        case .point(let g): g.spatialReference
        case .multipoint(let g): g.spatialReference
        case .polyline(let g): g.spatialReference
        case .polygon(let g): g.spatialReference
        case .envelope(let g): g.spatialReference
        }
    }

    /// Whether the geometry is in `sr` (`spatialReference == sr`, without copying the spatial reference out: a check
    /// of many geometries retains nothing).
    /// - Parameter sr: Any spatial reference.
    public func isIn(_ sr: SpatialReference) -> Bool {
        switch self {
        case .point(let g): g.spatialReference == sr
        case .multipoint(let g): g.spatialReference == sr
        case .polyline(let g): g.spatialReference == sr
        case .polygon(let g): g.spatialReference == sr
        case .envelope(let g): g.spatialReference == sr
        }
    }

    /// The coordinate of a point, nil for the other geometries: read without copying the point (nor retaining its
    /// spatial reference), for loops over many points.
    public var pointCoordinate: Coordinate? {
        if case .point(let p) = self { return p.coordinate }
        return nil
    }

    /// The geometry type's name as in GeoJSON/ArcGIS terms: "Point", "Multipoint", "Polyline", "Polygon", "Envelope".
    public var typeName: String {
        switch self {
        case .point: "Point"
        case .multipoint: "Multipoint"
        case .polyline: "Polyline"
        case .polygon: "Polygon"
        case .envelope: "Envelope"
        }
    }

    /// The topological dimension of the geometry's type: 0 for points and multipoints, 1 for polylines, 2 for
    /// polygons and envelopes (ArcGIS `Geometry.dimension`: point, curve, area).
    public var dimension: Int {
        switch self {
        case .point, .multipoint: 0
        case .polyline: 1
        case .polygon, .envelope: 2
        }
    }

    /// Whether the geometry covers an area: a polygon or an envelope (points and lines do not).
    public var isAreal: Bool {
        switch self {
        case .polygon, .envelope: true
        case .point, .multipoint, .polyline: false
        }
    }

    /// Every vertex, in order (rings include their closing vertex).
    public var coordinates: [Coordinate] {
        switch self {
        case .point(let g): [g.coordinate]
        case .multipoint(let g): g.coordinates
        case .polyline(let g): g.parts.flatMap { $0 }
        case .polygon(let g): g.rings.flatMap { $0 }
        case .envelope(let g): g.polygon.rings[0]
        }
    }

    /// The same shape with every coordinate transformed and a new spatial reference; an envelope becomes its
    /// polygon (a transformed rectangle is in general no longer axis-aligned).
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinates.
    ///   - transform: Maps each coordinate.
    public func mapCoordinates(
        into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate
    ) rethrows -> Geometry {
        switch self {
        case .point(let g): .point(try g.mapCoordinates(into: spatialReference, transform))
        case .multipoint(let g): .multipoint(try g.mapCoordinates(into: spatialReference, transform))
        case .polyline(let g): .polyline(try g.mapCoordinates(into: spatialReference, transform))
        case .polygon(let g): .polygon(try g.mapCoordinates(into: spatialReference, transform))
        case .envelope(let g): .polygon(try g.polygon.mapCoordinates(into: spatialReference, transform))
        }
    }

    /// The bounding box of all vertices (ArcGIS `extent`), or `nil` for an empty geometry.
    public var extent: Envelope? { Envelope(around: coordinates, spatialReference: spatialReference) }

    /// The point, if this geometry is one; else `nil`.
    public var point: Point? { if case .point(let g) = self { g } else { nil } }
    /// The multipoint, if this geometry is one; else `nil`.
    public var multipoint: Multipoint? { if case .multipoint(let g) = self { g } else { nil } }
    /// The polyline, if this geometry is one; else `nil`.
    public var polyline: Polyline? { if case .polyline(let g) = self { g } else { nil } }
    /// The polygon, if this geometry is one; else `nil` (an envelope is not converted: use ``Envelope/polygon``).
    public var polygon: Polygon? { if case .polygon(let g) = self { g } else { nil } }
    /// The envelope, if this geometry is one; else `nil` (the bounding box of any geometry is ``extent``).
    public var envelope: Envelope? { if case .envelope(let g) = self { g } else { nil } }
}

/// A concrete geometry type that operations acting vertex by vertex give back as the same type: ``Point``,
/// ``Multipoint``, ``Polyline`` and ``Polygon``.
///
/// `GeometryEngine.project(_:into:)`, `move`, `rotate`, `scale`, `densify`, `generalize` and `simplify` are generic
/// over it, so `let p: Polygon = try GeometryEngine.project(polygon, into: sr)` compiles. ``Envelope`` is not one:
/// a rectangle projected, rotated or scaled about a point is in general no longer axis-aligned, so those operations
/// return a ``Polygon`` for it (moving keeps an envelope). ``Geometry`` is one too: a `Geometry` in, a `Geometry`
/// out, a wrapped envelope treated as a bare ``Envelope`` is.
public protocol VertexGeometry: GeometryConvertible, Hashable {
    /// The value wrapped in a `Geometry` of this type, or `nil` for another type (`Polygon(.polygon(p))` is `p`;
    /// `Polygon(.envelope(e))` is `nil`).
    /// - Parameter geometry: Any geometry.
    init?(_ geometry: Geometry)

    /// The same shape with every vertex transformed and a new spatial reference.
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinates.
    ///   - transform: Maps each vertex.
    func mapCoordinates(into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate)
        rethrows -> Self
}

/// A value that can be viewed as a `Geometry`.
public protocol GeometryConvertible: Sendable {
    /// This value as a `Geometry`.
    var geometry: Geometry { get }
}

extension Geometry: GeometryConvertible {
    /// Itself.
    public var geometry: Geometry { self }
}

extension Geometry: VertexGeometry {
    /// The geometry itself (every geometry is a `Geometry`).
    /// - Parameter geometry: Any geometry.
    public init?(_ geometry: Geometry) { self = geometry }
}
extension Point: GeometryConvertible {
    /// `.point(self)`.
    public var geometry: Geometry { .point(self) }
}
extension Multipoint: GeometryConvertible {
    /// `.multipoint(self)`.
    public var geometry: Geometry { .multipoint(self) }
}
extension Polyline: GeometryConvertible {
    /// `.polyline(self)`.
    public var geometry: Geometry { .polyline(self) }
}
extension Polygon: GeometryConvertible {
    /// `.polygon(self)`.
    public var geometry: Geometry { .polygon(self) }
}
extension Envelope: GeometryConvertible {
    /// `.envelope(self)`.
    public var geometry: Geometry { .envelope(self) }
}

extension Point: VertexGeometry {
    /// The point in `geometry`, or `nil` when it holds another type.
    /// - Parameter geometry: Any geometry.
    public init?(_ geometry: Geometry) {
        guard let g = geometry.point else { return nil }
        self = g
    }

    /// The point with its coordinate transformed.
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinate.
    ///   - transform: Maps the coordinate.
    public func mapCoordinates(
        into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate
    ) rethrows -> Point {
        Point(try transform(coordinate), spatialReference: spatialReference)
    }
}

extension Multipoint: VertexGeometry {
    /// The multipoint in `geometry`, or `nil` when it holds another type.
    /// - Parameter geometry: Any geometry.
    public init?(_ geometry: Geometry) {
        guard let g = geometry.multipoint else { return nil }
        self = g
    }

    /// The multipoint with every point transformed.
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinates.
    ///   - transform: Maps each coordinate.
    public func mapCoordinates(
        into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate
    ) rethrows -> Multipoint {
        Multipoint(try coordinates.map(transform), spatialReference: spatialReference)
    }
}

extension Polyline: VertexGeometry {
    /// The polyline in `geometry`, or `nil` when it holds another type.
    /// - Parameter geometry: Any geometry.
    public init?(_ geometry: Geometry) {
        guard let g = geometry.polyline else { return nil }
        self = g
    }

    /// The polyline with every vertex transformed, parts kept.
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinates.
    ///   - transform: Maps each vertex.
    public func mapCoordinates(
        into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate
    ) rethrows -> Polyline {
        Polyline(parts: try parts.map { try $0.map(transform) }, spatialReference: spatialReference)
    }
}

extension Polygon: VertexGeometry {
    /// The polygon in `geometry`, or `nil` when it holds another type (an envelope included).
    /// - Parameter geometry: Any geometry.
    public init?(_ geometry: Geometry) {
        guard let g = geometry.polygon else { return nil }
        self = g
    }

    /// The polygon with every vertex transformed, parts and holes kept.
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinates.
    ///   - transform: Maps each vertex.
    public func mapCoordinates(
        into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate
    ) rethrows -> Polygon {
        Polygon(
            parts: try parts.map { Part(shell: try $0.shell.map(transform), holes: try $0.holes.map { try $0.map(transform) }) },
            spatialReference: spatialReference)
    }
}

extension Geometry: CustomStringConvertible {
    /// The wrapped geometry's short description, e.g. `Polygon(1 part, 0 holes, 5 vertices, WGS 84 (EPSG:4326))`.
    public var description: String {
        switch self {
        case .point(let g): g.description
        case .multipoint(let g): g.description
        case .polyline(let g): g.description
        case .polygon(let g): g.description
        case .envelope(let g): g.description
        }
    }
}
