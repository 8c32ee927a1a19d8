import Foundation
import Meridian
import MeridianIO

/// Entry point of the `meridian` command line.
public enum MeridianCommandLine {
    /// Every subcommand, in the order `--help` and the reference page list them. A new verb is one file under
    /// `Commands/` and one line here.
    public static var commands: [any Command.Type] {
        [
            BufferCommand.self, ProjectCommand.self, SpatialReferenceCommand.self, MeasureCommand.self, OperationCommand.self,
            NearCommand.self,
            KMLCommand.self, ServeCommand.self,
        ]
    }

    /// Commands that `--help` and the reference page do not list: `internal`, the steps of meridian-dask.
    static var hiddenCommands: [any Command.Type] { [InternalCommand.self] }

    /// Runs the command line and returns the exit status: 0 success, 1 failure, 2 usage error.
    /// - Parameters:
    ///   - arguments: The arguments without the program name.
    ///   - io: The standard streams.
    public static func run(_ arguments: [String], io: CommandIO = .standard) -> Int32 {
        guard let first = arguments.first else {
            io.note("meridian: missing command: \(commands.map { $0.name }.joined(separator: ", ")) (see meridian --help)")
            return 2
        }
        switch first {
        case "--version", "version":
            io.print("meridian \(MeridianVersion.string) (GEOS \(GeometryEngine.geosVersion), PROJ \(GeometryEngine.projVersion))")
            return finish(0, command: "--version", io: io)
        case "--help", "-h", "help":
            io.print(HelpText.overview(commands))
            return finish(0, command: "--help", io: io)
        case "--reference":
            io.print(ReferencePage.markdown(commands))
            return finish(0, command: "--reference", io: io)
        default: break
        }
        guard let command = (commands + hiddenCommands).first(where: { $0.name == first }) else {
            io.note("meridian: unknown command '\(TerminalText.escaped(first))' (see meridian --help)")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            io.print(HelpText.help(for: command))
            return finish(0, command: command.name, io: io)
        }
        do {
            try execute(command, rest, io: io)
            return finish(0, command: command.name, io: io)
        } catch {
            io.note("meridian \(command.name): \(TerminalText.escaped(error.description))")
            return finish(error.exitStatus, command: command.name, io: io)
        }
    }

    /// Parses the arguments into a new command (`CommandParser`), validates its option groups and then the command,
    /// and runs it under a `WorkBudget` of its `maximumVertices` (no deadline).
    static func execute(_ type: any Command.Type, _ arguments: [String], io: CommandIO) throws(CommandError) {
        let (command, quiet) = try parse(type, arguments)
        io.quiet = quiet
        let budget = WorkBudget(seconds: .infinity, maximumVertices: command.maximumVertices)
        let ran = budget.run { [command] () -> Result<Void, CommandError> in
            do throws(CommandError) { return .success(try command.run(io: io)) } catch { return .failure(error) }
        }
        try ran.get()
    }

    /// A command made from its arguments (`CommandParser`), its option groups and then itself validated, and
    /// whether `--quiet` was given; not run.
    static func parse<C: Command>(_ type: C.Type, _ arguments: [String]) throws(CommandError) -> (C, quiet: Bool) {
        var command = type.init()
        let global = GlobalOptions()
        let declarations = Declaration.all(in: command) + Declaration.all(in: global)
        let mode = try CommandParser(command: type.name, declarations: declarations).parse(arguments)
        for group in Declaration.groups(in: command) { try group.validate(mode: mode) }
        try command.validate()
        return (command, global.quiet)
    }

    /// The exit status once standard output has been checked: a failed write makes a successful run a failure
    /// (exit 1), said on stderr unless the reader of a pipe went away (`EPIPE` ends quietly, like other tools).
    private static func finish(_ status: Int32, command: String, io: CommandIO) -> Int32 {
        guard let failure = io.outputFailure else { return status }
        if failure.code != EPIPE { io.note("meridian \(command): cannot write standard output: \(failure)") }
        return status == 0 ? 1 : status
    }

    /// Flushes and exits.
    /// - Parameter status: The process exit status: 0 success, 1 failure, 2 usage error (0-255; higher bits are
    ///   dropped by the operating system).
    public static func exit(_ status: Int32) -> Never { Foundation.exit(status) }
}
