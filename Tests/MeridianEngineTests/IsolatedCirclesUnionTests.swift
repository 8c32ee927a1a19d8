import Foundation
import Testing

@testable import MeridianCore
@testable import MeridianEngine

/// The batched union of circles that touch nothing (found by planting bugs: a union dropping a batch's last
/// cluster when the batch held a multiple of 64 clusters failed one batch size in one test, by luck). N isolated
/// circles, for N around the multiples of 64, in batches of 1, 64 and N: the parts handed over must be N, each
/// centre inside exactly one of them (an independent ray-casting test, not the engine's), and the counts reported
/// must end at N.
@Suite struct IsolatedCirclesUnionTests {
    static let sr = SpatialReference.webMercator
    static let radius = 100.0

    /// N centres on a lattice 1 km apart (ten radii): no two circles meet.
    static func centres(_ n: Int) -> [Coordinate] {
        (0..<n).map { Coordinate(x: -10_000_000 + Double($0 % 13) * 1_000, y: 4_000_000 + Double($0 / 13) * 1_000) }
    }

    /// Whether `p` lies inside the closed ring (even-odd ray casting).
    static func inside(_ p: Coordinate, _ ring: [Coordinate]) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let (a, b) = (ring[i], ring[j])
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// How many of `parts` hold each centre.
    static func holders(of centres: [Coordinate], in parts: [Polygon.Part]) -> [Int] {
        centres.map { c in parts.filter { inside(c, $0.shell) && !$0.holes.contains { inside(c, $0) } }.count }
    }

    @Test(arguments: [63, 64, 65, 128, 129])
    func everyIsolatedCircleIsOnePartInEveryBatching(n: Int) throws {
        let centres = Self.centres(n)
        for batchSize in [1, 64, n] {
            var parts: [Polygon.Part] = []
            var counts: [Int] = []
            try GeometryEngine.unionOfBuffers(aroundPoints: centres, distances: [Self.radius], in: Self.sr,
                                              batchSize: batchSize) { (batch: Polygon, done: Int) throws(EngineError) in
                parts += batch.parts
                counts.append(done)
            }
            #expect(parts.count == n, "batch size \(batchSize): \(parts.count) parts for \(n) circles")
            #expect(counts.last == n && counts == counts.sorted(), "batch size \(batchSize): counts \(counts)")
            #expect(counts.count == (batchSize >= n ? 1 : (n + batchSize - 1) / batchSize), "batch size \(batchSize)")
            let held = Self.holders(of: centres, in: parts)
            #expect(held.allSatisfy { $0 == 1 }, "batch size \(batchSize): centres held by \(Set(held)) parts")
            // Each part is one circle: 64 chords (16 a quarter) of radius r, so its area is 32 r² sin(π/32).
            let area = 32 * Self.radius * Self.radius * sin(Double.pi / 32)
            for part in parts {
                let a = try GeometryEngine.area(of: Polygon(parts: [part], spatialReference: Self.sr))
                #expect(abs(a - area) < 1e-6 * area, "batch size \(batchSize): a part of area \(a), not \(area)")
            }
        }
    }
}
