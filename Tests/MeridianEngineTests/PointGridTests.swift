import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// The point grid a spatial index of points searches instead of its R-tree (`PointGrid`, `PointGrids`): its answers
/// against a brute force (GEOS's distance between every pair, no index) and against the tree (the candidates of the
/// same search box, measured), where a grid is most likely to go wrong — points exactly on cell edges (coordinates
/// and search distances that are powers of two, so a cell side equals the reach), extents of zero width or height,
/// queries far outside the points, huge coordinates and distances, and more search distances than grids kept.
@Suite("Proximity: the point grid")
struct PointGridTests {
    static func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y, spatialReference: .unspecified) }

    /// Indices of `items` within `d` of `q` by GEOS, ascending by distance then index.
    static func brute(_ items: [Point], _ q: Point, _ d: Double) throws -> [NearFeature] {
        var found: [NearFeature] = []
        for (i, p) in items.enumerated() {
            let s = try GeometryEngine.distance(from: q, to: p)
            if s <= d { found.append(NearFeature(index: i, distance: s)) }
        }
        return found.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }
    }

    /// The tree's answer for the same search: its candidates (the search box through the R-tree), measured.
    static func tree(_ index: SpatialIndex, _ items: [Point], _ q: Point, _ d: Double) throws -> [NearFeature] {
        try index.candidates(withinDistance: d, of: q).compactMap { i in
            let s = try GeometryEngine.distance(from: q, to: items[i])
            return s <= d ? NearFeature(index: i, distance: s) : nil
        }.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }
    }

    /// A lattice of spacing 64 (every point on a cell edge of the grids of side 32, 64, 128, …) searched from lattice
    /// points, cell corners, midpoints and far outside, at power-of-two distances (the reach equals the cell side:
    /// the points exactly at the distance lie on the edges of the cells the box covers) and others.
    @Test func latticePointsOnCellEdgesAreFoundAsByTheTreeAndTheBruteForce() throws {
        let items: [Point] = (0..<(24 * 24)).map { i in Self.point(Double(i % 24) * 64, Double(i / 24) * 64 - 512) }
        let index = try SpatialIndex(items)
        index.pointGrids?.searchesBeforeGrid = 0  // every search through a grid
        #expect(index.pointGrids != nil)
        let queries: [(Double, Double)] = [(0, -512), (64, 0), (640, 640), (672, 96), (1472, 960), (1471.5, 959.25),
                                           (-64, -576), (-5000, 300), (1e6, -1e6), (3.5, 1088)]
        let distances: [Double] = [0, 1, 32, 64, 100, 128, 181.01933598375618, 256, 1024, 5000]
        for d in distances {
            for (x, y) in queries {
                let q = Self.point(x, y)
                let ours = try index.query(withinDistance: d, of: q)
                #expect(ours == (try Self.brute(items, q, d)), "distance \(d) from (\(x), \(y))")
                #expect(ours == (try Self.tree(index, items, q, d)), "distance \(d) from (\(x), \(y))")
            }
        }
    }

    /// Degenerate and extreme sets: one point, many equal points, points on one horizontal or vertical line,
    /// coordinates near 10¹⁵ with unit offsets, and searches of distance 0, 10³⁰⁰ and the largest double from points
    /// far away (no trap converting a cell number, every answer right).
    @Test func degenerateExtentsAndExtremeValuesGiveTheBruteForce() throws {
        let big = 1e15
        let sets: [(String, [Point])] = [
            ("one point", [Self.point(3, 4)]),
            ("equal points", (0..<50).map { _ in Self.point(-7, 2) }),
            ("a horizontal line", (0..<200).map { Self.point(Double($0) * 0.5, 10) }),
            ("a vertical line", (0..<200).map { Self.point(-3, Double($0) * 3) }),
            ("huge coordinates", (0..<300).map { Self.point(big + Double($0 % 17), -big + Double($0 / 17)) }),
        ]
        for (name, items) in sets {
            let index = try SpatialIndex(items)
            index.pointGrids?.searchesBeforeGrid = 0
            let first = items[0], last = items[items.count - 1]
            let queries = [first, last, Self.point(first.x + 1, first.y - 1), Self.point(-1e300, 1e300),
                           Self.point(last.x + 0.5, last.y + 0.25)]
            let distances: [Double] = [0, 0.5, 1, 3, 16, 1e300, .greatestFiniteMagnitude]
            for d in distances {
                for q in queries {
                    #expect(try index.query(withinDistance: d, of: q) == (try Self.brute(items, q, d)),
                            "\(name): distance \(d) from \(q)")
                }
            }
        }
    }

    /// Per-feature distances over sixteen powers of two need more grids than are kept: the searches beyond them use
    /// the tree, and the near table is the brute force's either way.
    @Test func moreDistancesThanGridsKeptStillGiveTheBruteForce() throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let items = (0..<400).map { _ in Self.point((rng.unit() * 4000).rounded(), (rng.unit() * 4000).rounded()) }
        let lefts = (0..<160).map { _ in Self.point((rng.unit() * 4400 - 200).rounded(), (rng.unit() * 4400 - 200).rounded()) }
        let distances = lefts.indices.map { i in exp2(Double(i % 16 - 3)) * (i % 3 == 0 ? 1 : 1.5) }
        let index = try SpatialIndex(items)
        index.pointGrids?.searchesBeforeGrid = 0
        let ours = try GeometryEngine.nearPairs(from: lefts, to: index, distances: distances)
        var brute: [NearPair] = []
        for (i, l) in lefts.enumerated() {
            for (rank, f) in try Self.brute(items, l, distances[i]).enumerated() {
                brute.append(NearPair(leftIndex: i, rightIndex: f.index, distance: f.distance, rank: rank + 1))
            }
        }
        #expect(ours == brute, "seed \(seed)")
        #expect(index.pointGrids?.count == PointGrids.maximumGrids, "seed \(seed): grids kept")
    }

    /// A grid is made once 1/16 of the points' count of searches have asked for it (reported by each run in
    /// bundles of `searchReport`), not before: a few searches of a large index keep to the tree. The answers are the
    /// same before and after.
    @Test func aGridIsMadeOnlyAfterEnoughSearches() throws {
        let items = (0..<4096).map { i in Self.point(Double(i % 64) * 10, Double(i / 64) * 10) }
        let index = try SpatialIndex(items)
        let grids = try #require(index.pointGrids)
        #expect(grids.searchesBeforeGrid == 256)
        let queries = (0..<200).map { i in Self.point(Double(i % 20) * 31.5, Double(i / 20) * 63.25) }
        let reference = try GeometryEngine.nearPairs(from: queries, to: items, distances: [25])
        #expect(try GeometryEngine.nearPairs(from: queries, to: index, distances: [25]) == reference)
        #expect(grids.count == 0, "200 searches made a grid")
        #expect(try GeometryEngine.nearPairs(from: queries, to: index, distances: [25]) == reference)
        #expect(grids.count == 1, "400 searches made no grid")
        #expect(try GeometryEngine.nearPairs(from: queries, to: index, distances: [25]) == reference)
        #expect(grids.count == 1)
    }

    /// The geodesic index's grid of normals (three dimensions) from the first search: the near table of points
    /// clustered across ±180°, around both poles and at the equator (where the chord bound is tightest), with a point
    /// planted exactly at its distance for every other left, equals the brute force (Karney's inverse for every
    /// pair) and the tree's.
    @Test(arguments: [1, 2])
    func theGeodesicGridGivesTheBruteForceAcrossTheAntimeridianAndThePoles(round: Int) throws {
        let seed = round == 2 ? SplitMix64.testSeed : UInt64(round)
        var rng = SplitMix64(seed: seed)
        let (lefts, rights, distances, _) = ProximityGeodesicTests.plantedSets(left: 300, right: 600, &rng)
        let gridded = try GeodeticSpatialIndex(rights)
        let grids = try #require(gridded.pointGrids)
        grids.searchesBeforeGrid = 0
        let ours = try GeometryEngine.geodeticNearPairs(from: lefts, to: gridded, distances: distances)
        #expect(grids.count > 0, "seed \(seed): no grid made")
        let brute = ProximityGeodesicTests.bruteNearTable(lefts, rights, distances)
        #expect(ProximityGeodesicTests.sameTable(ours, brute),
                "seed \(seed): \(ProximityGeodesicTests.firstDifference(ours, brute))")
        let tree = try GeodeticSpatialIndex(rights)
        tree.pointGrids?.searchesBeforeGrid = .max
        #expect(try GeometryEngine.geodeticNearPairs(from: lefts, to: tree, distances: distances) == ours)
        #expect(tree.pointGrids?.count == 0)
    }

    /// Nearest searches through the grid (made from the first search) against GEOS's brute force, where ties are
    /// everywhere (an integer lattice, queries on it, between its points and far outside it), with and without a
    /// largest distance, for k beyond the number of points, and on degenerate sets (equal points, a line).
    @Test(arguments: [1, 3, 8])
    func gridNearestEqualsTheBruteForce(k: Int) throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let lattice = (0..<400).map { i in Self.point(Double(i % 20) * 100, Double(i / 20) * 100) }.shuffled(using: &rng)
        var queries = (0..<80).map { _ in
            Self.point((rng.unit() * 2400 - 200).rounded() / 2 * 2, (rng.unit() * 2400 - 200).rounded())
        }
        queries += [Self.point(950, 950), Self.point(-1e6, 3), Self.point(5e5, 5e5), Self.point(1900, -0.5)]
        let sets: [(String, [Point])] = [
            ("lattice", lattice), ("equal points", (0..<6).map { _ in Self.point(40, 40) }),
            ("a line", (0..<30).map { Self.point(Double($0) * 7, 500) }), ("one point", [Self.point(3, 4)]),
        ]
        for (name, items) in sets {
            let index = try SpatialIndex(items)
            index.pointGrids?.searchesBeforeGrid = 0
            for limit in [nil, 120.0] {
                let ours = try GeometryEngine.nearest(from: queries, to: index, count: k, maxDistance: limit)
                let brute = try ProximityPlanarTests.bruteNearest(queries.map(\.geometry), items.map(\.geometry), k: k,
                                                                  maxDistance: limit ?? .infinity)
                let difference = ProximityPlanarTests.firstDifference(ours, brute)
                #expect(ours == brute, "seed \(seed), \(name), k \(k), max \(String(describing: limit)): \(difference)")
            }
            #expect(index.pointGrids?.count == 1, "\(name): no grid made")
        }
    }

    /// Only an index of points alone has grids; one with a line keeps to the tree (and gives the same answers).
    @Test func anIndexWithALineHasNoGrid() throws {
        let line = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 100, y: 0)], spatialReference: .unspecified)
        let items: [Geometry] = [Self.point(5, 5).geometry, line.geometry, Self.point(50, 30).geometry]
        let index = try SpatialIndex(items)
        #expect(index.pointGrids == nil)
        #expect(try index.query(withinDistance: 10, of: Self.point(50, 8)).map(\.index) == [1])
        #expect(try SpatialIndex([Point]()).pointGrids == nil)
    }

    /// The squared reach a grid search leaves points out by without their square root never leaves out a point
    /// whose rounded √(Δx² + Δy²) is within the distance: squared distances a few units in the last place around
    /// distance², for random distances over thirty orders of magnitude and at the edges of the range (where there is
    /// no shortcut).
    @Test func theSquaredReachLeavesOutOnlyPointsBeyondTheDistance() {
        var rng = SplitMix64(seed: 41)
        var distances: [Double] = [0, 0x1p-600, 1e-150, 1e150, 0x1p600, .greatestFiniteMagnitude, 1, 6561.666666666667]
        for _ in 0..<20_000 { distances.append(exp2(Double.random(in: -50...50, using: &rng))) }
        var decidedWithout = 0
        for distance in distances {
            let reach = SpatialIndex.squaredReach(distance)
            var squared = distance * distance
            for _ in 0..<6 { squared = squared.nextDown }
            for _ in 0..<13 {
                if squared >= 0, squared > reach {
                    decidedWithout += 1
                    #expect(squared.squareRoot() > distance, "distance \(distance): \(squared) left out")
                }
                if squared >= 0, squared.squareRoot() <= distance { #expect(squared <= reach) }
                squared = squared.nextUp
            }
            // Far beyond: left out.
            if reach.isFinite { #expect(reach * 1.01 > reach && (reach * 1.01).squareRoot() > distance) }
        }
        #expect(SpatialIndex.squaredReach(0x1p-600) == .infinity)
        #expect(SpatialIndex.squaredReach(0x1p600) == .infinity)
        #expect(decidedWithout == 0, "\(decidedWithout) squared distances within a few ulps of distance² left out")
    }
}
