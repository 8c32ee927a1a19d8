import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Unions of geodesic buffers whose true circles overlap: every output vertex must be at the requested distance
/// from the NEAREST input element (a fresh `geod_inverse` to every centre), so no vertex of one circle may survive
/// inside another circle's true disk (it can lie there while outside that circle's straight-edged polygon, in the
/// thin sliver between a chord and its arc).
@Suite struct GeodeticBufferUnionTests {
    /// Two 150 km circles near ±180° (the colleague's case: (179.9, 11.2) and (−179.6, 10.3)); the second centre
    /// swept in 0.002° steps (≈ 220 m) over 0.24° of longitude, more than one vertex spacing of the first circle
    /// (≈ 17 km at the default maxDeviation of 300 m), so the crossing of the two circles passes every vertex
    /// placement, including vertices of one circle inside the other's chord sliver.
    @Test func sweptPairKeepsEveryVertexOnTheTrueUnionBoundary() throws {
        var stats = BufferStats()
        let g = BufferChecks.wgs84
        let r = 150_000.0
        let a = Coordinate(x: 179.9, y: 11.2)
        for k in 0..<120 {
            let b = Coordinate(x: -179.6 + 0.002 * Double(k), y: 10.3)
            let union = try GeometryEngine.geodeticBuffer(
                around: [Point(a, spatialReference: .wgs84), Point(b, spatialReference: .wgs84)],
                distances: [r], shouldUnion: true)[0]
            try BufferChecks.check(union, required: r, maxDeviation: 0.002 * r, label: "pair \(k) \(b)",
                                   stats: &stats) { q in min(g.distance(a, q), g.distance(b, q)) }
        }
        print("GEODESIC SWEPT PAIR UNION: \(stats)")
    }

    /// The same sweep as one multipoint buffered without `shouldUnion`: its circles are unioned inside one buffer,
    /// with the same hazard.
    @Test func sweptMultipointKeepsEveryVertexOnTheTrueUnionBoundary() throws {
        var stats = BufferStats()
        let g = BufferChecks.wgs84
        let r = 150_000.0
        let a = Coordinate(x: 179.9, y: 11.2)
        for k in 0..<120 {
            let b = Coordinate(x: -179.6 + 0.002 * Double(k), y: 10.3)
            let buffer = try GeometryEngine.geodeticBuffer(around: Multipoint([a, b], spatialReference: .wgs84),
                                                           distance: r)
            try BufferChecks.check(buffer, required: r, maxDeviation: 0.002 * r, label: "multipoint \(k) \(b)",
                                   stats: &stats) { q in min(g.distance(a, q), g.distance(b, q)) }
        }
        print("GEODESIC SWEPT MULTIPOINT: \(stats)")
    }

    /// Three 50 km circles away from ±180°, the third centre swept over the crossing of the first two, so that
    /// crossings of two circles and vertices of each fall inside the other circles' chord slivers.
    @Test func sweptTripleKeepsEveryVertexOnTheTrueUnionBoundary() throws {
        var stats = BufferStats()
        let g = BufferChecks.wgs84
        let r = 50_000.0
        let a = Coordinate(x: 10, y: 45), b = Coordinate(x: 10.9, y: 45.2)
        for k in 0..<80 {
            let c = Coordinate(x: 10.45 + 0.001 * Double(k), y: 45.55 + 0.0005 * Double(k))
            let points = [a, b, c].map { Point($0, spatialReference: .wgs84) }
            let union = try GeometryEngine.geodeticBuffer(around: points, distances: [r], shouldUnion: true)[0]
            try BufferChecks.check(union, required: r, maxDeviation: 0.002 * r, label: "triple \(k) \(c)",
                                   stats: &stats) { q in [a, b, c].map { g.distance($0, q) }.min()! }
        }
        print("GEODESIC SWEPT TRIPLE UNION: \(stats)")
    }
}
