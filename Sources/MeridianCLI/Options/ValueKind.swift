import Foundation
import Meridian
import MeridianIO

/// What an option's text means and how it becomes a value: the placeholder and summary that `--help` and the
/// reference page show, and the one conversion every command shares, so that a number is read the same way
/// everywhere and a bad one always gets the same kind of message ("--segments expects a whole number from 1 to
/// 1000, got '0'").
struct ValueKind<Value> {
    /// The value's name in usage lines, e.g. "SRS", "N", "D".
    let placeholder: String
    /// What the value must be, for the reference page, e.g. "a whole number from 1 to 1000".
    let summary: String
    /// How `--help` shows a default value.
    let show: (Value) -> String
    /// Converts the text given for the option named `option` (usage errors name the option and the text).
    let parse: (_ text: String, _ option: String) throws(CommandError) -> Value
}

/// The ranges a real-valued option can have.
enum NumberRange: Sendable, Equatable {
    /// Any finite number.
    case any
    /// More than zero.
    case positive
    /// Zero or more.
    case nonNegative

    /// Whether `value` is in the range.
    func contains(_ value: Double) -> Bool {
        switch self {
        case .any: true
        case .positive: value > 0
        case .nonNegative: value >= 0
        }
    }

    /// "a finite number", "a positive number", "a number of 0 or more".
    var summary: String {
        switch self {
        case .any: "a finite number"
        case .positive: "a positive number"
        case .nonNegative: "a number of 0 or more"
        }
    }
}

/// The one number parser of the command line: a finite decimal (or `1e3`) number, as `Double` reads it.
enum NumberText {
    /// The number `text` holds, or nil when it holds none or an infinite or NaN one.
    static func finite(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// A number as help shows a default: `10` rather than `10.0`.
    static func shortest(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// The whole number `text` holds within `range` (`16`, `16.0` and `1.6e1` alike), or nil.
    static func whole(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = finite(text), value == value.rounded(),
              value >= Double(range.lowerBound), value <= Double(range.upperBound),
              let whole = Int(exactly: value), range.contains(whole)
        else { return nil }
        return whole
    }
}

extension ValueKind where Value == Double {
    /// A finite number in `range`.
    static func number(_ range: NumberRange = .any, placeholder: String = "X") -> ValueKind {
        ValueKind(placeholder: placeholder, summary: range.summary, show: NumberText.shortest) { text, option throws(CommandError) in
            guard let value = NumberText.finite(text), range.contains(value) else {
                throw .usage("\(option) expects \(range.summary), got '\(text)'")
            }
            return value
        }
    }
}

extension ValueKind where Value == Int {
    /// A whole number in `range`.
    static func wholeNumber(_ range: ClosedRange<Int>, placeholder: String = "N") -> ValueKind {
        let summary: String
        switch (range.lowerBound, range.upperBound) {
        case (1, Int.max): summary = "a positive whole number"
        case (let low, Int.max): summary = "a whole number of at least \(low)"
        case (let low, let high): summary = "a whole number from \(low) to \(high)"
        }
        return ValueKind(placeholder: placeholder, summary: summary, show: { "\($0)" }) { text, option throws(CommandError) in
            guard let value = NumberText.whole(text, in: range) else { throw .usage("\(option) expects \(summary), got '\(text)'") }
            return value
        }
    }
}

extension ValueKind where Value == Distance {
    /// A distance: a number in `range` with an optional unit (`Distance`).
    static func distance(_ range: NumberRange = .any) -> ValueKind {
        let what = range == .any ? "a number" : range.summary
        return ValueKind(placeholder: "D", summary: "\(what) with an optional unit: \(Distance.unitList)",
                         show: { "\($0.value)" }) { text, option throws(CommandError) in
            let distance = try Distance(parsing: text, option: option)
            guard range.contains(distance.value) else {
                throw .usage("\(option) expects \(what) with an optional unit (\(Distance.unitList)), got '\(text)'")
            }
            return distance
        }
    }
}

extension ValueKind where Value == LinearUnit {
    /// A unit of length by its symbol (m, km, ft, us-ft, mi, us-mi, nmi).
    static var linearUnit: ValueKind {
        ValueKind(placeholder: "U", summary: "a unit of length: \(Distance.unitList)", show: \.name) { text, option throws(CommandError) in
            guard let unit = LinearUnit(symbol: text) else {
                throw .usage("\(option) expects \(HelpText.list(Distance.units, conjunction: "or")), got '\(text)'")
            }
            return unit
        }
    }
}

extension ValueKind where Value == SpatialReference {
    /// A spatial reference: EPSG:n, ESRI:n, a bare number, WKT or a PROJ string (`SpatialReference(parsing:)`;
    /// an unknown one is a usage error in the engine's words).
    static var spatialReference: ValueKind {
        ValueKind(placeholder: "SRS", summary: "a spatial reference: EPSG:n, ESRI:n, a bare number, WKT or a PROJ string",
                  show: \.name) { text, _ throws(CommandError) in
            do throws(EngineError) { return try SpatialReference(parsing: text) } catch { throw .usage(error.description) }
        }
    }
}

extension ValueKind where Value == String {
    /// A file path (`-` is standard input or output where the option says so).
    static func path(_ placeholder: String) -> ValueKind {
        ValueKind(placeholder: placeholder, summary: "a file path", show: { $0 }) { text, _ in text }
    }

    /// Free text, checked by the command.
    static func text(_ placeholder: String, summary: String = "text") -> ValueKind {
        ValueKind(placeholder: placeholder, summary: summary, show: { $0 }) { text, _ in text }
    }
}

extension ValueKind where Value: CaseIterable & RawRepresentable<String> {
    /// One of the cases of `Value`, by raw value.
    static func choice(_: Value.Type = Value.self) -> ValueKind {
        let names = Value.allCases.map { $0.rawValue }
        return ValueKind(placeholder: names.joined(separator: "|"), summary: "one of " + HelpText.list(names, conjunction: "or"),
                         show: \.rawValue) { text, option throws(CommandError) in
            guard let value = Value(rawValue: text) else {
                throw .usage("\(option) expects \(HelpText.list(names, conjunction: "or")), got '\(text)'")
            }
            return value
        }
    }
}
