import Foundation
@testable import MeridianCore
import MeridianTestSupport
import Testing
@testable import MeridianKML

/// The byte-level fast paths of the writer and reader give what the general paths give.
@Suite struct KMLFastPathTests {
    @Test func escapingFastPathMatchesGeneralPath() {
        let cases = ["plain text", "", "é ü 漢字", "a&b", "<tag>", "q\"uote", "tab\there", "line\nbreak", "cr\rx",
                     "bell\u{7}", "bad\u{FFFE}scalar", "ok\u{FEFF}bom"]
        let expected = ["plain text", "", "é ü 漢字", "a&amp;b", "&lt;tag&gt;", "q\"uote", "tab\there", "line\nbreak",
                        "cr&#13;x", "bell", "badscalar", "ok\u{FEFF}bom"]
        for (s, e) in zip(cases, expected) {
            var w = XMLTextWriter()
            w.escaped(s)
            #expect(w.string == e)
        }
        var w = XMLTextWriter()
        w.escaped("a\"b\tc\nd", attribute: true)
        #expect(w.string == "a&quot;b&#9;c&#10;d")
    }

    @Test func numbersMatchFormat() {
        let values: [Double] = [0, -0.0, 1, -1, 42, -123_456_789_012_345, 999_999_999_999_999, 1e15, 1e16, 0.5,
                                -122.08220691877099, 1e-7, 1.5e-300, 12345.678, .leastNonzeroMagnitude]
        for v in values {
            var w = XMLTextWriter()
            w.number(v)
            #expect(w.string == KMLEncoder.format(v), "\(v)")
            #expect(Double(w.string) == v, "\(v)")
            #expect(!w.string.contains("e"), "\(v)")
        }
    }

    @Test func trimmingFastPathKeepsCharacterSemantics() {
        #expect("  a b \n".trimmingXMLWhitespace() == "a b")
        #expect("\r\n x\r\n".trimmingXMLWhitespace() == "x")
        #expect(" \t\n ".trimmingXMLWhitespace() == "")
        #expect("abc".trimmingXMLWhitespace() == "abc")
        #expect(" é ".trimmingXMLWhitespace() == "é")
        // A combining mark after a space forms one character with it: that character is not whitespace.
        #expect(" \u{301}x ".trimmingXMLWhitespace() == " \u{301}x")
        // A prepended mark before a space forms one character with it too.
        #expect(" x\u{600} ".trimmingXMLWhitespace() == "x\u{600} ")
    }

    @Test func utf8ValidatorWordPathTracksPositions() {
        func check(_ bytes: [UInt8]) -> (Bool, Int, Int) {
            var v = UTF8Validator()
            let ok = bytes.withUnsafeBufferPointer { v.validate($0.baseAddress!, count: $0.count) }
            return (ok, v.line, v.column)
        }
        let long = Array(String(repeating: "abcdefgh", count: 5).utf8)
        #expect(check(long) == (true, 1, 41))
        #expect(check(long + [0x0A] + long) == (true, 2, 41))
        #expect(check(long + [0x0A, 0x41, 0x0A] + long + Array("é".utf8)) == (true, 3, 42))
        #expect(check(long + [0xFF] + long) == (false, 1, 41))
        #expect(check(Array("abc\ndefghijklmnop".utf8) + [0xC3, 0x28]) == (false, 2, 15))
        // A sequence split across chunks.
        var v = UTF8Validator()
        let e = Array("xxxxxxxxxxé".utf8)
        #expect(e.withUnsafeBufferPointer { v.validate($0.baseAddress!, count: 11) })
        #expect(v.isIncomplete)
        #expect(e.withUnsafeBufferPointer { v.validate($0.baseAddress! + 11, count: 1) })
        #expect(!v.isIncomplete && v.column == 12)
    }

