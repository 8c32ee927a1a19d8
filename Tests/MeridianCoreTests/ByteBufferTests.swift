import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore

/// The shared output path: number formatting against Swift's own and C's, streaming in chunks, errors of the drain,
/// atomic streamed files, and the byte-level CSV reader.
@Suite struct ByteBufferTests {
    /// `description` without a trailing ".0" (what WKT and JSON wrote before the shared buffer).
    static func swiftText(_ v: Double) -> String {
        let s = v.description
        return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }

    /// `appendNumber` writes exactly `description`'s text (without ".0") for random bit patterns, powers of ten and
    /// two around the switches to exponent notation (1e-4, 1e16), and the extremes.
    @Test func roundTripTextMatchesDescription() {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 1, -1, 0.1, 1e-4, 9.999999999999999e-5, 1e-5, 1e15, 9999999999999998, 1e16,
                                1.5e16, 1e21, 1e22, 1e23, 1e100, 1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude,
                                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 2_400_000.123456789, -97.123]
        for e in -330...310 { values.append(Double("1e\(e)")!) }
        for e in -1074...1023 { values.append(Double(sign: .plus, exponent: e, significand: 1)) }
        for _ in 0..<200_000 {
            let v = Double(bitPattern: rng.next())
            if v.isFinite { values.append(v) }
        }
        for _ in 0..<50_000 { values.append(Double.random(in: -1e7...1e7, using: &rng)) }
        var mismatches: [String] = []
        for v in values {
            var b = ByteBuffer(capacity: 16)
            b.appendNumber(v)
            let text = b.string
            if text != Self.swiftText(v) { mismatches.append("\(v.bitPattern): \(text) vs \(Self.swiftText(v))") }
            if Double(text)?.bitPattern != v.bitPattern && !(v == 0) { mismatches.append("no round trip: \(text)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// `appendFixed` writes what `String(format: "%.Nf")` writes, and `appendInteger` what `description` writes.
    @Test func fixedAndIntegerText() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let v = Double.random(in: -3e6...3e6, using: &rng)
            let decimals = Int.random(in: 0...12, using: &rng)
            var b = ByteBuffer()
            b.appendFixed(v, decimals: decimals)
            #expect(b.string == String(format: "%.\(decimals)f", v))
            let n = Int(truncatingIfNeeded: rng.next() as UInt64) >> Int.random(in: 0...63, using: &rng)
            var c = ByteBuffer()
            c.appendInteger(n)
            #expect(c.string == n.description)
        }
        for n in [0, -1, Int.min, Int.max] {
            var c = ByteBuffer()
            c.appendInteger(n)
            #expect(c.string == n.description)
        }
    }

    /// `appendFixed` against printf at every scale and number of decimals: random doubles from 1e-20 to 1e21 of both
    /// signs, exact ties (k/2^j, where printf rounds half to even), negative numbers that round to zero, -0.0, and
    /// products around the 10¹⁹ where the exact integer path hands over to printf.
    @Test func fixedTextAtEveryScale() {
        var rng = SplitMix64(seed: 20261201)
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.0625, 1e-5, -1e-5, 9.999999999e18,
                                1e19, 4503599627370497.5, 0.30000000000000004, 123456.78905, 179.9999999995]
        for e in -20...20 {  // below 1e21 (larger numbers are written as `appendNumber` writes them)
            for _ in 0..<400 {
                let v = Double.random(in: 1...10, using: &rng) * pow(10, Double(e))
                values.append(Bool.random(using: &rng) ? v : -v)
            }
        }
        for _ in 0..<4000 {  // ties: odd multiples of 2^-j
            let j = Int.random(in: 1...30, using: &rng)
            values.append(Double(2 * Int.random(in: 0...1_000_000, using: &rng) + 1) * pow(2, Double(-j)))
        }
        var mismatches: [String] = []
        for v in values {
            for decimals in 0...17 {
                var b = ByteBuffer()
                b.appendFixed(v, decimals: decimals)
                let expected = String(format: "%.\(decimals)f", v)
                if b.string != expected { mismatches.append("\(v) %.\(decimals)f: \(b.string) ≠ \(expected)") }
            }
        }
        let same = mismatches.isEmpty
        #expect(same, "\(mismatches.count) differ: \(mismatches.prefix(5))")
    }

