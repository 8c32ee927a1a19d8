import Foundation

/// Checks that a FlatGeobuf file written by `FeatureTableWriter` holds what was handed to GDAL.
///
/// GDAL 3.6's FlatGeobuf writer does not check most of its writes (the header's, and a feature's when part of it
/// was written): a full disk or a file-size limit leaves a file cut short and no error. The writer's files have no
/// spatial index, so their layout is plain: the 8 magic bytes, a size-prefixed header, then one size-prefixed
/// feature after another up to the end of the file. Walking the size prefixes (4 bytes read per feature, the file
/// read in 1 MiB windows) tells a whole file from a cut one without parsing anything.
enum FlatGeobufCheck {
    /// Why the file at `path` is not a whole FlatGeobuf of `features` features, or `nil` when it is.
    static func problem(path: String, features expected: Int) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "the file GDAL wrote cannot be read back: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "the file GDAL wrote cannot be read back: \(String(cString: strerror(errno)))" }
        var reader = WindowReader(fd: fd, size: Int(status.st_size))
        let cut = "a write failed (a full disk or a file-size limit?)"
        guard let magic = reader.bytes(at: 0, count: 8), magic[0..<3] == [0x66, 0x67, 0x62], magic[3] == 3,
              magic[4..<7] == [0x66, 0x67, 0x62] else {
            return "the file GDAL wrote is \(reader.size) bytes, without a whole FlatGeobuf header: \(cut)"
        }
        guard let headerSize = reader.uint32(at: 8), 12 + Int(headerSize) <= reader.size else {
            return "the file GDAL wrote is \(reader.size) bytes, without a whole FlatGeobuf header: \(cut)"
        }
        var offset = 12 + Int(headerSize)
        var count = 0
        while offset < reader.size {
            guard let length = reader.uint32(at: offset), offset + 4 + Int(length) <= reader.size else {
                return "the file GDAL wrote holds \(count) whole feature(s) of \(expected), then ends at byte \(reader.size) inside the next: \(cut)"
            }
            offset += 4 + Int(length)
            count += 1
        }
        guard count == expected else {
            return "the file GDAL wrote holds \(count) feature(s) of \(expected): \(cut)"
        }
        return nil
    }

    /// Reads small values at increasing offsets of a file through a 1 MiB window.
    private struct WindowReader {
        let fd: Int32
        let size: Int
        private var window = [UInt8]()
        private var start = 0

        init(fd: Int32, size: Int) {
            self.fd = fd
            self.size = size
        }

        /// `count` bytes at `offset`, or `nil` past the end of the file or when it cannot be read.
        mutating func bytes(at offset: Int, count: Int) -> [UInt8]? {
            guard offset >= 0, offset + count <= size else { return nil }
            if offset < start || offset + count > start + window.count {
                var buffer = [UInt8](repeating: 0, count: min(1 << 20, size - offset))
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
                guard n >= count else { return nil }
                window = Array(buffer.prefix(n))
                start = offset
            }
            return Array(window[(offset - start)..<(offset - start + count)])
        }

        /// A little-endian 32-bit value at `offset`.
        mutating func uint32(at offset: Int) -> UInt32? {
            bytes(at: offset, count: 4).map { b in
                UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
            }
        }
    }
}
