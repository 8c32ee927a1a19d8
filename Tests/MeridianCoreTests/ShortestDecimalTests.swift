import Foundation
import MeridianTestSupport
import Testing
@testable import MeridianCore

/// `ShortestDecimal` (the writer's number formatting) gives Swift's `description` digits, in positional notation,
/// and reads back as the same double.
@Suite struct ShortestDecimalTests {
    /// The significant digits (no leading or trailing zeros) and the exponent of the last one, from a decimal text
    /// with or without exponent notation ("-1.25e-7" → ("125", -9)).
    static func decimalParts(_ text: String) -> (digits: String, exponent: Int) {
        var s = Substring(text)
        if s.first == "-" { s = s.dropFirst() }
        var exponent = 0
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(s[s.index(after: e)...])!
            s = s[..<e]
        }
        if let dot = s.firstIndex(of: ".") {
            exponent -= s.distance(from: dot, to: s.endIndex) - 1
            s.remove(at: dot)
        }
        var digits = String(s.drop { $0 == "0" })
        while digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        return (digits.isEmpty ? "0" : digits, digits.isEmpty ? 0 : exponent)
    }

    /// Checks one finite double: positional text, round trip to the same bits, and the same digits as
    /// `description`; where `description` itself is positional and not an integer, the same text.
    static func check(_ v: Double) {
        let text = ShortestDecimal.string(v)
        #expect(!text.contains("e") && text.count <= ShortestDecimal.maximumLength, "\(v.bitPattern)")
        guard let back = Double(text) else {
            Issue.record("unreadable \(text) for \(v.bitPattern)")
            return
        }
        #expect(back.bitPattern == v.bitPattern || (v == 0 && back == 0), "\(text) for \(v.bitPattern)")
        let mine = decimalParts(text), swift = decimalParts(v.description)
        #expect(mine.digits == swift.digits && mine.exponent == swift.exponent,
                "\(text) vs \(v.description) for \(v.bitPattern)")
        if !v.description.contains("e") && !v.description.hasSuffix(".0") {
            #expect(text == v.description)
        }
    }

    @Test func decimalPartsParsing() {
        #expect(Self.decimalParts("-1.25e-7") == ("125", -9))
        #expect(Self.decimalParts("0.000120") == ("12", -5))
        #expect(Self.decimalParts("1200.0") == ("12", 2))
        #expect(Self.decimalParts("5e-324") == ("5", -324))
        #expect(Self.decimalParts("0.0") == ("0", 0))
    }

    @Test func specialValues() {
        #expect(ShortestDecimal.string(0) == "0")
        #expect(ShortestDecimal.string(-0.0) == "0")
        #expect(ShortestDecimal.string(0.1) == "0.1")
        #expect(ShortestDecimal.string(-122.08220691877099) == "-122.08220691877099")
        #expect(ShortestDecimal.string(1e-7) == "0.0000001")
        #expect(ShortestDecimal.string(1e22) == "10000000000000000000000")
        #expect(ShortestDecimal.string(.leastNonzeroMagnitude) == "0." + String(repeating: "0", count: 323) + "5")
        #expect(ShortestDecimal.string(-.greatestFiniteMagnitude).count == 310)
        let values: [Double] = [.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown,
                                .greatestFiniteMagnitude, 1, 2, 0.5, 1e15, 1e16, 1e17, 9007199254740992,
                                9007199254740994, Double(bitPattern: 1 << 51), 2.2250738585072014e-308, 1.7976931348623157e308,
                                0.3, 2.0 / 3, 1e23, 8.41e21, Double(bitPattern: (1 << 52) - 1), 123456789012345680]
        for v in values {
            Self.check(v)
            Self.check(-v)
        }
    }

    /// Every power of two (the narrower rounding interval below them), and its neighbours.
    @Test func powersOfTwo() {
        for e in -1074...1023 {
            let v = Double(sign: .plus, exponent: e, significand: 1)
            Self.check(v)
            Self.check(v.nextUp)
            if v.nextDown > 0 { Self.check(v.nextDown) }
        }
    }

    /// Powers of ten and their neighbours (shortest digits of one digit, or long runs of 9s and 0s).
    @Test func powersOfTen() {
        for e in -323...308 {
            guard let v = Double("1e\(e)") else { continue }
            Self.check(v)
            Self.check(v.nextUp)
            Self.check(v.nextDown)
        }
    }

    /// Random bit patterns over every exponent (subnormals, huge and tiny magnitudes, both signs), random
    /// subnormals, and random coordinates in the ranges KML files hold, with fixed seeds.
    @Test func randomDoubles() {
        var rng = SplitMix64(seed: 0x6d65_7269_6469_616e)
        for _ in 0..<100_000 {
            let v = Double(bitPattern: rng.next())
            if v.isFinite { Self.check(v) }
        }
        for _ in 0..<20_000 {
            let v = Double(bitPattern: rng.next() & ((1 << 52) - 1))  // subnormal (or zero)
            Self.check(v)
            Self.check(-v)
        }
        for _ in 0..<30_000 {
            Self.check(Double.random(in: -180...180, using: &rng))
            Self.check(Double.random(in: -1...1, using: &rng) * 1e-3)
            Self.check(Double(Int.random(in: -99_999_999...99_999_999, using: &rng)) / 1e6)  // 6 decimals, as typed
        }
    }
}