    /// A streaming buffer hands over the same bytes in chunks of at least the chunk size, and keeps at most about
    /// one chunk.
    @Test func streamingDrainsInChunks() throws {
        final class Sink: @unchecked Sendable { var bytes: [UInt8] = []; var chunks: [Int] = [] }
        let sink = Sink()
        var out = ByteBuffer(chunkSize: 1000) { sink.bytes += $0; sink.chunks.append($0.count) }
        var expected = ""
        for i in 0..<5000 {
            let g = Geometry.point(Point(x: Double(i) / 7, y: -Double(i) / 3, spatialReference: .wgs84))
            WKT.write(g, to: &out)
            out.append(UInt8(ascii: "\n"))
            out.flushIfFull()
            #expect(out.count < 1100)
            expected += WKT.encode(g) + "\n"
        }
        try out.flush()
        #expect(String(decoding: sink.bytes, as: UTF8.self) == expected)
        #expect(sink.chunks.dropLast().allSatisfy { $0 >= 1000 } && sink.chunks.count > 50)
        #expect(out.drainedCount == expected.utf8.count)
    }

    /// The drain's first error is reported by `flush()`; later output is discarded.
    @Test func drainErrorsAreReported() {
        struct Full: Error {}
        final class Counter: @unchecked Sendable { var calls = 0 }
        let counter = Counter()
        var out = ByteBuffer(chunkSize: 10) { _ in
            counter.calls += 1
            throw Full()
        }
        for _ in 0..<10 {
            out.append("0123456789ABC" as StaticString)
            out.flushIfFull()
        }
        #expect(throws: Full.self) { try out.flush() }
        #expect(counter.calls == 1)
    }

    /// `AtomicFile.stream` leaves the complete file, or nothing when the body throws after writing chunks.
    @Test func streamedFilesAreAtomic() throws {
        struct Stop: Error {}
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bytebuffer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.txt")
        try AtomicFile.stream(to: target, chunkSize: 64) { out in
            for i in 0..<1000 {
                out.appendInteger(i)
                out.append(UInt8(ascii: "\n"))
                out.flushIfFull()
            }
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == (0..<1000).map { "\($0)\n" }.joined())
        let failed = folder.appendingPathComponent("failed.txt")
        #expect(throws: Stop.self) {
            try AtomicFile.stream(to: failed, chunkSize: 64) { out in
                for i in 0..<1000 {
                    out.appendInteger(i)
                    out.flushIfFull()
                }
                throw Stop()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.txt"])
    }

    /// The byte-level CSV reader: numbers without strings (spaces around them ignored, no nan/inf/hex), quoted
    /// fields with doubled quotes and line breaks, line numbers of records, and every number bit for bit equal to
    /// `Double(String)`.
    @Test func csvRecordReader() throws {
        let text = "x,y,name\r\n 1.5 ,-2e3,\"a \"\"b\"\"\"\n\n0x10,nan,\"multi\nline\"\n7,8,9"
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { b throws in
            var r = CSVRecordReader(b)
            #expect(try r.next() && r.strings() == ["x", "y", "name"])
            #expect(try r.next() && r.recordLine == 2)
            #expect(r.number(0) == 1.5 && r.number(1) == -2000 && r.number(2) == nil)
            #expect(try r.string(2) == "a \"b\"")
            #expect(try r.next() && r.recordLine == 4)
            #expect(r.number(0) == nil && r.number(1) == nil)
            #expect(try r.string(2) == "multi\nline")
            #expect(try r.next() && r.recordLine == 6 && r.number(2) == 9)
            #expect(try !r.next())
        }
        var rng = SystemRandomNumberGenerator()
        var fields: [String] = []
        for _ in 0..<20_000 {
            let v = Double.random(in: -200...200, using: &rng)
            fields.append([v.description, String(format: "%.9f", v), String(format: "%.3f", v)].randomElement()!)
        }
        let line = Array((fields.joined(separator: ",") + "\n").utf8)
        try line.withUnsafeBufferPointer { b throws in
            var r = CSVRecordReader(b)
            #expect(try r.next() && r.fieldCount == fields.count)
            for (i, f) in fields.enumerated() where r.number(i)?.bitPattern != Double(f)!.bitPattern {
                Issue.record("\(f) read as \(String(describing: r.number(i)))")
            }
        }
    }
}
