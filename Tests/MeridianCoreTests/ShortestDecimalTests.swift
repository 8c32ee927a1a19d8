import Foundation
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
