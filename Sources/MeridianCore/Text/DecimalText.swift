import Foundation

/// Numbers read straight from bytes, for every text reader (CSV, KML coordinates): no `String` per number.
public enum DecimalText {
    /// The longest number text read (bytes): the writers spell the smallest and largest doubles in plain decimals
    /// of up to 344 characters; anything longer is not a coordinate.
    public static let maximumLength = 400

    /// Exact powers of ten as doubles (10^0 … 10^22 are all exactly representable).
    private static let exactPowersOfTen: [Double] = (0...22).map { k in
        var p = 1.0
        for _ in 0..<k { p *= 10 }
        return p
    }

    /// The number in `bytes[start..<end]`: decimal notation with an optional sign, point and exponent (no `nan`,
    /// `inf`, hexadecimal or white space), at most `maximumLength` bytes; nil for anything else or a result that
    /// is not finite.
    ///
    /// `[sign]digits[.digits]` with at most 19 significant digits and 22 decimals is converted exactly: a mantissa
    /// of at most 2^53 by one division of two exactly representable doubles, which IEEE 754 rounds correctly
    /// (Clinger's fast path), a larger one (17-digit coordinates) by `DecimalQuotient`'s integer division — the
    /// same double as `strtod` either way; anything else is read with `strtod` from a copy.
    /// - Parameters:
    ///   - bytes: The text.
    ///   - start: The first byte's index (0 or more).
    ///   - end: One past the last byte's index (at least `start`).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        guard end > start, end - start <= maximumLength else { return nil }
        fast: do {
            var k = start
            let negative = bytes[k] == UInt8(ascii: "-")
            if negative || bytes[k] == UInt8(ascii: "+") { k += 1 }
            var mantissa: UInt64 = 0, digits = 0, decimals = 0, sawPoint = false, sawDigit = false
            while k < end {
                let c = bytes[k]
                if c >= 0x30 && c <= 0x39 {
                    sawDigit = true
                    if sawPoint { decimals += 1 }
                    if mantissa != 0 || c != 0x30 {  // leading zeros are not significant digits
                        guard digits < 19 else { break fast }  // no overflow of the UInt64
                        mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                        digits += 1
                    }
                } else if c == UInt8(ascii: "."), !sawPoint {
                    sawPoint = true
                } else {
                    break fast
                }
                k += 1
            }
            guard sawDigit, decimals <= 22 else { break fast }
            let magnitude = mantissa <= 1 << 53
                ? Double(mantissa) / exactPowersOfTen[decimals]
                : DecimalQuotient.value(mantissa: mantissa, decimals: decimals)
            return negative ? -magnitude : magnitude
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: end - start + 1) { buffer -> Double? in
            for k in start..<end {
                let c = bytes[k]
                // Only decimal notation: digits, sign, point, exponent (no "nan", "inf", hex).
                guard (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2D || c == 0x2E || c == 0x65 || c == 0x45 else {
                    return nil
                }
                buffer[k - start] = CChar(bitPattern: c)
            }
            buffer[end - start] = 0
            var endPointer: UnsafeMutablePointer<CChar>?
            let base = buffer.baseAddress!
            let value = strtod(base, &endPointer)
            guard endPointer == base + (end - start), value.isFinite else { return nil }
            return value
        }
    }
}