/// The writers' fast paths of `ShortestDecimal`: eight digits at once in a word, the digits split at the decimal point
/// with a multiplication, and `writeRoundTrip` giving exactly Swift's `description` (without `.0`) on many doubles of
/// every kind. (`meridian-bench decimal-check` runs the same comparison on many millions in a release build.)
@Suite struct ShortestDecimalFastPathTests {
    /// `eightDigits` equals the eight-digit text with leading zeros. Its two four-digit halves are computed in
    /// separate lanes of the word (no carry between them), so every value of each half is tried against a few of the
    /// other: all 10^4 × 12 pairs both ways.
    @Test func eightDigitsEveryHalf() {
        let others: [UInt32] = [0, 1, 9, 10, 99, 100, 999, 1000, 4321, 5000, 9009, 9999]
        func text(_ n: UInt32) -> String {
            withUnsafeBytes(of: ShortestDecimal.eightDigits(n).littleEndian) { String(decoding: $0, as: UTF8.self) }
        }
        func expected(_ n: UInt32) -> String {
            let s = String(n)
            return String(repeating: "0", count: 8 - s.count) + s
        }
        var wrong = 0
        for half in UInt32(0)..<10_000 {
            for other in others {
                for n in [half * 10_000 + other, other * 10_000 + half] where text(n) != expected(n) {
                    wrong += 1
                    if wrong < 5 { Issue.record("eightDigits(\(n)) = \(text(n))") }
                }
            }
        }
        #expect(wrong == 0)
    }

    /// `writeSignificand` writes exactly `count` digits (leading zeros when the number is shorter) for every count,
    /// including the 17-digit path, and does not write before its start.
    @Test func significandOfEveryLength() {
        var rng = SplitMix64(seed: 17)
        var buffer = [UInt8](repeating: 0, count: 40)
        for count in 1...17 {
            let limit = (0..<count).reduce(UInt64(1)) { r, _ in r * 10 }
            for n in [0, 1, limit / 10, limit / 10 + 1, limit - 1, limit / 2] + (0..<200).map({ _ in rng.next() % limit }) {
                buffer.withUnsafeMutableBufferPointer { b in
                    b.update(repeating: UInt8(ascii: "#"))
                    ShortestDecimal.writeSignificand(n, count: count, at: b.baseAddress! + 4)
                }
                let s = String(n)
                let expected = String(repeating: "0", count: count - s.count) + s
                #expect(String(decoding: buffer[4..<(4 + count)], as: UTF8.self) == expected, "\(n), \(count)")
                #expect(buffer[0..<4].allSatisfy { $0 == UInt8(ascii: "#") })
            }
        }
    }

