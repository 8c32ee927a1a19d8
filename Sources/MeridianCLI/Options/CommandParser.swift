import MeridianIO

/// Reads a command's arguments into its declarations (`Declaration`), in the steps swift-argument-parser takes:
/// the words are sorted into named options and positionals; the mode is read; every option given is checked against
/// the modes it applies to; the values are converted (`ValueKind`); missing required ones are refused. The option
/// groups' and the command's own `validate()` then check what is left (`CommandLine.parse`). Every refusal is a
/// usage error (exit 2) of one line.
struct CommandParser {
    /// The command's name, for messages.
    let command: String
    /// Everything the command declares, the global options included.
    let declarations: [Declaration]

    /// Parses the arguments into the declarations.
    /// - Parameter arguments: The arguments after the command's name.
    /// - Returns: The mode chosen (its raw value), nil for a command without modes.
    /// - Throws: `CommandError.usage` naming the first problem.
    func parse(_ arguments: [String]) throws(CommandError) -> String? {
        var positionals = try sortNamed(arguments)
        let mode = try selectMode(&positionals)
        try assign(positionals, mode: mode)
        try refuseOutOfMode(mode)
        for d in declarations where !d.given.isEmpty {
            if case .modeArgument = d.role { continue }
            try d.store(d.given[d.given.count - 1].text)
        }
        try refuseMissing(mode)
        return mode
    }

    /// The positional arguments of `arguments`: what is not an option or an option's value (for `meridian
    /// internal`'s `plan`, which takes any number of inputs). Records the named options as `parse` does, so it is
    /// for declarations that are not parsed again.
    func positionals(_ arguments: [String]) throws(CommandError) -> [String] {
        try sortNamed(arguments)
    }

    /// Records every named option's values (`--name VALUE`, `--name=VALUE`, `--flag`) and returns the positionals:
    /// `-` and negative numbers are positionals, and so is everything after `--`. A spelling some option answers to
    /// only after another was given (`Declaration.spellingAfter`: `--layer` after `-o`) goes to that option then.
    private func sortNamed(_ arguments: [String]) throws(CommandError) -> [String] {
        var named: [String: Declaration] = [:]
        for d in declarations where d.isNamed { for n in d.names { named[n] = d } }
        let contextual = declarations.filter { $0.spellingAfter != nil }
        var positionals: [String] = []
        var seen = Set<String>()
        var i = 0, afterDashDash = false
        while i < arguments.count {
            let word = arguments[i]
            i += 1
            if afterDashDash { positionals.append(word); continue }
            if word == "--" { afterDashDash = true; continue }
            func resolve(_ spelling: String) -> Declaration? {
                let after = contextual.first { d in
                    d.spellingAfter.map { $0.spelling == spelling && !$0.after.isDisjoint(with: seen) } ?? false
                }
                return after ?? named[spelling]
            }
            if let d = resolve(word) {
                seen.insert(word)
                guard d.takesValue else { d.given.append((word, "")); continue }
                guard i < arguments.count, arguments[i] != "--" else { throw .usage("\(word) needs a value") }
                guard !arguments[i].isEmpty else { throw .usage("\(word) needs a value, not an empty one") }
                d.given.append((word, arguments[i]))
                i += 1
            } else if let equals = word.firstIndex(of: "="), let d = resolve(String(word[..<equals])), d.takesValue {
                let text = String(word[word.index(after: equals)...])
                guard !text.isEmpty else { throw .usage("\(word[..<equals]) needs a value, not an empty one") }
                seen.insert(String(word[..<equals]))
                d.given.append((String(word[..<equals]), text))
            } else if word.hasPrefix("-"), word != "-", Double(word) == nil {
                throw .usage("unknown option \(word)")
            } else {
                positionals.append(word)
            }
        }
        return positionals
    }

    /// The mode: named by the first positional, or chosen by a flag; nil for a command without modes.
    private func selectMode(_ positionals: inout [String]) throws(CommandError) -> String? {
        for d in declarations {
            switch d.role {
            case .modeFlag(let selects, let otherwise):
                return d.given.isEmpty ? otherwise : selects
            case .modeArgument:
                guard !positionals.isEmpty else {
                    throw .usage("missing \(d.placeholder): \(d.valueSummary) (see meridian \(command) --help)")
                }
                let text = positionals.removeFirst()
                try d.store(text)
                d.given = [(d.placeholder, text)]
                return text
            default: continue
            }
        }
        return nil
    }

    /// Hands the positionals to the arguments declared for the mode, in order.
    private func assign(_ positionals: [String], mode: String?) throws(CommandError) {
        let arguments = declarations.filter { d in
            if case .argument = d.role { return d.modes.contains(mode) }
            return false
        }
        guard positionals.count <= arguments.count else {
            throw .usage("unexpected argument '\(positionals[arguments.count])'")
        }
        for (d, text) in zip(arguments, positionals) { d.given.append((d.placeholder, text)) }
    }

    /// Refuses an option given in a mode it does not apply to: no option is silently ignored.
    private func refuseOutOfMode(_ mode: String?) throws(CommandError) {
        for d in declarations where d.isNamed && !d.given.isEmpty && !d.modes.contains(mode) {
            throw .usage("\(d.given[0].spelling) does not apply to \(title(of: mode)) (it applies to \(d.modes.title))")
        }
    }

    /// Refuses a missing required option or argument.
    private func refuseMissing(_ mode: String?) throws(CommandError) {
        for d in declarations where d.given.isEmpty && d.required.contains(mode) {
            if case .modeArgument = d.role { continue }
            let what = "\(d.synopsis): \(d.help)"
            throw .usage(mode == nil || d.required.isAll ? "missing \(what)" : "\(title(of: mode)) needs \(what)")
        }
    }

    /// How messages name a mode ("a --geodesic buffer", "densify").
    private func title(of mode: String?) -> String {
        for d in declarations {
            if let choice = d.choices.first(where: { $0.name == mode }) { return choice.title }
        }
        return mode ?? command
    }
}
