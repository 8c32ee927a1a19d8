import Foundation
import Meridian
import MeridianIO

/// Everything a reader sees of the commands' declarations: `meridian COMMAND --help`, the `meridian --help`
/// overview and the Markdown reference page the documentation is built with (`meridian --reference`). All three are
/// made from the same `Declaration`s the parser reads, so none can disagree with what the command accepts.
enum HelpText {
    /// The widest line of `--help`.
    static let width = 116
    /// Where the help of an option starts.
    static let column = 24

    /// "a", "a or b", "a, b or c".
    static func list(_ items: [String], conjunction: String) -> String {
        MessageText.list(items, conjunction: conjunction)
    }

    /// `meridian COMMAND --help`.
    static func help(for type: any Command.Type) -> String {
        let layout = CommandLayout(type)
        var lines = layout.usageLines.enumerated().map { ($0 == 0 ? "Usage: " : "       ") + $1 }
        lines += ["", type.discussion]
        if let selector = layout.modeArgument {
            lines += ["", "\(selector.placeholder) is one of:"]
            for (synopsis, summary) in layout.modeLines {
                // A synopsis too long for its column gets lines of its own, the summary below it.
                if synopsis.count > 32 {
                    lines += fill(synopsis, first: "  ", rest: "      ")
                    lines += fill(summary, first: String(repeating: " ", count: 36), rest: String(repeating: " ", count: 36))
                } else {
                    lines += wrap(synopsis, summary, column: 36)
                }
            }
        }
        lines += ["", "Options:"]
        for d in layout.declarations { lines += wrap(layout.left(d), layout.right(d), column: column) }
        if !type.examples.isEmpty { lines += ["", "Examples:"] + type.examples.map { "  " + $0 } }
        return lines.joined(separator: "\n")
    }

    /// `meridian --help`: every command with its summary.
    static func overview(_ commands: [any Command.Type]) -> String {
        var lines = ["meridian \(MeridianVersion.string): geometry engine and KML toolkit", "",
                     "Usage: meridian COMMAND [OPTIONS]", "", "Commands:"]
        for c in commands { lines += wrap(c.name, c.summary, column: 14) }
        lines += [""]
        lines += wrap("--version", "print the versions of Meridian, GEOS and PROJ", column: 14)
        lines += wrap("--reference", "print every command's options as the Markdown page of the documentation", column: 14)
        for d in Declaration.all(in: GlobalOptions()) { lines += wrap(d.name, "(with any command) " + d.help, column: 14) }
        lines.append("Run 'meridian COMMAND --help' for a command's options.")
        return lines.joined(separator: "\n")
    }

    /// `left` in a column from `indent`, `right` wrapped from `column` (on the next line when `left` is too wide).
    static func wrap(_ left: String, _ right: String, column: Int, indent: Int = 2) -> [String] {
        let lead = String(repeating: " ", count: indent) + left
        let margin = String(repeating: " ", count: column)
        guard lead.count <= column - 2 else { return [lead] + fill(right, first: margin, rest: margin) }
        return fill(right, first: lead.padding(toLength: column, withPad: " ", startingAt: 0), rest: margin)
    }

    /// Words filled into lines of at most `width`, the first starting with `first`, the others with `rest`.
    static func fill(_ text: String, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var line = first, empty = true
        for word in text.split(separator: " ") {
            if !empty, line.count + 1 + word.count > width {
                lines.append(line)
                line = rest
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines.map { $0.replacing(/\s+$/, with: "") }
    }
}

/// What the help and the reference page show of one command: its declarations (the global options last), how usage
/// lines show them, and its modes.
struct CommandLayout {
    /// The command.
    let type: any Command.Type
    /// Its declarations, then the global ones (`--quiet`).
    let declarations: [Declaration]
    /// The groups shown by their own synopsis in usage lines, with their members.
    private let synopses: [(synopsis: String, members: Set<ObjectIdentifier>)]

    init(_ type: any Command.Type) {
        self.type = type
        let command = type.init()
        declarations = Declaration.all(in: command) + Declaration.all(in: GlobalOptions())
        synopses = Declaration.groups(in: command).compactMap { group in
            group.synopsis.map { ($0, Set(Declaration.all(in: group).map(ObjectIdentifier.init))) }
        }
    }

    /// The declaration of a mode named by the first positional argument (`op OPERATION`), if any.
    var modeArgument: Declaration? {
        declarations.first { if case .modeArgument = $0.role { true } else { false } }
    }

    /// The usage lines, without "Usage:": one per mode for a mode chosen by a flag, one in all otherwise.
    var usageLines: [String] {
        let name = "meridian \(type.name)"
        for d in declarations {
            switch d.role {
            case .modeFlag(let selects, let otherwise):
                return [otherwise, selects].map { mode in
                    ([name] + (mode == selects ? [d.name] : []) + parts(in: mode) { _ in true }).joined(separator: " ")
                }
            case .modeArgument:
                return [([name, d.placeholder] + parts(in: nil) { $0.modes.isAll }).joined(separator: " ")]
            default: continue
            }
        }
        return [([name] + parts(in: nil) { _ in true }).joined(separator: " ")]
    }

    /// Each mode of `modeArgument` with the arguments and options that apply to it and to at most half of the
    /// modes (those of more are in the options below), and its summary.
    var modeLines: [(synopsis: String, summary: String)] {
        let choices = modeArgument?.choices ?? []
        return choices.map { choice in
            let own = parts(in: choice.name, listingOptional: true) { d in
                d.required.contains(choice.name) || 2 * (d.modes.names?.count ?? choices.count) <= choices.count
            }
            return (([choice.name] + own).joined(separator: " "), choice.summary)
        }
    }

    /// The parts of a usage line in `mode`: the arguments, the groups with a synopsis, the required options, then
    /// the optional ones one by one (`listingOptional`) or as "[options]".
    func parts(in mode: String?, listingOptional: Bool = false, _ include: (Declaration) -> Bool) -> [String] {
        var parts: [String] = [], shown = Set<String>(), optional = false
        for d in declarations where d.modes.contains(mode) && include(d) {
            if case .modeFlag = d.role { continue }
            if case .modeArgument = d.role { continue }
            if let group = synopses.first(where: { $0.members.contains(ObjectIdentifier(d)) }) {
                if shown.insert(group.synopsis).inserted { parts.append(group.synopsis) }
                continue
            }
            let required = d.required.contains(mode)
            if case .argument = d.role {
                parts.append(required ? d.placeholder : "[\(d.placeholder)]")
            } else if required || listingOptional {
                parts.append(required ? d.synopsis : "[\(d.synopsis)]")
            } else {
                optional = true
            }
        }
        return parts + (optional ? ["[options]"] : [])
    }

    /// The left column of an option's help line: "-o, --output OUTPUT", "--union", "INPUT".
    func left(_ d: Declaration) -> String {
        switch d.role {
        case .option: d.names.joined(separator: ", ") + " " + d.placeholder
        case .flag, .modeFlag: d.names.joined(separator: ", ")
        case .argument, .modeArgument: d.placeholder
        }
    }

    /// The right column: the help, the default and the modes it applies to.
    func right(_ d: Declaration) -> String {
        var text = d.help
        if let shown = d.defaultText { text += " (default \(shown))" }
        if !d.modes.isAll { text += " [\(d.modes.tag)]" }
        return text
    }
}
