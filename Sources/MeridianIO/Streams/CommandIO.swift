import Foundation
import Meridian

/// The command's standard streams, replaceable in tests.
///
/// A stream that cannot be written never crashes the command: the first failed write to standard output is
/// remembered (`outputFailure`), later output is dropped, and `MeridianCommandLine.run` then ends with exit 1
/// (quietly for a reader that went away, `EPIPE`, like other Unix tools). A failed write to standard error is
/// ignored: there is nowhere left to report it.
public final class CommandIO: @unchecked Sendable {
    private let readInput: () throws -> Data
    private let writeOutput: (Data) throws -> Void
    private let writeError: (Data) throws -> Void
    /// The first failed write to standard output, if any.
    public private(set) var outputFailure: StreamWriteError?
    /// Whether standard error is a terminal (progress lines are drawn only there).
    public let errorIsTerminal: Bool
    /// `--quiet`: no progress line even on a terminal (set by `MeridianCommandLine.run`).
    public var quiet = false
    /// Where standard input's text comes from, for messages (`nil`: "stdin"); set when a command reads a piece of a
    /// larger file on standard input (the internal jobs of `meridian-dask`).
    public var inputOrigin: InputOrigin?

    /// Creates streams from closures.
    /// - Parameters:
    ///   - readInput: Returns all of standard input; throws when it cannot be read.
    ///   - writeOutput: Appends to standard output; throwing (e.g. `StreamWriteError`) marks the output failed.
    ///   - writeError: Appends to standard error; what it throws is ignored.
    ///   - errorIsTerminal: Whether standard error is a terminal (default false: no progress line).
    public init(readInput: @escaping () throws -> Data, writeOutput: @escaping (Data) throws -> Void,
                writeError: @escaping (Data) throws -> Void, errorIsTerminal: Bool = false) {
        self.readInput = readInput
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's own standard streams, written with write(2) (FileHandle.write traps on an error).
    public static let standard = CommandIO(
        readInput: { try StreamInput.read(FileHandle.standardInput, name: "stdin") },
        writeOutput: { try StreamWriteError.write($0, to: STDOUT_FILENO) },
        writeError: { try StreamWriteError.write($0, to: STDERR_FILENO) },
        errorIsTerminal: isatty(STDERR_FILENO) == 1)

    /// A progress line for a long command (see `ProgressLine`), or nil when standard error is not a terminal or
    /// `--quiet` was given. Call `finish()` on it before writing anything else to standard error.
    /// - Parameter command: The command's name.
    public func progress(_ command: String) -> ProgressLine? {
        guard errorIsTerminal, !quiet else { return nil }
        let write = writeError
        return ProgressLine(command: command, delay: Self.progressDelay) { try? write(Data($0.utf8)) }
    }

    /// Seconds a command runs before its progress line appears: 1, or `MERIDIAN_PROGRESS_DELAY` when it is a
    /// number from 0 to 86,400 (0 shows the line at once, so a test of the line does not depend on how fast the
    /// machine runs the command).
    public static var progressDelay: Double {
        guard let text = ProcessInfo.processInfo.environment["MERIDIAN_PROGRESS_DELAY"], let seconds = Double(text),
              (0...86_400).contains(seconds)
        else { return 1 }
        return seconds
    }

    /// Reads all of standard input.
    /// - Throws: `CommandError.failure` when it cannot be read (e.g. it is closed).
    public func input() throws(CommandError) -> Data {
        do { return try readInput() } catch let error as CommandError {
            throw error
        } catch {
            throw .failure("cannot read stdin: \(AtomicFile.reason(for: error))")
        }
    }
    /// Writes bytes to standard output (dropped after a failed write).
    public func output(_ data: Data) {
        guard outputFailure == nil else { return }
        do { try writeOutput(data) } catch {
            outputFailure = error as? StreamWriteError ?? StreamWriteError(code: EIO)
        }
    }
    /// Writes text to standard output.
    public func print(_ text: String) { output(Data((text + "\n").utf8)) }
    /// Writes a line to standard error, control characters from input escaped (line breaks kept) so that a message
    /// cannot drive the terminal.
    public func note(_ text: String) {
        try? writeError(Data((TerminalText.escaped(text, keepingLineBreaks: true) + "\n").utf8))
    }

    /// Reads a file, or standard input for `-` or `nil`: a regular file whole, a pipe, FIFO or device as text
    /// (`StreamInput`: only its first bytes when they are not text).
    /// - Parameter path: A path, `-` or `nil`.
    /// - Throws: `CommandError.failure` when the file cannot be read, or a stream holds a NUL byte past its head.
    public func read(_ path: String?) throws(CommandError) -> Data {
        guard let path, path != "-" else { return try input() }
        let handle = try Self.openForReading(path)
        do { return try StreamInput.read(handle, name: path) } catch let error as CommandError {
            throw error
        } catch {
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

/// A failed write to a standard stream: the `errno` of write(2).
public struct StreamWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value, e.g. `ENOSPC` (28) for a full disk, `EPIPE` (32) for a pipe whose reader went away.
    public var code: Int32

    /// Creates the error for an `errno` value.
    /// - Parameter code: The `errno` of the failed write, a positive value.
    public init(code: Int32) { self.code = code }

    /// The operating system's reason, e.g. "No space left on device".
    public var description: String { String(cString: strerror(code)) }

    /// Writes all bytes to a file descriptor, retrying on `EINTR` and short writes.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - fd: An open file descriptor (1 for standard output, 2 for standard error).
    /// - Throws: `StreamWriteError` with the `errno` of the failed write.
    public static func write(_ data: Data, to fd: Int32) throws(StreamWriteError) {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, data.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw StreamWriteError(code: errno)
            }
            offset += written
        }
    }
}

/// Text from input made safe to print in a one-line message on a terminal.
public enum TerminalText {
    /// Escapes control characters (C0, DEL, C1) and Unicode line/paragraph separators: `\n`, `\r`, `\t`, else
    /// `\u{1B}`; everything else is kept. Each line is then bounded by `MessageText.bounded` (its middle elided
    /// beyond 1,000 characters), so no input echoed in a message makes it kilobytes long.
    /// - Parameters:
    ///   - text: Any text, e.g. an error message quoting a CSV field.
    ///   - keepingLineBreaks: Whether `\n` is kept (for messages of several lines composed by Meridian itself).
    /// - Returns: The text with no character that could break the line or drive the terminal, of bounded lines.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        MessageText.bounded(escapedCharacters(text, keepingLineBreaks: keepingLineBreaks))
    }

    /// `escaped(_:keepingLineBreaks:)` without the bound.
    private static func escapedCharacters(_ text: String, keepingLineBreaks: Bool) -> String {
        func unsafe(_ u: Unicode.Scalar) -> Bool {
            u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
        }
        guard text.unicodeScalars.contains(where: { unsafe($0) && !(keepingLineBreaks && $0 == "\n") }) else {
            return text
        }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            guard unsafe(u), !(keepingLineBreaks && u == "\n") else { out.append(u); continue }
            switch u {
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            default: out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            }
        }
        return String(out)
    }
}
