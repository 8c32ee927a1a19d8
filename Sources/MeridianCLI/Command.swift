import Foundation
import Meridian
import MeridianIO
import MeridianIO

/// One `meridian` subcommand, declared in the style of swift-argument-parser: a struct whose properties are its
/// options (`@Option`, `@Flag`, `@Argument`, `@Mode` and option groups such as `OutputOptions`), with a name, a
/// summary, a discussion and examples. The parser, the combination checks, `--help` and the reference page in the
/// documentation are all made from these declarations (`CommandParser`, `HelpText`).
///
/// Adding a verb is one new file under `Commands/` and one line in `MeridianCommandLine.commands`.
public protocol Command {
    /// The subcommand's name, e.g. "buffer".
    static var name: String { get }
    /// One line for `meridian --help` and the reference page.
    static var summary: String { get }
    /// What the command does, for `--help` between the usage lines and the options: paragraphs separated by an
    /// empty line, wrapped as they should print.
    static var discussion: String { get }
    /// Example command lines, each starting with `meridian`.
    static var examples: [String] { get }
    /// A command with every option at its default (the parser then fills in what was given).
    init()
    /// Checks the options together once they are parsed, beyond what the declarations say (the default checks
    /// nothing); runs before `run(io:)`.
    /// - Throws: `CommandError.usage` naming the problem.
    mutating func validate() throws(CommandError)
    /// Runs the command.
    /// - Parameter io: Standard input, output and error.
    /// - Throws: `CommandError` (usage → exit 2, failure → exit 1).
    func run(io: CommandIO) throws(CommandError)
    /// The most vertices the command's work may make (its `WorkBudget`; `--max-vertices` where it has one).
    var maximumVertices: Int { get }
}

extension Command {
    /// Nothing to check beyond the declarations.
    public mutating func validate() throws(CommandError) {}
    /// The default work bound, 5 million vertices.
    public var maximumVertices: Int { defaultMaximumVertices }
}
