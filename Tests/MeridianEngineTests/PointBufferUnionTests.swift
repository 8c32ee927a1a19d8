import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore
@testable import MeridianEngine

/// A projected spatial reference in meters that needs no PROJ lookup.
private let planar = SpatialReference.webMercator

/// What the fast union must match in GEOS's union: area within 1e-9 relative, the same numbers of parts, holes and
/// vertices, and valid output.
private struct Summary: Equatable {
    let parts: Int
    let holes: Int
    let vertices: Int
}

private func summary(_ p: Polygon) -> Summary {
    Summary(parts: p.parts.count, holes: p.parts.reduce(0) { $0 + $1.holes.count }, vertices: p.vertexCount)
}

/// GEOS's own answer: a GEOS buffer per point, then GEOS's cascaded union.
private func geosUnion(_ points: [Point], _ distances: [Double]) throws -> Polygon {
    let buffers = try GeometryEngine.buffer(around: points, distances: distances, shouldUnion: false)
    guard case .polygon(let p) = try GeometryEngine.union(of: buffers) else {
        Issue.record("GEOS union is not a polygon")
        return Polygon(parts: [], spatialReference: planar)
    }
    return p
}

/// Checks the fast union against GEOS's; returns whether the fast path (no GEOS fallback) produced it.
@discardableResult
private func checkAgainstGEOS(
    _ points: [Point], _ distances: [Double], _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Bool {
    let fast = try GeometryEngine.unionOfPointBuffers(around: points, distances: distances)
    let viaBuffer = try GeometryEngine.buffer(around: points, distances: distances, shouldUnion: true)[0]
    #expect(
        viaBuffer == fast.polygon, "\(label): buffer(shouldUnion:) must return the same polygon",
        sourceLocation: sourceLocation)
    let reference = try geosUnion(points, distances)
    let a = try GeometryEngine.area(of: fast.polygon), b = try GeometryEngine.area(of: reference)
    #expect(abs(a - b) <= 1e-9 * b, "\(label): area \(a) vs GEOS \(b)", sourceLocation: sourceLocation)
    #expect(
        summary(fast.polygon) == summary(reference), "\(label): counts differ from GEOS",
        sourceLocation: sourceLocation)
    #expect(
        try GeometryEngine.invalidityReason(fast.polygon) == nil, "\(label): invalid output",
        sourceLocation: sourceLocation)
    for part in fast.polygon.parts {
        #expect(
            Polygon.signedArea(part.shell) > 0, "\(label): shell not counter-clockwise", sourceLocation: sourceLocation)
        for h in part.holes {
            #expect(Polygon.signedArea(h) < 0, "\(label): hole not clockwise", sourceLocation: sourceLocation)
        }
    }
    if let reason = fast.geosFallbackReason { print("\(label): GEOS fallback (\(reason))") }
    return fast.geosFallbackReason == nil
}

@Suite("Point buffer union")
struct PointBufferUnionTests {
    @Test("The unit circle reproduces GEOS's point buffer vertices bit for bit", arguments: [1, 2, 8, 16, 30])
    func unitCircleMatchesGEOS(q: Int) throws {
        var rng = SplitMix64(seed: UInt64(q))
        let circle = UnitCircle(segmentsPerQuarterCircle: q)
        #expect(circle.count == 4 * q)
        for _ in 0..<20 {
            let x = Double.random(in: -1e7...1e7, using: &rng), y = Double.random(in: -1e7...1e7, using: &rng)
            let r = Double.random(in: 1e-3...1e5, using: &rng)
            let geos = try GeometryEngine.buffer(
                around: Point(x: x, y: y, spatialReference: planar), distance: r,
                parameters: BufferParameters(segmentsPerQuarterCircle: q))
            let ring = geos.parts[0].shell.dropLast()
            let mine = (0..<circle.count).map { k in Coordinate(x: x + r * circle.x[k], y: y + r * circle.y[k]) }
            #expect(Set(ring) == Set(mine), "q=\(q) centre (\(x), \(y)) r=\(r)")
            #expect(ring.count == mine.count)
        }
    }

