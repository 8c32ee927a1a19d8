import Foundation

/// A command-line error: usage errors exit with status 2, failures with 1. Printed as one line on stderr.
public enum CommandError: Error, Sendable, CustomStringConvertible {
    /// The arguments are wrong (unknown option, missing value, bad number); exit status 2.
    case usage(String)
    /// The command could not do its work (bad input file, engine error); exit status 1.
    case failure(String)

    /// The process exit status for this error.
    public var exitStatus: Int32 {
        switch self {
        case .usage: 2
        case .failure: 1
        }
    }

    public var description: String {
        switch self {
        case .usage(let m), .failure(let m): m
        }
    }
}

/// A small argument parser: `--name value`, `--name=value`, boolean `--flag`, `-o` short aliases, positionals,
/// and `--` to end options. Commands declare what they take; anything else is a usage error.
public struct Arguments {
    private var remaining: [String]

    /// Creates a parser over a command's arguments (after the subcommand name).
    /// - Parameter arguments: The raw arguments.
    public init(_ arguments: [String]) {
        remaining = arguments
    }

    /// Whether `--help` or `-h` was given.
    public var wantsHelp: Bool { remaining.contains("--help") || remaining.contains("-h") }

    /// Takes a boolean flag.
    /// - Parameter names: The flag's spellings, e.g. `["--union"]`.
    /// - Returns: Whether it was present.
    public mutating func flag(_ names: String...) -> Bool {
        var found = false
        while let i = remaining.firstIndex(where: { names.contains($0) }) {
            remaining.remove(at: i)
            found = true
        }
        return found
    }

    /// Takes an option's value.
    /// - Parameter names: The option's spellings, e.g. `["--output", "-o"]`.
    /// - Returns: The value, or `nil` when absent.
    /// - Throws: `CommandError.usage` when the option has no value or an empty one (`-o ''`, `--to=`).
    public mutating func option(_ names: String...) throws(CommandError) -> String? {
        var value: String?
        while true {
            if let i = remaining.firstIndex(where: { names.contains($0) }) {
                guard i + 1 < remaining.count, remaining[i + 1] != "--" else {
                    throw .usage("\(remaining[i]) needs a value")
                }
                guard !remaining[i + 1].isEmpty else { throw .usage("\(remaining[i]) needs a value, not an empty one") }
                value = remaining[i + 1]
                remaining.removeSubrange(i...(i + 1))
            } else if let i = remaining.firstIndex(where: { a in names.contains { a.hasPrefix($0 + "=") } }) {
                let given = remaining[i][remaining[i].index(after: remaining[i].firstIndex(of: "=")!)...]
                guard !given.isEmpty else { throw .usage("\(remaining[i].dropLast()) needs a value, not an empty one") }
                value = String(given)
                remaining.remove(at: i)
            } else {
                return value
            }
        }
    }

    /// Takes an option's value as a number.
    /// - Parameter names: The option's spellings.
    /// - Throws: `CommandError.usage` when it is not a finite number.
    public mutating func number(_ names: String...) throws(CommandError) -> Double? {
        var value: String?
        for n in names { if let v = try option(n) { value = v } }
        guard let value else { return nil }
        guard let d = Double(value), d.isFinite else { throw .usage("\(names[0]) expects a number, got '\(value)'") }
        return d
    }

    /// Takes the remaining positional arguments and checks nothing unknown is left.
    /// - Parameter maximum: How many positionals the command accepts, ≥ 0.
    /// - Returns: The positionals in order.
    /// - Throws: `CommandError.usage` for unknown options or too many positionals.
    public mutating func finish(maximumPositionals maximum: Int) throws(CommandError) -> [String] {
        var positionals: [String] = []
        var afterDashDash = false
        for a in remaining {
            if afterDashDash { positionals.append(a); continue }
            if a == "--" { afterDashDash = true; continue }
            if a.hasPrefix("-") && a != "-" && Double(a) == nil { throw .usage("unknown option \(a)") }
            positionals.append(a)
        }
        guard positionals.count <= maximum else {
            throw .usage("unexpected argument '\(positionals[maximum])'")
        }
        return positionals
    }
}
