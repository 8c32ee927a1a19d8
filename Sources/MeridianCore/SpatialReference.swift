/// A coordinate reference system, identified by the definition PROJ understands, with the facts about it that
/// Meridian needs: its name, whether it is geographic or projected, its unit and its area of use.
///
/// Values are created from a code, WKT or PROJ string by the initialisers in `MeridianEngine`
/// (`SpatialReference(wkid:)`, `SpatialReference(code:)`, `SpatialReference(wkt:)`, `SpatialReference(projString:)`),
/// which ask PROJ's database. `.wgs84` and `.webMercator` are always available.
///
/// Two spatial references are equal when their definitions are equal.
public struct SpatialReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of coordinate system this is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Longitude/latitude in angular units on an ellipsoid.
        case geographic
        /// Easting/northing in a linear unit on a map projection.
        case projected
        /// Anything else PROJ can describe (geocentric, engineering, compound, …).
        case other
    }

    /// The seven facts; their synthesized `Codable` is the spatial reference's encoded form.
    private struct Facts: Codable, Sendable {
        let definition: String
        let wkid: Int?
        let name: String
        let kind: Kind
        let unit: LinearUnit?
        let ellipsoid: Ellipsoid
        let areaOfUse: AreaOfUse?
    }

    /// The facts, held once and shared by every copy: a geometry carries its spatial reference, so a copy of a
    /// point costs one reference instead of the strings and numbers of `Facts`.
    private final class Storage: Sendable {
        let facts: Facts
        init(_ facts: Facts) { self.facts = facts }
    }

    private let storage: Storage

    /// This spatial reference with storage of its own: equal to it in every way, but reference-counted apart. A
    /// reader gives each batch of features its own, so the geometries of a batch made on one thread and searched
    /// on another do not all retain and release the one object every other thread's geometries do at once (the
    /// contention of a shared reference count).
    public var unshared: SpatialReference { SpatialReference(storage: Storage(storage.facts)) }

    private init(storage: Storage) { self.storage = storage }

    /// The definition given to PROJ: `EPSG:4326`, `ESRI:102003`, a WKT string or a PROJ string.
    public var definition: String { storage.facts.definition }
    /// The numeric well-known ID when the definition is an EPSG or ESRI code, else `nil`.
    public var wkid: Int? { storage.facts.wkid }
    /// The name PROJ gives, e.g. "NAD27 / Texas North Central".
    public var name: String { storage.facts.name }
    /// Geographic, projected or other.
    public var kind: Kind { storage.facts.kind }
    /// The linear unit of a projected system's axes (for geographic systems `nil`: their axes are in degrees).
    public var unit: LinearUnit? { storage.facts.unit }
    /// The semi-major axis and inverse flattening of the ellipsoid (inverse flattening 0 for a sphere).
    public var ellipsoid: Ellipsoid { storage.facts.ellipsoid }
    /// Where the system is meant to be used, if PROJ's database knows.
    public var areaOfUse: AreaOfUse? { storage.facts.areaOfUse }

    /// Creates a spatial reference from facts already known. Use the throwing initialisers in `MeridianEngine`
    /// to create one from a code; this one exists for the engine and for decoding.
    /// - Parameters:
    ///   - definition: What PROJ accepts to create the system.
    ///   - wkid: The EPSG/ESRI code, if any.
    ///   - name: The system's name.
    ///   - kind: Geographic, projected or other.
    ///   - unit: The linear unit of the axes (projected systems).
    ///   - ellipsoid: The ellipsoid of its datum.
    ///   - areaOfUse: Its area of use.
    public init(
        definition: String, wkid: Int?, name: String, kind: Kind, unit: LinearUnit?, ellipsoid: Ellipsoid,
        areaOfUse: AreaOfUse?
    ) {
        storage = Storage(Facts(definition: definition, wkid: wkid, name: name, kind: kind, unit: unit,
                                ellipsoid: ellipsoid, areaOfUse: areaOfUse))
    }

    /// Decodes the facts (each by name; `wkid`, `unit` and `areaOfUse` may be absent).
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing or mistyped value.
    public init(from decoder: any Decoder) throws {
        storage = Storage(try Facts(from: decoder))
    }

    /// Encodes the facts, each by name (absent optionals left out).
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        try storage.facts.encode(to: encoder)
    }

    /// Whether coordinates are longitude/latitude in degrees.
    public var isGeographic: Bool { kind == .geographic }
    /// Whether coordinates are easting/northing in a linear unit.
    public var isProjected: Bool { kind == .projected }

    /// WGS 84 (EPSG:4326), with coordinates in longitude, latitude order (RFC 7946, KML, GeoJSON).
    public static let wgs84 = SpatialReference(
        definition: "EPSG:4326", wkid: 4326, name: "WGS 84", kind: .geographic, unit: nil, ellipsoid: .wgs84,
        areaOfUse: AreaOfUse(name: "World.", west: -180, south: -90, east: 180, north: 90))

    /// WGS 84 / Pseudo-Mercator (EPSG:3857), the Web Mercator of web maps, in meters.
    public static let webMercator = SpatialReference(
        definition: "EPSG:3857", wkid: 3857, name: "WGS 84 / Pseudo-Mercator", kind: .projected, unit: .meters,
        ellipsoid: .wgs84,
        areaOfUse: AreaOfUse(name: "World between 85.06°S and 85.06°N.", west: -180, south: -85.06, east: 180, north: 85.06))

    /// No spatial reference: plain planar coordinates (CAD drawings, local grids, test figures), like an ArcGIS
    /// geometry whose spatial reference is nil. Planar operations work on them in their own unit (GEOS does not
    /// look at the spatial reference); anything that needs to know where the coordinates are on the Earth —
    /// projection, geodesic operations, distances given with a unit — throws
    /// `EngineError.spatialReferenceRequired`. It has no area of use; its ellipsoid is a placeholder never used.
    public static let unspecified = SpatialReference(
        definition: "", wkid: nil, name: "unspecified", kind: .other, unit: nil, ellipsoid: .wgs84, areaOfUse: nil)

    /// Whether this is ``unspecified``: plain planar coordinates with no place on the Earth.
    public var isUnspecified: Bool { definition.isEmpty }

    public var description: String { wkid == nil ? name : "\(name) (\(definition))" }

    public static func == (lhs: SpatialReference, rhs: SpatialReference) -> Bool {
        lhs.storage === rhs.storage || lhs.definition == rhs.definition
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(definition) }
}

/// An ellipsoid of revolution, by its semi-major axis and flattening.
public struct Ellipsoid: Sendable, Hashable, Codable {
    /// Equatorial radius in meters.
    public let semiMajorAxis: Double
    /// Flattening f = (a − b)/a; 0 for a sphere.
    public let flattening: Double

    /// Creates an ellipsoid.
    /// - Parameters:
    ///   - semiMajorAxis: Equatorial radius in meters (> 0).
    ///   - flattening: f = (a − b)/a, in [0, 1).
    public init(semiMajorAxis: Double, flattening: Double) {
        self.semiMajorAxis = semiMajorAxis
        self.flattening = flattening
    }

    /// WGS 84: a = 6378137 m, 1/f = 298.257223563.
    public static let wgs84 = Ellipsoid(semiMajorAxis: 6_378_137, flattening: 1 / 298.257223563)
}
