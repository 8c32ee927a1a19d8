/// Where a spatial reference is meant to be used, as PROJ's database records it: a name and a WGS84 box.
///
/// The box may cross the antimeridian, in which case `west > east`.
public struct AreaOfUse: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The area's name, e.g. "United States (USA) - Texas - counties of Andrews; Archer; …".
    public let name: String
    /// Western bound, degrees of longitude in [-180, 180].
    public let west: Double
    /// Southern bound, degrees of latitude in [-90, 90].
    public let south: Double
    /// Eastern bound, degrees of longitude in [-180, 180]; less than `west` when the box crosses ±180°.
    public let east: Double
    /// Northern bound, degrees of latitude in [-90, 90].
    public let north: Double

    /// Creates an area of use.
    /// - Parameters:
    ///   - name: The area's name.
    ///   - west: Western bound, degrees of longitude in [-180, 180].
    ///   - south: Southern bound, degrees of latitude in [-90, 90].
    ///   - east: Eastern bound, degrees of longitude in [-180, 180]; less than `west` when the box crosses ±180°.
    ///   - north: Northern bound, degrees of latitude in [-90, 90], at least `south`.
    public init(name: String, west: Double, south: Double, east: Double, north: Double) {
        self.name = name
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Whether a WGS84 longitude/latitude lies inside the box (edges included).
    /// - Parameters:
    ///   - longitude: Degrees, any value (normalised into [-180, 180)).
    ///   - latitude: Degrees in [-90, 90] (a value outside is never inside).
    public func contains(longitude: Double, latitude: Double) -> Bool {
        guard latitude >= south && latitude <= north else { return false }
        var lon = longitude.truncatingRemainder(dividingBy: 360)
        if lon < -180 { lon += 360 } else if lon > 180 { lon -= 360 }
        if west <= east { return lon >= west && lon <= east }
        return lon >= west || lon <= east
    }

    /// The box as a WGS84 envelope (for a box crossing ±180°, `xMax` is `east + 360`).
    public var envelope: Envelope {
        Envelope(xMin: west, yMin: south, xMax: west <= east ? east : east + 360, yMax: north, spatialReference: .wgs84)
    }

    /// The name, cut after 60 characters with "…" (a state plane zone's name lists every county), and the box:
    /// `Texas - counties of Andrews; Archer; … (west -103.07°, south 31.72°, east -94.0°, north 34.58°)`.
    public var description: String {
        let shortName = name.count > 60 ? name.prefix(60) + "…" : Substring(name)
        return "\(shortName) (west \(west)°, south \(south)°, east \(east)°, north \(north)°)"
    }
}
