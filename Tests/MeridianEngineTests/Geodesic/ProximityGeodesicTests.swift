import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// Geodesic proximity (`GeodeticSpatialIndex`, `GeometryEngine.geodeticNearPairs`, `geodeticNearest`) against a brute
/// force computed here: Karney's inverse (PROJ's `geod_inverse`, through `Geodesic`) for every pair, no index and
/// no filter. Seeded sets worldwide with clusters straddling ±180° and around both poles, per-feature distances,
/// and for many input points a near point placed at exactly its search distance (the distance set to what the
/// inverse gives for the pair), half of them due north or south near the equator, where the meridian's radius of
/// curvature is smallest and a filter taking the Earth for a sphere of radius a misses them.
@Suite("Proximity: geodesic near tables and the spatial index")
struct ProximityGeodesicTests {
    static let geodesic = Geodesic(.wgs84)

    /// Random points: a quarter worldwide, the rest in clusters at ±180°, the north pole, the south pole and
    /// near the equator.
    static func points(_ n: Int, _ rng: inout SplitMix64) -> [Point] {
        (0..<n).map { i in
            let (lat, lon): (Double, Double)
            switch i % 5 {
            case 0: (lat, lon) = (Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
            case 1:  // across the antimeridian, either spelling of the longitude
                let side = Double.random(in: -0.8...0.8, using: &rng)
                (lat, lon) = (Double.random(in: -30...30, using: &rng), side >= 0 ? 180 - side : -180 - side)
            case 2: (lat, lon) = (Double.random(in: 89.2...90, using: &rng), Double.random(in: -180...180, using: &rng))
            case 3: (lat, lon) = (Double.random(in: -90 ... -89.2, using: &rng), Double.random(in: -180...180, using: &rng))
            default: (lat, lon) = (Double.random(in: -0.5...0.5, using: &rng), Double.random(in: 10...11, using: &rng))
            }
            return Point(latitude: lat, longitude: lon)
        }
    }

    /// The near table by brute force: Karney's inverse for every pair, kept when ≤ the left's distance.
    static func bruteNearTable(_ lefts: [Point], _ rights: [Point], _ distances: [Double]) -> [NearPair] {
        var rows: [NearPair] = []
        for (i, l) in lefts.enumerated() {
            var found: [(Int, Double)] = []
            for (j, r) in rights.enumerated() {
                let s = geodesic.distance(l.coordinate, r.coordinate)
                if s <= distances[distances.count == 1 ? 0 : i] { found.append((j, s)) }
            }
            found.sort { ($0.1, $0.0) < ($1.1, $1.0) }
            for (rank, f) in found.enumerated() {
                rows.append(NearPair(leftIndex: i, rightIndex: f.0, distance: f.1, rank: rank + 1))
            }
        }
        return rows
    }

    /// The k nearest by brute force (ties by index), within `maxDistance`.
    static func bruteNearest(_ lefts: [Point], _ rights: [Point], k: Int, maxDistance: Double) -> [NearPair] {
        var rows: [NearPair] = []
        for (i, l) in lefts.enumerated() {
            let kept = rights.indices.map { ($0, geodesic.distance(l.coordinate, rights[$0].coordinate)) }
                .filter { $0.1 <= maxDistance }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(k)
            for (rank, f) in kept.enumerated() {
                rows.append(NearPair(leftIndex: i, rightIndex: f.0, distance: f.1, rank: rank + 1))
            }
        }
        return rows
    }

    static func firstDifference(_ a: [NearPair], _ b: [NearPair]) -> String {
        for (x, y) in zip(a, b) where !sameRow(x, y) { return "\(x) vs brute force \(y)" }
        return "\(a.count) rows vs brute force \(b.count)"
    }

    /// Whether two rows of a near table name the same pair at the same rank, their distances within 1 µm: the
    /// accuracy stated for geodesic distances, which a search within a distance measures between points less than
    /// a/64 apart with `ShortGeodesic` instead of Karney's inverse (the brute force's).
    static func sameRow(_ a: NearPair, _ b: NearPair) -> Bool {
        a.leftIndex == b.leftIndex && a.rightIndex == b.rightIndex && a.rank == b.rank
            && abs(a.distance - b.distance) <= 1e-6
    }

    /// Whether two near tables are the same (`sameRow` row by row).
    static func sameTable(_ a: [NearPair], _ b: [NearPair]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { sameRow($0, $1) }
    }

    /// Seeded LEFT and RIGHT points (`points(_:_:)`) with a search distance per LEFT up to 150 km and, for every
    /// other LEFT, a RIGHT planted exactly at its distance: due north/south for the equator cluster, any azimuth
    /// elsewhere (across ±180° and over the poles for those clusters); the distance set to what the inverse gives.
    static func plantedSets(left: Int, right: Int, _ rng: inout SplitMix64)
        -> (lefts: [Point], rights: [Point], distances: [Double], planted: [(left: Int, right: Int)])
    {
        let lefts = points(left, &rng)
        var rights = points(right, &rng)
        var distances = lefts.indices.map { _ in Double.random(in: 0...150_000, using: &rng) }
        var planted: [(left: Int, right: Int)] = []
        for i in lefts.indices where i % 2 == 0 {
            let azimuth = i % 5 == 4 ? (i % 4 == 0 ? 0.0 : 180.0) : Double.random(in: -180...180, using: &rng)
            let c = geodesic.move(lefts[i].coordinate, azimuth: azimuth, distance: distances[i])
            rights.append(Point(latitude: c.y, longitude: c.x))
            distances[i] = geodesic.distance(lefts[i].coordinate, c)
            planted.append((i, rights.count - 1))
        }
        return (lefts, rights, distances, planted)
    }

    @Test(arguments: [1, 2, 3])
    func nearPairsEqualTheBruteForceAcrossTheAntimeridianAndThePoles(round: Int) throws {
        let seed = round == 3 ? SplitMix64.testSeed : UInt64(round)
        var rng = SplitMix64(seed: seed)
        let (lefts, rights, distances, planted) = Self.plantedSets(left: 200, right: 500, &rng)
        let ours = try GeometryEngine.geodeticNearPairs(from: lefts, to: rights, distances: distances)
        let brute = Self.bruteNearTable(lefts, rights, distances)
        #expect(Self.sameTable(ours, brute), "seed \(seed): \(Self.firstDifference(ours, brute))")
        let missed = planted.filter { p in !ours.contains { $0.leftIndex == p.left && $0.rightIndex == p.right } }
        let example = missed.first.map { "\(lefts[$0.left]) → \(rights[$0.right]), \(distances[$0.left]) m" } ?? ""
        #expect(missed.isEmpty, "seed \(seed): \(missed.count) points exactly at the distance missed, e.g. \(example)")
        #expect(ours.count > 2 * planted.count, "seed \(seed): too few pairs to test anything")
    }

    /// The filter's bound, chord of the normals ≤ κ·s, holds for random pairs (no padding needed to see it): pairs
    /// along the equator's meridians, where it is tightest, across ±180° and over the poles.
    @Test func theChordBoundHoldsEverywhere() {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let kappa = GeodeticSpatialIndex.largestCurvature(of: .wgs84)
        #expect(abs(1 / kappa - 6_335_439.327) < 0.001)
        var tightest = 0.0
        for p in Self.points(3000, &rng) {
            let azimuth = Bool.random(using: &rng) ? 0.0 : Double.random(in: -180...180, using: &rng)
            let s = Double.random(in: 1...3_000_000, using: &rng)
            let q = Self.geodesic.move(p.coordinate, azimuth: azimuth, distance: s)
            let (a, b) = (UnitVector(p.coordinate), UnitVector(q))
            let chord = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)).squareRoot()
            let distance = Self.geodesic.distance(p.coordinate, q)
            #expect(chord <= kappa * distance, "seed \(seed): \(p) → \(q), \(distance) m")
            tightest = max(tightest, chord / (kappa * distance))
        }
        // The bound is tight (the equator's meridians): a smaller curvature would not be conservative.
        #expect(tightest > 0.999, "seed \(seed): tightest ratio \(tightest)")
    }

    @Test func candidatesHoldEveryPointWithinTheDistance() throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let items = Self.points(1500, &rng)
        let index = try GeodeticSpatialIndex(items)
        for q in Self.points(60, &rng) {
            let d = Double.random(in: 0...500_000, using: &rng)
            let exact = items.indices.filter { Self.geodesic.distance(q.coordinate, items[$0].coordinate) <= d }
            let candidates = try index.candidates(withinDistance: d, of: q)
            #expect(Set(exact).isSubset(of: candidates), "seed \(seed): \(q), \(d) m")
            #expect(try index.query(withinDistance: d / 1000, of: q, distanceUnit: .kilometers).map(\.index).sorted()
                    == exact, "seed \(seed)")
        }
    }

    @Test(arguments: [1, 4])
    func nearestEqualsTheBruteForce(k: Int) throws {
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        let lefts = Self.points(150, &rng)
        let rights = Self.points(700, &rng)
        for limit in [nil, 80_000.0] {
            let ours = try GeometryEngine.geodeticNearest(from: lefts, to: rights, count: k, maxDistance: limit)
            let brute = Self.bruteNearest(lefts, rights, k: k, maxDistance: limit ?? .infinity)
            let difference = Self.firstDifference(ours, brute)
            #expect(ours == brute, "seed \(seed), k \(k), max \(String(describing: limit)): \(difference)")
        }
        // Ties: the same point twice is ranked by index.
        let twins = [Point(latitude: 89.9, longitude: 179.9), Point(latitude: 89.9, longitude: -180.1)]
        let tied = try GeometryEngine.geodeticNearest(from: [Point(latitude: 90, longitude: 0)], to: twins, count: 1)
        #expect(tied.map(\.rightIndex) == [0])
    }

    /// A projected spatial reference is measured on its datum's ellipsoid: the same table as its longitude/latitude.
    @Test func projectedPointsAreMeasuredOnTheirEllipsoid() throws {
        let texas = try SpatialReference(wkid: 32038), nad27 = try SpatialReference(wkid: 4267)
        let lonLat = [Coordinate(x: -96.797, y: 32.7767), Coordinate(x: -97.3308, y: 32.7555),
                      Coordinate(x: -96.9, y: 32.9)].map { Point($0, spatialReference: nad27) }
        let projected = try lonLat.map { try GeometryEngine.project($0, into: texas) }
        let a = try GeometryEngine.geodeticNearPairs(from: projected, to: projected, distances: [60_000])
        let b = try GeometryEngine.geodeticNearPairs(from: lonLat, to: lonLat, distances: [60_000])
        #expect(a.map(\.rightIndex) == b.map(\.rightIndex))
        for (x, y) in zip(a, b) { #expect(abs(x.distance - y.distance) < 1e-3) }
    }

    @Test func badInputIsRefusedWithItsOwnError() throws {
        func message(_ body: () throws -> Any) -> String {
            do {
                _ = try body()
                return "no error"
            } catch { return "\(error)" }
        }
        let a = [Point(latitude: 0, longitude: 0), Point(latitude: 1, longitude: 1)]
        let empty = Polyline(parts: [], spatialReference: .wgs84)
        let beyondPolygon = Polygon(shell: [Coordinate(x: 0, y: 80), Coordinate(x: 10, y: 95), Coordinate(x: 20, y: 80)],
                                    spatialReference: .wgs84)
        #expect(message { try GeometryEngine.geodeticNearPairs(from: [a[0].geometry, empty.geometry], to: a, distances: [1]) }
                == "empty geometry: input feature 1 (a polyline) has no vertices")
        #expect(message { try GeodeticSpatialIndex([a[0].geometry, beyondPolygon.geometry]) }
                == "malformed geometry: near feature 1 is at latitude 95.0, longitude 10.0; latitudes lie in [-90, 90]")
        #expect(message { try GeometryEngine.geodeticNearPairs(from: a, to: a, distances: [1, 2, 3]) }
                == "3 distances for 2 geometries: give one distance for all, or exactly one per geometry")
        #expect(message { try GeometryEngine.geodeticNearPairs(from: a, to: a, distances: [-.infinity, 1]) }
                == "invalid distance: input feature 0: its distance is -inf; a search distance must be finite and 0 or more")
        let web = [Point(x: 0, y: 0, spatialReference: .webMercator)]
        #expect(message { try GeometryEngine.geodeticNearPairs(from: a, to: web, distances: [1]) }
                == "spatial references differ: \(SpatialReference.wgs84) and \(SpatialReference.webMercator)")
        #expect(message { try GeometryEngine.geodeticNearPairs(from: a, to: try GeodeticSpatialIndex(web), distances: [1]) }
                == "spatial references differ: \(SpatialReference.webMercator) and \(SpatialReference.wgs84)")
        let plain = [Point(x: 0, y: 0, spatialReference: .unspecified)]
        #expect(message { try GeometryEngine.geodeticNearPairs(from: plain, to: plain, distances: [1]) }
                == EngineError.spatialReferenceRequired(operation: "a geodesic operation").description)
        let beyond = [Point(x: 0, y: 91, spatialReference: .wgs84)]
        #expect(message { try GeometryEngine.geodeticNearest(from: beyond, to: a) }
                == "malformed geometry: input feature 0 is at latitude 91.0, longitude 0.0; latitudes lie in [-90, 90]")
        #expect(message { try GeometryEngine.geodeticNearest(from: a, to: a, count: 0) }
                == "invalid argument: the number of nearest features must be 1 or more, got 0")
        // An empty index finds nothing but still checks its input.
        let none: [Point] = []
        #expect(try GeometryEngine.geodeticNearPairs(from: a, to: none, distances: [1e6]) == [])
        #expect(message { try GeometryEngine.geodeticNearPairs(from: [empty], to: none, distances: [1]) }
                == "empty geometry: input feature 0 (a polyline) has no vertices")
    }
}
