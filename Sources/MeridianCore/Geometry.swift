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

    /// The same shape with every coordinate transformed and a new spatial reference.
    /// - Parameters:
    ///   - spatialReference: The spatial reference of the transformed coordinates.
    ///   - transform: Maps each coordinate.
    public func mapCoordinates(
        into spatialReference: SpatialReference, _ transform: (Coordinate) throws -> Coordinate
    ) rethrows -> Geometry {
        switch self {
        case .point(let g): return .point(Point(try transform(g.coordinate), spatialReference: spatialReference))
        case .multipoint(let g): return .multipoint(Multipoint(try g.coordinates.map(transform), spatialReference: spatialReference))
        case .polyline(let g):
            return .polyline(Polyline(parts: try g.parts.map { try $0.map(transform) }, spatialReference: spatialReference))
        case .polygon(let g):
            return .polygon(Polygon(
                parts: try g.parts.map {
                    Polygon.Part(shell: try $0.shell.map(transform), holes: try $0.holes.map { try $0.map(transform) })
                },
                spatialReference: spatialReference))
        case .envelope(let g): return try Geometry.polygon(g.polygon).mapCoordinates(into: spatialReference, transform)
        }
    }

    /// The bounding box of all vertices, or `nil` for an empty geometry.
    public var envelope: Envelope? { Envelope(around: coordinates, spatialReference: spatialReference) }
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
