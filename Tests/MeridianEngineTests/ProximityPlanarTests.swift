import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// Planar proximity (`SpatialIndex`, `GeometryEngine.nearPairs`, `GeometryEngine.nearest`) against a brute force
/// computed here: every pair measured with `GeometryEngine.distance(from:to:)` (GEOS, no index), the near table and
/// the nearest lists built from that by sorting. Seeded random sets (the seed is in every failure message;
/// MERIDIAN_TEST_SEED reproduces one) with points exactly at the search distance (integer 3-4-5 offsets, so the
/// distance is exact and the inclusive boundary is tested), clusters, ties and per-feature distances.
@Suite("Proximity: planar near tables and the spatial index")
struct ProximityPlanarTests {
    static let texas = try! SpatialReference(wkid: 32038)  // NAD27 / Texas North Central, US survey feet

    static func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y, spatialReference: texas) }

    /// Random integer points: half uniform over a 20 000 ft square, half in a few tight clusters.
    static func points(_ n: Int, _ rng: inout SplitMix64) -> [Point] {
        let centers = (0..<4).map { _ in (Double.random(in: 2000...18_000, using: &rng).rounded(),
                                          Double.random(in: 2000...18_000, using: &rng).rounded()) }
        return (0..<n).map { i in
            if i % 2 == 0 {
                return point(Double.random(in: 0...20_000, using: &rng).rounded(),
                             Double.random(in: 0...20_000, using: &rng).rounded())
            }
            let c = centers[i % 4]
            return point(c.0 + Double.random(in: -300...300, using: &rng).rounded(),
                         c.1 + Double.random(in: -300...300, using: &rng).rounded())
        }
    }

    /// The near table by brute force: every pair measured by GEOS, kept when ≤ the left's distance, sorted by
    /// left, distance, right and ranked.
    static func bruteNearTable(_ lefts: [Geometry], _ rights: [Geometry], _ distances: [Double]) throws -> [NearPair] {
        var rows: [NearPair] = []
        for (i, l) in lefts.enumerated() {
            var found: [(Int, Double)] = []
            for (j, r) in rights.enumerated() {
                let d = try GeometryEngine.distance(from: l, to: r)
                if d <= distances[distances.count == 1 ? 0 : i] { found.append((j, d)) }
            }
            found.sort { ($0.1, $0.0) < ($1.1, $1.0) }
            for (rank, f) in found.enumerated() {
                rows.append(NearPair(leftIndex: i, rightIndex: f.0, distance: f.1, rank: rank + 1))
            }
        }
        return rows
    }

    /// The k nearest by brute force (ties by index), within `maxDistance`.
    static func bruteNearest(_ lefts: [Geometry], _ rights: [Geometry], k: Int, maxDistance: Double) throws
        -> [NearPair]
    {
        var rows: [NearPair] = []
        for (i, l) in lefts.enumerated() {
            var all: [(Int, Double)] = []
            for (j, r) in rights.enumerated() { all.append((j, try GeometryEngine.distance(from: l, to: r))) }
            let kept = all.filter { $0.1 <= maxDistance }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(k)
            for (rank, f) in kept.enumerated() {
                rows.append(NearPair(leftIndex: i, rightIndex: f.0, distance: f.1, rank: rank + 1))
            }
        }
        return rows
    }

    /// The first difference between two tables, for a readable failure.
    static func firstDifference(_ a: [NearPair], _ b: [NearPair]) -> String {
        for (x, y) in zip(a, b) where x != y { return "\(x) vs brute force \(y)" }
        return "\(a.count) rows vs brute force \(b.count)"
    }

    @Test(arguments: [1, 2, 3])
    func nearPairsOfPointsEqualTheBruteForceIncludingPointsExactlyAtTheDistance(round: Int) throws {
        let seed = round == 3 ? SplitMix64.testSeed : UInt64(round)
        var rng = SplitMix64(seed: seed)
        let lefts = Self.points(120, &rng)
        var rights = Self.points(300, &rng)
        // Per-feature distances, multiples of 5 ft; every third left gets a right exactly at its distance
        // (offset 3k, 4k for distance 5k: exact in binary), in a random one of the eight directions.
        let distances = lefts.indices.map { _ in 5 * Double(Int.random(in: 0...300, using: &rng)) }
        var planted = 0
        for (i, l) in lefts.enumerated() where i % 3 == 0 {
            let k = distances[i] / 5
            let (sx, sy) = (Bool.random(using: &rng) ? 1.0 : -1.0, Bool.random(using: &rng) ? 1.0 : -1.0)
            let swap = Bool.random(using: &rng)
            let (dx, dy) = swap ? (4 * k * sx, 3 * k * sy) : (3 * k * sx, 4 * k * sy)
            rights.append(Self.point(l.x + dx, l.y + dy))
            planted += 1
        }
        let ours = try GeometryEngine.nearPairs(from: lefts, to: rights, distances: distances)
        let brute = try Self.bruteNearTable(lefts.map(\.geometry), rights.map(\.geometry), distances)
        #expect(ours == brute, "seed \(seed): \(Self.firstDifference(ours, brute))")
        // Every planted point is found, at exactly the distance.
        for (n, (i, l)) in lefts.enumerated().filter({ $0.offset % 3 == 0 }).enumerated() {
            let j = rights.count - planted + n
            #expect(ours.contains { $0.leftIndex == i && $0.rightIndex == j && $0.distance == distances[i] },
                    "seed \(seed): the point exactly \(distances[i]) ft from \(l) is missing")
        }
        // One distance for all gives the same as that distance repeated.
        let single = try GeometryEngine.nearPairs(from: lefts, to: rights, distances: [1500])
        #expect(single == (try Self.bruteNearTable(lefts.map(\.geometry), rights.map(\.geometry), [1500])),
                "seed \(seed)")
    }

    /// Points given by their coordinates give the near table the same points give as geometries — the brute
    /// force's — with per-feature distances, one distance, a distance unit, and enough searches for the point grid;
    /// bad input gets the geometries' errors.
    @Test(arguments: [1, 2])
    func pointsGivenAsCoordinatesGiveTheTableOfThePointsAsGeometries(round: Int) throws {
        let seed = round == 2 ? SplitMix64.testSeed : UInt64(round)
        var rng = SplitMix64(seed: seed)
        let lefts = Self.points(1_200, &rng), rights = Self.points(300, &rng)
        let index = try SpatialIndex(rights)
        let coordinates = lefts.map(\.coordinate)
        let distances = lefts.indices.map { _ in 5 * Double(Int.random(in: 0...200, using: &rng)) }
        for (d, unit) in [(distances, nil), ([700], nil), ([300], LinearUnit.meters)] as [([Double], LinearUnit?)] {
            let ours = try GeometryEngine.nearPairs(fromPointsAt: coordinates, in: Self.texas, to: index, distances: d,
                                                    distanceUnit: unit)
            let asGeometries = try GeometryEngine.nearPairs(from: lefts, to: index, distances: d, distanceUnit: unit)
            #expect(ours == asGeometries, "seed \(seed), \(d.count) distances, \(String(describing: unit))")
            #expect(ours.count > 100, "seed \(seed): a table with pairs")
        }
        let brute = try Self.bruteNearTable(lefts.map(\.geometry), rights.map(\.geometry), distances)
        #expect(try GeometryEngine.nearPairs(fromPointsAt: coordinates, in: Self.texas, to: index, distances: distances)
                == brute, "seed \(seed)")
        func message(_ body: () throws -> Any) -> String {
            do {
                _ = try body()
                return "no error"
            } catch { return "\(error)" }
        }
        var bad = coordinates
        bad[7] = Coordinate(x: .nan, y: 1)
        var badPoints = lefts
        badPoints[7] = Self.point(.nan, 1)
        #expect(message { try GeometryEngine.nearPairs(fromPointsAt: bad, in: Self.texas, to: index, distances: [1]) }
                == message { try GeometryEngine.nearPairs(from: badPoints, to: index, distances: [1]) })
        #expect(message { try GeometryEngine.nearPairs(fromPointsAt: bad, in: Self.texas, to: index, distances: [1]) }
                .contains("input feature 7"))
        #expect(message { try GeometryEngine.nearPairs(fromPointsAt: coordinates, in: .wgs84, to: index, distances: [1]) }
                == EngineError.geographicCoordinatesRefused(operation: "a planar proximity search").description)
        #expect(message { try GeometryEngine.nearPairs(fromPointsAt: coordinates, in: Self.texas, to: index,
                                                       distances: [1, 2]) }
                == message { try GeometryEngine.nearPairs(from: lefts, to: index, distances: [1, 2]) })
        #expect(try GeometryEngine.nearPairs(fromPointsAt: [], in: Self.texas, to: index, distances: [1]) == [])
    }

    /// A line inside a polygon's interior is 0 from it, as GEOS's plain distance says, whichever side is the query
    /// (GEOS's prepared line distance measures between edges only: this pair once came out 60 ft apart).
    @Test func aLineInsideAPolygonIsZeroFromIt() throws {
        let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1000, y: 0), Coordinate(x: 1000, y: 1000),
                                     Coordinate(x: 0, y: 1000)], spatialReference: Self.texas).geometry
        let line = Polyline([Coordinate(x: 200, y: 300), Coordinate(x: 600, y: 500), Coordinate(x: 800, y: 60)],
                            spatialReference: Self.texas).geometry
        let outside = Polyline([Coordinate(x: 1100, y: 300), Coordinate(x: 1300, y: 300)],
                               spatialReference: Self.texas).geometry
        for (lefts, rights) in [([line, outside], [square]), ([square], [line, outside])] {
            let pairs = try GeometryEngine.nearPairs(from: lefts, to: rights, distances: [150])
            #expect(pairs == (try Self.bruteNearTable(lefts, rights, [150, 150])))
            #expect(pairs.contains { $0.distance == 0 } && pairs.contains { $0.distance == 100 }, "\(pairs)")
        }
    }

    /// Lines and polygons (squares, triangles, a square with a hole) on both sides against points and each other.
    @Test func nearPairsOfLinesAndPolygonsEqualTheBruteForce() throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        func shape(_ i: Int) -> Geometry {
            let x = Double.random(in: 0...20_000, using: &rng).rounded(), y = Double.random(in: 0...20_000, using: &rng).rounded()
            let s = Double.random(in: 10...800, using: &rng).rounded()
            let square = [Coordinate(x: x, y: y), Coordinate(x: x + s, y: y), Coordinate(x: x + s, y: y + s),
                          Coordinate(x: x, y: y + s)]
            switch i % 4 {
            case 0: return Point(x: x, y: y, spatialReference: Self.texas).geometry
            case 1: return Polyline([Coordinate(x: x, y: y), Coordinate(x: x + s, y: y + s / 2),
                                     Coordinate(x: x + 2 * s, y: y - s)], spatialReference: Self.texas).geometry
            case 2: return Polygon(shell: square, spatialReference: Self.texas).geometry
            default:
                let hole = [Coordinate(x: x + s / 4, y: y + s / 4), Coordinate(x: x + s / 4, y: y + 3 * s / 4),
                            Coordinate(x: x + 3 * s / 4, y: y + 3 * s / 4), Coordinate(x: x + 3 * s / 4, y: y + s / 4)]
                return Polygon(shell: square, holes: [hole], spatialReference: Self.texas).geometry
            }
        }
        let lefts = (0..<40).map(shape)
        let rights = (0..<90).map(shape)
        let distances = lefts.indices.map { _ in Double.random(in: 0...2500, using: &rng).rounded() }
        let ours = try GeometryEngine.nearPairs(from: lefts, to: rights, distances: distances)
        let brute = try Self.bruteNearTable(lefts, rights, distances)
        #expect(ours == brute, "seed \(seed): \(Self.firstDifference(ours, brute))")
        let nearest = try GeometryEngine.nearest(from: lefts, to: rights, count: 3, maxDistance: 4000)
        let bruteNearest = try Self.bruteNearest(lefts, rights, k: 3, maxDistance: 4000)
        #expect(nearest == bruteNearest, "seed \(seed): \(Self.firstDifference(nearest, bruteNearest))")
    }

    /// Nearest k on an integer grid, where ties are everywhere: broken by index, exactly k rows.
    @Test(arguments: [1, 3, 8])
    func nearestBreaksTiesByIndexAndEqualsTheBruteForce(k: Int) throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let grid = (0..<400).map { i in Self.point(Double(i % 20) * 100, Double(i / 20) * 100) }.shuffled(using: &rng)
        let queries = Self.points(60, &rng).map { Self.point(($0.x / 2000).rounded() * 50, ($0.y / 2000).rounded() * 50) }
        for limit in [nil, 120.0] {
            let ours = try GeometryEngine.nearest(from: queries, to: grid, count: k, maxDistance: limit)
            let brute = try Self.bruteNearest(queries.map(\.geometry), grid.map(\.geometry), k: k,
                                              maxDistance: limit ?? .infinity)
            let difference = Self.firstDifference(ours, brute)
            #expect(ours == brute, "seed \(seed), k \(k), max \(String(describing: limit)): \(difference)")
        }
        // The index's own nearest agrees for one query.
        let index = try SpatialIndex(grid)
        let one = try index.nearest(to: queries[0], k: k)
        #expect(one.map(\.index) == (try Self.bruteNearest([queries[0].geometry], grid.map(\.geometry), k: k,
                                                           maxDistance: .infinity).map(\.rightIndex)))
    }

    /// `query(intersecting:)` equals the envelopes that meet (touching counts); `candidates` hold every feature
    /// within the distance; `query(withinDistance:of:)` equals the brute force.
    @Test func indexQueriesEqualTheBruteForce() throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let items = Self.points(2000, &rng)
        let index = try SpatialIndex(items)
        #expect(index.count == 2000)
        for _ in 0..<40 {
            let x = Double.random(in: -500...20_500, using: &rng).rounded(), y = Double.random(in: -500...20_500, using: &rng).rounded()
            let w = Double.random(in: 0...3000, using: &rng).rounded(), h = Double.random(in: 0...3000, using: &rng).rounded()
            let e = Envelope(xMin: x, yMin: y, xMax: x + w, yMax: y + h, spatialReference: Self.texas)
            let brute = items.indices.filter { e.contains(items[$0].coordinate) }
            #expect(try index.query(intersecting: e) == brute, "seed \(seed): \(e)")
            let q = Self.point(x, y), d = w
            let exact = items.indices.filter { (try? GeometryEngine.distance(from: q, to: items[$0]))! <= d }
            #expect(Set(exact).isSubset(of: try index.candidates(withinDistance: d, of: q)), "seed \(seed)")
            #expect(try index.query(withinDistance: d, of: q).map(\.index).sorted() == exact, "seed \(seed)")
        }
        // A touching envelope (zero width, on a point) finds it.
        let p = items[17]
        let touching = Envelope(xMin: p.x, yMin: p.y, xMax: p.x, yMax: p.y, spatialReference: Self.texas)
        #expect(try index.query(intersecting: touching).contains(17))
    }

    /// Points whose computed distance rounds to exactly the search distance although they lie beyond the rounded
    /// `x + distance` (cancellation near 0 makes `x + distance` round down while `rx − x` rounds to `distance`):
    /// found on every side of the search box, which is why the box is widened beyond the distance.
    @Test func pointsBeyondTheRoundedSearchBoxButAtTheDistanceAreFound() throws {
        let cases: [(x: Double, d: Double, rx: Double)] = [
            (-9.964502755949308, 8.726906972770392, -1.237595783178916),
            (-5.904409709324144, 9.41566241077119, 3.5112527014470474),
            (-3.2420627674426967, 3.1685835228709753, -0.07347924457172138),
        ]
        for c in cases {
            #expect(c.x + c.d < c.rx, "the case no longer lies beyond the rounded box")
            // Right (x), left (−x), up (y) and down (−y) of the query point.
            for (q, r) in [((c.x, 0.0), (c.rx, 0.0)), ((-c.x, 0.0), (-c.rx, 0.0)), ((0.0, c.x), (0.0, c.rx)),
                           ((0.0, -c.x), (0.0, -c.rx))] {
                let left = Point(x: q.0, y: q.1, spatialReference: .unspecified)
                let right = Point(x: r.0, y: r.1, spatialReference: .unspecified)
                #expect(try GeometryEngine.distance(from: left, to: right) == c.d)
                let table = try GeometryEngine.nearPairs(from: [left], to: [right], distances: [c.d])
                #expect(table == [NearPair(leftIndex: 0, rightIndex: 0, distance: c.d, rank: 1)], "\(left) → \(right)")
                #expect(try SpatialIndex([right]).nearest(to: left, maxDistance: c.d).count == 1, "\(left) → \(right)")
            }
        }
    }

    /// Distances given in meters on a spatial reference in US survey feet: tested in feet, reported in meters.
    @Test func distanceUnitsAreConvertedBothWays() throws {
        let lefts = [Self.point(0, 0)]
        let rights = [Self.point(3000, 4000), Self.point(3000, 4001)]  // 5000 ft and a bit more
        let meters = LinearUnit.usSurveyFeet.convert(5000, to: .meters)
        let table = try GeometryEngine.nearPairs(from: lefts, to: rights, distances: [meters + 1e-9], distanceUnit: .meters)
        #expect(table.map(\.rightIndex) == [0])
        #expect(abs(table[0].distance - meters) < 1e-9)
        let feet = try GeometryEngine.nearPairs(from: lefts, to: rights, distances: [5000])
        #expect(feet == [NearPair(leftIndex: 0, rightIndex: 0, distance: 5000, rank: 1)])
    }

    @Test func emptySetsGiveEmptyTables() throws {
        let none: [Point] = []
        #expect(try GeometryEngine.nearPairs(from: none, to: [Self.point(0, 0)], distances: [1]) == [])
        #expect(try GeometryEngine.nearPairs(from: [Self.point(0, 0)], to: none, distances: [1]) == [])
        #expect(try GeometryEngine.nearest(from: [Self.point(0, 0)], to: none, count: 2) == [])
        #expect(try SpatialIndex(none).nearest(to: Self.point(0, 0)) == [])
    }

    @Test func badInputIsRefusedWithItsOwnError() throws {
        let a = [Self.point(0, 0), Self.point(10, 0)]
        func message(_ body: () throws -> Any) -> String {
            do {
                _ = try body()
                return "no error"
            } catch { return "\(error)" }
        }
        #expect(message { try GeometryEngine.nearPairs(from: a, to: a, distances: [1, 2, 3]) }
                == "3 distances for 2 geometries: give one distance for all, or exactly one per geometry")
        #expect(message { try GeometryEngine.nearPairs(from: a, to: a, distances: [1, -2]) }
                == "invalid distance: input feature 1: its distance is -2.0; a search distance must be finite and 0 or more")
        #expect(message { try GeometryEngine.nearPairs(from: a, to: a, distances: [.nan]) }
                == "invalid distance: the distance is nan; a search distance must be finite and 0 or more")
        #expect(message { try GeometryEngine.nearest(from: a, to: a, count: 0) }
                == "invalid argument: the number of nearest features must be 1 or more, got 0")
        #expect(message { try GeometryEngine.nearest(from: a, to: a, maxDistance: -1) }
                == "invalid distance: the maximum distance is -1.0; it must be finite and 0 or more")
        let web = Point(x: 0, y: 0, spatialReference: .webMercator)
        #expect(message { try GeometryEngine.nearPairs(from: a, to: [web], distances: [1]) }
                == "spatial references differ: \(Self.texas) and \(SpatialReference.webMercator)")
        let wgs = [Point(latitude: 32, longitude: -97)]
        #expect(message { try GeometryEngine.nearPairs(from: wgs, to: wgs, distances: [1]) }
                == EngineError.geographicCoordinatesRefused(operation: "a planar proximity search").description)
        #expect(message { try SpatialIndex(wgs) }
                == EngineError.geographicCoordinatesRefused(operation: "a planar spatial index").description)
        let empty = Polyline(parts: [], spatialReference: Self.texas)
        #expect(message { try GeometryEngine.nearPairs(from: [empty], to: a, distances: [1]) }
                == "empty geometry: input feature 0 (a polyline) has no vertices")
        #expect(message { try GeometryEngine.nearPairs(from: a, to: [a[0].geometry, empty.geometry], distances: [1]) }
                == "empty geometry: near feature 1 (a polyline) has no vertices")
        #expect(message { try GeometryEngine.nearPairs(from: [Self.point(.infinity, 0)], to: a, distances: [1]) }
                == "non-finite coordinate: input feature 0 (a point) has the coordinate (inf, 0.0)")
        let plain = [Point(x: 0, y: 0, spatialReference: .unspecified)]
        #expect(message { try GeometryEngine.nearPairs(from: plain, to: plain, distances: [1], distanceUnit: .meters) }
                == "a search distance with a unit (give a plain number, in the coordinates' unit) needs a spatial "
                + "reference; these coordinates have none (SpatialReference.unspecified)")
        // Plain coordinates without a unit are fine.
        #expect(try GeometryEngine.nearPairs(from: plain, to: plain, distances: [0]).count == 1)
        let bowTie = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 10), Coordinate(x: 10, y: 0),
                                     Coordinate(x: 0, y: 10)], spatialReference: Self.texas)
        #expect(message { try GeometryEngine.nearPairs(from: a, to: [bowTie], distances: [100]) }
                    .hasPrefix("invalid geometry: Self-intersection"))
    }
}
