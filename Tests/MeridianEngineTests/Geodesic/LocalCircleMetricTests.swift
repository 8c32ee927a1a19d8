import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// The closed-form chord estimate of small geodesic circles (`LocalCircleMetric`) against the exact check it
/// replaces (five `geod_inverse` distances per chord), and whole buffers built with it against the independent
/// sampled checks of `BufferChecks` (15 points per edge, vertices within 1 mm, minimality).
@Suite struct LocalCircleMetricTests {
    static let geod = Geodesic(.wgs84)

    /// Random circles the metric accepts: centres up to its latitude limit and near ±180°, radii 1 m … 300 km.
    static func circles(count: Int, seed: UInt64) -> [(center: Coordinate, radius: Double, metric: LocalCircleMetric)] {
        var rng = SplitMix64(seed: seed)
        var result: [(Coordinate, Double, LocalCircleMetric)] = []
        while result.count < count {
            let r = pow(10, Double.random(in: 0...5.5, using: &rng))
            var lon = Double.random(in: -180..<180, using: &rng)
            if Bool.random(using: &rng) { lon = (Bool.random(using: &rng) ? 1 : -1) * (180 - Double.random(in: 0...0.01, using: &rng)) }
            // Half the centres as close to the limit as the radius allows.
            let lat = (Bool.random(using: &rng) ? 1 : -1)
                * (Bool.random(using: &rng) ? Double.random(in: 0...88, using: &rng) : 88 - Double.random(in: 0...3, using: &rng) * r / 100_000)
            let c = Coordinate(x: lon, y: lat)
            guard let m = LocalCircleMetric(center: c, radius: r, ellipsoid: .wgs84) else { continue }
            result.append((c, r, m))
        }
        return result
    }

    @Test func acceptsTheBenchmarkRegimeAndRefusesPolesAndLargeCircles() {
        #expect(LocalCircleMetric(center: Coordinate(x: 179.99, y: 85.1), radius: 10_000, ellipsoid: .wgs84) != nil)
        #expect(LocalCircleMetric(center: Coordinate(x: 0, y: 89.5), radius: 10_000, ellipsoid: .wgs84) == nil)
        #expect(LocalCircleMetric(center: Coordinate(x: 0, y: 0), radius: 1_000_000, ellipsoid: .wgs84) == nil)
        #expect(LocalCircleMetric(center: Coordinate(x: 0, y: 60), radius: 0, ellipsoid: .wgs84) == nil)
    }

    /// The convexity test that lets simple circles skip GEOS's validity check accepts only strictly convex,
    /// counter-clockwise, once-wound rings.
    @Test func strictConvexityTest() throws {
        let frame = try GeodeticFrame(input: .wgs84, output: nil)
        let builder = GeodeticBufferBuilder(frame: frame, context: try GEOSContext(), tolerance: 1)
        func ring(_ xy: [(Double, Double)]) -> [Coordinate] {
            let cs = xy.map { Coordinate(x: $0.0, y: $0.1) }
            return cs + [cs[0]]
        }
        #expect(builder.isStrictlyConvex(ring([(0, 0), (1, 0), (1, 1), (0, 1)])))
        #expect(!builder.isStrictlyConvex(ring([(0, 0), (0, 1), (1, 1), (1, 0)])))  // clockwise
        #expect(!builder.isStrictlyConvex(ring([(0, 0), (1, 0), (0.5, 0.2), (1, 1), (0, 1)])))  // reflex vertex
        #expect(!builder.isStrictlyConvex(ring([(0, 0), (1, 0), (2, 0), (1, 1)])))  // collinear vertex
        #expect(!builder.isStrictlyConvex(ring([(0, 0), (1, 0), (1, 1), (1, 1), (0, 1)])))  // repeated vertex
        // A pentagram: every turn is left, but it winds twice and crosses itself.
        func polygon(_ n: Int, every step: Int) -> [(Double, Double)] {
            (0..<n).map { k -> (Double, Double) in
                let angle = Double(k * step) * 2 * Double.pi / Double(n)
                return (cos(angle), sin(angle))
            }
        }
        #expect(!builder.isStrictlyConvex(ring(polygon(5, every: 2))))
        let circle = polygon(76, every: 1)
        #expect(builder.isStrictlyConvex(ring(circle)))
    }

