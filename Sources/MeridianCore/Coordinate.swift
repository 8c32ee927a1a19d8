/// One vertex: an x/y pair with an optional z, in the units of the geometry's spatial reference.
///
/// In a geographic spatial reference `x` is the longitude and `y` the latitude, in degrees (RFC 7946 order).
///
/// Mixed dimensions, one rule: a geometry has heights only when every one of its vertices has one. The GeoJSON
/// reader drops the heights of a geometry whose positions mix 2 and 3 numbers (all of them, never some); the WKT
/// reader refuses such a geometry (its grammar fixes the dimension); the WKT writer writes such a geometry (KML
/// allows each tuple its own dimension) in 2-D. Operations are planar or on the ellipsoid and ignore heights.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Easting, or longitude in degrees for geographic spatial references.
    public var x: Double
    /// Northing, or latitude in degrees for geographic spatial references.
    public var y: Double
    /// Height or elevation, if any, in the spatial reference's vertical unit (meters for WGS84).
    public var z: Double?

    /// Creates a vertex.
    /// - Parameters:
    ///   - x: Easting in the spatial reference's unit, or longitude in degrees in [-180, 180].
    ///   - y: Northing in the spatial reference's unit, or latitude in degrees in [-90, 90].
    ///   - z: Optional height in the spatial reference's vertical unit (meters for WGS84).
    public init(x: Double, y: Double, z: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Whether x, y (and z when present) are all finite numbers.
    public var isFinite: Bool { x.isFinite && y.isFinite && (z?.isFinite ?? true) }
}