    /// The reciprocals that split the digits at the point: n / 10^f for n just below and at multiples of 10^f, and
    /// at random, up to 10^17 − 1 (the largest a double's digits reach).
    @Test func divisionByPowersOfTen() {
        var rng = SplitMix64(seed: 10)
        for f in 1...16 {
            let d = (0..<f).reduce(UInt64(1)) { r, _ in r * 10 }
            let m = ShortestDecimal.divisionByPow10[2 * f - 2], s = ShortestDecimal.divisionByPow10[2 * f - 1]
            var values: [UInt64] = [0, 1, d - 1, d, d + 1, 99_999_999_999_999_999, 99_999_999_999_999_999 / d * d,
                                    99_999_999_999_999_999 / d * d - 1]
            values += (0..<2_000).map { _ in rng.next() % 100_000_000_000_000_000 }
            values += (0..<2_000).map { _ in (rng.next() % (100_000_000_000_000_000 / d)) * d &- (rng.next() % 2) }
            for n in values {
                #expect(n.multipliedFullWidth(by: m).high >> s == n / d, "\(n) / 10^\(f)")
            }
        }
    }

    /// `writeRoundTrip` is `description` without a trailing `.0`, byte for byte, on 400,000 doubles of six kinds
    /// (random bit patterns, subnormals, projected and geographic coordinates, short decimals, integers).
    @Test func roundTripTextIsDescription() {
        var rng = SplitMix64(seed: 0x5eed)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: ShortestDecimal.maximumLength)
        defer { buffer.deallocate() }
        var wrong = 0
        for i in 0..<400_000 {
            let v: Double
            switch i % 6 {
            case 0: v = Double(bitPattern: rng.next())
            case 1: v = Double(bitPattern: rng.next() & ((1 << 52) - 1) | (rng.next() & (1 << 63)))
            case 2: v = Double.random(in: -3e6...3e6, using: &rng)
            case 3: v = Double.random(in: -180...180, using: &rng)
            case 4:  // up to 17 digits, typed with a few decimals or scaled far down
                v = Double(rng.next() % 100_000_000_000_000_000) * [1e-20, 1e-12, 1e-9, 1e-6, 1e-3, 1, 1e3][Int(rng.next() % 7)]
            default: v = Double(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
            }
            guard v.isFinite else { continue }
            var expected = v.description
            if expected.hasSuffix(".0") { expected.removeLast(2) }
            let n = ShortestDecimal.writeRoundTrip(v, to: buffer)
            let text = String(decoding: UnsafeBufferPointer(start: buffer, count: n), as: UTF8.self)
            if text != expected {
                wrong += 1
                if wrong < 5 { Issue.record("\(text) vs \(expected) for \(v.bitPattern)") }
            }
        }
        #expect(wrong == 0)
    }

    /// Nothing is written past `maximumLength` bytes, for the longest texts of both layouts (the smallest subnormals,
    /// the largest doubles, negative), the short ones that store whole words, and zeros.
    @Test func staysWithinMaximumLength() {
        let values: [Double] = [
            -.leastNonzeroMagnitude, -Double(bitPattern: 5), -Double(bitPattern: 0x000F_FFFF_FFFF_FFFF),
            -.greatestFiniteMagnitude, -1e308, -0.1, -1, -0.0, 0, -123_456.78901234567, -1.2345678901234567e-300,
        ]
        let guardBytes = 64
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: ShortestDecimal.maximumLength + guardBytes)
        defer { buffer.deallocate() }
        for v in values {
            for roundTrip in [false, true] {
                buffer.initialize(repeating: 0xA5, count: ShortestDecimal.maximumLength + guardBytes)
                let n = roundTrip ? ShortestDecimal.writeRoundTrip(v, to: buffer) : ShortestDecimal.write(v, to: buffer)
                #expect(n <= ShortestDecimal.maximumLength)
                let tail = UnsafeBufferPointer(start: buffer + ShortestDecimal.maximumLength, count: guardBytes)
                #expect(tail.allSatisfy { $0 == 0xA5 }, "\(v) roundTrip \(roundTrip)")
            }
        }
    }
}
