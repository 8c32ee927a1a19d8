import Foundation

/// Why a file could not be written.
public enum FileWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The target exists and overwriting was not allowed.
    case exists(String)
    /// The operating system refused; the message says why.
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .exists(let p): "\(p) already exists (overwriting was not requested)"
        case .failed(let p, let r): "cannot write \(p): \(r)"
        }
    }
}

/// Atomic file writes: the data goes to a temporary file in the target's folder, which is then renamed over the
/// target, so a reader never sees a partial file and a failed write leaves nothing behind. A symbolic link is
/// followed to the file it names; a pipe or device (`-o /dev/stdout`) is written in place once the content is
/// complete.
public enum AtomicFile {
    /// Writes data atomically.
    /// - Parameters:
    ///   - data: The complete file content.
    ///   - url: The target file.
    ///   - overwrite: Whether an existing file may be replaced (default `true`).
    /// - Throws: `FileWriteError`.
    public static func write(_ data: Data, to url: URL, overwrite: Bool = true) throws(FileWriteError) {
        do {
            try write(to: url, overwrite: overwrite) { temporary in try data.write(to: temporary) }
        } catch let error as FileWriteError {
            throw error
        } catch {
            throw .failed(path: url.path, reason: reason(for: error))
        }
    }

    /// Streams a file atomically: `body` writes into a buffer that goes to a temporary file in chunks of
    /// `chunkSize` bytes (whenever a writer calls `flushIfFull()`), so memory stays at about one chunk; the file is
    /// renamed over the target when `body` returns, and removed when anything throws.
    /// - Parameters:
    ///   - url: The target file.
    ///   - overwrite: Whether an existing file may be replaced.
    ///   - chunkSize: Bytes per write to the file (at least 1; default 1 MiB).
    ///   - written: Told the bytes written so far after each chunk (e.g. for a progress line).
    ///   - body: Writes the content.
    /// - Throws: `FileWriteError`, or what `body` throws.
    public static func stream(
        to url: URL, overwrite: Bool = true, chunkSize: Int = 1 << 20, written: ((Int) -> Void)? = nil,
        _ body: (inout ByteBuffer) throws -> Void
    ) throws {
        try write(to: url, overwrite: overwrite) { temporary in
            try streamFile(temporary, named: url.path, chunkSize: chunkSize, written: written, body)
        }
    }

    /// Streams a scratch file, not atomically: creates (or truncates) `url` and writes `body`'s buffer to it in
    /// chunks of `chunkSize` bytes. For an intermediate file that a later step reads and the caller removes (the
    /// doc.kml a KMZ is deflated from); output goes through `stream(to:)`.
    /// - Parameters:
    ///   - url: The file to write.
    ///   - chunkSize: Bytes per write to the file (at least 1; default 1 MiB).
    ///   - body: Writes the content.
    /// - Throws: `FileWriteError.failed`, or what `body` throws.
    public static func streamScratch(to url: URL, chunkSize: Int = 1 << 20, _ body: (inout ByteBuffer) throws -> Void)
        throws
    {
        try streamFile(url, named: url.path, chunkSize: chunkSize, written: nil, body)
    }

    /// Creates or truncates `file` and streams `body`'s buffer into it; errors name `path`.
    private static func streamFile(
        _ file: URL, named path: String, chunkSize: Int, written: ((Int) -> Void)?,
        _ body: (inout ByteBuffer) throws -> Void
    ) throws {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        guard fd >= 0 else { throw FileWriteError.failed(path: path, reason: String(cString: strerror(errno))) }
        var closed = false
        defer { if !closed { close(fd) } }
        var total = 0
        var out = ByteBuffer(chunkSize: chunkSize) { bytes in
            try writeAll(bytes, to: fd, path: path)
            total += bytes.count
            written?(total)
        }
        try body(&out)
        try out.flush()
        closed = true
        if close(fd) != 0 { throw FileWriteError.failed(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Writes all of `bytes` to a file descriptor, retrying after interruptions and short writes.
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - fd: An open file descriptor (0 or more).
    ///   - path: How errors name the file.
    /// - Throws: `FileWriteError.failed` with the operating system's reason.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws(FileWriteError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileWriteError.failed(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// Produces a file atomically with a writer that fills a temporary path (e.g. a zip library).
    /// - Parameters:
    ///   - url: The target file.
    ///   - overwrite: Whether an existing file may be replaced.
    ///   - produce: Writes the complete file at the temporary URL it is given; throwing discards it.
    /// - Throws: `FileWriteError`, or what `produce` throws.
    public static func write(to url: URL, overwrite: Bool = true, _ produce: (URL) throws -> Void) throws {
        let fm = FileManager.default
        if !overwrite && fm.fileExists(atPath: url.path) { throw FileWriteError.exists(url.path) }
        if isSpecialFile(url.path) {
            try writeSpecial(to: url, produce)
            return
        }
        // Through a symbolic link to the file it names: renaming over the link would replace the link itself.
        var target = url
        if let resolved = realpath(url.path, nil) {
            target = URL(fileURLWithPath: String(cString: resolved))
            free(resolved)
        }
        try checkWritable(target)
        let directory = target.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        defer { try? fm.removeItem(at: temporary) }
        try produce(temporary)
        if !overwrite && fm.fileExists(atPath: url.path) { throw FileWriteError.exists(url.path) }
        if rename(temporary.path, target.path) != 0 {
            throw FileWriteError.failed(path: url.path, reason: String(cString: strerror(errno)))
        }
    }

    /// Whether the path names (through any links) something other than a regular file or a folder: a pipe, a
    /// terminal, `/dev/stdout`, `/dev/null`. Those are written in place, never renamed over.
    public static func isSpecialFile(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// Produces the content in a private temporary file, then copies it into the special file: a failure of
    /// `produce` writes nothing.
    private static func writeSpecial(to url: URL, _ produce: (URL) throws -> Void) throws {
        let fm = FileManager.default
        let temporary = fm.temporaryDirectory.appendingPathComponent("meridian-\(UUID().uuidString).tmp")
        defer { try? fm.removeItem(at: temporary) }
        try produce(temporary)
        let input = open(temporary.path, O_RDONLY)
        guard input >= 0 else { throw FileWriteError.failed(path: url.path, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        let fd = open(url.path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { throw FileWriteError.failed(path: url.path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        // Copied a chunk at a time: the content may be far larger than memory should hold.
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let n = read(input, chunk.baseAddress, chunk.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileWriteError.failed(path: url.path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            try writeAll(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), to: fd, path: url.path)
        }
    }

    /// Refuses, before anything is produced, a target that cannot be written: a folder, or a file in a folder that
    /// does not exist, is not a folder or is not writable.
    /// - Parameter url: The target file.
    /// - Throws: `FileWriteError.failed` saying which.
    public static func checkWritable(_ url: URL) throws(FileWriteError) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .failed(path: url.path, reason: "it is a directory")
        }
        let directory = url.deletingLastPathComponent().path
        guard fm.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw .failed(path: url.path, reason: "the folder \(directory) does not exist")
        }
        guard isDirectory.boolValue else { throw .failed(path: url.path, reason: "\(directory) is not a folder") }
        guard access(directory, W_OK) == 0 else {
            let why = String(cString: strerror(errno))
            throw .failed(path: url.path, reason: "the folder \(directory) is not writable (\(why))")
        }
    }

    /// The operating system's reason for a failed write (`No such file or directory`, `Read-only file system`, …)
    /// rather than Foundation's generic "The operation could not be completed".
    /// - Parameter error: What a write threw.
    public static func reason(for error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedFailureReason ?? ns.localizedDescription
    }
}