    /// The estimate is never below the exact sampled deviation and at most 3 % above it; before its inflation it is
    /// within 1 % of it (either side).
    @Test func estimateBoundsTheExactChordDeviation() throws {
        let frame = try GeodeticFrame(input: .wgs84, output: nil)
        let builder = GeodeticBufferBuilder(frame: frame, context: try GEOSContext(), tolerance: 1)
        var rng = SplitMix64(seed: 77_001)
        var worstLow = 0.0, worstHigh = 0.0, worstRaw = 0.0, chords = 0
        for (center, r, metric) in Self.circles(count: 400, seed: 77_000) {
            let lowest = max(1e-4, 1e-6 * r)
            let tolerance = exp(Double.random(in: log(lowest)...log(r / 2), using: &rng))
            // About the step that gives this deviation on a circle, scaled 0.2–1.6×, at most 45°.
            let ideal = (8 * tolerance / r).squareRoot() * 180 / .pi
            for _ in 0..<5 {
                let step = min(45, ideal * Double.random(in: 0.2...1.6, using: &rng))
                let u = Double.random(in: 0..<360, using: &rng)
                let a = try builder.sample(u, Self.geod.move(center, azimuth: -u, distance: r))
                let b = try builder.sample(u + step, Self.geod.move(center, azimuth: -(u + step), distance: r))
                let exact = try builder.chordDeviation(a, b, required: r) { ll, _ in Self.geod.distance(center, ll) }
                let estimate = metric.chordDeviation(a.out, builder.near(b.out, a.out))
                chords += 1
                let slack = 1e-7 * r + 1e-9
                worstLow = max(worstLow, (exact - estimate) / max(exact, slack))
                worstHigh = max(worstHigh, (estimate - exact) / max(exact, slack))
                worstRaw = max(worstRaw, abs(estimate / LocalCircleMetric.inflation - exact) / max(exact, slack))
                #expect(estimate >= exact - slack,
                        "centre \(center) r \(r) step \(step)°: estimate \(estimate) m < exact \(exact) m")
                #expect(abs(estimate / LocalCircleMetric.inflation - exact) <= 0.01 * exact + slack,
                        "centre \(center) r \(r) step \(step)°: raw estimate \(estimate / LocalCircleMetric.inflation) m vs exact \(exact) m")
                #expect(estimate <= 1.03 * exact + slack,
                        "centre \(center) r \(r) step \(step)°: estimate \(estimate) m ≫ exact \(exact) m")
            }
        }
        print("LocalCircleMetric: \(chords) chords; worst shortfall \(worstLow), worst excess \(worstHigh), worst raw error \(worstRaw) (relative)")
    }

    /// Whole buffers of circles the metric accepts pass the contract's sampled checks.
    @Test func buffersBuiltWithTheEstimateMeetTheContract() throws {
        var stats = BufferStats()
        var rng = SplitMix64(seed: 77_101)
        for (i, (center, r, _)) in Self.circles(count: 60, seed: 77_100).enumerated() {
            // The default (0.2 %) for half, else log-uniform from the smallest allowed to 5 % of the distance.
            let lowest = max(1e-4, 1e-6 * r)
            let maxDeviation = Bool.random(using: &rng)
                ? max(1e-4, 0.002 * r) : exp(Double.random(in: log(lowest)...log(max(lowest, 0.05 * r)), using: &rng))
            let b = try GeometryEngine.geodeticBuffer(around: Point(center, spatialReference: .wgs84), distance: r,
                                                      maxDeviation: maxDeviation)
            try BufferChecks.check(b, required: r, maxDeviation: maxDeviation, label: "circle \(i) at \(center) r \(r)",
                                   stats: &stats) { Self.geod.distance(center, $0) }
        }
        print(stats)
        #expect(Double(stats.removable) <= 0.05 * Double(stats.removableCandidates), "\(stats)")
    }
}
