import MeridianIO

/// One declared option, flag, positional argument or mode selector of a command: everything that parsing, the
/// combination checks, `--help` and the reference page need to know about it. The property wrappers (`@Option`,
/// `@Flag`, `@Argument`, `@Mode`) make one each; `Declaration.all(in:)` finds them on a command by reflection, in
/// the order they are declared, option groups (`OptionGroup`) in place.
///
/// A class because the wrapper that made it and the parser share it: the parser records the texts given and stores
/// the converted value through `store`, and the wrapper reads it back.
final class Declaration {
    /// What the declaration is.
    enum Role {
        /// `--name VALUE`.
        case option
        /// `--name`, no value.
        case flag
        /// A positional argument.
        case argument
        /// The flag that selects the command's mode (`buffer --geodesic`).
        case modeFlag(selects: String, otherwise: String)
        /// The first positional argument, naming the mode (`op OPERATION`, `kml SUBCOMMAND`).
        case modeArgument
    }

    /// What the declaration is.
    let role: Role
    /// The spellings, e.g. `["-o", "--output"]`; for a positional argument, its placeholder.
    let names: [String]
    /// The value's name in usage lines ("SRS"); empty for a flag.
    let placeholder: String
    /// What the value must be, for the reference page ("a whole number from 1 to 1000"); empty for a flag.
    let valueSummary: String
    /// One line of help.
    let help: String
    /// The modes the declaration applies to.
    let modes: Modes
    /// The modes it must be given in.
    let required: Modes
    /// How `--help` shows the default value, if the option has one worth showing.
    let defaultText: String?
    /// For a mode selector: the modes, as raw value, title and summary.
    let choices: [(name: String, title: String, summary: String)]
    /// The texts given, in order, with the spelling each came with (a flag: an empty text per occurrence).
    var given: [(spelling: String, text: String)] = []
    /// Another spelling this option also answers to once one of `after` has been given: `-o PG:… --layer buffers`
    /// names the output's layer with the input's `--layer` spelling (nil: none).
    var spellingAfter: (spelling: String, after: Set<String>)?
    /// Converts a text given and stores the value where the wrapper reads it.
    let store: (String) throws(CommandError) -> Void

    init(role: Role, names: [String], placeholder: String = "", valueSummary: String = "", help: String,
         modes: Modes = .all, required: Modes = .none, defaultText: String? = nil,
         choices: [(name: String, title: String, summary: String)] = [],
         store: @escaping (String) throws(CommandError) -> Void) {
        self.role = role
        self.names = names
        self.placeholder = placeholder
        self.valueSummary = valueSummary
        self.help = help
        self.modes = modes
        self.required = required
        self.defaultText = defaultText
        self.choices = choices
        self.store = store
    }

    /// The first spelling, as messages name the declaration ("--output" is named by its first spelling, "-o").
    var name: String { names[0] }

    /// Whether the declaration takes a value after its name.
    var takesValue: Bool {
        if case .option = role { return true }
        return false
    }

    /// Whether the declaration is named on the command line (an option or a flag), not positional.
    var isNamed: Bool {
        switch role {
        case .option, .flag, .modeFlag: true
        case .argument, .modeArgument: false
        }
    }

    /// "--srs SRS", "--union", "INPUT": the declaration as a usage line shows it.
    var synopsis: String {
        switch role {
        case .option: "\(name) \(placeholder)"
        case .flag, .modeFlag: name
        case .argument, .modeArgument: placeholder
        }
    }

    /// Every declaration of a command or option group, in declaration order (groups in place).
    static func all(in value: Any) -> [Declaration] {
        Mirror(reflecting: value).children.flatMap { child -> [Declaration] in
            if let declared = child.value as? any Declared { return [declared.declaration] }
            if let group = child.value as? any OptionGroup { return all(in: group) }
            return []
        }
    }

    /// Every option group of a command (groups within groups included), in declaration order.
    static func groups(in value: Any) -> [any OptionGroup] {
        Mirror(reflecting: value).children.flatMap { child -> [any OptionGroup] in
            guard let group = child.value as? any OptionGroup else { return [] }
            return [group] + groups(in: group)
        }
    }
}

/// A property wrapper that holds a `Declaration`.
protocol Declared {
    /// The declaration the parser fills.
    var declaration: Declaration { get }
}

/// Options declared once and used by several commands, like swift-argument-parser's `@OptionGroup`: a struct whose
/// properties are `@Option`s, `@Flag`s and `@Argument`s, stored as a plain property of each command that takes them
/// (`var output = OutputOptions(use: .operation)`). The parser finds it by its type and calls its `validate(mode:)`
/// before the command's own `validate()`.
protocol OptionGroup {
    /// Checks the group's values together once they are parsed (the default checks nothing).
    /// - Parameter mode: The command's mode (its raw value), nil for a command without modes.
    func validate(mode: String?) throws(CommandError)
    /// How usage lines show the group instead of its members, e.g. "(--distance D | --distance-field NAME)"; nil to
    /// show its required members like any other option.
    var synopsis: String? { get }
}

extension OptionGroup {
    func validate(mode: String?) throws(CommandError) {}
    var synopsis: String? { nil }
}

/// Where a wrapper keeps its value: the parser stores into it, the command reads from it.
final class Slot<Value> {
    var value: Value?
    init(_ value: Value?) { self.value = value }

    /// The value stored; only a wrapper read before the parser filled it (a programming error) finds none.
    func read(as declaration: Declaration) -> Value {
        guard let value else { preconditionFailure("\(declaration.name) read before parsing") }
        return value
    }
}
