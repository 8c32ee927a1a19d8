import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore
@testable import MeridianEngine

/// `unionOfBuffers(aroundPoints:…batchSize:_:)`, which hands the union over a batch of clusters at a time: its parts
/// together are exactly the parts of the whole union (bit for bit, in another order), every circle is counted, and
/// it is valid in GEOS's eyes.
@Suite struct BatchedUnionTests {
    static let sr = SpatialReference.webMercator

    static func key(_ p: Polygon.Part) -> [Double] { p.rings.flatMap { $0.flatMap { [$0.x, $0.y] } } }

    @Test(arguments: [1, 97, 500, 5_000])
    func batchesTogetherAreTheWholeUnion(batchSize: Int) throws {
        var rng = SplitMix64(seed: 13)
        // 3,000 points in a square where a circle meets about one other on average, some exact duplicates.
        var centres: [Coordinate] = []
        let r = 100.0, side = (3000 * Double.pi * 4 * r * r).squareRoot()
        for i in 0..<3000 {
            if i % 100 == 99 { centres.append(centres[i - 50]); continue }
            centres.append(Coordinate(x: -10_000_000 + side * rng.unit(), y: 4_000_000 + side * rng.unit()))
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

/// The overlapped batched union (`overlapped: true`: the next batch is unioned on a background thread while the
/// caller writes this one) hands over exactly what the sequential one does, batch for batch and bit for bit, in the
/// same order, whatever the threads' timing; an error from either side stops it.
@Suite struct OverlappedUnionTests {
    static let sr = SpatialReference.webMercator

    /// 4,000 points where a circle meets about one other on average.
    static func centres(seed: UInt64) -> [Coordinate] {
        var rng = SplitMix64(seed: seed)
        let r = 100.0, side = (4000 * Double.pi * 4 * r * r).squareRoot()
        return (0..<4000).map { _ in
            Coordinate(x: -10_000_000 + side * rng.unit(),
                       y: 4_000_000 + side * rng.unit())
        }
    }

    /// The batches and counts the caller receives.
    static func batches(_ centres: [Coordinate], batchSize: Int, overlapped: Bool, delay: (Int) -> UInt32 = { _ in 0 })
        throws -> [(Polygon, Int)]
    {
        var got: [(Polygon, Int)] = []
        try GeometryEngine.unionOfBuffers(aroundPoints: centres, distances: [100], in: sr, batchSize: batchSize,
                                          overlapped: overlapped) { (batch: Polygon, done: Int) throws(EngineError) in
            usleep(delay(got.count))
            got.append((batch, done))
        }
        return got
    }

    @Test(arguments: [1, 300, 2_000])
    func sameBatchesInTheSameOrder(batchSize: Int) throws {
        let centres = Self.centres(seed: 41)
        let sequential = try Self.batches(centres, batchSize: batchSize, overlapped: false)
        #expect(sequential.count > 1 && sequential.last?.1 == centres.count)
        // A consumer slower than the producer (the queue fills), faster (it waits), and by turns.
        var rng = SplitMix64(seed: 7)
        let jitter = (0..<sequential.count).map { _ in UInt32(rng.next() % 3_000) }
        for delay in [{ (_: Int) -> UInt32 in 2_000 }, { _ in 0 }, { jitter[$0] }] {
            let overlapped = try Self.batches(centres, batchSize: batchSize, overlapped: true, delay: delay)
            #expect(overlapped.count == sequential.count)
            let same = zip(overlapped, sequential).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
            #expect(same, "the overlapped union handed over other batches (or in another order)")
        }
    }

    @Test func anErrorFromTheCallerStopsTheUnion() throws {
        let centres = Self.centres(seed: 42)
        var calls = 0
        #expect(throws: EngineError.badGeometry(.empty("stop"))) {
            try GeometryEngine.unionOfBuffers(aroundPoints: centres, distances: [100], in: Self.sr, batchSize: 200,
                                              overlapped: true) { (_: Polygon, _: Int) throws(EngineError) in
                calls += 1
                if calls == 3 { throw .badGeometry(.empty("stop")) }
            }
        }
        #expect(calls == 3)
    }
}
