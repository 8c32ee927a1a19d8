import Foundation
import MeridianCore
import MeridianTestSupport
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

    /// Rotations of `nearTangentPair` whose union came out self-intersecting: the two GEOS crossings of the thin
    /// polygon overlap both refined to the same true crossing, pinching the union's waist (now each is moved to its
    /// own true crossing).
    static let pinchedRotations: [Int] = [32, 79, 103, 104]

    /// Two 150 km circles whose centres are 2r − 100 m apart, the pair rotated: the true disks overlap in a lens
    /// about 100 m wide and 7.7 km long that the polygons show partly or not at all.
    static func nearTangentPair(_ k: Int) throws -> (Polygon, Coordinate, Coordinate) {
        let g = BufferChecks.wgs84
        let a = Coordinate(x: 20, y: 30)
        let b = g.move(a, azimuth: 0.25 * Double(k), distance: 2 * 150_000 - 100)
        let union = try GeometryEngine.geodeticBuffer(
            around: [Point(a, spatialReference: .wgs84), Point(b, spatialReference: .wgs84)],
            distances: [150_000], shouldUnion: true)[0]
        return (union, a, b)
    }

    /// Three 5 km circles in Texas, two of them 9.975 km apart (a lens 25 m deep) with the third capping a small
    /// hole beside the lens's tip: moving the polygons' crossings onto the true ones pinched the ring there (an
    /// invalid polygon, and a GEOS topology exception when a fourth, separate circle made the union merge parts).
    /// Finer chords settle it (`validRefinement`): the result is valid as a whole, with the vertex and edge contract.
    @Test func lensBesideASmallHoleGivesAValidUnion() throws {
        let g = BufferChecks.wgs84
        let centres = [Coordinate(x: -96.572640, y: 32.100929), Coordinate(x: -96.519791, y: 32.137289),
                       Coordinate(x: -96.470768, y: 32.076709), Coordinate(x: -96.535146, y: 31.950934)]
        var stats = BufferStats()
        for count in [3, 4] {
            let points = centres.prefix(count).map { Point($0, spatialReference: .wgs84) }
            let union = try GeometryEngine.geodeticBuffer(around: points, distances: [5_000], shouldUnion: true)[0]
            #expect(try GeometryEngine.invalidityReason(union) == nil, "\(count) circles")
            try BufferChecks.check(union, required: 5_000, maxDeviation: 10, label: "\(count) circles", stats: &stats) { q in
                centres.prefix(count).map { g.distance($0, q) }.min()!
            }
            // The hole: a point between the three circles, more than 4 m outside each of them, is outside the union.
            let gap = Coordinate(x: -96.52069, y: 32.09190)
            #expect(centres.allSatisfy { g.distance($0, gap) > 5_004 })
            #expect(try !GeometryEngine.isGeometry(union, intersecting: Point(gap, spatialReference: .wgs84)))
            #expect(union.parts.count == count - 2, "\(count) circles")
            #expect(union.parts.reduce(0) { $0 + $1.holes.count } == 1, "\(count) circles")
        }
        print("GEODESIC LENS BESIDE A HOLE: \(stats)")
    }

    /// `validRefinement` retries with vertices projected onto the true boundary, then with crossings at finer
    /// scales, then without moving vertices, and never returns an invalid polygon.
    @Test func validRefinementRetriesThenRefuses() throws {
        let bowtie = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 1), Coordinate(x: 1, y: 0),
                                     Coordinate(x: 0, y: 1), Coordinate(x: 0, y: 0)], spatialReference: .wgs84)
        let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: 1),
                                     Coordinate(x: 0, y: 1), Coordinate(x: 0, y: 0)], spatialReference: .wgs84)
        var attempts: [String] = []
        let repaired = try GeodeticBufferPipeline.validRefinement { scale, placement throws(EngineError) in
            attempts.append("\(scale) \(placement)")
            if scale == 1 && placement == .crossings { throw .geos("union: TopologyException: side location conflict") }
            return placement == .asIs ? square : bowtie
        }
        #expect(repaired == square)
        #expect(attempts == ["1.0 crossings", "1.0 projections", "0.25 crossings", "0.0625 crossings", "1.0 asIs"])
        #expect(throws: EngineError.self) {
            try GeodeticBufferPipeline.validRefinement { _, _ throws(EngineError) in bowtie }
        }
        attempts = []
        #expect(throws: EngineError.self) {  // not a GEOS failure: no retry
            try GeodeticBufferPipeline.validRefinement { scale, placement throws(EngineError) in
                attempts.append("\(scale) \(placement)")
                throw .invalidDistance("no")
            }
        }
        #expect(attempts.count == 1)
    }

    /// A polyline that turns back on itself (a hairpin of about 170°): inside the turn the two 2 km offset curves
    /// cross at a very shallow angle, where moving the pieces' crossings onto the true one folded the ring into a
    /// 30 cm spike (an invalid polygon, returned silently before). The buffer is now valid; every vertex is on the
    /// true boundary within 1 mm except at most a few crossing vertices, which stay within maxDeviation, and every
    /// sampled edge point is within maxDeviation.
    @Test func hairpinPolylineBufferIsValid() throws {
        let path = [Coordinate(x: -98.215642, y: 30.447919), Coordinate(x: -98.247143, y: 30.426025),
                    Coordinate(x: -98.279892, y: 30.451775), Coordinate(x: -98.298719, y: 30.456599),
                    Coordinate(x: -98.267006, y: 30.454548)]
        let line = Polyline(parts: [path], spatialReference: .wgs84)
        let buffer = try GeometryEngine.geodeticBuffer(around: line, distance: 2_000)
        #expect(try GeometryEngine.invalidityReason(buffer) == nil)
        let d = { (q: Coordinate) in
            zip(path, path.dropFirst()).map { BufferChecks.distance(from: q, toSegment: $0, $1) }.min()!
        }
        var offVertices = 0
        for ring in buffer.rings {
            for (v, w) in zip(ring, ring.dropFirst()) {
                let e = abs(d(v) - 2_000)
                #expect(e <= 4, "vertex (\(v.x), \(v.y)) \(e) m off")
                if e > 1e-3 { offVertices += 1 }
                for j in 1...7 {
                    let t = Double(j) / 8
                    let q = Coordinate(x: v.x + t * (w.x - v.x), y: v.y + t * (w.y - v.y))
                    #expect(abs(d(q) - 2_000) <= 4, "edge from (\(v.x), \(v.y))")
                }
            }
        }
        #expect(offVertices <= 4, "\(offVertices) vertices off the true boundary")
    }

    /// Near-tangent circles rotated in 0.25° steps: a vertex of one circle inside the lens has both neighbours
    /// outside the other circle, so it is replaced by the two true crossings (removing it alone would leave a chord
    /// twice as long, about 930 m off the true boundary).
    @Test func nearTangentPairKeepsEveryVertexOnTheTrueUnionBoundary() throws {
        var stats = BufferStats()
        let g = BufferChecks.wgs84
        for k in 0..<120 {
            let (union, a, b) = try Self.nearTangentPair(k)
            try BufferChecks.check(union, required: 150_000, maxDeviation: 300, label: "tangent \(k)",
                                   stats: &stats) { q in min(g.distance(a, q), g.distance(b, q)) }
        }
        print("GEODESIC NEAR-TANGENT UNION: \(stats)")
    }

    /// The near-tangent rotations whose union used to pinch: every part is valid for GEOS (no self-intersection),
    /// and the vertex and edge contract holds on each ring.
    @Test func nearTangentPairSelfIntersections() throws {
        let g = BufferChecks.wgs84
        for k in Self.pinchedRotations {
            let (union, a, b) = try Self.nearTangentPair(k)
            for (p, part) in union.parts.enumerated() {
                let reason = try GeometryEngine.invalidityReason(Polygon(parts: [part], spatialReference: .wgs84))
                #expect(reason == nil, "tangent \(k): part \(p) invalid: \(reason ?? "")")
            }
            for part in union.parts {
                for ring in part.rings {
                    for (v, w) in zip(ring, ring.dropFirst()) {
                        let d = { (q: Coordinate) in min(g.distance(a, q), g.distance(b, q)) }
                        #expect(abs(d(v) - 150_000) <= 1e-3, "tangent \(k): vertex (\(v.x), \(v.y))")
                        for j in 1...15 {
                            let t = Double(j) / 16
                            let q = Coordinate(x: v.x + t * (w.x - v.x), y: v.y + t * (w.y - v.y))
                            #expect(abs(d(q) - 150_000) <= 300, "tangent \(k): edge from (\(v.x), \(v.y))")
                        }
                    }
                }
            }
        }
    }

    /// A polyline and a point whose circle crosses the line's band (segment and vertex elements together).
    @Test func lineAndPointUnionKeepsEveryVertexOnTheTrueUnionBoundary() throws {
        var stats = BufferStats()
        let g = BufferChecks.wgs84
        let r = 40_000.0
        let path = [Coordinate(x: 5, y: 50), Coordinate(x: 6.2, y: 50.4), Coordinate(x: 7, y: 50.1)]
        for k in 0..<40 {
            let c = Coordinate(x: 5.6 + 0.004 * Double(k), y: 51.0)
            let line = Polyline(path, spatialReference: .wgs84)
            let union = try GeometryEngine.geodeticBuffer(
                around: [line.geometry, Point(c, spatialReference: .wgs84).geometry], distances: [r],
                shouldUnion: true)[0]
            try BufferChecks.check(union, required: r, maxDeviation: 0.002 * r, label: "line+point \(k)",
                                   stats: &stats) { q in
                min(BufferChecks.distance(from: q, toPath: path), g.distance(c, q))
            }
        }
        print("GEODESIC LINE AND POINT UNION: \(stats)")
    }

    /// The union of 150 heavily overlapping 40 km circles given and written in EPSG:32038 (the viewer's
    /// path: culling, then adaptive circles in projected coordinates), points uniform in a 150 km square. Every
    /// vertex and sampled edge point is measured on NAD27's ellipsoid from its nearest centre (a fresh
    /// `geod_inverse` to every centre within 1°).
    @Test func culledUnionInAProjectedSpatialReference() throws {
        var stats = BufferStats()
        let sr = try SpatialReference(code: "EPSG:32038")
        let frame = try GeodeticFrame(input: sr, output: nil)
        var rng = SplitMix64(seed: 16)
        let r = 40_000.0
        let side = 150_000 / 0.3048006096  // US survey feet
        let points = (0..<150).map { _ in
            Point(Coordinate(x: 2_400_000 + side * (Double(rng.next() % 1_000_000) / 1e6 - 0.5),
                             y: 450_000 + side * (Double(rng.next() % 1_000_000) / 1e6 - 0.5)), spatialReference: sr)
        }
        let centres = try frame.toCompute(points.map(\.coordinate))
        let union = try GeometryEngine.geodeticBuffer(around: points, distances: [r], shouldUnion: true)[0]
        #expect(union.spatialReference == sr)
        try BufferChecks.check(union, required: r, maxDeviation: 0.002 * r, label: "EPSG:32038 union", stats: &stats,
                               samplesPerEdge: 5) { q in
            let ll = (try? frame.toCompute(q)) ?? q
            return centres.filter { abs($0.x - ll.x) < 1 && abs($0.y - ll.y) < 1 }
                .map { frame.geodesic.distance($0, ll) }.min() ?? .infinity
        }
        print("GEODESIC CULLED UNION IN EPSG:32038: \(stats)")
    }
}
