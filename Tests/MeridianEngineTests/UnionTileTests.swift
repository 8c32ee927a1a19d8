import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore
@testable import MeridianEngine

/// A union of point buffers computed cell by cell (`GeometryEngine.unionTileShare`, meridian-dask's cells) gives back the whole
/// union's boundary exactly: every chain ends where exactly one chain of some cell starts (bit for bit), and the
/// rings rebuilt from the chains, with the rings the cells own whole, are the whole union's rings: the same vertices,
/// the same count, the same total signed area.
@Suite struct UnionTileTests {
    /// A projected spatial reference in meters that needs no PROJ lookup.
    static let planar = SpatialReference.webMercator

    /// The cells of a regular grid of `side` over [0, 3·side)², the outer ones reaching to infinity.
    static func grid(_ side: Double) -> [UnionTile] {
        let lines = [-Double.infinity, side, 2 * side, Double.infinity]
        var cells: [UnionTile] = []
        for i in 0..<3 { for j in 0..<3 {
            cells.append(UnionTile(minX: lines[i], minY: lines[j], maxX: lines[i + 1], maxY: lines[j + 1]))
        } }
        return cells
    }

    /// Every cell's share, each cell given the circles whose box meets it grown by the margin.
    static func shares(x: [Double], y: [Double], r: [Double], cells: [UnionTile]) throws -> [UnionTileShare] {
        let margin = GeometryEngine.unionTileMarginPerRadius() * (r.max() ?? 0)
        return try cells.map { cell in
            let members = x.indices.filter { i in
                x[i] + r[i] >= cell.minX - margin && x[i] - r[i] <= cell.maxX + margin
                    && y[i] + r[i] >= cell.minY - margin && y[i] - r[i] <= cell.maxY + margin
            }
            return try GeometryEngine.unionTileShare(
                x: members.map { x[$0] }, y: members.map { y[$0] }, radius: members.map { r[$0] },
                queried: Array(members.indices), tile: cell, in: planar)
        }
    }

    /// The rings the shares make: the rings of final parts and the holes owned whole, and the chains joined end to
    /// start. Records an issue for an end that starts no chain, or two chains starting at one vertex.
    static func rings(_ shares: [UnionTileShare]) -> [[Coordinate]] {
        var rings = shares.flatMap { $0.parts.flatMap(\.rings) + $0.holes }
        let chains = shares.flatMap(\.chains)
        var start: [XY: Int] = [:]
        for (k, c) in chains.enumerated() {
            #expect(start.updateValue(k, forKey: XY(c[0])) == nil, "two chains start at \(c[0])")
        }
        var used = [Bool](repeating: false, count: chains.count)
        for first in chains.indices where !used[first] {
            var ring: [Coordinate] = [], k = first
            while !used[k] {
                used[k] = true
                ring += chains[k].dropLast()
                guard let next = start[XY(chains[k].last!)] else {
                    Issue.record("a chain ends at \(chains[k].last!) where none starts")
                    return rings
                }
                k = next
            }
            #expect(k == first, "chains join into a figure eight")
            rings.append(ring + [ring[0]])
        }
        return rings
    }

    /// The vertices of rings (each ring's closing vertex left out), sorted.
    static func vertices(_ rings: [[Coordinate]]) -> [XY] {
        rings.flatMap { $0.dropLast().map(XY.init) }.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }

