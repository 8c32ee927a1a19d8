import MeridianCore
import MeridianEngine

/// How a geometry's altitudes are interpreted (KML `altitudeMode` and Google's `gx:altitudeMode`).
public enum KMLAltitudeMode: String, Sendable, Hashable, CaseIterable {
    /// On the terrain; altitudes are ignored (KML's default).
    case clampToGround
    /// Altitudes are meters above the terrain.
    case relativeToGround
    /// Altitudes are meters above sea level.
    case absolute
    /// On the sea floor (`gx:altitudeMode`).
    case clampToSeaFloor
    /// Altitudes are meters above the sea floor (`gx:altitudeMode`).
    case relativeToSeaFloor

    /// Whether the mode is a Google extension written as `<gx:altitudeMode>`.
    public var isGoogleExtension: Bool { self == .clampToSeaFloor || self == .relativeToSeaFloor }
}

/// A KML geometry: coordinates are WGS84 longitude, latitude and optional altitude in meters
/// (`Coordinate.x`, `.y`, `.z`).
///
/// Create one from any Meridian geometry with `init(geometry:altitudeMode:isExtruded:isTessellated:)`, which projects it
/// to WGS84 as ArcGIS's `AGSKMLGeometry(geometry:altitudeMode:)` expects its caller to.
public struct KMLGeometry: Sendable, Hashable {
    /// The geometry's shape.
    public indirect enum Shape: Sendable, Hashable {
        /// `<Point>`: one position.
        case point(Coordinate)
        /// `<LineString>`: a path.
        case lineString([Coordinate])
        /// `<LinearRing>`: a closed path.
        case linearRing([Coordinate])
        /// `<Polygon>`: an outer boundary (counter-clockwise when written by Meridian) and inner boundaries;
        /// all rings closed.
        case polygon(outerBoundary: [Coordinate], innerBoundaries: [[Coordinate]])
        /// `<MultiGeometry>`: several geometries.
        case multiGeometry([KMLGeometry])
        /// A geometry Meridian keeps as XML without modeling it (`gx:Track`, `gx:MultiTrack`, `Model`, or a
        /// non-KML element such as `MultiPolygon`).
        case unmodeled(KMLElement)
    }

    /// The shape and its coordinates.
    public var shape: Shape
    /// How altitudes are interpreted; `nil` when not written (KML then means clampToGround).
    public var altitudeMode: KMLAltitudeMode?
    /// Whether the geometry is connected to the ground by walls (`extrude`); `nil` when not written.
    public var isExtruded: Bool?
    /// Whether lines follow the terrain (`tessellate`, lines and polygons only); `nil` when not written.
    public var isTessellated: Bool?
    /// The element's `id` attribute.
    public var id: String?
    /// Child elements read but not modeled (e.g. `gx:drawOrder`, `gx:altitudeOffset`), written back in place.
    public var unmodeledElements: [KMLElement]

    /// Creates a geometry from a shape.
    /// - Parameters:
    ///   - shape: The shape, in WGS84 longitude/latitude.
    ///   - altitudeMode: Altitude interpretation, or `nil` to leave it unwritten.
    ///   - isExtruded: `extrude`, or `nil`.
    ///   - isTessellated: `tessellate`, or `nil`.
    ///   - id: Optional `id`.
    ///   - unmodeledElements: Preserved extra children.
    public init(shape: Shape, altitudeMode: KMLAltitudeMode? = nil, isExtruded: Bool? = nil,
                isTessellated: Bool? = nil, id: String? = nil, unmodeledElements: [KMLElement] = []) {
        self.shape = shape
        self.altitudeMode = altitudeMode
        self.isExtruded = isExtruded
        self.isTessellated = isTessellated
        self.id = id
        self.unmodeledElements = unmodeledElements
    }

    /// Creates a KML geometry from a Meridian geometry in any spatial reference, projected to WGS84 (ArcGIS's
    /// `KMLGeometry(geometry:altitudeMode:)`).
    ///
    /// A point becomes a `Point`; a multipoint, a `MultiGeometry` of points; a one-part polyline a `LineString`
    /// (several parts: a `MultiGeometry`); a one-part polygon or an envelope a `Polygon` whose outer ring is
    /// counter-clockwise and inner rings clockwise, all closed (several parts: a `MultiGeometry`). For several
    /// parts the altitude mode, extrude and tessellate flags go on each part, where KML reads them.
    /// - Parameters:
    ///   - geometry: Any geometry; projected with `GeometryEngine.project(_:into:)` unless already WGS84.
    ///   - altitudeMode: Altitude interpretation (default clampToGround, as the ArcGIS sample).
    ///   - isExtruded: Whether to extrude (default `false`: not written).
    ///   - isTessellated: Whether lines follow the terrain (lines and polygons; default `false`: not written).
    /// - Throws: `KMLError.invalidGeometry` for an empty geometry, a non-finite coordinate or a failed projection.
    public init(geometry: some GeometryConvertible, altitudeMode: KMLAltitudeMode? = .clampToGround,
                isExtruded: Bool = false, isTessellated: Bool = false) throws(KMLError) {
        let g: Geometry
        do {
            g = try GeometryEngine.project(geometry, into: .wgs84)
        } catch {
            throw .invalidGeometry("cannot project \(geometry.geometry.typeName) from "
                + "\(geometry.geometry.spatialReference) to WGS 84: \(error)")
        }
        guard !g.coordinates.isEmpty else { throw .invalidGeometry("the \(g.typeName) has no vertices") }
        if let bad = g.coordinates.first(where: { !$0.isFinite }) {
            throw .invalidGeometry("non-finite coordinate (\(bad.x), \(bad.y)) after projection to WGS 84")
        }
        let extrude: Bool? = isExtruded ? true : nil
        let tessellate: Bool? = isTessellated ? true : nil
        func leaf(_ shape: Shape) -> KMLGeometry {
            var t = tessellate
            if case .point = shape { t = nil }
            return KMLGeometry(shape: shape, altitudeMode: altitudeMode, isExtruded: extrude, isTessellated: t)
        }
        func polygonShape(_ part: Polygon.Part) -> Shape {
            let shell = Polygon.closed(part.shell)
            let outer = Polygon.signedArea(shell) < 0 ? Array(shell.reversed()) : shell
            let inner = part.holes.map { hole -> [Coordinate] in
                let r = Polygon.closed(hole)
                return Polygon.signedArea(r) > 0 ? Array(r.reversed()) : r
            }
            return .polygon(outerBoundary: outer, innerBoundaries: inner)
        }
        let parts: [Shape]
        switch g {
        case .point(let p): parts = [.point(p.coordinate)]
        case .multipoint(let m): parts = m.coordinates.map { .point($0) }
        case .polyline(let l):
            guard l.parts.allSatisfy({ $0.count >= 2 }) else { throw .invalidGeometry("a path has fewer than 2 vertices") }
            parts = l.parts.map { .lineString($0) }
        case .polygon(let p):
            guard p.rings.allSatisfy({ Polygon.closed($0).count >= 4 }) else {
                throw .invalidGeometry("a ring has fewer than 3 distinct vertices")
            }
            parts = p.parts.map(polygonShape)
        case .envelope(let e): parts = [polygonShape(e.polygon.parts[0])]
        }
        if parts.count == 1, case .multipoint = g {
            self.init(shape: .multiGeometry([leaf(parts[0])]))
        } else if parts.count == 1 {
            self = leaf(parts[0])
        } else {
            self.init(shape: .multiGeometry(parts.map(leaf)))
        }
    }

