/// Exact decimal-to-double conversion for the numbers KML coordinates are made of: a decimal mantissa of up to 19
/// digits with up to 22 decimals, as `strtod` would round it (to nearest, ties to even) but with integer arithmetic
/// only — two hardware divisions instead of `strtod`'s general big-number path.
///
/// w / 10^d = w / (5^d · 2^d). With w shifted left to use all 64 bits (w′ = w·2^s) and 5^d < 2^52, the 128-bit
/// quotient Q = ⌊w′·2^64 / 5^d⌋ has at least 75 significant bits, and the remainder says whether anything is left
/// below them (a sticky bit). Rounding Q's top 53 bits with the next bit and that sticky information rounds the
/// exact value correctly; the power of two is applied exactly by the exponent.
public enum DecimalQuotient {
    /// 5^0 … 5^22 (5^22 ≈ 2.4·10^15 < 2^52).
    private static let powersOfFive: [UInt64] = (0...22).map { d in
        var p: UInt64 = 1
        for _ in 0..<d { p *= 5 }
        return p
    }

    /// The double nearest to `mantissa` / 10^`decimals` (ties to even), for `decimals` in 0…22.
    /// - Parameters:
    ///   - w: The decimal digits as an integer (any `UInt64`).
    ///   - d: The number of decimals, 0…22.
    public static func value(mantissa w: UInt64, decimals d: Int) -> Double {
        precondition(d >= 0 && d <= 22)
        guard w != 0 else { return 0 }
        if d == 0 { return Double(w) }  // the conversion rounds to nearest, ties to even
        let five = powersOfFive[d]
        let shift = w.leadingZeroBitCount
        let shifted = w << shift
        // Q = q1·2^64 + q0 = ⌊shifted·2^64 / five⌋, remainder r0.
        let (q1, r1) = shifted.quotientAndRemainder(dividingBy: five)
        let (q0, r0) = five.dividingFullWidth((high: r1, low: 0))
        // Normalise Q so that its top bit is bit 127 of (high, low).
        let lead = q1 != 0 ? q1.leadingZeroBitCount : 64 + q0.leadingZeroBitCount
        let high: UInt64, low: UInt64
        if lead == 0 {
            (high, low) = (q1, q0)
        } else if lead < 64 {
            (high, low) = (q1 << lead | q0 >> (64 - lead), q0 << lead)
        } else {
            (high, low) = (q0 << (lead - 64), 0)
        }
        // Top 53 bits, the next (round) bit, and whether anything below it is non-zero.
        var significand = high >> 11
        let roundBit = (high >> 10) & 1
        let below = (high & 0x3FF) != 0 || low != 0 || r0 != 0
        var exponent = 11 - lead - d - shift
        if roundBit == 1 && (below || significand & 1 == 1) {
            significand += 1
            if significand == 1 << 53 {
                significand >>= 1
                exponent += 1
            }
        }
        // Q ≈ significand·2^(75 − lead), and w/10^d = Q / 2^(64 + d + shift) (up to the rounded-off part).
        return Double(sign: .plus, exponent: exponent, significand: Double(significand))
    }
}
