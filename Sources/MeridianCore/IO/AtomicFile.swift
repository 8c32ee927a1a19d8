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
/// target, so a reader never sees a partial file and a failed write leaves nothing behind.
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
            throw .failed(path: url.path, reason: error.localizedDescription)
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
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        defer { try? fm.removeItem(at: temporary) }
        try produce(temporary)
        if !overwrite && fm.fileExists(atPath: url.path) { throw FileWriteError.exists(url.path) }
        if rename(temporary.path, url.path) != 0 {
            throw FileWriteError.failed(path: url.path, reason: String(cString: strerror(errno)))
        }
    }
}
