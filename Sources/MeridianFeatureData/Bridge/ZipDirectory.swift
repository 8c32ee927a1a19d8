import Foundation

/// The entry names and sizes of a zip archive, read from its central directory as they are stored, without
/// inflating anything.
///
/// GDAL's `/vsizip/` leaves out of its listing the entries whose names climb out of the archive (`../p.shp`), so a
/// zip of such shapefiles would pass for a zip of none; read here, they are seen and refused by name.
enum ZipDirectory {
    /// The names of the entries (at most `maximumEntries` + 1) and their total declared uncompressed size; `nil` when
    /// the file is not a zip archive this reader understands (no end record, a ZIP64 archive), which GDAL then lists.
    static func entries(_ path: String, maximumEntries: Int) -> (names: [String], bytes: UInt64)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 22 else { return nil }
        // The end of central directory record: in the last 22 bytes plus a comment of at most 65,535.
        let tailLength = min(size, 22 + 65_535)
        guard (try? handle.seek(toOffset: size - tailLength)) != nil,
              let tail = try? handle.read(upToCount: Int(tailLength)), tail.count == Int(tailLength) else { return nil }
        let bytes = [UInt8](tail)
        guard let end = stride(from: bytes.count - 22, through: 0, by: -1).first(where: {
            bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x05 && bytes[$0 + 3] == 0x06
        }) else { return nil }
        let count = Int(le16(bytes, end + 10))
        let directorySize = UInt64(le32(bytes, end + 12)), directoryOffset = UInt64(le32(bytes, end + 16))
        guard count != 0xFFFF, directorySize != 0xFFFF_FFFF, directoryOffset != 0xFFFF_FFFF,
              directoryOffset + directorySize <= size else { return nil }
        guard (try? handle.seek(toOffset: directoryOffset)) != nil,
              let data = try? handle.read(upToCount: Int(directorySize)), data.count == Int(directorySize)
        else { return nil }
        let directory = [UInt8](data)
        var names: [String] = []
        var total: UInt64 = 0
        var i = 0
        while names.count < min(count, maximumEntries + 1), i + 46 <= directory.count {
            guard le32(directory, i) == 0x0201_4B50 else { return nil }
            let nameLength = Int(le16(directory, i + 28)), extra = Int(le16(directory, i + 30)),
                comment = Int(le16(directory, i + 32))
            guard i + 46 + nameLength <= directory.count else { return nil }
            names.append(String(decoding: directory[(i + 46)..<(i + 46 + nameLength)], as: UTF8.self))
            total += UInt64(le32(directory, i + 24))
            i += 46 + nameLength + extra + comment
        }
        return (names, total)
    }

    /// Whether an entry name is absolute or climbs out of the archive (a `..` component), as no entry read may be.
    static func isUnsafe(_ name: String) -> Bool {
        let n = name.replacingOccurrences(of: "\\", with: "/")
        return n.hasPrefix("/") || n.split(separator: "/", omittingEmptySubsequences: false).contains("..")
            || (n.count >= 2 && n.dropFirst().first == ":")
    }

    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
