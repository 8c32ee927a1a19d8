import Foundation
import Testing

@testable import MeridianCore
@testable import MeridianEngine

/// `unionOfBuffers(aroundPoints:…batchSize:_:)`, which hands the union over a batch of clusters at a time: its parts
/// together are exactly the parts of the whole union (bit for bit, in another order), every circle is counted, and
/// it is valid in GEOS's eyes.
@Suite struct BatchedUnionTests {
    static let sr = SpatialReference.webMercator

    static func unit(_ rng: inout SplitMix64) -> Double { Double(rng.next() >> 11) * 0x1p-53 }

    static func key(_ p: Polygon.Part) -> [Double] { p.rings.flatMap { $0.flatMap { [$0.x, $0.y] } } }

    @Test(arguments: [1, 97, 500, 5_000])
    func batchesTogetherAreTheWholeUnion(batchSize: Int) throws {
        var rng = SplitMix64(seed: 13)
        // 3,000 points in a square where a circle meets about one other on average, some exact duplicates.
        var centres: [Coordinate] = []
        let r = 100.0, side = (3000 * Double.pi * 4 * r * r).squareRoot()
        for i in 0..<3000 {
            if i % 100 == 99 { centres.append(centres[i - 50]); continue }
            centres.append(Coordinate(x: -10_000_000 + side * Self.unit(&rng), y: 4_000_000 + side * Self.unit(&rng)))
        }
        let whole = try GeometryEngine.unionOfBuffers(aroundPoints: centres, distances: [r], in: Self.sr)
        var parts: [Polygon.Part] = []
        var counts: [Int] = []
        try GeometryEngine.unionOfBuffers(aroundPoints: centres, distances: [r], in: Self.sr, batchSize: batchSize) {
            (batch: Polygon, done: Int) throws(EngineError) in
            parts += batch.parts
            counts.append(done)
        }
        #expect(counts.last == centres.count && counts == counts.sorted())
        #expect(batchSize >= centres.count ? counts.count == 1 : counts.count > 1)
        #expect(parts.count == whole.parts.count && whole.parts.count > 100)
        let a = parts.map(Self.key).sorted { $0.lexicographicallyPrecedes($1) }
        let b = whole.parts.map(Self.key).sorted { $0.lexicographicallyPrecedes($1) }
        let sameParts = a == b  // (not in the expectation: it would print every coordinate)
        #expect(sameParts, "the batches' parts differ from the whole union's")
        #expect(try GeometryEngine.invalidityReason(Polygon(parts: parts, spatialReference: Self.sr)) == nil)
    }
}
