import Foundation

/// A unit of length, defined by its exact size in meters.
///
/// The US survey foot is 1200/3937 m exactly (not 0.3048 m, the international foot); the difference, 2 ppm,
/// is 0.6 m over the 300 miles the seed sample allows.
public struct LinearUnit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unit's name, e.g. "US survey foot".
    public let name: String
    /// Meters in one unit (e.g. 0.3048 for the international foot).
    public let metersPerUnit: Double

    /// Creates a unit.
    /// - Parameters:
    ///   - name: A human-readable name.
    ///   - metersPerUnit: Meters in one unit; must be finite and positive.
    public init(name: String, metersPerUnit: Double) {
        self.name = name
        self.metersPerUnit = metersPerUnit
    }

    /// The meter.
    public static let meters = LinearUnit(name: "metre", metersPerUnit: 1)
    /// The kilometer, 1000 m.
    public static let kilometers = LinearUnit(name: "kilometre", metersPerUnit: 1000)
    /// The international foot, 0.3048 m.
    public static let feet = LinearUnit(name: "foot", metersPerUnit: 0.3048)
    /// The US survey foot, 1200/3937 m.
    public static let usSurveyFeet = LinearUnit(name: "US survey foot", metersPerUnit: 1200.0 / 3937.0)
    /// The international (statute) mile, 1609.344 m.
    public static let miles = LinearUnit(name: "mile", metersPerUnit: 1609.344)
    /// The US survey mile, 5280 US survey feet (6336/3937 km).
    public static let usSurveyMiles = LinearUnit(name: "US survey mile", metersPerUnit: 5280 * 1200.0 / 3937.0)
    /// The international nautical mile, 1852 m.
    public static let nauticalMiles = LinearUnit(name: "nautical mile", metersPerUnit: 1852)

    /// Converts a length in this unit to another unit.
    /// - Parameters:
    ///   - value: A length in this unit.
    ///   - unit: The target unit.
    /// - Returns: The same length expressed in `unit`.
    public func convert(_ value: Double, to unit: LinearUnit) -> Double {
        if self == unit { return value }
        return value * metersPerUnit / unit.metersPerUnit
    }

    /// The unit for a suffix or name as the CLI accepts it: `m`, `km`, `ft`, `us-ft`, `mi`, `us-mi`, `nmi`
    /// (and their spelled-out names); `nil` if unknown.
    public init?(symbol: String) {
        switch symbol.lowercased() {
        case "m", "meter", "meters", "metre", "metres": self = .meters
        case "km", "kilometer", "kilometers", "kilometre", "kilometres": self = .kilometers
        case "ft", "foot", "feet": self = .feet
        case "us-ft", "usft", "ftus", "us-foot", "us-feet", "survey-ft": self = .usSurveyFeet
        case "mi", "mile", "miles": self = .miles
        case "us-mi", "usmi": self = .usSurveyMiles
        case "nmi", "nautical-mile", "nautical-miles": self = .nauticalMiles
        default: return nil
        }
    }

    public var description: String { name }
}
