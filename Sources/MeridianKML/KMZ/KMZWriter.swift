import CDeflate
import Foundation
import Glibc

/// Writes ZIP archives (APPNOTE 6.3): entries in the order given (so `doc.kml` comes first), each deflated in one
/// piece with libdeflate, or stored when deflate would not make it smaller (icons already compressed). Zip64
/// records are added only when an archive needs them (a size or offset of 4 GiB or more, more than 65,534
/// entries). Archives are read back with libzip (`ZipArchive`).
enum KMZWriter {
    /// The libdeflate level entries are deflated with: 1, the fastest. On the 55.7 MB document of benchmark P4
    /// (CPU time, one core): libdeflate level 1 takes 0.33 s for 14.9 MB; level 2 0.63 s for 14.3 MB; level 6
    /// 1.0 s for 12.1 MB. Before, libzip with zlib level 3 took 0.72 s for 15.1 MB (zlib level 1: 0.44 s for
    /// 15.9 MB; zlib's default, 6: 2.0 s for 13.7 MB). simplekml's KMZ of the same placemarks is 15.1 MB.
    static let deflateLevel: Int32 = 1

    /// Writes an archive.
    /// - Parameters:
    ///   - entries: Entry names and contents, in order.
    ///   - url: The archive to create (replaced if present).
    /// - Throws: `KMLError.io` with the system's message.
    static func write(_ entries: [(name: String, data: Data)], to url: URL) throws(KMLError) {
        let archive = try Archive(url: url)
        for (name, data) in entries {
            let failure = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> KMLError? in
                do throws(KMLError) { try archive.add(name, bytes) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
        try archive.finish()
    }

    /// An archive being written to a file: local entries as they are added, the central directory at the end.
    final class Archive {
        /// One entry of the central directory.
        private struct Record {
            let name: [UInt8]
            let method: UInt16
            let crc: UInt32
            let compressedSize: UInt64
            let size: UInt64
            let offset: UInt64
        }

        private let url: URL
        private var descriptor: Int32
        private let compressor: OpaquePointer
        private var records: [Record] = []
        private var offset: UInt64 = 0
        /// Sizes, offsets and counts from which Zip64 records are written (lowered by tests).
        private let zip64Limit: UInt64
        /// MS-DOS time and date of the entries: now, in local time, as libzip and zip(1) write them.
        private let dosTime: UInt16, dosDate: UInt16

        /// Creates (or truncates) the file.
        /// - Parameters:
        ///   - url: The archive file.
        ///   - zip64Limit: Sizes and offsets from this value on are written as Zip64 (default: 2^32 − 1, where the
        ///     format requires it; tests pass smaller values).
        init(url: URL, zip64Limit: UInt64 = 0xFFFF_FFFF) throws(KMLError) {
            self.url = url
            self.zip64Limit = zip64Limit
            descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { throw .io(path: url.path, reason: String(cString: strerror(errno))) }
            guard let c = libdeflate_alloc_compressor(KMZWriter.deflateLevel) else {
                Glibc.close(descriptor)
                throw .io(path: url.path, reason: "cannot allocate a deflate compressor")
            }
            compressor = c
            var now = time(nil), parts = tm()
            localtime_r(&now, &parts)
            let year = max(Int(parts.tm_year) + 1900, 1980)
            dosTime = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
            dosDate = UInt16(year - 1980) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        }

        deinit {
            if descriptor >= 0 { Glibc.close(descriptor) }
            libdeflate_free_compressor(compressor)
        }

        /// Adds an entry: deflated (or stored, when that is smaller) and written at once.
        func add(_ name: String, _ bytes: UnsafeRawBufferPointer) throws(KMLError) {
            guard name.utf8.count <= 0xFFFF else { throw .io(path: url.path, reason: "entry name too long: \(name.prefix(80))…") }
            let size = UInt64(bytes.count)
            let crc = UInt32(truncatingIfNeeded: libdeflate_crc32(0, bytes.baseAddress, bytes.count))
            // Deflated into a buffer one byte smaller than the input: libdeflate returns 0 when it does not fit.
            let capacity = max(bytes.count - 1, 0)
            let compressed = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
            defer { compressed.deallocate() }
            let deflated = capacity == 0 ? 0
                : libdeflate_deflate_compress(compressor, bytes.baseAddress, bytes.count, compressed, capacity)
            let method: UInt16 = deflated > 0 ? 8 : 0
            let data = deflated > 0 ? UnsafeRawBufferPointer(start: compressed, count: deflated) : bytes
            let record = Record(name: Array(name.utf8), method: method, crc: crc, compressedSize: UInt64(data.count),
                                size: size, offset: offset)
            var header = ByteWriter()
            let sizesInZip64 = record.size >= zip64Limit || record.compressedSize >= zip64Limit
            header.u32(0x0403_4B50)
            header.u16(needsZip64(record) ? 45 : 20)  // version needed to extract
            header.u16(flags(record))
            header.u16(method)
            header.u16(dosTime)
            header.u16(dosDate)
            header.u32(crc)
            header.u32(sizesInZip64 ? 0xFFFF_FFFF : UInt32(record.compressedSize))
            header.u32(sizesInZip64 ? 0xFFFF_FFFF : UInt32(record.size))
            header.u16(UInt16(record.name.count))
            header.u16(sizesInZip64 ? 20 : 0)  // extra field length
            header.bytes.append(contentsOf: record.name)
            if sizesInZip64 {  // the local Zip64 field holds both sizes
                header.u16(0x0001)
                header.u16(16)
                header.u64(record.size)
                header.u64(record.compressedSize)
            }
            try writeAll(header.bytes)
            try writeAll(data)
            offset += UInt64(header.bytes.count) + UInt64(data.count)
            records.append(record)
        }

        /// Writes the central directory and closes the file.
        func finish() throws(KMLError) {
            var directory = ByteWriter()
            for r in records {
                var extra = ByteWriter()  // Zip64 fields, in the order the format fixes, only those that overflow
                if r.size >= zip64Limit { extra.u64(r.size) }
                if r.compressedSize >= zip64Limit { extra.u64(r.compressedSize) }
                if r.offset >= zip64Limit { extra.u64(r.offset) }
                directory.u32(0x0201_4B50)
                directory.u16(3 << 8 | 45)  // made by: Unix, APPNOTE 4.5
                directory.u16(needsZip64(r) ? 45 : 20)
                directory.u16(flags(r))
                directory.u16(r.method)
                directory.u16(dosTime)
                directory.u16(dosDate)
                directory.u32(r.crc)
                directory.u32(r.compressedSize >= zip64Limit ? 0xFFFF_FFFF : UInt32(r.compressedSize))
                directory.u32(r.size >= zip64Limit ? 0xFFFF_FFFF : UInt32(r.size))
                directory.u16(UInt16(r.name.count))
                directory.u16(extra.bytes.isEmpty ? 0 : UInt16(4 + extra.bytes.count))
                directory.u16(0)  // comment length
                directory.u16(0)  // disk number
                directory.u16(0)  // internal attributes
                directory.u32(0o100644 << 16)  // external attributes: a regular file, rw-r--r--
                directory.u32(r.offset >= zip64Limit ? 0xFFFF_FFFF : UInt32(r.offset))
                directory.bytes.append(contentsOf: r.name)
                if !extra.bytes.isEmpty {
                    directory.u16(0x0001)
                    directory.u16(UInt16(extra.bytes.count))
                    directory.bytes.append(contentsOf: extra.bytes)
                }
            }
            let directoryOffset = offset, directorySize = UInt64(directory.bytes.count)
            let count = UInt64(records.count)
            let zip64 = count >= min(zip64Limit, 0xFFFF) || directoryOffset >= zip64Limit || directorySize >= zip64Limit
            if zip64 {
                let recordOffset = directoryOffset + directorySize
                directory.u32(0x0606_4B50)  // Zip64 end of central directory record
                directory.u64(44)  // its size after this field
                directory.u16(3 << 8 | 45)
                directory.u16(45)
                directory.u32(0)  // this disk
                directory.u32(0)  // the directory's disk
                directory.u64(count)
                directory.u64(count)
                directory.u64(directorySize)
                directory.u64(directoryOffset)
                directory.u32(0x0706_4B50)  // its locator
                directory.u32(0)
                directory.u64(recordOffset)
                directory.u32(1)  // disks
            }
            directory.u32(0x0605_4B50)  // end of central directory
            directory.u16(0)
            directory.u16(0)
            directory.u16(zip64 ? 0xFFFF : UInt16(count))
            directory.u16(zip64 ? 0xFFFF : UInt16(count))
            directory.u32(zip64 ? 0xFFFF_FFFF : UInt32(directorySize))
            directory.u32(zip64 ? 0xFFFF_FFFF : UInt32(directoryOffset))
            directory.u16(0)  // comment length
            try writeAll(directory.bytes)
            let status = Glibc.close(descriptor)
            descriptor = -1
            if status != 0 { throw .io(path: url.path, reason: String(cString: strerror(errno))) }
        }

        private func needsZip64(_ r: Record) -> Bool {
            r.size >= zip64Limit || r.compressedSize >= zip64Limit || r.offset >= zip64Limit
        }

        /// General purpose flags: bit 11 when the name is UTF-8 beyond ASCII.
        private func flags(_ r: Record) -> UInt16 { r.name.allSatisfy { $0 < 0x80 } ? 0 : 1 << 11 }

        private func writeAll(_ bytes: [UInt8]) throws(KMLError) {
            let failure = bytes.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> KMLError? in
                do throws(KMLError) { try writeAll(b) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }

        private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(KMLError) {
            guard var p = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let n = Glibc.write(descriptor, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw .io(path: url.path, reason: String(cString: strerror(errno)))
                }
                p += n
                left -= n
            }
        }
    }

    /// Little-endian fields of ZIP headers.
    private struct ByteWriter {
        var bytes: [UInt8] = []

        mutating func u16(_ v: UInt16) {
            bytes.append(UInt8(truncatingIfNeeded: v))
            bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        }

        mutating func u32(_ v: UInt32) {
            u16(UInt16(truncatingIfNeeded: v))
            u16(UInt16(truncatingIfNeeded: v >> 16))
        }

        mutating func u64(_ v: UInt64) {
            u32(UInt32(truncatingIfNeeded: v))
            u32(UInt32(truncatingIfNeeded: v >> 32))
        }
    }
}
