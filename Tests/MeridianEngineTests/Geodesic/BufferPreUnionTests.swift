import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Polygons at one positive distance are merged before a geodesic buffer union (`BufferPreUnion`)
/// where that is exact. The merged path is compared with the one-by-one path and with the true distance to the
/// union's boundary (fresh `geod_inverse` calls, PROJ), and the merge is refused where it would not be exact.
@Suite struct BufferPreUnionTests {
    /// Travis county and its neighbours Burnet, Bastrop, Williamson and Hays (Census 2016, `Tests/Fixtures/basemap`;
    /// neighbours share their boundary vertices), in the file's order.
    static func counties() throws -> [Polygon] {
        let text = try ReferenceData.text("basemap/texas_counties_census2016/cb_2016_tx_county_500k.geojson")
        let names: Set<JSONValue> = ["Travis", "Burnet", "Bastrop", "Williamson", "Hays"]
        let polygons = try GeoJSON.decodeFeatures(Data(text.utf8)).compactMap { f -> Polygon? in
            guard let name = f.properties["NAME"], names.contains(name), case .polygon(let p)? = f.geometry else { return nil }
            return p
        }
        try #require(polygons.count == 5)
        return polygons
    }

    /// The input edges on the union's boundary: those in exactly one input ring (a shared boundary appears in
    /// both neighbours, in opposite directions). Found by counting, independently of the engine's `EdgeChain`.
    static func boundaryEdges(_ polygons: [Polygon]) -> [(Coordinate, Coordinate)] {
        struct Key: Hashable { var ax, ay, bx, by: Double }
        var count: [Key: Int] = [:]
        var edges: [(Coordinate, Coordinate)] = []
        for p in polygons {
            for ring in p.rings {
                for (a, b) in zip(ring, ring.dropFirst()) where a != b {
                    let k = (a.x, a.y) < (b.x, b.y) ? Key(ax: a.x, ay: a.y, bx: b.x, by: b.y)
                        : Key(ax: b.x, ay: b.y, bx: a.x, by: a.y)
                    count[k, default: 0] += 1
                    edges.append((a, b))
                }
            }
        }
        return edges.filter { a, b in
            let k = (a.x, a.y) < (b.x, b.y) ? Key(ax: a.x, ay: a.y, bx: b.x, by: b.y)
                : Key(ax: b.x, ay: b.y, bx: a.x, by: a.y)
            return count[k] == 1
        }
    }

    /// The planar distance in degrees (longitude scaled by cos 30°) from `p` to the segment a–b: a screen only.
    static func screen(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
        let k = cos(30 * Double.pi / 180)
        let ax = (a.x - p.x) * k, ay = a.y - p.y, bx = (b.x - p.x) * k, by = b.y - p.y
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
        let x = ax + t * dx, y = ay + t * dy
        return (x * x + y * y).squareRoot()
    }

    /// The segments that can hold the nearest point to `p`: within 10 % + 0.01° of the nearest by the screen (the
    /// scale of a degree varies by far less than 10 % over these few degrees).
    static func candidates(_ p: Coordinate, _ edges: [(Coordinate, Coordinate)]) -> [(Coordinate, Coordinate)] {
        let screened = edges.map { screen(p, $0.0, $0.1) }
        let nearest = screened.min() ?? 0
        return zip(edges, screened).filter { $0.1 <= nearest * 1.1 + 0.01 }.map(\.0)
    }

