import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// The series form of small geodesic circles (`SmallCircleSeries`) against PROJ's `geod_direct` at every azimuth,
/// and the evenly spaced rings built from it (`GeodeticBufferBuilder.evenlySpacedCircle`) against the exact sampled
/// checks of `BufferChecks` (a fresh `geod_inverse` at 15 points per edge).
@Suite struct SmallCircleSeriesTests {
    static let geod = Geodesic(.wgs84)
    /// What a distance measured here can resolve: `geod_inverse` is accurate to 15 nm (Karney 2013), and vertices
    /// are doubles of degrees (≈ 1 nm); 20 nm.
    static let measurementFloor = 2e-8

    /// Random centres worldwide (half of them as close to 88° as the radius allows) and radii 1 m … 300 km.
    static func circles(count: Int, seed: UInt64) -> [(center: Coordinate, radius: Double)] {
        LocalCircleMetricTests.circles(count: count, seed: seed).map { ($0.center, $0.radius) }
    }

    /// Vertices within 10 µm of `geod_direct` (the tolerance asked of the series; the buffer contract is 1 mm), and
    /// the error estimate never below the error measured at 720 azimuths (beyond the measurement floor).
    @Test func matchesDirectProblems() throws {
        var worst = 0.0, worstRatio = 0.0
        var orders: [Int: Int] = [:]
        for (i, (c, r)) in Self.circles(count: 200, seed: 51_515).enumerated() {
            let series = try #require(SmallCircleSeries(center: c, radius: r, geodesic: Self.geod, tolerance: 1e-5),
                                      "circle \(i) at \(c) r \(r): no series")
            orders[series.order, default: 0] += 1
            var error = 0.0
            for k in 0..<720 {
                let azimuth = -180 + Double(k) * 0.5 + 0.123
                let p = series.coordinate(azimuth: azimuth * Double.pi / 180)
                let exact = Self.geod.move(c, azimuth: azimuth, distance: r)
                error = max(error, Self.geod.distance(p, exact))
            }
            #expect(error <= 1e-5, "circle \(i) at \(c) r \(r): \(error) m off")
            #expect(error <= series.errorEstimate + Self.measurementFloor, "circle \(i): error \(error) m above its estimate \(series.errorEstimate) m")
            worst = max(worst, error)
            worstRatio = max(worstRatio, error / max(series.errorEstimate, 1e-12))
        }
        print("SmallCircleSeries: worst vertex error \(worst) m over 200 circles × 720 azimuths; worst error/estimate \(worstRatio); orders used \(orders.sorted { $0.key < $1.key })")
    }

    /// Other ellipsoids: Clarke 1866 (NAD27's), a sphere (f = 0) and a strongly flattened one (f = 1/50), against
    /// `geod_direct` on the same ellipsoid.
    @Test func otherEllipsoids() throws {
        let ellipsoids = [Ellipsoid(semiMajorAxis: 6_378_206.4, flattening: 1 / 294.978698214),
                          Ellipsoid(semiMajorAxis: 6_371_000, flattening: 0),
                          Ellipsoid(semiMajorAxis: 6_378_137, flattening: 1 / 50)]
        var worst = 0.0
        for ellipsoid in ellipsoids {
            let g = Geodesic(ellipsoid)
            var represented = 0
            defer { #expect(represented >= 30, "f = \(ellipsoid.flattening): only \(represented) of 40 circles") }
            for (c, r) in Self.circles(count: 40, seed: 91_919) {
                guard let series = SmallCircleSeries(center: c, radius: r, geodesic: g, tolerance: 1e-5) else {
                    continue  // a larger flattening can move a circle past the series' limits
                }
                represented += 1
                for k in 0..<360 {
                    let azimuth = Double(k) + 0.37
                    let error = g.distance(series.coordinate(azimuth: azimuth * Double.pi / 180),
                                           g.move(c, azimuth: azimuth, distance: r))
                    worst = max(worst, error)
                    #expect(error <= 1e-5, "f = \(ellipsoid.flattening), circle at \(c) r \(r): \(error) m off")
                }
            }
        }
        print("SmallCircleSeries on other ellipsoids: worst vertex error \(worst) m")
    }

    /// Poles, large circles and bad input are refused.
    @Test func refusesWhatItCannotRepresent() {
        let g = Self.geod
        #expect(SmallCircleSeries(center: Coordinate(x: 0, y: 88.9), radius: 20_000, geodesic: g, tolerance: 1e-5) == nil)
        #expect(SmallCircleSeries(center: Coordinate(x: 0, y: 0), radius: 2_000_000, geodesic: g, tolerance: 1e-5) == nil)
        #expect(SmallCircleSeries(center: Coordinate(x: 0, y: 10), radius: 0, geodesic: g, tolerance: 1e-5) == nil)
        #expect(SmallCircleSeries(center: Coordinate(x: .nan, y: 10), radius: 10, geodesic: g, tolerance: 1e-5) == nil)
        #expect(SmallCircleSeries(center: Coordinate(x: 5, y: 10), radius: 10, geodesic: g, tolerance: 0) == nil)
    }

    /// The ring is closed, mirror-symmetric about the centre's meridian and starts due north.
    @Test func ringShape() throws {
        let c = Coordinate(x: 10, y: 45)
        let series = try #require(SmallCircleSeries(center: c, radius: 5_000, geodesic: Self.geod, tolerance: 1e-5))
        for n in [8, 9, 72, 73] {
            let ring = series.ring(vertexCount: n)
            #expect(ring.count == n + 1 && ring.first == ring.last)
            #expect(ring[0].x == c.x && ring[0].y > c.y)
            for k in 1..<n {
                #expect(ring[k].y == ring[n - k].y && ring[k].x - c.x == -(ring[n - k].x - c.x))
            }
            #expect(Polygon.signedArea(ring) > 0, "counter-clockwise")
        }
    }

    /// Evenly spaced rings meet the buffer contract, and the bound that sets their vertex count holds: the exact
    /// chord deviation stays within r·(1 − cos(π/n))·(1 + 2·ϑ·tan φ) (plus the measurement floor). Circles reaching
    /// ±180° are left to the adaptive path (about a third of these, which put half their centres near ±180°).
    @Test func evenlySpacedRingsMeetTheContract() throws {
        var stats = BufferStats()
        var worstBoundRatio = 0.0
        var rng = SplitMix64(seed: 61_616)
        let context = try GEOSContext()
        let frame = try GeodeticFrame(input: .wgs84, output: nil)
        for (i, (c, r)) in Self.circles(count: 120, seed: 61_617).enumerated() {
            let lowest = max(1e-4, 1e-6 * r)
            let maxDeviation = Bool.random(using: &rng)
                ? max(1e-4, 0.002 * r) : exp(Double.random(in: log(lowest)...log(max(lowest, 0.05 * r)), using: &rng))
            let builder = GeodeticBufferBuilder(frame: frame, context: context, tolerance: maxDeviation)
            guard let ring = try builder.evenlySpacedCircle(center: c, radius: r) else {
                // Only circles reaching ±180° may be left to the adaptive path.
                let series = try #require(SmallCircleSeries(center: c, radius: r, geodesic: Self.geod, tolerance: 1e-5))
                #expect(series.ring(vertexCount: 64).contains { abs($0.x) >= 180 }, "circle \(i) at \(c) r \(r) refused")
                continue
            }
            let polygon = Polygon(shell: ring, spatialReference: .wgs84)
            try BufferChecks.check(polygon, required: r, maxDeviation: maxDeviation, label: "circle \(i) at \(c) r \(r)",
                                   stats: &stats) { Self.geod.distance(c, $0) }
            // The bound behind the count.
            let n = ring.count - 1
            let theta = r / (6_378_137 * (1 - 0.00669437999014))
            let skew = theta * tan((abs(c.y) + theta * 180 / Double.pi) * Double.pi / 180)
            let bound = r * (1 - cos(Double.pi / Double(n))) * (1 + 2 * skew)
            var worst = 0.0
            for k in 0..<n {
                let a = ring[k], b = ring[k + 1]
                for j in 1...15 {
                    let t = Double(j) / 16
                    let q = Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
                    worst = max(worst, abs(Self.geod.distance(c, q) - r))
                }
            }
            #expect(worst <= bound + Self.measurementFloor, "circle \(i): chord deviation \(worst) m above the bound \(bound) m")
            worstBoundRatio = max(worstBoundRatio, worst / bound)
        }
        print("Evenly spaced circles: \(stats); worst chord deviation / bound \(worstBoundRatio)")
        #expect(stats.buffers >= 60)
        #expect(Double(stats.removable) <= 0.05 * Double(stats.removableCandidates), "\(stats)")
    }
}
