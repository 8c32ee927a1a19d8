import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where KML bytes come from: a `.kml` file, the main KML entry of a KMZ, or bytes in memory. Detects KMZ by its
/// ZIP signature, not by the file name.
final class KMLSource {
    /// The stream for the parser.
    let stream: GuardedInputStream
    /// The archive, for KMZ sources.
    let archive: ZipArchive?
    /// The name of the KML entry read from the archive.
    let kmlEntry: String?
    /// Archive entries skipped (unsafe paths), for warnings.
    let skippedEntries: [String]

    private static let zipSignatures: [[UInt8]] = [[0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x05, 0x06]]

    /// Opens a file.
    init(url: URL, limits: KMZLimits) throws(KMLError) {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { throw .io(path: url.path, reason: String(cString: strerror(errno))) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .io(path: url.path, reason: "is a directory")
        }
        var magic = [UInt8](repeating: 0, count: 4)
        let n = read(fd, &magic, 4)
        if n == 4, Self.zipSignatures.contains(magic) || url.pathExtension.lowercased() == "kmz" {
            close(fd)
            let archive = try ZipArchive(url: url, limits: limits)
            (stream, kmlEntry, skippedEntries) = try Self.openMain(archive, limits: limits)
            self.archive = archive
            return
        }
        if n < 4, url.pathExtension.lowercased() == "kmz" {
            close(fd)
            throw .corruptArchive(path: url.path, reason: "file too short to be a ZIP archive")
        }
        lseek(fd, 0, SEEK_SET)
        let file = FileDescriptor(fd: fd)
        stream = GuardedInputStream { (buffer, count) throws(KMLError) -> Int in
            let r = read(file.fd, buffer, count)
            if r < 0 { throw .io(path: url.path, reason: String(cString: strerror(errno))) }
            return r
        }
        archive = nil
        kmlEntry = nil
        skippedEntries = []
    }

    /// Uses bytes in memory (KML text or a KMZ archive).
    init(data: Data, name: String, limits: KMZLimits) throws(KMLError) {
        if data.count >= 4, Self.zipSignatures.contains(Array(data.prefix(4))) {
            let archive = try ZipArchive(data: data, name: name, limits: limits)
            (stream, kmlEntry, skippedEntries) = try Self.openMain(archive, limits: limits)
            self.archive = archive
            return
        }
        var offset = 0
        stream = GuardedInputStream { (buffer, count) throws(KMLError) -> Int in
            let n = min(count, data.count - offset)
            if n > 0 {
                data.withUnsafeBytes { p in
                    buffer.update(from: p.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count: n)
                }
            }
            offset += n
            return n
        }
        archive = nil
        kmlEntry = nil
        skippedEntries = []
    }

    /// Chooses the archive's KML: `doc.kml` at the root, else the first `.kml` entry in central-directory order;
    /// entries with unsafe paths are skipped.
    private static func openMain(_ archive: ZipArchive, limits: KMZLimits) throws(KMLError)
        -> (GuardedInputStream, String, [String])
    {
        let entries = try archive.entries()
        let skipped = entries.filter { !ZipArchive.isSafe($0.name) }.map { $0.name }
        let candidates = entries.filter { ZipArchive.isSafe($0.name) && !$0.isDirectory
            && $0.name.lowercased().hasSuffix(".kml") }
        guard let main = candidates.first(where: { $0.name == "doc.kml" }) ?? candidates.first else {
            throw .noKMLInArchive(path: archive.displayName, entries: entries.map { $0.name })
        }
        let reader = try archive.open(main, limit: limits.maximumKMLBytes)
        let stream = GuardedInputStream { (buffer, count) throws(KMLError) -> Int in
            try reader.read(into: buffer, count: count)
        }
        return (stream, main.name, skipped)
    }

    /// The archive's other safe entries (icons, images, other KML files), read with the resource limits.
    func resources(limits: KMZLimits) throws(KMLError) -> [String: Data] {
        guard let archive else { return [:] }
        var out: [String: Data] = [:]
        var total: UInt64 = 0
        for e in try archive.entries() where ZipArchive.isSafe(e.name) && !e.isDirectory && e.name != kmlEntry {
            let d = try archive.read(e, limit: limits.maximumResourceBytes)
            total += UInt64(d.count)
            guard total <= limits.maximumTotalResourceBytes else {
                throw .archiveTooLarge(reason: "resources exceed \(limits.maximumTotalResourceBytes) bytes in total")
            }
            out[e.name] = d
        }
        return out
    }
}

/// Closes a file descriptor when released.
final class FileDescriptor: @unchecked Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }
}