    /// Creates a `<Point>`.
    /// - Parameters:
    ///   - longitude: Degrees east.
    ///   - latitude: Degrees north.
    ///   - altitude: Optional meters.
    ///   - altitudeMode: Altitude interpretation.
    public static func point(longitude: Double, latitude: Double, altitude: Double? = nil,
                             altitudeMode: KMLAltitudeMode? = nil) -> KMLGeometry {
        KMLGeometry(shape: .point(Coordinate(x: longitude, y: latitude, z: altitude)), altitudeMode: altitudeMode)
    }

    /// The KML element name: `Point`, `LineString`, `LinearRing`, `Polygon`, `MultiGeometry`, or the preserved
    /// element's qualified name (e.g. `gx:Track`).
    public var typeName: String {
        switch shape {
        case .point: "Point"
        case .lineString: "LineString"
        case .linearRing: "LinearRing"
        case .polygon: "Polygon"
        case .multiGeometry: "MultiGeometry"
        case .unmodeled(let e): e.qualifiedName
        }
    }

    /// Every modeled coordinate (rings include their closing vertex; preserved elements contribute none).
    public var coordinates: [Coordinate] {
        switch shape {
        case .point(let c): [c]
        case .lineString(let cs), .linearRing(let cs): cs
        case .polygon(let outer, let inner): outer + inner.flatMap { $0 }
        case .multiGeometry(let gs): gs.flatMap { $0.coordinates }
        case .unmodeled: []
        }
    }

    /// The geometry as Meridian geometries in WGS84: one per leaf (a polygon part, a path, a point).
    public var geometries: [Geometry] {
        switch shape {
        case .point(let c): [.point(Point(c, spatialReference: .wgs84))]
        case .lineString(let cs), .linearRing(let cs): [.polyline(Polyline(cs, spatialReference: .wgs84))]
        case .polygon(let outer, let inner):
            [.polygon(Polygon(parts: [Polygon.Part(shell: outer, holes: inner)], spatialReference: .wgs84))]
        case .multiGeometry(let gs): gs.flatMap { $0.geometries }
        case .unmodeled: []
        }
    }

    /// The geometry as one Meridian geometry in WGS84: a `MultiGeometry` of points becomes a multipoint, of
    /// lines a multi-part polyline, of polygons a multi-part polygon; `nil` for mixed or preserved geometries.
    public var geometry: Geometry? {
        let leaves = geometries
        guard let first = leaves.first, case .multiGeometry = shape else {
            if case .unmodeled = shape { return nil }
            return leaves.first
        }
        switch first {
        case .point:
            var cs: [Coordinate] = []
            for l in leaves { guard case .point(let p) = l else { return nil }; cs.append(p.coordinate) }
            return .multipoint(Multipoint(cs, spatialReference: .wgs84))
        case .polyline:
            var parts: [[Coordinate]] = []
            for l in leaves { guard case .polyline(let p) = l else { return nil }; parts += p.parts }
            return .polyline(Polyline(parts: parts, spatialReference: .wgs84))
        case .polygon:
            var parts: [Polygon.Part] = []
            for l in leaves { guard case .polygon(let p) = l else { return nil }; parts += p.parts }
            return .polygon(Polygon(parts: parts, spatialReference: .wgs84))
        default: return nil
        }
    }

    /// The WGS84 bounding box of the modeled coordinates, or `nil` when there are none.
    public var envelope: Envelope? { Envelope(around: coordinates, spatialReference: .wgs84) }

    /// Counts of leaf geometries by KML type name (a `MultiGeometry` counts itself and its members).
    public var typeCounts: [String: Int] {
        var counts = [typeName: 1]
        if case .multiGeometry(let gs) = shape {
            for g in gs { counts.merge(g.typeCounts, uniquingKeysWith: +) }
        }
        return counts
    }
}
