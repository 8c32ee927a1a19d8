import CZip
import Foundation

/// A ZIP archive opened read-only with libzip, from a file or from bytes in memory.
final class ZipArchive {
    /// One entry as the central directory describes it.
    struct Entry {
        /// Index in the archive.
        let index: UInt64
        /// The stored name.
        let name: String
        /// Announced uncompressed size.
        let size: UInt64
        /// Announced compressed size.
        let compressedSize: UInt64
        /// Whether the name is a directory (ends with `/`).
        var isDirectory: Bool { name.hasSuffix("/") }
    }

    private let handle: OpaquePointer
    /// A copy of in-memory archive bytes, owned here because `zip_source_buffer_create` does not copy.
    private var buffer: UnsafeMutableRawPointer?
    /// The archive's name in messages.
    let displayName: String
    let limits: KMZLimits

    private static func message(code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error))
    }

    /// Opens an archive file.
    init(url: URL, limits: KMZLimits) throws(KMLError) {
        var code: Int32 = 0
        guard let h = zip_open(url.path, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            if code == ZIP_ER_OPEN || code == ZIP_ER_NOENT || code == ZIP_ER_READ {
                throw .io(path: url.path, reason: Self.message(code: code))
            }
            throw .corruptArchive(path: url.path, reason: Self.message(code: code))
        }
        handle = h
        displayName = url.path
        self.limits = limits
    }

    /// Opens an archive held in memory (the bytes are copied).
    init(data: Data, name: String, limits: KMZLimits) throws(KMLError) {
        let copy = malloc(max(data.count, 1))!
        data.withUnsafeBytes { if let base = $0.baseAddress { copy.copyMemory(from: base, byteCount: data.count) } }
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(copy, UInt64(data.count), 0, &error) else {
            free(copy)
            throw .corruptArchive(path: name, reason: String(cString: zip_error_strerror(&error)))
        }
        guard let h = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
            zip_source_free(source)
            free(copy)
            throw .corruptArchive(path: name, reason: String(cString: zip_error_strerror(&error)))
        }
        handle = h
        buffer = copy
        displayName = name
        self.limits = limits
    }

    deinit {
        zip_discard(handle)
        free(buffer)
    }

    /// Every entry, in central-directory order.
    func entries() throws(KMLError) -> [Entry] {
        let count = zip_get_num_entries(handle, 0)
        guard count >= 0 else { throw .corruptArchive(path: displayName, reason: "unreadable central directory") }
        guard count <= limits.maximumEntries else {
            throw .archiveTooLarge(reason: "\(count) entries (limit \(limits.maximumEntries))")
        }
        var out: [Entry] = []
        for i in 0..<UInt64(count) {
            var st = zip_stat_t()
            zip_stat_init(&st)
            guard zip_stat_index(handle, i, 0, &st) == 0, let cname = st.name else {
                throw .corruptArchive(path: displayName, reason: "unreadable entry \(i)")
            }
            out.append(Entry(index: i, name: String(cString: cname), size: st.size, compressedSize: st.comp_size))
        }
        return out
    }

    /// Whether an entry name stays inside the archive: relative, no `..` component, no drive letter or
    /// backslash tricks, no NUL.
    static func isSafe(_ name: String) -> Bool {
        if name.isEmpty || name.hasPrefix("/") || name.hasPrefix("\\") || name.contains("\0") { return false }
        let scalars = Array(name.unicodeScalars)
        if scalars.count >= 2, scalars[1] == ":" { return false }  // C:\, C:/
        let parts = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        return !parts.contains("..")
    }

    /// Checks an entry's announced sizes against a limit and the ratio limit.
    func check(_ entry: Entry, limit: UInt64) throws(KMLError) {
        guard Self.isSafe(entry.name) else { throw .unsafeEntryPath(entry.name) }
        if entry.size > limit { throw .entryTooLarge(entry: entry.name, bytes: entry.size, limit: limit) }
        if entry.size > limits.ratioThresholdBytes {
            let ratio = entry.compressedSize == 0 ? Double.infinity : Double(entry.size) / Double(entry.compressedSize)
            if ratio > limits.maximumCompressionRatio {
                throw .compressionRatioExceeded(entry: entry.name, ratio: ratio, limit: limits.maximumCompressionRatio)
            }
        }
    }

    /// An open entry that inflates in chunks, counting the bytes actually produced.
    final class EntryReader {
        private let file: OpaquePointer
        private let entry: Entry
        private let limit: UInt64
        private let archive: ZipArchive  // keeps the archive open while reading
        private(set) var produced: UInt64 = 0

        fileprivate init(archive: ZipArchive, entry: Entry, limit: UInt64) throws(KMLError) {
            guard let f = zip_fopen_index(archive.handle, entry.index, 0) else {
                let message = String(cString: zip_strerror(archive.handle))
                throw .corruptArchive(path: archive.displayName, reason: "cannot open \(entry.name): \(message)")
            }
            file = f
            self.entry = entry
            self.limit = limit
            self.archive = archive
        }

        deinit { zip_fclose(file) }

        /// Inflates up to `count` bytes; 0 at the end.
        func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(KMLError) -> Int {
            let n = zip_fread(file, buffer, UInt64(count))
            if n < 0 {
                let message = String(cString: zip_error_strerror(zip_file_get_error(file)))
                throw .corruptArchive(path: archive.displayName, reason: "\(entry.name): \(message)")
            }
            produced += UInt64(n)
            if produced > limit {
                throw .entryTooLarge(entry: entry.name, bytes: produced, limit: limit)
            }
            if produced > entry.size {
                throw .corruptArchive(path: archive.displayName,
                                      reason: "\(entry.name) inflates to more than the \(entry.size) bytes its header announces")
            }
            if produced > archive.limits.ratioThresholdBytes {
                let ratio = Double(produced) / Double(max(entry.compressedSize, 1))
                if ratio > archive.limits.maximumCompressionRatio {
                    throw .compressionRatioExceeded(entry: entry.name, ratio: ratio,
                                                    limit: archive.limits.maximumCompressionRatio)
                }
            }
            return Int(n)
        }
    }

    /// Opens an entry for streaming after checking its announced sizes.
    func open(_ entry: Entry, limit: UInt64) throws(KMLError) -> EntryReader {
        try check(entry, limit: limit)
        return try EntryReader(archive: self, entry: entry, limit: limit)
    }

    /// Reads a whole entry into memory (checked as `open`).
    func read(_ entry: Entry, limit: UInt64) throws(KMLError) -> Data {
        let reader = try open(entry, limit: limit)
        var data = Data(capacity: Int(min(entry.size, limit)))
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let n = try reader.read(into: chunk, count: chunkSize)
            if n == 0 { break }
            data.append(chunk.assumingMemoryBound(to: UInt8.self), count: n)
        }
        return data
    }
}
