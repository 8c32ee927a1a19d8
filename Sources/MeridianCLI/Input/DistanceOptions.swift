import Foundation
import Meridian

/// The distance options of `meridian buffer`, planar and geodesic alike: `--distance D` or
/// `--distance-field NAME [--unit U]`.
struct DistanceOptions {
    /// `--distance` as typed.
    private let distanceText: String?
    /// `--unit` as typed.
    private let unitText: String?
    /// `--distance-field`: the property or column holding each feature's distance.
    let field: String?
    /// `--distance`, parsed by `validate()`.
    private(set) var fixed: Distance?
    /// `--unit`, parsed by `validate()`: the unit of the field's values; `nil` for the command's default unit.
    private(set) var fieldUnit: LinearUnit?

    /// Takes `--distance`, `--distance-field` and `--unit` from the arguments (checked by `validate()`).
    /// - Throws: `CommandError.usage` for an option without its value.
    init(_ arguments: inout Arguments) throws(CommandError) {
        distanceText = try arguments.option("--distance")
        field = try arguments.option("--distance-field")
        unitText = try arguments.option("--unit")
    }

    /// Checks that exactly one of `--distance` and `--distance-field` is given, and `--unit` only with
    /// `--distance-field`, and parses the distance and the unit.
    /// - Throws: `CommandError.usage` naming the problem.
    mutating func validate() throws(CommandError) {
        switch (distanceText, field) {
        case (nil, nil): throw .usage("give --distance D or --distance-field NAME")
        case (.some, .some): throw .usage("give either --distance or --distance-field, not both")
        default: break
        }
        if unitText != nil && field == nil { throw .usage("--unit applies to --distance-field values") }
        fieldUnit = try unitText.map { (u: String) throws(CommandError) -> LinearUnit in
            guard let unit = LinearUnit(symbol: u) else {
                throw .usage("unknown unit '\(u)' (use m, km, ft, us-ft, mi, us-mi or nmi)")
            }
            return unit
        }
        fixed = try distanceText.map { (t: String) throws(CommandError) in try Distance(parsing: t) }
    }

    /// One feature's distance from `--distance-field`, converted to `unit`; `nil` when `--distance` was given.
    /// - Parameters:
    ///   - feature: The feature whose property holds the distance (a number, or a string holding one).
    ///   - label: How errors name the feature, e.g. "feature 3".
    ///   - unit: The unit wanted; field values are in `--unit`, or already in this unit without it.
    /// - Throws: `CommandError.failure` when the property is missing, not a number, or not finite.
    func fieldDistance(of feature: Feature, label: String, in unit: LinearUnit) throws(CommandError) -> Double? {
        guard let field else { return nil }
        guard let value = feature.properties[field] else { throw .failure("\(label) has no '\(field)' property") }
        let d: Double
        switch value {
        case .number(let n): d = n
        case .string(let s):
            guard let n = Double(s.trimmingCharacters(in: .whitespaces)), n.isFinite else {
                throw .failure("\(label): '\(field)' is '\(s)', not a number")
            }
            d = n
        default: throw .failure("\(label): '\(field)' is not a number")
        }
        return (fieldUnit ?? unit).convert(d, to: unit)
    }
}
