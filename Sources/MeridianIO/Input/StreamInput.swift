import Foundation

/// How a command's input is read: a regular file whole (its size bounds what is read), and anything else — standard
/// input, a pipe, a FIFO, a device such as `/dev/zero` — a chunk at a time, with its first bytes judged before
/// more is read.
///
/// Every command that reads its input this way reads text (GeoJSON, CSV, WKT, a job file). A stream whose first
/// 4 KiB are not text (`InputFormat.sniff`: binary data, a ZIP archive, a GeoPackage…) is not read further: the
/// bytes read so far are returned, and the reader refuses them by the same first bytes, with its usual message. A
/// text stream is read to its end, and a NUL byte in it (text has none) stops the read with an error: an endless
/// device or a stream that turns to binary is never read past its first chunk of non-text.
public enum StreamInput {
    /// Bytes read from a stream at a time.
    public static let chunkSize = 1 << 16

    /// Reads an input.
    /// - Parameters:
    ///   - handle: The open input.
    ///   - name: How messages name it (its path, or "stdin").
    /// - Returns: Every byte of a regular file or a text stream; the first bytes of a stream that is not text.
    /// - Throws: `CommandError.failure` for a NUL byte in a text stream, or the read's own error.
    public static func read(_ handle: FileHandle, name: String) throws -> Data {
        var status = stat()
        if fstat(handle.fileDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
            return try handle.readToEnd() ?? Data()
        }
        var data = Data()
        var isText: Bool?
        while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
            let start = data.count
            data.append(chunk)
            if isText == nil, data.count >= InputFormat.headLength {
                switch InputFormat.sniff(data) {
                case .geoJSON, .csv, .wkt, .kml: isText = true
                case .kmz, .featureTable, .unrecognized: return data
                }
            }
            // The head itself is judged by the reader (sniff reports a NUL byte in it by line and column).
            if isText == true, let nul = data[max(start, InputFormat.headLength)...].firstIndex(of: 0) {
                throw CommandError.failure("\(name): binary data at byte \(nul + 1) (a NUL byte, which text has none of); stopped reading")
            }
        }
        return data
    }
}
