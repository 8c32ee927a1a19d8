import Foundation
import Meridian

/// Entry point of the `meridian` command line.
public enum MeridianCommandLine {
    /// Meridian's version.
    public static let version = "0.1.0"

    /// Every subcommand, in the order `--help` lists them. Commands from other modules (the viewer's `serve`)
    /// are added by the executable through `run(_:extraCommands:io:)`.
    public static var commands: [any Command.Type] {
        [
            BufferCommand.self, ProjectCommand.self, SpatialReferenceCommand.self, MeasureCommand.self, OperationCommand.self,
            KMLCommand.self, ServeCommand.self,
        ]
    }

    /// Commands that `--help` does not list: `internal`, the steps of meridian-dask.
    static var hiddenCommands: [any Command.Type] { [InternalCommand.self] }

    /// Runs the command line and returns the exit status: 0 success, 1 failure, 2 usage error.
    /// - Parameters:
    ///   - arguments: The arguments without the program name.
    ///   - extraCommands: Commands defined outside this module.
    ///   - io: The standard streams.
    public static func run(_ arguments: [String], extraCommands: [any Command.Type] = [], io: CommandIO = .standard)
        -> Int32
    {
        let all = commands + extraCommands
        guard let first = arguments.first else {
            io.note("meridian: missing command: \(all.map { $0.name }.joined(separator: ", ")) (see meridian --help)")
            return 2
        }
        if first == "--version" || first == "version" {
            io.print("meridian \(version) (GEOS \(GeometryEngine.geosVersion), PROJ \(GeometryEngine.projVersion))")
            return finish(0, command: "--version", io: io)
        }
        if first == "--help" || first == "-h" || first == "help" {
            io.print(overview(all))
            return finish(0, command: "--help", io: io)
        }
        guard let command = (all + hiddenCommands).first(where: { $0.name == first }) else {
            io.note("meridian: unknown command '\(TerminalText.escaped(first))' (see meridian --help)")
            return 2
        }
        // --quiet (any command): no progress line on the terminal.
        var remaining = Array(arguments.dropFirst())
        if let q = remaining.firstIndex(of: "--quiet") {
            remaining.remove(at: q)
            io.quiet = true
        }
        var rest = Arguments(remaining)
        if rest.wantsHelp {
            io.print(command.help)
            return finish(0, command: command.name, io: io)
        }
        do {
            try command.run(&rest, io: io)
            return finish(0, command: command.name, io: io)
        } catch {
            io.note("meridian \(command.name): \(TerminalText.escaped(error.description))")
            return finish(error.exitStatus, command: command.name, io: io)
        }
    }

    /// The exit status once standard output has been checked: a failed write makes a successful run a failure
    /// (exit 1), said on stderr unless the reader of a pipe went away (`EPIPE` ends quietly, like other tools).
    private static func finish(_ status: Int32, command: String, io: CommandIO) -> Int32 {
        guard let failure = io.outputFailure else { return status }
        if failure.code != EPIPE { io.note("meridian \(command): cannot write standard output: \(failure)") }
        return status == 0 ? 1 : status
    }

    static func overview(_ commands: [any Command.Type]) -> String {
        var lines = ["meridian \(version): geometry engine and KML toolkit", "",
                     "Usage: meridian COMMAND [OPTIONS]", "", "Commands:"]
        for c in commands { lines.append("  " + c.name.padding(toLength: 10, withPad: " ", startingAt: 0) + c.summary) }
        lines += ["", "  --version  print the versions of Meridian, GEOS and PROJ",
                  "  --quiet    (with any command) no progress line; one is drawn on a terminal when a command runs",
                  "             longer than about a second, and never when standard error is not a terminal",
                  "Run 'meridian COMMAND --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    /// Flushes and exits.
    /// - Parameter status: The process exit status: 0 success, 1 failure, 2 usage error (0-255; higher bits are
    ///   dropped by the operating system).
    public static func exit(_ status: Int32) -> Never { Foundation.exit(status) }
}
