import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// A buffer with many segments builds and unions its pieces in two halves on two threads
/// (`GeodeticBufferBuilder.piecesUnion`). Both paths are run on one input (the threshold forced low or high) and
/// each result is checked against the true distance (fresh `geod_inverse` calls), and the two against each other.
@Suite struct GeodeticBufferPiecesTests {
    /// Buffers with the pieces on one thread and on two.
    static func bothPaths(_ body: () throws -> Polygon) throws -> (oneThread: Polygon, twoThreads: Polygon) {
        let one = try GeodeticBufferBuilder.$twoThreadPieces.withValue(Int.max) { try body() }
        let two = try GeodeticBufferBuilder.$twoThreadPieces.withValue(4) { try body() }
        return (one, two)
    }

    /// Five Texas counties merged into one polygon (hundreds of boundary segments), buffered by 10 km: both paths
    /// keep the contract against the true union (vertices 10 km ± 1 mm, edges within maxDeviation, 20 m) and agree
    /// as two approximations of one true buffer can (see `BufferPreUnionTests`: every vertex of one within
    /// maxDeviation + 1 mm of the other's boundary; areas within 2 × maxDeviation × perimeter). A half left out
    /// moves the boundary by kilometres.
    @Test func countiesOnOneAndTwoThreads() throws {
        let polygons = try BufferPreUnionTests.counties()
        let d = 10_000.0, maxDeviation = 20.0
        let (one, two) = try Self.bothPaths {
            try GeometryEngine.geodeticBuffer(around: polygons.map(\.geometry), distances: [d], distanceUnit: .meters,
                                              maxDeviation: nil, shouldUnion: true, outputSpatialReference: nil,
                                              mergingPolygons: true)[0]
        }
        let boundary = BufferPreUnionTests.boundaryEdges(polygons)
        var stats = BufferStats()
        for (polygon, label) in [(one, "one thread"), (two, "two threads")] {
            try BufferChecks.check(polygon, required: d, maxDeviation: maxDeviation, label: label, stats: &stats,
                                   samplesPerEdge: 3) { q in
                BufferPreUnionTests.candidates(q, boundary).map { BufferChecks.distance(from: q, toSegment: $0.0, $0.1) }.min()!
            }
        }
        for (a, b) in [(one, two), (two, one)] {
            let other = BufferPreUnionTests.edges(of: b)
            for ring in a.rings {
                for v in ring.dropLast() {
                    let e = BufferPreUnionTests.candidates(v, other)
                        .map { BufferPreUnionTests.distance(from: v, toStraight: $0.0, $0.1) }.min()!
                    #expect(e <= maxDeviation + 1e-3, "vertex (\(v.x), \(v.y)) is \(e) m from the other path's boundary")
                }
            }
        }
        let areas = try [one, two].map { try GeometryEngine.geodeticArea(of: $0) }
        let perimeter = try GeometryEngine.geodeticLength(of: one)
        #expect(abs(areas[0] - areas[1]) <= 2 * maxDeviation * perimeter, "areas \(areas[0]) and \(areas[1]) m²")
    }

    /// A zigzag line across ±180° (geographic output cut at the antimeridian, pieces from both halves meeting
    /// there), 100 km: the two-thread result keeps the contract, like the one-thread one.
    @Test func lineAcrossTheAntimeridianOnTwoThreads() throws {
        var path: [Coordinate] = []
        for k in 0..<40 {
            let x: Double = 178 + 0.1 * Double(k)
            let y: Double = k % 2 == 0 ? 10 : 10.3
            path.append(Coordinate(x: x > 180 ? x - 360 : x, y: y))
        }
        let line = Polyline(path, spatialReference: .wgs84)
        let r = 100_000.0
        let (one, two) = try Self.bothPaths {
            try GeometryEngine.geodeticBuffer(around: [line.geometry], distances: [r], distanceUnit: .meters,
                                              maxDeviation: nil, shouldUnion: false, outputSpatialReference: nil,
                                              mergingPolygons: true)[0]
        }
        var stats = BufferStats()
        for (polygon, label) in [(one, "one thread"), (two, "two threads")] {
            try BufferChecks.check(polygon, required: r, maxDeviation: 0.002 * r, label: label, stats: &stats,
                                   samplesPerEdge: 4) { q in BufferChecks.distance(from: q, toPath: path) }
        }
        let areas = try [one, two].map { try BufferChecks.drawnArea($0) }
        #expect(abs(areas[0] - areas[1]) <= 2 * 0.002 * r * (try GeometryEngine.geodeticLength(of: one)))
    }

    /// The work budget (a task local) reaches the second thread: a budget that cancels only there stops the buffer.
    @Test func theBudgetReachesTheSecondThread() throws {
        let polygons = try BufferPreUnionTests.counties()
        let caller = pthread_self()
        let budget = WorkBudget(seconds: 600, isCancelled: { pthread_equal(pthread_self(), caller) == 0 })
        #expect(throws: EngineError.interrupted("the work was cancelled")) {
            try GeodeticBufferBuilder.$twoThreadPieces.withValue(4) {
                try budget.run {
                    try GeometryEngine.geodeticBuffer(around: polygons.map(\.geometry), distances: [10_000],
                                                      distanceUnit: .meters, maxDeviation: nil, shouldUnion: true,
                                                      outputSpatialReference: nil, mergingPolygons: true)
                }
            }
        }
    }
}
