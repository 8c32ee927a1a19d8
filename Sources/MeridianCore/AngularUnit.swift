import Foundation

/// A unit of angle, defined by its exact size in radians.
///
/// Angles in Meridian's API are a `Double` with an ``AngularUnit`` beside it (default ``degrees``); azimuths are
/// measured clockwise from north, rotations counter-clockwise (see each operation).
public struct AngularUnit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unit's name, e.g. "degree".
    public let name: String
    /// Radians in one unit (π/180 for the degree).
    public let radiansPerUnit: Double

    /// Creates a unit.
    /// - Parameters:
    ///   - name: A human-readable name.
    ///   - radiansPerUnit: Radians in one unit; must be finite and positive.
    public init(name: String, radiansPerUnit: Double) {
        self.name = name
        self.radiansPerUnit = radiansPerUnit
    }

    /// The degree, π/180 rad.
    public static let degrees = AngularUnit(name: "degree", radiansPerUnit: Double.pi / 180)
    /// The radian.
    public static let radians = AngularUnit(name: "radian", radiansPerUnit: 1)
    /// The gradian (gon), π/200 rad.
    public static let gradians = AngularUnit(name: "gradian", radiansPerUnit: Double.pi / 200)

    /// Converts an angle in this unit to another unit.
    /// - Parameters:
    ///   - value: An angle in this unit.
    ///   - unit: The target unit.
    /// - Returns: The same angle expressed in `unit` (exactly `value` when the units are equal).
    public func convert(_ value: Double, to unit: AngularUnit) -> Double {
        if self == unit { return value }
        if self == .degrees && unit == .radians { return value * Double.pi / 180 }
        if self == .radians && unit == .degrees { return value * 180 / Double.pi }
        return value * radiansPerUnit / unit.radiansPerUnit
    }

    /// The unit's name.
    public var description: String { name }
}
