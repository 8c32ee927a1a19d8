import Foundation
import Meridian

/// One `meridian` subcommand. Each lives in its own file under `Commands/` and is listed in
/// `MeridianCommandLine.commands`.
public protocol Command {
    /// The subcommand's name, e.g. "buffer".
    static var name: String { get }
    /// One line for `meridian --help`.
    static var summary: String { get }
    /// The full `--help` text: usage line, options, examples.
    static var help: String { get }
    /// Runs the command.
    /// - Parameters:
    ///   - arguments: The arguments after the subcommand name.
    ///   - io: Standard input, output and error.
    /// - Throws: `CommandError` (usage → exit 2, failure → exit 1).
    static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError)
}

/// The command's standard streams, replaceable in tests.
public final class CommandIO: @unchecked Sendable {
    private let readInput: () -> Data
    private let writeOutput: (Data) -> Void
    private let writeError: (Data) -> Void
    /// Whether standard error is a terminal (progress lines are drawn only there).
    public let errorIsTerminal: Bool
    /// `--quiet`: no progress line even on a terminal (set by `MeridianCommandLine.run`).
    public var quiet = false

    /// Creates streams from closures.
    /// - Parameters:
    ///   - readInput: Returns all of standard input.
    ///   - writeOutput: Appends to standard output.
    ///   - writeError: Appends to standard error.
    ///   - errorIsTerminal: Whether standard error is a terminal (default false: no progress line).
    public init(readInput: @escaping () -> Data, writeOutput: @escaping (Data) -> Void,
                writeError: @escaping (Data) -> Void, errorIsTerminal: Bool = false) {
        self.readInput = readInput
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's own standard streams.
    public static let standard = CommandIO(
        readInput: { FileHandle.standardInput.readDataToEndOfFile() },
        writeOutput: { FileHandle.standardOutput.write($0) },
        writeError: { FileHandle.standardError.write($0) },
        errorIsTerminal: isatty(STDERR_FILENO) == 1)

    /// A progress line for a long command (see `ProgressLine`), or nil when standard error is not a terminal or
    /// `--quiet` was given. Call `finish()` on it before writing anything else to standard error.
    /// - Parameter command: The command's name.
    public func progress(_ command: String) -> ProgressLine? {
        guard errorIsTerminal, !quiet else { return nil }
        let write = writeError
        return ProgressLine(command: command) { write(Data($0.utf8)) }
    }

    /// Reads all of standard input.
    public func input() -> Data { readInput() }
    /// Writes bytes to standard output.
    public func output(_ data: Data) { writeOutput(data) }
    /// Writes text to standard output.
    public func print(_ text: String) { writeOutput(Data((text + "\n").utf8)) }
    /// Writes a line to standard error.
    public func note(_ text: String) { writeError(Data((text + "\n").utf8)) }

    /// Reads a file, or standard input for `-` or `nil`.
    /// - Parameter path: A path, `-` or `nil`.
    /// - Throws: `CommandError.failure` when the file cannot be read.
    public func read(_ path: String?) throws(CommandError) -> Data {
        guard let path, path != "-" else { return input() }
        let handle = try Self.openForReading(path)
        do { return try handle.readToEnd() ?? Data() } catch {
            throw .failure("cannot read \(path): \(AtomicFile.reason(for: error))")
        }
    }

    /// The first bytes of a file, to recognise its format.
    /// - Parameters:
    ///   - path: A file path.
    ///   - count: How many bytes at most (fewer if the file is shorter); a positive byte count.
    /// - Throws: `CommandError.failure` when the file cannot be read.
    public func head(_ path: String, count: Int) throws(CommandError) -> Data {
        let handle = try Self.openForReading(path)
        do { return try handle.read(upToCount: count) ?? Data() } catch {
            throw .failure("cannot read \(path): \(AtomicFile.reason(for: error))")
        }
    }

    /// Opens a file for reading, refusing directories. open(2) rather than Data(contentsOf:), which refuses
    /// /dev/null and pipes such as <(…) and says little about why a file cannot be read.
    private static func openForReading(_ path: String) throws(CommandError) -> FileHandle {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .failure("cannot read \(path): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var status = stat()
        if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw .failure("cannot read \(path): it is a directory")
        }
        return handle
    }
}