    /// Checks the cells' rings against the whole union of the same circles.
    static func check(x: [Double], y: [Double], r: [Double], side: Double, _ label: String) throws {
        let whole = try GeometryEngine.unionOfPointBuffers(
            around: zip(x, y).map { Point(x: $0, y: $1, spatialReference: planar) }, distances: r)
        let shares = try Self.shares(x: x, y: y, r: r, cells: grid(side))
        let got = rings(shares), expected = whole.polygon.parts.flatMap(\.rings)
        #expect(got.count == expected.count, "\(label): \(got.count) rings, whole union \(expected.count)")
        #expect(vertices(got) == vertices(expected), "\(label): the vertices differ from the whole union's")
        let area = got.reduce(0) { $0 + Polygon.signedArea(Polygon.closed($1)) }
        let reference = expected.reduce(0) { $0 + Polygon.signedArea(Polygon.closed($1)) }
        #expect(abs(area - reference) <= 1e-9 * abs(reference), "\(label): area \(area) vs \(reference)")
        #expect(shares.contains { !$0.chains.isEmpty }, "\(label): no ring crosses a cell edge")
        // Every queried circle's centre lies in a local part of its cell.
        for share in shares { #expect(share.circleParts.allSatisfy { $0 >= 0 }) }
    }

    @Test func randomClustersAcrossEdgesAndCorners() throws {
        var rng = SplitMix64(seed: 28)
        var x: [Double] = [], y: [Double] = [], r: [Double] = []
        for (cx, cy) in [(1000.0, 1000.0), (1000.0, 500.0), (500.0, 1000.0), (2000.0, 2000.0), (1500.0, 2000.0)] {
            for _ in 0..<150 {
                x.append(cx + 300 * (Double.random(in: 0..<1, using: &rng) - 0.5) * 2)
                y.append(cy + 300 * (Double.random(in: 0..<1, using: &rng) - 0.5) * 2)
                r.append(20 + 40 * Double.random(in: 0..<1, using: &rng))
            }
        }
        try Self.check(x: x, y: y, r: r, side: 1000, "clusters")
    }

    @Test func oneClusterOverEveryCell() throws {
        var rng = SplitMix64(seed: 7)
        var x: [Double] = [], y: [Double] = []
        for i in 0..<30 { for j in 0..<30 {
            x.append(Double(i) * 100 + 8 * (Double.random(in: 0..<1, using: &rng) - 0.5))
            y.append(Double(j) * 100 + 8 * (Double.random(in: 0..<1, using: &rng) - 0.5))
        } }
        try Self.check(x: x, y: y, r: Array(repeating: 62, count: x.count), side: 1000, "grid")
    }

    @Test func circlesTouchingExactlyOnAnEdge() throws {
        // 2r apart across x = 1000 and y = 1000: the configuration the circle union leaves to GEOS in every cell.
        let x = [950.0, 1050.0, 400.0, 400.0], y = [500.0, 500.0, 950.0, 1050.0]
        let shares = try Self.shares(x: x, y: y, r: Array(repeating: 50, count: 4), cells: Self.grid(1000))
        #expect(shares.contains { $0.geosFallbackReason != nil })
        try Self.check(x: x, y: y, r: Array(repeating: 50, count: 4), side: 1000, "touching")
    }

    @Test func aClusterGEOSUnionsInOneCellOnly() throws {
        // Rows of overlapping circles across x = 1000, joined by a spine far inside the left cell where a circle
        // touches it: the left cell's GEOS union computes the crossings at the edge its own way, the right cell's
        // circle union computes them from the same edges; the chains' ends must still match (`canonicalVertex`).
        var x: [Double] = [], y: [Double] = []
        for row in stride(from: 120.0, through: 880, by: 47) {  // rows across the edge, at many heights
            for column in stride(from: 300.0 + row.truncatingRemainder(dividingBy: 13), through: 1400, by: 61) {
                x.append(column)
                y.append(row)
            }
        }
        for row in stride(from: 120.0, through: 880, by: 23.5) {  // a spine joining the rows into one cluster
            x.append(250)
            y.append(row)
        }
        x.append(150)  // touching the spine's circle at (250, 120 + 23.5 · 8): 2r apart
        y.append(120 + 23.5 * 8)
        let r = Array(repeating: 50.0, count: x.count)
        let shares = try Self.shares(x: x, y: y, r: r, cells: Self.grid(1000))
        #expect(shares[0].geosFallbackReason != nil && shares[3].geosFallbackReason == nil)
        try Self.check(x: x, y: y, r: r, side: 1000, "one cell's GEOS")
    }

    @Test func crossingsNudgedOffTheirPlaceAreComputedAgain() throws {
        // What a GEOS union might give: crossing points a few units in the last place off CircleUnion's. Circle
        // vertices stay as they are; crossings of two circles' edges become `cross`'s point again. (GEOS 3.11 gives
        // the very same crossings in the configurations above, so this is where the recomputation is seen.)
        var rng = SplitMix64(seed: 3)
        let n = 60
        let x = (0..<n).map { _ in Double.random(in: 0..<400, using: &rng) }
        let y = (0..<n).map { _ in Double.random(in: 0..<400, using: &rng) }
        let r = Array(repeating: 40.0, count: n)
        let problem = CircleUnion(circle: UnitCircle(segmentsPerQuarterCircle: 16), x: x, y: y, radius: r)
        let grid = CircleGrid(x: problem.cx, y: problem.cy, radius: problem.r)
        let circleVertices = Set(problem.cx.indices.flatMap { i in (0..<64).map { XY(Coordinate(x: problem.vertex(i, $0).0, y: problem.vertex(i, $0).1)) } })
        var crossings = 0
        for ring in try problem.run().flatMap(\.rings) {
            for v in ring.dropLast() {
                if circleVertices.contains(XY(v)) {
                    #expect(problem.canonicalVertex(v, grid: grid) == v)
                    continue
                }
                crossings += 1
                let nudged = Coordinate(x: v.x.nextUp.nextUp, y: v.y.nextDown)
                #expect(problem.canonicalVertex(nudged, grid: grid) == v)
            }
        }
        #expect(crossings > 50)
    }
}