    @Test func decimalFastPathEqualsCorrectRounding() {
        // Random decimal texts of 1–19 digits with 0–22 decimals (within and beyond the fast path's range), read
        // both through the coordinate parser and through Double(String) (correctly rounded, like strtod).
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        var texts = ["0.0", "-0.0", "+1", "1.", ".5", "-.5", "9007199254740992", "9007199254740993",
                     "0.0000000000000000000001", "123.45678901234567", "-96.8289099873917", "31.912895742200252"]
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...19, using: &rng)
            var digits = (0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }
            let point = Int.random(in: 0...count, using: &rng)
            if point < count { digits.insert(".", at: point) }
            texts.append((Bool.random(using: &rng) ? "-" : "") + String(digits))
        }
        var d = KMLDecoder()
        for t in texts {
            let parsed = d.parseCoordinates("\(t),\(t)")
            let expected = Double(t)!
            #expect(parsed?.first?.x.bitPattern == expected.bitPattern, "\(t) (seed \(seed))")
        }
        #expect(d.parseCoordinates("-.,1") == nil)
        #expect(d.parseCoordinates("1.2.3,1") == nil)
        #expect(d.parseCoordinates("1-2,1") == nil)
    }

    /// The integer-division conversion against Swift's correctly rounded `Double(String)` (strtod semantics) on
    /// random 1–19 digit mantissas with 0–22 decimals, and on exact ties between two doubles (round half to even),
    /// which exist for up to 4 decimals: (2m + 1)/2^d for a 53-bit m is the decimal (2m + 1)·5^d / 10^d.
    @Test func decimalQuotientRoundsCorrectly() {
        var rng = SplitMix64(seed: 1_907)
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...19, using: &rng)
            let upper: UInt64 = (0..<digits).reduce(1) { r, _ in r * 10 } - 1  // 10^19 − 1 < 2^64
            let w = UInt64.random(in: 1...upper, using: &rng)
            let d = Int.random(in: 0...22, using: &rng)
            let expected = Double("\(w)e-\(d)")!
            #expect(DecimalQuotient.value(mantissa: w, decimals: d).bitPattern == expected.bitPattern, "\(w)e-\(d)")
        }
        for _ in 0..<20_000 {
            let m = UInt64.random(in: (1 << 52)..<(1 << 53), using: &rng)
            let d = Int.random(in: 1...4, using: &rng)
            let w = (2 * m + 1) * (0..<d).reduce(1) { r, _ in r * 5 }
            let value = DecimalQuotient.value(mantissa: w, decimals: d)
            let even = (m % 2 == 0 ? m : m + 1)
            #expect(value == Double(even) / Double(1 << (d - 1)), "\(w)e-\(d)")
            #expect(value.bitPattern == Double("\(w)e-\(d)")!.bitPattern, "\(w)e-\(d)")
        }
        #expect(DecimalQuotient.value(mantissa: 0, decimals: 5) == 0)
        #expect(DecimalQuotient.value(mantissa: UInt64.max, decimals: 22) == Double("\(UInt64.max)e-22")!)
        #expect(DecimalQuotient.value(mantissa: 1, decimals: 22) == 1e-22)
    }

    @Test func coordinateParsing() {
        var d = KMLDecoder()
        #expect(d.parseCoordinates("1,2 3,4") == [Coordinate(x: 1, y: 2), Coordinate(x: 3, y: 4)])
        #expect(d.parseCoordinates(" 1 , 2 ,3\n4,5,6 ") == [Coordinate(x: 1, y: 2, z: 3), Coordinate(x: 4, y: 5, z: 6)])
        #expect(d.parseCoordinates("1,2,3,4,5,6") == [Coordinate(x: 1, y: 2, z: 3), Coordinate(x: 4, y: 5, z: 6)])
        #expect(d.parseCoordinates("1,2,3,4") == [Coordinate(x: 1, y: 2, z: 3)])
        #expect(d.warnings.count == 1)
        #expect(d.parseCoordinates("") == [])
        #expect(d.parseCoordinates("1") == nil)
        #expect(d.parseCoordinates("1,") == nil)
        #expect(d.parseCoordinates(",1,2") == nil)
        #expect(d.parseCoordinates("1,nan") == nil)
        #expect(d.parseCoordinates("1,1e999") == nil)
        #expect(d.parseCoordinates("-122.08220691877099,37.42228990140251")
                == [Coordinate(x: -122.08220691877099, y: 37.42228990140251)])
    }
}
