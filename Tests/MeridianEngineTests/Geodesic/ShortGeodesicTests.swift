import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// The short-line formula (`ShortGeodesic`) against Karney's inverse (PROJ's `geod_inverse`, accurate to 15 nm):
/// its stated bound, 1.6·10⁻¹³·a (1 µm on the Earth) for chords up to a/64 on ellipsoids with 0 ≤ f ≤ 1/100, on
/// seeded pairs worldwide — around both poles, across ±180°, along meridians and the equator, at every length up to
/// the longest chord — and the rule that it decides a search only away from its limit.
@Suite("Geodesic: short lines from the chord")
struct ShortGeodesicTests {
    /// The ellipsoids the bound is stated for: WGS 84, Clarke 1866 (NAD27's), a sphere, and the largest flattening.
    static let ellipsoids: [Ellipsoid] = [
        .wgs84, Ellipsoid(semiMajorAxis: 6_378_206.4, flattening: 1 / 294.978_698_214),
        Ellipsoid(semiMajorAxis: 6_371_000, flattening: 0), Ellipsoid(semiMajorAxis: 6_378_137, flattening: 0.01),
    ]

    static func position(_ short: ShortGeodesic, _ c: Coordinate) -> ShortGeodesic.Position {
        let n = UnitVector(c)
        return short.position(normalX: n.x, y: n.y, z: n.z)
    }

    @Test(arguments: ellipsoids)
    func agreesWithKarneysInverseUpToTheLongestChord(ellipsoid: Ellipsoid) throws {
        let short = try #require(ShortGeodesic(ellipsoid))
        let geodesic = Geodesic(ellipsoid)
        let bound = 1.6e-13 * ellipsoid.semiMajorAxis
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        var worst = (error: 0.0, pair: ""), longest = 0.0
        for (i, p) in ProximityGeodesicTests.points(20_000, &rng).enumerated() {
            // Every length up to the longest chord, a tenth of them within 1 % of it; meridians and the equator
            // (azimuths 0, 90, 180) for some.
            let fraction = i % 10 == 0 ? Double.random(in: 0.99...1, using: &rng) : Double.random(in: 0...1, using: &rng)
            let azimuth = i % 7 == 0 ? [0.0, 90, 180][i % 3] : Double.random(in: -180...180, using: &rng)
            let q = geodesic.move(p.coordinate, azimuth: azimuth, distance: fraction * short.longestChord)
            let karney = geodesic.distance(p.coordinate, q)
            let s = try #require(short.distance(Self.position(short, p.coordinate), Self.position(short, q)),
                                 "seed \(seed): \(p) → \(q) refused")
            if abs(s - karney) > worst.error { worst = (abs(s - karney), "\(p) → \(q): \(s) m vs Karney \(karney) m") }
            longest = max(longest, karney)
        }
        #expect(worst.error <= bound, "seed \(seed): \(worst.pair)")
        #expect(longest > 0.999 * short.longestChord, "seed \(seed): the lengths did not reach the longest chord")
        // The bound is not loose by orders of magnitude on an ellipsoid (that would hide a wrong coefficient), while
        // a sphere's error is rounding.
        if ellipsoid.flattening > 0 {
            #expect(worst.error > bound / 20, "seed \(seed): worst error \(worst.error) m, far below the bound \(bound) m")
        }
    }

    @Test func coincidentPointsAreZeroAndLongChordsAreRefused() throws {
        let short = try #require(ShortGeodesic(.wgs84))
        let geodesic = Geodesic(.wgs84)
        let p = Coordinate(x: 179.9, y: -33)
        #expect(short.distance(Self.position(short, p), Self.position(short, p)) == 0)
        let q = geodesic.move(p, azimuth: 30, distance: short.longestChord * 1.001)
        #expect(short.distance(Self.position(short, p), Self.position(short, q)) == nil)
        #expect(short.longestChord == 6_378_137.0 / 64)
    }

    @Test func onlyMeasuredEllipsoidsHaveTheFormula() {
        #expect(ShortGeodesic(Ellipsoid(semiMajorAxis: 6_378_137, flattening: 0.0101)) == nil)
        #expect(ShortGeodesic(Ellipsoid(semiMajorAxis: 6_378_137, flattening: -0.001)) == nil)
        #expect(ShortGeodesic(Ellipsoid(semiMajorAxis: 6_378_137, flattening: 0.01)) != nil)
    }

    /// A pair is decided by the formula only when its distance lies farther from the limit than the margin;
    /// closer, Karney's inverse must measure it.
    @Test func decidesOnlyAwayFromTheLimit() throws {
        let short = try #require(ShortGeodesic(.wgs84))
        let geodesic = Geodesic(.wgs84)
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        for p in ProximityGeodesicTests.points(500, &rng) {
            let q = geodesic.move(p.coordinate, azimuth: Double.random(in: -180...180, using: &rng),
                                  distance: Double.random(in: 1...90_000, using: &rng))
            let karney = geodesic.distance(p.coordinate, q)
            let n = UnitVector(q)
            func decide(_ limit: Double) -> Double? {
                short.decide(from: Self.position(short, p.coordinate), toNormalX: n.x, y: n.y, z: n.z, limit: limit)
            }
            #expect(decide(karney) == nil, "seed \(seed): \(p) → \(q) decided at its own distance")
            #expect(decide(karney + 0.5 * short.decisionMargin) == nil, "seed \(seed): decided within the margin")
            #expect(decide(karney - 0.5 * short.decisionMargin) == nil, "seed \(seed): decided within the margin")
            let inside = try #require(decide(karney + 1e-3), "seed \(seed): \(p) → \(q) undecided 1 mm inside")
            #expect(abs(inside - karney) <= 1e-6, "seed \(seed)")
            #expect(decide(karney - 1e-3) == .infinity, "seed \(seed): \(p) → \(q) not refused 1 mm outside")
        }
    }
}
