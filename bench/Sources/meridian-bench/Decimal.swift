// `meridian-bench decimal …`: the shortest round-trip formatter (`ShortestDecimal`) timed, and checked against Swift's
// own `Double.description` on many doubles (a release-build check of far more values than the unit tests run).
import Foundation
import Meridian
import MeridianTestSupport

/// Kinds of doubles: what the writers meet most (projected and geographic coordinates at full precision, numbers
/// typed with a few decimals) and the hard ones (any bit pattern, subnormals, integers near 2^53).
enum DecimalSample: String, CaseIterable {
    case bits, subnormal, albers, degrees, typed, integer

    /// A double of this kind.
    func next(_ rng: inout SplitMix64) -> Double {
        switch self {
        case .bits:
            while true {
                let v = Double(bitPattern: rng.next())
                if v.isFinite { return v }
            }
        case .subnormal: return Double(bitPattern: rng.next() & ((1 << 52) - 1) | (rng.next() & (1 << 63)))
        case .albers: return Double.random(in: -3e6...3e6, using: &rng)
        case .degrees: return Double.random(in: -180...180, using: &rng)
        case .typed:  // an integer of 1-17 digits scaled by 10^-20…10^5
            let digits = Int(rng.next() % 17) + 1
            let n = Double(rng.next() % UInt64(pow(10, Double(digits))))
            return n * pow(10, Double(Int(rng.next() % 26) - 20))
        case .integer: return Double(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
        }
    }
}

/// The significant digits of a decimal text (no sign, point, leading or trailing zeros) and the power of ten of
/// its last digit: "-1.25e-07" and "0.000000125" both give ("125", -9).
func decimalParts(_ text: UnsafeBufferPointer<UInt8>) -> (digits: [UInt8], exponent: Int) {
    var digits: [UInt8] = []
    var exponent = 0, afterPoint = false, i = 0
    while i < text.count {
        let b = text[i]
        if b == UInt8(ascii: "e") {
            exponent += Int(String(decoding: UnsafeBufferPointer(rebasing: text[(i + 1)...]), as: UTF8.self))!
            break
        }
        if b == UInt8(ascii: ".") {
            afterPoint = true
        } else if b != UInt8(ascii: "-") {
            if !(digits.isEmpty && b == UInt8(ascii: "0")) { digits.append(b) }
            if afterPoint { exponent -= 1 }
        }
        i += 1
    }
    while digits.last == UInt8(ascii: "0") {
        digits.removeLast()
        exponent += 1
    }
    return (digits, digits.isEmpty ? 0 : exponent)
}

/// `meridian-bench decimal-check COUNT SEED`: for COUNT doubles of every kind, `writeRoundTrip` must give exactly
/// `description` without a trailing `.0`, and `write` (positional) the same digits and exponent, reading back as the
/// same double. Prints one JSON line; stops with status 2 at the first difference.
func decimalCheck(count: Int, seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: ShortestDecimal.maximumLength)
    defer { buffer.deallocate() }
    var checked = 0
    for kind in DecimalSample.allCases {
        for _ in 0..<count {
            let v = kind.next(&rng)
            var expected = v.description
            if expected.hasSuffix(".0") { expected.removeLast(2) }
            let n = ShortestDecimal.writeRoundTrip(v, to: buffer)
            let roundTrip = UnsafeBufferPointer(start: buffer, count: n)
            let same = expected.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(roundTrip) } ?? false
            if !same {
                fail("writeRoundTrip(\(v.bitPattern)) = \(String(decoding: roundTrip, as: UTF8.self)), description \(expected)")
            }
            let reference = decimalParts(roundTrip)
            let m = ShortestDecimal.write(v, to: buffer)
            let positional = UnsafeBufferPointer(start: buffer, count: m)
            let parts = decimalParts(positional)
            let text = String(decoding: positional, as: UTF8.self)
            if parts.digits != reference.digits || parts.exponent != reference.exponent || positional.contains(UInt8(ascii: "e"))
                || Double(text).map({ $0 == v }) != true
            {
                fail("write(\(v.bitPattern)) = \(text), description \(v.description)")
            }
            checked += 1
        }
    }
    emit(["tool": "meridian", "checked": checked, "kinds": DecimalSample.allCases.map(\.rawValue), "seed": seed])
}

/// `meridian-bench decimal COUNT REPS [KIND …]`: nanoseconds per double (the fastest repetition) of
/// `ByteBuffer.appendNumber` (the writers' path) on COUNT doubles of each kind (default: all), against `description`
/// appended as UTF-8.
func decimalTime(count: Int, reps: Int, kinds: [DecimalSample]) {
    var rng = SplitMix64(seed: 1)
    var result: [String: Any] = ["tool": "meridian"]
    for kind in kinds {
        let values = (0..<count).map { _ in kind.next(&rng) }
        var bytes = 0
        let (times, _) = timed(reps) {
            var out = ByteBuffer(capacity: count * 26)
            for v in values {
                out.appendNumber(v)
                out.append(UInt8(ascii: " "))
            }
            bytes = out.count
        }
        let (swiftTimes, _) = timed(reps) {
            var out = ByteBuffer(capacity: count * 26)
            for v in values {
                out.append(v.description)
                out.append(UInt8(ascii: " "))
            }
            return out.count
        }
        result[kind.rawValue] = [
            "ns": times.min()! / Double(count) * 1e9,
            "description_ns": swiftTimes.min()! / Double(count) * 1e9,
            "bytes_per_value": Double(bytes) / Double(count),
        ]
    }
    emit(result)
}
