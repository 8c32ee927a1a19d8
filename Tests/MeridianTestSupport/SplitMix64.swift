import Foundation

/// SplitMix64 (Steele, Lea and Flood, 2014): a small seeded random generator, so that randomised tests and the
/// benchmarks' generated inputs are the same run after run, and a failure can be reproduced from its seed.
///
/// Use it with the standard library's `random(in:using:)` (`Double.random(in: -180...180, using: &rng)`), or
/// ``unit()`` for a number in [0, 1).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state: the seed, advanced by a fixed odd constant at every draw.
    public var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The seed of the randomised tests: `MERIDIAN_TEST_SEED` when set (to reproduce a failure), else a fresh one;
    /// the tests print it in every failure message.
    public static var testSeed: UInt64 {
        if let text = ProcessInfo.processInfo.environment["MERIDIAN_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next number in [0, 1): the top 53 bits of ``next()``, so every value is a multiple of 2⁻⁵³.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