    /// The geodesic distance in meters from `p` to the segment a–b drawn straight in longitude/latitude (as the
    /// output's edges are): golden-section search on the parameter after a scan of 16 points.
    static func distance(from p: Coordinate, toStraight a: Coordinate, _ b: Coordinate) -> Double {
        let g = BufferChecks.wgs84
        let f: (Double) -> Double = { t in g.distance(p, Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))) }
        var bestK = 0, best = Double.infinity
        for k in 0...16 where f(Double(k) / 16) < best { best = f(Double(k) / 16); bestK = k }
        var lo = Double(max(0, bestK - 1)) / 16, hi = Double(min(16, bestK + 1)) / 16
        let r = (5.0.squareRoot() - 1) / 2
        var x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo), f1 = f(x1), f2 = f(x2)
        while hi - lo > 1e-9 {
            if f1 < f2 { hi = x2; x2 = x1; f2 = f1; x1 = hi - r * (hi - lo); f1 = f(x1) } else {
                lo = x1; x1 = x2; f1 = f2; x2 = lo + r * (hi - lo); f2 = f(x2)
            }
        }
        return min(best, f1, f2)
    }

    static func edges(of polygon: Polygon) -> [(Coordinate, Coordinate)] {
        polygon.rings.flatMap { ring in zip(ring, ring.dropFirst()).map { ($0, $1) } }
    }

    /// The five counties buffered by 10 km and unioned, merged first and one by one. The merged result must keep
    /// the contract against the true union (every vertex 10 km ± 1 mm from the union's boundary edges, edges within
    /// maxDeviation, 20 m), and the two results must agree as two approximations of one true buffer can: each
    /// polygon's boundary lies in the band of ± maxDeviation around the true boundary, so every vertex of one (on
    /// the true boundary within 1 mm) is within maxDeviation + 1 mm of the other's boundary (the other's boundary
    /// crosses the geodesic normal through the vertex within that band), and the areas differ by at most the
    /// band's area, 2 × maxDeviation × perimeter. A missing or extra county moves the boundary by kilometres.
    @Test func mergedCountiesMatchTheOneByOneUnion() throws {
        let polygons = try Self.counties()
        let d = 10_000.0, maxDeviation = 20.0
        let merged = try GeometryEngine.geodeticBuffer(
            around: polygons.map(\.geometry), distances: [d], distanceUnit: .meters, maxDeviation: nil,
            shouldUnion: true, outputSpatialReference: nil, mergingPolygons: true)[0]
        let oneByOne = try GeometryEngine.geodeticBuffer(
            around: polygons.map(\.geometry), distances: [d], distanceUnit: .meters, maxDeviation: nil,
            shouldUnion: true, outputSpatialReference: nil, mergingPolygons: false)[0]

        let boundary = Self.boundaryEdges(polygons)
        var stats = BufferStats()
        try BufferChecks.check(merged, required: d, maxDeviation: maxDeviation, label: "merged counties",
                               stats: &stats, samplesPerEdge: 3) { q in
            Self.candidates(q, boundary).map { BufferChecks.distance(from: q, toSegment: $0.0, $0.1) }.min()!
        }

        var worst = 0.0
        for (a, b) in [(merged, oneByOne), (oneByOne, merged)] {
            let other = Self.edges(of: b)
            for ring in a.rings {
                for v in ring.dropLast() {
                    let e = Self.candidates(v, other).map { Self.distance(from: v, toStraight: $0.0, $0.1) }.min()!
                    worst = max(worst, e)
                    #expect(e <= maxDeviation + 1e-3, "vertex (\(v.x), \(v.y)) is \(e) m from the other union's boundary")
                }
            }
        }
        let areas = try [merged, oneByOne].map { try GeometryEngine.geodeticArea(of: $0) }
        let perimeter = try GeometryEngine.geodeticLength(of: merged)
        #expect(abs(areas[0] - areas[1]) <= 2 * maxDeviation * perimeter, "areas \(areas[0]) and \(areas[1]) m²")
        print("MERGED COUNTIES: \(stats); \(merged.vertexCount) vertices merged, \(oneByOne.vertexCount) one by one,"
              + " farthest vertex from the other's boundary \(worst) m, area difference \(abs(areas[0] - areas[1])) m²"
              + " (bound \(2 * maxDeviation * perimeter) m²)")
    }

    /// The merge itself: the five counties become one polygon whose planar area is the sum of theirs, in
    /// longitude/latitude and in EPSG:32038 alike; other geometries, other distances and maxDeviations stay apart.
    @Test func mergesACoverageOfPolygonsAtOneDistance() throws {
        let polygons = try Self.counties()
        let context = try GEOSContext()
        let line = Geometry.polyline(Polyline([Coordinate(x: -97, y: 30), Coordinate(x: -96, y: 31)],
                                              spatialReference: .wgs84))
        let inputs = polygons.map(\.geometry) + [line]
        let merged = try BufferPreUnion(inputs, distances: [1e4, 1e4, 1e4, 1e4, 1e4, 1e4],
                                          tolerances: [20, 20, 20, 20, 20, 20], context: context)
        try #require(merged.geometries.count == 2)
        #expect(merged.geometries[1] == line)
        guard case .polygon(let union) = merged.geometries[0] else { Issue.record("not a polygon"); return }
        let sum = polygons.reduce(0) { $0 + $1.parts.reduce(0) { $0 + abs(Polygon.signedArea($1.shell)) } }
        let area = union.parts.reduce(0) { $0 + abs(Polygon.signedArea($1.shell)) }
            - union.parts.reduce(0) { $0 + $1.holes.reduce(0) { $0 + abs(Polygon.signedArea($1)) } }
        #expect(abs(area - sum) <= 1e-12 * sum, "\(area) against \(sum)")
        #expect(union.vertexCount < polygons.reduce(0) { $0 + $1.vertexCount })

        // Another distance or maxDeviation for one county: it stays apart, the other four merge.
        let apart = try BufferPreUnion(polygons.map(\.geometry), distances: [1e4, 1e4, 2e4, 1e4, 1e4],
                                         tolerances: [20, 20, 20, 20, 20], context: context)
        #expect(apart.geometries.count == 2 && apart.distances.sorted() == [1e4, 2e4])
        let tolerances = try BufferPreUnion(polygons.map(\.geometry), distances: [1e4, 1e4, 1e4, 1e4, 1e4],
                                              tolerances: [20, 20, 20, 20, 5], context: context)
        #expect(tolerances.geometries.count == 2)

        let sr = try SpatialReference(code: "EPSG:32038")
        let projected = try GeometryEngine.project(polygons, into: sr)
        let mergedProjected = try BufferPreUnion(projected, distances: [1e4, 1e4, 1e4, 1e4, 1e4],
                                                   tolerances: [20, 20, 20, 20, 20], context: context)
        #expect(mergedProjected.geometries.count == 1)
    }

    static func square(_ x: Double, _ y: Double, _ side: Double = 1, extra: [Coordinate] = []) -> Geometry {
        .polygon(Polygon(shell: [Coordinate(x: x, y: y), Coordinate(x: x + side, y: y)] + extra
            + [Coordinate(x: x + side, y: y + side), Coordinate(x: x, y: y + side), Coordinate(x: x, y: y)],
                         spatialReference: .wgs84))
    }

    static func mergedCount(_ gs: [Geometry], distances: [Double] = [1e4]) throws -> Int {
        let ds = distances.count == 1 ? Array(repeating: distances[0], count: gs.count) : distances
        return try BufferPreUnion(gs, distances: ds, tolerances: Array(repeating: 20, count: gs.count),
                                    context: try GEOSContext()).geometries.count
    }

    /// Merged: neighbours sharing a side; a ring of eight squares (the hole stays a hole). Not merged: overlapping
    /// squares, a neighbour denting into a square, neighbours whose shared side one of them splits with an extra vertex (GEOS would join them, but
    /// the union's edges would not be input edges), negative distances, lines, polygons on ±180°, and a group with
    /// an invalid polygon (which the one-by-one path then refuses with the usual error).
    @Test func mergesOnlyWhereExact() throws {
        #expect(try Self.mergedCount([Self.square(10, 40), Self.square(11, 40)]) == 1)
        let ring = (0..<3).flatMap { i in (0..<3).map { j in (i, j) } }.filter { $0 != (1, 1) }
            .map { Self.square(10 + Double($0.0), 40 + Double($0.1)) }
        #expect(try Self.mergedCount(ring) == 1)
        let context = try GEOSContext()
        if case .polygon(let p) = try BufferPreUnion(ring, distances: Array(repeating: 1e4, count: 8),
                                                        tolerances: Array(repeating: 20, count: 8),
                                                        context: context).geometries[0]
        {
            #expect(p.parts.count == 1 && p.parts[0].holes.count == 1)
        } else {
            Issue.record("a ring of squares is not one polygon")
        }
        #expect(try Self.mergedCount([Self.square(10, 40), Self.square(10.5, 40.5)]) == 2)
        // A neighbour denting 1e-7° into the square: GEOS 3.11's coverage union returns a valid polygon, the square
        // without the sliver (its area check allows 1e-6 of the area), and only the edge check refuses it.
        let dent = Geometry.polygon(Polygon(shell: [Coordinate(x: 11, y: 40), Coordinate(x: 12, y: 40),
                                                    Coordinate(x: 12, y: 41), Coordinate(x: 11, y: 41),
                                                    Coordinate(x: 11 - 1e-7, y: 40.5), Coordinate(x: 11, y: 40)],
                                            spatialReference: .wgs84))
        #expect(try Self.mergedCount([Self.square(10, 40), dent]) == 2)
        #expect(try Self.mergedCount([Self.square(10, 40), Self.square(9, 40, extra: [Coordinate(x: 10, y: 40.5)])]) == 2)
        #expect(try Self.mergedCount([Self.square(10, 40), Self.square(11, 40)], distances: [-1e4]) == 2)
        #expect(try Self.mergedCount([Self.square(10, 40), Self.square(11, 40)], distances: [1e4, 2e4]) == 2)
        #expect(try Self.mergedCount([Self.square(179, 40), Self.square(178, 40)]) == 2)
        let line = Geometry.polyline(Polyline([Coordinate(x: 10, y: 40), Coordinate(x: 11, y: 40)], spatialReference: .wgs84))
        #expect(try Self.mergedCount([line, line]) == 2)
        let bowtie = Geometry.polygon(Polygon(shell: [Coordinate(x: 11, y: 40), Coordinate(x: 12, y: 41),
                                                      Coordinate(x: 12, y: 40), Coordinate(x: 11, y: 41),
                                                      Coordinate(x: 11, y: 40)], spatialReference: .wgs84))
        #expect(try Self.mergedCount([Self.square(10, 40), bowtie]) == 2)
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodeticBuffer(around: [Self.square(10, 40), bowtie], distances: [1e4], shouldUnion: true)
        }
    }
}

