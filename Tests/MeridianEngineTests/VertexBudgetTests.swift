import Foundation
import Testing

@testable import MeridianEngine
import MeridianCore

/// The vertex allowance of `WorkBudget`, one mechanism for every operation that can multiply vertices:
/// refused from the estimate before the work when that is too large, stopped during the work when
/// what it makes passes the limit, and unchanged when the work fits.
@Suite struct VertexBudgetTests {
    static let utm = SpatialReference.webMercator
    static let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 0), Coordinate(x: 10, y: 10),
                                        Coordinate(x: 0, y: 10)], spatialReference: utm)

    static func isLimit(_ error: EngineError, _ words: String) -> Bool {
        if case .limitExceeded(let m) = error { m.contains(words) } else { false }
    }

    /// `op densify` of a 10 × 10 square every micrometre: 40 million vertices, refused before GEOS runs (it used
    /// 3.1 GB, and at 1e-7 m ended in std::bad_alloc).
    @Test func densifyIsRefusedFromItsExactCount() throws {
        let budget = WorkBudget(seconds: .infinity, maximumVertices: 5_000_000)
        #expect {
            try budget.run { try GeometryEngine.densify(Self.square, maxSegmentLength: 1e-6) }
        } throws: { Self.isLimit($0 as! EngineError, "densify would make about 40,000,001 vertices, more than the 5,000,000") }
        #expect(budget.verticesProduced == 0)
        let fits = try budget.run { try GeometryEngine.densify(Self.square, maxSegmentLength: 0.01) }
        #expect(fits.vertexCount == 4001 && budget.verticesProduced == 4001)
        #expect(GeometryEngine.densifiedVertexCount(Self.square.geometry, maxSegmentLength: 0.01) == 4001)
    }

    /// A geodesic buffer whose estimate is beyond the limit is refused before the work; one within it runs.
    @Test func geodesicBuffersAreAdmittedFromTheirEstimate() throws {
        let point = Point(x: 10, y: 45, spatialReference: .wgs84)
        let points = (0..<100).map { Point(x: -170 + 3 * Double($0), y: 0, spatialReference: .wgs84) }
        let budget = WorkBudget(seconds: .infinity, maximumVertices: 100_000)
        #expect {  // 100 circles of 1,000 km within 1 m: about 2,500 vertices each
            try budget.run {
                try GeometryEngine.geodeticBuffer(around: points, distances: [1_000_000], maxDeviation: 1, shouldUnion: false)
            }
        } throws: { Self.isLimit($0 as! EngineError, "the geodesic buffer would make about 248,") }
        #expect(budget.verticesProduced == 0)
        let fine = try budget.run { try GeometryEngine.geodeticBuffer(around: point, distance: 1000) }
        #expect(fine.vertexCount > 8 && budget.verticesProduced >= fine.vertexCount - 1)
    }

    /// The count during the work: a point buffer whose circle needs more vertices than the estimate said (the
    /// estimate ignores the skew of longitude/latitude at 60°N) stops at the limit, and fits one vertex higher.
    @Test func verticesMadeAreCountedWhileTheyAreMade() throws {
        let point = Point(x: 10, y: 60, spatialReference: .wgs84)
        let made = try GeometryEngine.geodeticBuffer(around: point, distance: 200_000).vertexCount - 1
        let estimate = GeometryEngine.estimatedGeodeticBufferVertices(point.geometry, distance: 200_000, tolerance: 400)
        try #require(estimate < Double(made))
        #expect {
            try WorkBudget(seconds: .infinity, maximumVertices: made - 1).run {
                try GeometryEngine.geodeticBuffer(around: point, distance: 200_000)
            }
        } throws: { Self.isLimit($0 as! EngineError, "the geodesic buffer made more than") }
        let budget = WorkBudget(seconds: .infinity, maximumVertices: made)
        _ = try budget.run { try GeometryEngine.geodeticBuffer(around: point, distance: 200_000) }
        #expect(budget.verticesProduced == made)
    }

    /// A union is admitted buffer by buffer and counts only its result: 2,000 overlapping circles sample far more
    /// vertices than their union keeps.
    @Test func aUnionCountsItsResultNotItsPieces() throws {
        let points = (0..<2_000).map { Point(x: -100 + Double($0 % 50) * 0.01, y: 35 + Double($0 / 50) * 0.01,
                                             spatialReference: .wgs84) }
        let budget = WorkBudget(seconds: .infinity, maximumVertices: 20_000)
        let union = try budget.run {
            try GeometryEngine.geodeticBuffer(around: points, distances: [2000], shouldUnion: true)
        }
        #expect(budget.verticesProduced == union[0].vertexCount)
        #expect {
            try WorkBudget(seconds: .infinity, maximumVertices: 20_000).run {
                try GeometryEngine.geodeticBuffer(around: points, distances: [2000], shouldUnion: false)
            }
        } throws: { Self.isLimit($0 as! EngineError, "the geodesic buffer would make about") }
    }

    /// Work that makes no vertices (a geodesic buffer's chord attempts beyond four per sample kept) is charged with
    /// `spend`, which counts inside a union's `uncounted` work too, where `produce` does not: so a union cannot run
    /// unbounded on attempts either. The message names the work and the limit.
    @Test func workIsChargedEvenWhereVerticesAreNotCounted() throws {
        let budget = WorkBudget(seconds: .infinity, maximumVertices: 100)
        try Self.uncountedWork(budget, pieces: 1000, attempts: 60)
        #expect(budget.verticesProduced == 60)
        #expect {
            try Self.uncountedWork(budget, pieces: 0, attempts: 41)
        } throws: { Self.isLimit($0 as! EngineError, "the attempts made more than the 100 vertices") }
        #expect(GeodeticBufferBuilder.attemptsPerVertex == 4)
    }

    /// Inside `budget`, in uncounted work: `pieces` vertices produced and `attempts` vertices' worth of work spent.
    static func uncountedWork(_ budget: WorkBudget, pieces: Int, attempts: Int) throws {
        _ = try budget.run { () throws -> Int in
            try WorkBudget.uncounted { () throws(EngineError) -> Int in
                try WorkBudget.produce(vertices: pieces, by: "pieces")
                try WorkBudget.spend(vertices: attempts, by: "the attempts")
                return attempts
            }
        }
    }

    /// Planar buffers with many segments, and offsets: refused from their estimate.
    @Test func planarBuffersAndOffsetsAreAdmittedFromTheirEstimate() throws {
        let points = (0..<2_000).map { Point(x: Double($0) * 100, y: 0, spatialReference: Self.utm) }
        let many = BufferParameters(segmentsPerQuarterCircle: 1000)
        let budget = WorkBudget(seconds: .infinity, maximumVertices: 5_000_000)
        #expect {
            try budget.run { try GeometryEngine.buffer(around: points, distances: [10], shouldUnion: false, parameters: many) }
        } throws: { Self.isLimit($0 as! EngineError, "the buffers would make about 8,002,000 vertices") }
        #expect {
            try WorkBudget(seconds: .infinity, maximumVertices: 1000).run {
                try GeometryEngine.offset(Self.square, byDistance: 1, offsetType: .rounded, flattenError: 1e-9)
            }
        } throws: { Self.isLimit($0 as! EngineError, "the offset would make about") }
    }

    /// `op offset --distance 1e300` gave a pentagon: distances beyond half the Earth's circumference are refused,
    /// as for buffers.
    @Test func anAbsurdOffsetDistanceIsRefused() {
        #expect {
            try GeometryEngine.offset(Self.square, byDistance: 1e300, offsetType: .rounded, flattenError: 0.1)
        } throws: { error in
            guard case EngineError.invalidArgument(let m) = error else { return false }
            return m.contains("exceeds half the Earth's circumference")
        }
        #expect((try? GeometryEngine.offset(Self.square, byDistance: 1e7, offsetType: .mitered, flattenError: 0.1)) != nil)
    }

    /// A long diagonal line buffered by 1 m: its segment grid once asked for 393 GB (SIGABRT).
    @Test func aLongDiagonalLineBufferedByAMetreIsSmall() throws {
        let line = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 1)], spatialReference: .wgs84)
        let buffer = try GeometryEngine.geodeticBuffer(around: line, distance: 1)
        #expect(buffer.vertexCount > 20 && buffer.vertexCount < 2_000)
    }
}
