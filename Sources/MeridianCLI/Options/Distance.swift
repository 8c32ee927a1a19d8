import Foundation
import Meridian
import MeridianIO

/// A distance as typed on the command line: a number with an optional unit suffix (`2km`, `1.5 mi`, `300`).
struct Distance: Equatable {
    /// The number as typed.
    var value: Double
    /// The unit, or nil for "the spatial reference's unit".
    var unit: LinearUnit?

    /// The unit symbols a distance may end with.
    static let units = ["m", "km", "ft", "us-ft", "mi", "us-mi", "nmi"]
    /// The symbols as a list for messages and help: "m, km, ft, us-ft, mi, us-mi or nmi".
    static var unitList: String { HelpText.list(units, conjunction: "or") }

    /// Parses `NUMBER[UNIT]`; units: m, km, ft, us-ft, mi, us-mi, nmi.
    /// - Parameters:
    ///   - text: The option's value.
    ///   - option: The option's name, for messages.
    /// - Throws: `CommandError.usage` naming the option and the problem.
    init(parsing text: String, option: String) throws(CommandError) {
        let t = text.trimmingCharacters(in: .whitespaces)
        var end = t.startIndex
        let numberCharacters = Set("0123456789+-.eE")
        while end < t.endIndex, numberCharacters.contains(t[end]) {
            // Stop before an 'e' that starts a unit rather than an exponent.
            if t[end] == "e" || t[end] == "E" {
                let next = t.index(after: end)
                guard next < t.endIndex, "0123456789+-".contains(t[next]) else { break }
            }
            end = t.index(after: end)
        }
        guard let number = NumberText.finite(String(t[..<end])) else {
            throw .usage("\(option) expects a number with an optional unit (\(Self.unitList)), got '\(text)'")
        }
        let suffix = t[end...].trimmingCharacters(in: .whitespaces)
        if suffix.isEmpty {
            unit = nil
        } else if let u = LinearUnit(symbol: suffix) {
            unit = u
        } else {
            throw .usage("\(option): unknown unit '\(suffix)' in '\(text)' (use \(Self.unitList))")
        }
        value = number
    }

    /// The distance in a target unit; a bare number is already in it.
    func value(in target: LinearUnit) -> Double { unit.map { $0.convert(value, to: target) } ?? value }
}
