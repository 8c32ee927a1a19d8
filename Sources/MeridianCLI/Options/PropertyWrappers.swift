import MeridianIO

// The property wrappers a command declares its options with, in the style of swift-argument-parser:
//
//     @Option("--segments", as: .wholeNumber(1...1000), help: "chords per quarter circle", modes: .of(Kind.planar))
//     var segments = 16
//
// Why property wrappers rather than a table: each option is declared once, at the property that holds its value, so
// a command reads `segments` where a table would need a key, a lookup and a cast; and nothing can be declared without
// being parsed, or parsed without being declared. They stay simple: a wrapper is a `Declaration` (names, value kind,
// help, modes) plus a `Slot` the parser stores the converted value into, found by `Mirror` (no Codable, no global
// state). Commands are value types used on one thread, so the non-Sendable slots never cross an isolation boundary
// (the compiler would say so if one did).

/// An option with a value, `--name VALUE` or `--name=VALUE` (the last one given wins).
@propertyWrapper
struct Option<Value>: Declared {
    let declaration: Declaration
    private let slot: Slot<Value>

    /// The value given, or the default.
    var wrappedValue: Value {
        slot.read(as: declaration)
    }

    /// An option with a default value (shown in `--help`).
    init(wrappedValue: Value, _ names: String..., as kind: ValueKind<Value>, help: String, modes: Modes = .all) {
        let slot = Slot<Value>(wrappedValue)
        self.slot = slot
        declaration = Declaration(role: .option, names: names, placeholder: kind.placeholder, valueSummary: kind.summary,
                                  help: help, modes: modes, defaultText: Self.shown(kind.show(wrappedValue))) { text throws(CommandError) in
            slot.value = try kind.parse(text, names[0])
        }
    }

    /// A default as help shows it; nil when there is nothing to show (an empty set of options).
    private static func shown(_ text: String) -> String? { text.isEmpty ? nil : text }

    /// An optional option: nil when not given; `required` in some modes.
    init<Wrapped>(_ names: String..., as kind: ValueKind<Wrapped>, help: String, modes: Modes = .all,
                  required: Modes = .none) where Value == Wrapped? {
        self.init(names: names, as: kind, help: help, modes: modes, required: required)
    }

    /// An optional option whose spellings are chosen by an option group's user (`InputOptions`).
    init<Wrapped>(names: [String], as kind: ValueKind<Wrapped>, help: String, modes: Modes = .all,
                  required: Modes = .none) where Value == Wrapped? {
        let slot = Slot<Value>(.some(nil))
        self.slot = slot
        declaration = Declaration(role: .option, names: names, placeholder: kind.placeholder, valueSummary: kind.summary,
                                  help: help, modes: modes, required: required) { text throws(CommandError) in
            slot.value = .some(try kind.parse(text, names[0]))
        }
    }

    /// An option required in every mode.
    init(_ names: String..., as kind: ValueKind<Value>, help: String) {
        let slot = Slot<Value>(nil)
        self.slot = slot
        declaration = Declaration(role: .option, names: names, placeholder: kind.placeholder, valueSummary: kind.summary,
                                  help: help, required: .all) { text throws(CommandError) in
            slot.value = try kind.parse(text, names[0])
        }
    }
}

/// A flag without a value, `--name`: true when given (once or more).
@propertyWrapper
struct Flag: Declared {
    let declaration: Declaration
    private let slot: Slot<Bool>

    /// Whether the flag was given.
    var wrappedValue: Bool { slot.value ?? false }

    /// A flag.
    init(_ names: String..., help: String, modes: Modes = .all) {
        let slot = Slot<Bool>(false)
        self.slot = slot
        declaration = Declaration(role: .flag, names: names, help: help, modes: modes) { _ in slot.value = true }
    }
}

/// A positional argument.
@propertyWrapper
struct Argument<Value>: Declared {
    let declaration: Declaration
    private let slot: Slot<Value>

    /// The value given (nil for an optional argument not given).
    var wrappedValue: Value {
        slot.read(as: declaration)
    }

    /// An optional positional argument; `required` in some modes.
    init<Wrapped>(_ placeholder: String, as kind: ValueKind<Wrapped>, help: String, modes: Modes = .all,
                  required: Modes = .none) where Value == Wrapped? {
        let slot = Slot<Value>(.some(nil))
        self.slot = slot
        declaration = Declaration(role: .argument, names: [placeholder], placeholder: placeholder,
                                  valueSummary: kind.summary, help: help, modes: modes,
                                  required: required) { text throws(CommandError) in
            slot.value = .some(try kind.parse(text, placeholder))
        }
    }

    /// A positional argument required in every mode.
    init(_ placeholder: String, as kind: ValueKind<Value>, help: String) {
        let slot = Slot<Value>(nil)
        self.slot = slot
        declaration = Declaration(role: .argument, names: [placeholder], placeholder: placeholder,
                                  valueSummary: kind.summary, help: help, required: .all) { text throws(CommandError) in
            slot.value = try kind.parse(text, placeholder)
        }
    }
}

/// The mode of a command with several (`CommandMode`): selected by a flag (`buffer --geodesic`) or by the first
/// positional argument (`op OPERATION`). The parser reads it first, then checks every other option against it.
@propertyWrapper
struct Mode<M: CommandMode>: Declared {
    let declaration: Declaration
    private let slot: Slot<M>

    /// The mode chosen.
    var wrappedValue: M {
        slot.read(as: declaration)
    }

    /// A mode chosen by a flag: `selects` when the flag is given, the default otherwise.
    init(wrappedValue: M, flag: String, selects: M, help: String) {
        let slot = Slot<M>(wrappedValue)
        self.slot = slot
        declaration = Declaration(role: .modeFlag(selects: selects.rawValue, otherwise: wrappedValue.rawValue),
                                  names: [flag], help: help, choices: Self.choices) { _ in slot.value = selects }
    }

    /// A mode named by the first positional argument.
    init(argument placeholder: String, help: String) {
        let slot = Slot<M>(nil)
        self.slot = slot
        let names = M.allCases.map { $0.rawValue }
        declaration = Declaration(role: .modeArgument, names: [placeholder], placeholder: placeholder,
                                  valueSummary: "one of " + HelpText.list(names, conjunction: "or"), help: help,
                                  required: .all, choices: Self.choices) { text throws(CommandError) in
            guard let mode = M(rawValue: text) else {
                throw .usage("unknown \(placeholder.lowercased()) '\(text)': use \(HelpText.list(names, conjunction: "or"))")
            }
            slot.value = mode
        }
    }

    private static var choices: [(name: String, title: String, summary: String)] {
        M.allCases.map { ($0.rawValue, $0.title, $0.summary) }
    }
}
