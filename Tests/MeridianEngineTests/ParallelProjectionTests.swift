import Dispatch
import Foundation
import Testing

import MeridianCore
@testable import MeridianEngine

/// Projection on several threads at once: `GeometryEngine.project(_:into:)` shares a large polygon between threads,
/// and concurrent callers each borrow their own copy of the PROJ operation and share the interpolated tiles. Every
/// vertex must be the same doubles whatever the thread count, within the interpolation's bound (1e-11°) of what
/// PROJ's own `proj_trans` gives for it alone, and the polygon's structure (parts, holes, ring order) must not change.
@Suite struct ParallelProjectionTests {
    /// A polygon in EPSG:5070 (CONUS Albers, metres) of `parts` parts, each a 64-gon shell with `holes` 16-gon holes,
    /// of about `vertices` vertices in all (ring sizes vary, so the threads' halves do not fall on a part boundary).
    static func polygon(parts: Int, holes: Int, in sr: SpatialReference) -> Polygon {
        var result: [Polygon.Part] = []
        for k in 0..<parts {
            let cx = -1_500_000 + Double(k % 300) * 10_000, cy = 1_000_000 + Double(k / 300) * 10_000
            func ring(_ n: Int, _ r: Double, _ dx: Double) -> [Coordinate] {
                (0...n).map { i in
                    let a = Double(i % n) * 2 * .pi / Double(n)
                    return Coordinate(x: cx + dx + r * cos(a), y: cy + r * sin(a))
                }
            }
            let n = 64 + k % 7
            result.append(Polygon.Part(shell: ring(n, 4_000, 0),
                                       holes: (0..<(holes + k % 2)).map { h in ring(16, 300, Double(h) * 900 - 1_200) }))
        }
        return Polygon(parts: result, spatialReference: sr)
    }

    /// Each ring's coordinates as PROJ projects them one at a time.
    static func reference(_ polygon: Polygon, to target: SpatialReference) throws -> [[Coordinate]] {
        try polygon.parts.flatMap { [$0.shell] + $0.holes }.map {
            try BulkProjectionTests.reference($0, from: polygon.spatialReference, to: target)
        }
    }

    /// Polygons of 3,700 vertices (40 parts with holes) projected on 1, 2 and 3 threads (a threshold of 1,000
    /// vertices instead of `parallelProjectionVertices`, to keep the test small) come out with the same parts, holes
    /// and ring order and the same doubles, every vertex within 1e-11° of PROJ's per-point result.
    @Test(arguments: [1_000, GeometryEngine.parallelProjectionVertices])
    func polygonOnSeveralThreadsIsTheSame(threshold: Int) throws {
        let albers = try SpatialReference(wkid: 5070)
        let input = Self.polygon(parts: 40, holes: 1, in: albers)
        #expect(input.vertexCount > 1_000 && input.vertexCount < GeometryEngine.parallelProjectionVertices)
        var results: [Polygon] = []
        for threads in [1, 2, 3] {
            var projected = input
            try GeometryEngine.project(&projected, into: .wgs84, threadsFrom: threshold, threads: threads)
            results.append(projected)
        }
        #expect(results[0] == results[1] && results[0] == results[2])
        let projected = results[0]
        #expect(projected.spatialReference == .wgs84)
        #expect(projected.parts.count == input.parts.count)
        #expect(projected.parts.map(\.holes.count) == input.parts.map(\.holes.count))
        let rings = projected.parts.flatMap { [$0.shell] + $0.holes }
        let expected = try Self.reference(input, to: .wgs84)
        #expect(rings.count == expected.count)
        let worst = zip(rings, expected).map { BulkProjectionTests.worstDifference($0, $1) }.max() ?? .infinity
        #expect(worst <= InterpolatedProjection.tolerance, "worst \(worst)°")
    }

    /// The runs of rings given to the threads: consecutive, covering every ring once, about equal in vertices.
    @Test func runsOfRingsCoverEveryRingOnce() {
        let sizes = (0..<100).map { 10 + ($0 * 37) % 90 }
        for pieces in [1, 2, 3, 7, 100, 500] {
            let runs = GeometryEngine.runsOfRings(sizes, pieces: pieces)
            #expect(runs.first?.lowerBound == 0 && runs.last?.upperBound == sizes.count)
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
            #expect(runs.count <= max(pieces, 1))
            let total = sizes.reduce(0, +)
            let largest = runs.map { sizes[$0].reduce(0, +) }.max()!
            #expect(largest <= total / min(pieces, sizes.count) + sizes.max()!, "\(pieces) pieces")
        }
        #expect(GeometryEngine.runsOfRings([], pieces: 3).isEmpty)
    }

    /// Vertices that cannot be projected in rings of different threads' runs (three threads from 1,000 vertices):
    /// the error names the first one in ring order (as one thread would), whichever thread finds its own first.
    @Test func failureNamesTheFirstRingInOrder() throws {
        let albers = try SpatialReference(wkid: 5070)
        let input = Self.polygon(parts: 40, holes: 1, in: albers)
        let lastPart = input.parts.count - 1
        var both = input.parts, secondOnly = input.parts
        both[3].shell[5].x = .infinity
        both[lastPart].holes[0][2].x = .infinity
        secondOnly[lastPart].holes[0][2].x = .infinity
        for (parts, vertex) in [(both, 5), (secondOnly, 2)] {
            var polygon = Polygon(parts: parts, spatialReference: albers)
            #expect {
                try GeometryEngine.project(&polygon, into: .wgs84, threadsFrom: 1_000, threads: 3)
            } throws: { error in
                guard let error = error as? EngineError, case .projectionFailed(let message) = error.unlocated else {
                    return false
                }
                return error.location == EngineError.Location(vertex: vertex) && message.hasPrefix("(inf,")
            }
        }
    }

    /// Eight threads projecting at once (each its own arrays) through the one cached transformation and its shared
    /// tiles all get the doubles one thread gets alone, within 1 µm of PROJ's per-point results: no copy of the
    /// operation is used by two threads at a time.
    @Test func concurrentCallersGetPROJsResults() throws {
        let albers = try SpatialReference(wkid: 5070)
        let inputs = (0..<8).map { k in
            BulkProjectionTests.coordinates(3_000 + 100 * k, lon: -120...(-75), lat: 26...48)
        }
        let alone = try inputs.map { input in
            var c = input
            try InterpolatedProjection(from: .wgs84, to: albers).transform(&c, threads: 1)
            return c
        }
        for (k, input) in inputs.enumerated() {
            let reference = try BulkProjectionTests.reference(input, from: .wgs84, to: albers)
            #expect(BulkProjectionTests.worstDifference(alone[k], reference) <= InterpolatedProjection.metricTolerance)
        }
        let results = Results(count: inputs.count)
        DispatchQueue.concurrentPerform(iterations: inputs.count) { k in
            var c = inputs[k]
            var ok = true
            for _ in 0..<5 {
                c = inputs[k]
                do { try GeometryEngine.project(&c, from: .wgs84, into: albers) } catch { ok = false }
            }
            results.set(k, ok ? c : [])
        }
        for k in inputs.indices {
            #expect(BulkProjectionTests.firstDifference(results.get(k), alone[k]) == nil, "thread \(k)")
        }
    }

    /// Each concurrent caller's result, guarded by a lock.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [[Coordinate]]
        init(count: Int) { slots = Array(repeating: [], count: count) }
        func set(_ k: Int, _ value: [Coordinate]) { lock.withLock { slots[k] = value } }
        func get(_ k: Int) -> [Coordinate] { lock.withLock { slots[k] } }
    }
}