    @Test("Random overlapping circles equal GEOS's union (fast path, no fallback)")
    func randomOverlaps() throws {
        // Sparse (mostly singletons), near the percolation threshold (holes, many parts), and dense (heavy culling).
        for (seed, count, radius) in [(1, 300, 2.0), (2, 300, 4.5), (3, 300, 6.0), (4, 400, 12.0), (5, 150, 30.0)] {
            var rng = SplitMix64(seed: UInt64(seed))
            let points = (0..<count).map { _ in
                Point(
                    x: 5e5 + Double.random(in: 0...100, using: &rng), y: 4e6 + Double.random(in: 0...100, using: &rng),
                    spatialReference: planar)
            }
            let fastPath = try checkAgainstGEOS(points, [radius], "seed \(seed)")
            #expect(fastPath, "seed \(seed): general-position input should not need the GEOS fallback")
        }
    }

    @Test("More random regimes, q from 1 to 24", arguments: 20..<32)
    func sweep(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 7919)
        let q = [1, 2, 3, 4, 8, 16, 24][seed % 7]
        let count = Int.random(in: 20...250, using: &rng)
        let radius = Double.random(in: 1...15, using: &rng)
        let points = (0..<count).map { _ in
            Point(
                x: -2e6 + Double.random(in: 0...100, using: &rng), y: 7e5 + Double.random(in: 0...100, using: &rng),
                spatialReference: planar)
        }
        let parameters = BufferParameters(segmentsPerQuarterCircle: q)
        let fast = try GeometryEngine.unionOfPointBuffers(around: points, distances: [radius], parameters: parameters)
        let buffers = try GeometryEngine.buffer(
            around: points, distances: [radius], shouldUnion: false,
            parameters: parameters)
        guard case .polygon(let reference) = try GeometryEngine.union(of: buffers) else {
            Issue.record("GEOS union is not a polygon")
            return
        }
        let a = try GeometryEngine.area(of: fast.polygon), b = try GeometryEngine.area(of: reference)
        #expect(abs(a - b) <= 1e-9 * b, "seed \(seed) q \(q): area \(a) vs GEOS \(b)")
        #expect(summary(fast.polygon) == summary(reference), "seed \(seed) q \(q)")
        #expect(try GeometryEngine.invalidityReason(fast.polygon) == nil)
        #expect(fast.geosFallbackReason == nil, "seed \(seed) q \(q): \(fast.geosFallbackReason ?? "")")
    }

    @Test("Points on a lattice (many exact coincidences) still equal GEOS's union, on the path expected")
    func lattice() throws {
        // Spacing 2r (tangent neighbours), r·√2 and r (heavy overlap) on an axis-aligned lattice: touching or
        // collinear edges, which the fast path hands to GEOS. Spacing 1.5r, 1.25r and a staggered 2r lattice (rows
        // shifted by 0.3r, so neighbours overlap without touching at a vertex) keep the fast path.
        for (spacing, stagger, r, fastPathExpected) in [
            (20.0, 0.0, 10.0, false), (14.142135623730951, 0.0, 10.0, false), (10.0, 0.0, 10.0, false),
            (15.0, 0.0, 10.0, true), (12.5, 0.0, 10.0, true), (19.0, 3.0, 10.0, true),
        ] {
            var points: [Point] = []
            for i in 0..<6 {
                for j in 0..<6 {
                    points.append(
                        Point(
                            x: Double(i) * spacing + Double(j) * stagger, y: Double(j) * spacing,
                            spatialReference: planar))
                }
            }
            let fastPath = try checkAgainstGEOS(points, [r], "lattice \(spacing) stagger \(stagger)")
            #expect(fastPath == fastPathExpected, "lattice \(spacing) stagger \(stagger): fast path \(fastPath)")
        }
    }

    @Test("Random radii per point equal GEOS's union")
    func randomRadii() throws {
        for seed in 10..<14 {
            var rng = SplitMix64(seed: UInt64(seed))
            let points = (0..<200).map { _ in
                Point(
                    x: Double.random(in: 0...100, using: &rng), y: Double.random(in: 0...100, using: &rng),
                    spatialReference: planar)
            }
            let radii = points.map { _ in Double.random(in: 0.5...9, using: &rng) }
            let fastPath = try checkAgainstGEOS(points, radii, "radii seed \(seed)")
            #expect(fastPath)
        }
    }

    @Test("Holes with islands inside them: several shells and holes in one union")
    func holesWithIslands() throws {
        var points: [Point] = []
        // Two rings of circles, each enclosing a hole with a separate circle (an island) inside it.
        for (cx, cy) in [(0.0, 0.0), (100.0, 13.0)] {
            for k in 0..<24 {
                let a = Double(k) / 24 * 2 * Double.pi + 0.01
                points.append(Point(x: cx + 30 * cos(a), y: cy + 30 * sin(a), spatialReference: planar))
            }
            points.append(Point(x: cx + 1.3, y: cy - 0.7, spatialReference: planar))
        }
        let fastPath = try checkAgainstGEOS(points, [5.0], "islands")
        #expect(fastPath)
        let result = try GeometryEngine.unionOfPointBuffers(around: points, distances: [5.0]).polygon
        #expect(summary(result).parts == 4)
        #expect(summary(result).holes == 2)
    }

    @Test("Coincident circles (duplicate points) are unioned once")
    func coincident() throws {
        var rng = SplitMix64(seed: 77)
        var points = (0..<60).map { _ in
            Point(
                x: Double.random(in: 0...50, using: &rng), y: Double.random(in: 0...50, using: &rng),
                spatialReference: planar)
        }
        points += points.prefix(20)  // exact duplicates
        points += [points[0], points[0]]
        let fastPath = try checkAgainstGEOS(points, [3.0], "coincident")
        #expect(fastPath, "exact duplicates are dropped before the union, so no fallback is needed")
    }

    @Test("A degenerate spot sends only its own cluster to GEOS, and the union still equals GEOS's")
    func degenerateClustersOnly() throws {
        var rng = SplitMix64(seed: 4242)
        let r = 10.0
        // 300 random circles in a 2000 × 2000 square: many separate clusters.
        var points = (0..<300).map { _ in
            Point(
                x: Double.random(in: 0...2000, using: &rng), y: Double.random(in: 0...2000, using: &rng),
                spatialReference: planar)
        }
        // Two degenerate spots away from them: a pair sharing a vertex exactly (centres 2r apart on an axis) and a
        // near-duplicate (centres 1e-9 apart).
        points += [
            Point(x: 5000, y: 5000, spatialReference: planar), Point(x: 5000 + 2 * r, y: 5000, spatialReference: planar),
            Point(x: 6000, y: 6000, spatialReference: planar), Point(x: 6000 + 1e-9, y: 6000, spatialReference: planar),
        ]
        let fastPath = try checkAgainstGEOS(points, [r], "degenerate spots")
        #expect(!fastPath)
        let result = try GeometryEngine.unionOfPointBuffers(around: points, distances: [r])
        let reason = try #require(result.geosFallbackReason)
        #expect(reason.contains("GEOS unioned 2 of"), "\(reason)")
        #expect(reason.contains("(4 of 304 circles)"), "\(reason)")
    }

    @Test("Tangent circles (touching at one vertex, or nearly) still equal GEOS's union")
    func tangent() throws {
        // Centres 2r apart on the x axis: the buffers share the vertex at angle 0 / π exactly.
        let r = 10.0
        // Exact tangencies go to GEOS (the fallback); near ones (1e-7 overlap or gap, 1e-3 along a diagonal) keep
        // the fast path. Which path ran is asserted, so a change of path shows.
        let row = (0..<5).map { Point(x: 1000 + Double($0) * 2 * r, y: 500, spatialReference: planar) }
        #expect(try checkAgainstGEOS(row, [r], "tangent row") == false)
        let nearRow = (0..<5).map { Point(x: 1000 + Double($0) * (2 * r - 1e-3), y: 500, spatialReference: planar) }
        #expect(try checkAgainstGEOS(nearRow, [r], "nearly tangent row"))
        // Centres a hair closer than 2r (overlap of 1e-7) and a hair farther.
        for (gap, fastPathExpected) in [(-1e-7, true), (1e-7, true), (-1e-12, false)] {
            let pair = [
                Point(x: 0, y: 0, spatialReference: planar),
                Point(x: 2 * r + gap, y: 0, spatialReference: planar),
            ]
            #expect(try checkAgainstGEOS(pair, [r], "tangent gap \(gap)") == fastPathExpected, "gap \(gap)")
        }
        // Tangent along a diagonal, where vertices do not coincide.
        let d = 2 * r / 2.0.squareRoot()
        #expect(try checkAgainstGEOS(
            [Point(x: 0, y: 0, spatialReference: planar), Point(x: d, y: d, spatialReference: planar)],
            [r], "tangent diagonal") == false)
        let near = d - 1e-3
        #expect(try checkAgainstGEOS(
            [Point(x: 0, y: 0, spatialReference: planar), Point(x: near, y: near, spatialReference: planar)],
            [r], "nearly tangent diagonal"))
    }

    @Test("Nested circles: concentric, inside, internally tangent")
    func nested() throws {
        let c = Point(x: 300, y: 300, spatialReference: planar)
        // Concentric, different radii.
        try checkAgainstGEOS([c, c, c], [10, 4, 9.999], "concentric")
        // Small circles strictly inside a big one, plus one crossing its edge.
        let inner = [
            Point(x: 302, y: 301, spatialReference: planar), Point(x: 295, y: 297, spatialReference: planar),
            Point(x: 309.5, y: 300.3, spatialReference: planar),
        ]
        let fastPath = try checkAgainstGEOS([c] + inner, [20, 3, 2, 4], "inside")
        #expect(fastPath)
        // Internally tangent: the small circle touches the big one at its vertex at angle 0.
        try checkAgainstGEOS([c, Point(x: 305, y: 300, spatialReference: planar)], [10, 5], "internally tangent")
    }

    @Test("Inputs the fast path does not take still follow GEOS's path")
    func otherInputs() throws {
        let line = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 0)], spatialReference: planar)
        let p = Point(x: 5, y: 1, spatialReference: planar)
        let result = try GeometryEngine.buffer(around: [line.geometry, p.geometry], distances: [2], shouldUnion: true)
        #expect(result.count == 1)
        let separate = try GeometryEngine.buffer(
            around: [line.geometry, p.geometry], distances: [2], shouldUnion: false)
        let reference = try GeometryEngine.area(of: try GeometryEngine.union(of: separate))
        #expect(abs(try GeometryEngine.area(of: result[0]) - reference) <= 1e-9 * reference)
        let square = try GeometryEngine.buffer(
            around: [p, Point(x: 6, y: 1, spatialReference: planar)], distances: [1], shouldUnion: true,
            parameters: BufferParameters(endCapStyle: .square))
        #expect(abs(try GeometryEngine.area(of: square[0]) - 6) < 1e-9)
        // Multipoints take the fast path too.
        let mp = Multipoint([Coordinate(x: 0, y: 0), Coordinate(x: 3, y: 0)], spatialReference: planar)
        try checkAgainstGEOS(
            [Point(x: 0, y: 0, spatialReference: planar), Point(x: 3, y: 0, spatialReference: planar)],
            [2], "pair")
        let viaMultipoint = try GeometryEngine.buffer(around: [mp], distances: [2], shouldUnion: true)[0]
        let viaPoints = try GeometryEngine.buffer(
            around: [Point(x: 0, y: 0, spatialReference: planar), Point(x: 3, y: 0, spatialReference: planar)],
            distances: [2], shouldUnion: true)[0]
        #expect(viaMultipoint == viaPoints)
    }

    @Test("Errors are the same as on GEOS's path")
    func errors() throws {
        let p = Point(x: 0, y: 0, spatialReference: planar)
        #expect(throws: EngineError.self) {
            try GeometryEngine.buffer(around: [p, p], distances: [1, 2, 3], shouldUnion: true)
        }
        // A non-positive distance gives an empty buffer on both paths (the union path falls back to GEOS's).
        #expect(try GeometryEngine.buffer(around: [p], distances: [-1], shouldUnion: true) == [Polygon(parts: [], spatialReference: planar)])
        let bad = Point(x: .nan, y: 0, spatialReference: planar)
        #expect(throws: EngineError.self) {
            try GeometryEngine.buffer(around: [bad], distances: [1], shouldUnion: true)
        }
    }

    /// `Point`s take a path of their own into the union (no `Geometry` made of each); the same points as
    /// `Geometry` values take the general one. Both give the same polygon bit for bit, and the same error for
    /// every bad input, in the same order of checks.
    @Test("Points and the same points as geometries: the same union and the same errors")
    func pointsAndGeometriesAlike() throws {
        func both(_ points: [Point], _ distances: [Double], unit: LinearUnit? = nil,
                  parameters: BufferParameters = .default) -> (Result<[Polygon], EngineError>, Result<[Polygon], EngineError>) {
            let fast = Result { () throws(EngineError) in
                try GeometryEngine.buffer(around: points, distances: distances, distanceUnit: unit, shouldUnion: true,
                                          parameters: parameters)
            }
            let general = Result { () throws(EngineError) in
                try GeometryEngine.buffer(around: points.map { $0.geometry }, distances: distances, distanceUnit: unit,
                                          shouldUnion: true, parameters: parameters)
            }
            return (fast, general)
        }
        var random = SplitMix64(seed: 41)
        let points = (0..<3_000).map { _ in Point(x: random.unit() * 4_000, y: random.unit() * 4_000, spatialReference: planar) }
        let radii = (0..<3_000).map { _ in 20 + 60 * random.unit() }
        let cases: [(String, [Point], [Double], LinearUnit?)] = [
            ("one distance", points, [45], nil),
            ("a distance each", points, radii, nil),
            ("in feet", points, [150], .feet),
            ("count mismatch", points, [1, 2], nil),
            ("another spatial reference", points + [Point(x: 0, y: 0, spatialReference: .wgs84)], [10], nil),
            ("a distance not finite", points, radii.enumerated().map { $0.offset == 7 ? .infinity : $0.element }, nil),
            ("a zero distance (GEOS)", Array(points.prefix(50)), radii.prefix(50).enumerated().map { $0.offset == 3 ? 0 : $0.element }, nil),
            ("a point not finite (GEOS)", Array(points.prefix(50)) + [Point(x: .nan, y: 1, spatialReference: planar)], [30], nil),
            ("geographic", [Point(x: 1, y: 2, spatialReference: .wgs84)], [10], nil),
            ("a unit without a spatial reference", [Point(x: 1, y: 2, spatialReference: .unspecified)], [10], .meters),
            ("no points", [], [10], nil),
        ]
        for (label, ps, ds, unit) in cases {
            let (fast, general) = both(ps, ds, unit: unit)
            switch (fast, general) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(label)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(label): \(a)")
            default:
                Issue.record("\(label): \(fast) against \(general)")
            }
        }
        let (fast, general) = both(points, [45], parameters: BufferParameters(segmentsPerQuarterCircle: 0))
        #expect((try? fast.get()) == nil && "\(fast)" == "\(general)")
    }
}
