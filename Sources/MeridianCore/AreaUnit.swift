import Foundation

/// A unit of area, defined by its exact size in square meters.
///
/// Meridian gives every measured quantity as a `Double` with a unit value type beside it: lengths with
/// ``LinearUnit``, areas with ``AreaUnit``, angles with ``AngularUnit`` (as ArcGIS does). Planar operations measure in
/// the spatial reference's own unit (its ``LinearUnit`` and that unit squared), so they take and return plain numbers.
public struct AreaUnit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unit's name, e.g. "square kilometre".
    public let name: String
    /// Square meters in one unit (e.g. 10,000 for the hectare).
    public let squareMetersPerUnit: Double

    /// Creates a unit.
    /// - Parameters:
    ///   - name: A human-readable name.
    ///   - squareMetersPerUnit: Square meters in one unit; must be finite and positive.
    public init(name: String, squareMetersPerUnit: Double) {
        self.name = name
        self.squareMetersPerUnit = squareMetersPerUnit
    }

    /// The square of a length unit, e.g. `AreaUnit(squareOf: .usSurveyFeet)`.
    /// - Parameter unit: The side's unit.
    public init(squareOf unit: LinearUnit) {
        self.init(name: "square \(unit.name)", squareMetersPerUnit: unit.metersPerUnit * unit.metersPerUnit)
    }

    /// The square meter.
    public static let squareMeters = AreaUnit(squareOf: .meters)
    /// The square kilometer, 10⁶ m².
    public static let squareKilometers = AreaUnit(squareOf: .kilometers)
    /// The hectare, 10⁴ m².
    public static let hectares = AreaUnit(name: "hectare", squareMetersPerUnit: 10_000)
    /// The international acre, 4046.8564224 m² (1/640 square international mile).
    public static let acres = AreaUnit(name: "acre", squareMetersPerUnit: 4046.8564224)
    /// The square international foot.
    public static let squareFeet = AreaUnit(squareOf: .feet)
    /// The square US survey foot.
    public static let squareUSSurveyFeet = AreaUnit(squareOf: .usSurveyFeet)
    /// The square international mile, 2,589,988.110336 m².
    public static let squareMiles = AreaUnit(squareOf: .miles)

    /// Converts an area in this unit to another unit.
    /// - Parameters:
    ///   - value: An area in this unit.
    ///   - unit: The target unit.
    /// - Returns: The same area expressed in `unit`.
    public func convert(_ value: Double, to unit: AreaUnit) -> Double {
        if self == unit { return value }
        return value * squareMetersPerUnit / unit.squareMetersPerUnit
    }

    /// The unit's name.
    public var description: String { name }
}
