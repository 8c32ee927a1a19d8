import Foundation
import Meridian

/// The little-endian binary records `meridian internal` exchanges with `meridian-dask` (python/meridian_dask/
/// records.py reads and writes the same layouts): numbers as 8-byte integers and IEEE doubles, so coordinates cross
/// bit for bit. The layouts:
/// - circles: x, y, r per circle (doubles);
/// - indices: one integer per entry;
/// - rings: per ring its vertex count n, then n × (x, y);
/// - parts: the part count; per part its ring count, then the rings (shell first) as above;
/// - pieces: per piece its kind (0 chain, 1 hole), its local part and its ring as above;
/// - geometries: per geometry its WKB length and WKB (little-endian, ISO), its distance (double), and its label's
///   UTF-8 length and text.
public enum BinaryRecords {
    /// Appends integers.
    public static func append(_ values: Int..., to data: inout Data) {
        for v in values { withUnsafeBytes(of: Int64(v).littleEndian) { data.append(contentsOf: $0) } }
    }

    /// Appends integers to a streaming output.
    public static func append(_ values: Int..., to out: inout ByteBuffer) {
        for v in values { withUnsafeBytes(of: Int64(v).littleEndian) { out.append($0) } }
    }

    /// Appends doubles.
    public static func append(doubles values: [Double], to data: inout Data) {
        values.withUnsafeBytes { data.append($0.bindMemory(to: UInt8.self)) }
    }

    /// Appends a ring: its vertex count, then its vertices.
    public static func append(ring: [Coordinate], to data: inout Data) {
        append(ring.count, to: &data)
        var xy: [Double] = []
        xy.reserveCapacity(2 * ring.count)
        for c in ring { xy += [c.x, c.y] }
        append(doubles: xy, to: &data)
    }

    /// A reader of records from the start of some bytes.
    public struct Reader {
        private let bytes: [UInt8]
        private var offset = 0
        private let name: String

        /// A reader of `data`, named `name` in messages.
        public init(_ data: Data, name: String) {
            bytes = [UInt8](data)
            self.name = name
        }

        /// Whether every byte has been read.
        public var atEnd: Bool { offset >= bytes.count }

        private mutating func take(_ count: Int) throws(CommandError) -> ArraySlice<UInt8> {
            guard count >= 0, count <= bytes.count - offset else {
                throw .failure("\(name): truncated at byte \(offset) (wanted \(count) more)")
            }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        /// The next integer.
        public mutating func integer() throws(CommandError) -> Int {
            var v: Int64 = 0
            let raw = try take(8)
            withUnsafeMutableBytes(of: &v) { $0.copyBytes(from: raw) }
            return Int(Int64(littleEndian: v))
        }

        /// The next count, at most `limit`.
        /// - Parameter limit: The largest count accepted, 0 or more.
        public mutating func count(atMost limit: Int) throws(CommandError) -> Int {
            let n = try integer()
            guard n >= 0, n <= limit else { throw .failure("\(name): a count of \(n) at byte \(offset - 8)") }
            return n
        }

        /// The next `count` doubles.
        /// - Parameter count: How many, 0 or more.
        public mutating func doubles(_ count: Int) throws(CommandError) -> [Double] {
            let raw = try take(8 * count)
            var values = [Double](repeating: 0, count: count)
            values.withUnsafeMutableBytes { $0.copyBytes(from: raw) }
            return values
        }

        /// The next raw bytes.
        /// - Parameter count: How many bytes, 0 or more.
        public mutating func data(_ count: Int) throws(CommandError) -> Data { Data(try take(count)) }

        /// The next ring.
        public mutating func ring() throws(CommandError) -> [Coordinate] {
            let n = try count(atMost: (bytes.count - offset) / 16)
            let xy = try doubles(2 * n)
            return (0..<n).map { Coordinate(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
        }
    }
}