/// The planar buffer union merges polygons too (`BufferPreUnion` in `GeometryEngine.buffer`).
@Suite struct PlanarBufferPreUnionTests {
    /// The five counties in EPSG:32038 (US survey feet) buffered by 10 km = 32,808.33 ft and unioned, merged
    /// (the engine's path) and one by one (each county's buffer, then GEOS's union). GEOS's round buffer lies in a
    /// band around the true buffer's boundary: its chords fall inside by at most r·(1 − cos(π/(4q))) (q = 16:
    /// 39.5 ft here), and it first simplifies the input by 1 % of the distance (GEOS's default simplify factor:
    /// 328 ft here). So every vertex of one result is within the band's width (plus 1e-6 ft of rounding) of the
    /// other's boundary, and the areas differ by at most width × perimeter; a missing county moves the boundary
    /// by miles. With mitred joins (where the identity fails: a corner the union fills would stick out) nothing
    /// is merged: the result is the one-by-one union's (areas within 1e-9, the two unions' own rounding).
    @Test func mergedCountiesMatchTheOneByOneUnion() throws {
        let sr = try SpatialReference(code: "EPSG:32038")
        let counties = try GeometryEngine.project(try BufferPreUnionTests.counties(), into: sr)
        let d = 10_000 / 0.3048006096
        let merged = try GeometryEngine.buffer(around: counties, distances: [d], shouldUnion: true)[0]
        let pieces = try GeometryEngine.buffer(around: counties, distances: [d], shouldUnion: false)
        guard case .polygon(let oneByOne) = try GeometryEngine.union(of: pieces) else {
            Issue.record("the union of the buffers is not a polygon")
            return
        }
        let width = d * (BufferParameters.default.relativeChordError + 0.01)
        var worst = 0.0
        for (a, b) in [(merged, oneByOne), (oneByOne, merged)] {
            let boundary = Geometry.polyline(Polyline(parts: b.rings, spatialReference: sr))
            for ring in a.rings {
                for v in ring.dropLast() {
                    let e = try GeometryEngine.distance(from: Point(v, spatialReference: sr), to: boundary)
                    worst = max(worst, e)
                    #expect(e <= width + 1e-6, "vertex (\(v.x), \(v.y)) is \(e) ft from the other union's boundary")
                }
            }
        }
        let areas = try [merged, oneByOne].map { try GeometryEngine.area(of: $0) }
        let perimeter = merged.rings.reduce(0.0) { sum, ring in
            sum + zip(ring, ring.dropFirst()).reduce(0.0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
        }
        #expect(abs(areas[0] - areas[1]) <= width * perimeter, "areas \(areas[0]) and \(areas[1]) ft²")
        print("PLANAR MERGED COUNTIES: \(merged.vertexCount) vertices merged, \(oneByOne.vertexCount) one by one,"
              + " farthest vertex from the other's boundary \(worst) ft (band \(width) ft), area difference"
              + " \(abs(areas[0] - areas[1])) ft²")

        let mitre = BufferParameters(joinStyle: .mitre)
        let mitred = try GeometryEngine.buffer(around: counties, distances: [d], shouldUnion: true, parameters: mitre)[0]
        let mitredPieces = try GeometryEngine.buffer(around: counties, distances: [d], shouldUnion: false,
                                                     parameters: mitre)
        let mitredUnion = try GeometryEngine.union(of: mitredPieces)
        let mitredAreas = try [GeometryEngine.area(of: mitred), GeometryEngine.area(of: mitredUnion)]
        #expect(abs(mitredAreas[0] - mitredAreas[1]) <= 1e-9 * mitredAreas[1], "mitred areas \(mitredAreas)")
    }
}
