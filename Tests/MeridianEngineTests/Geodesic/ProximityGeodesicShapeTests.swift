import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// Geodesic proximity between lines and polygons (`GeodeticShape`, `GeodesicSegment`, and the index and near
/// tables over them): distances against GeographicLib minimised over the segments (`Tests/Fixtures/geodesic/
/// near_segments.csv`, written by `scripts/make-geodesic-near-reference.py`) and against closed forms on the
/// equator and the meridians; "inside" for polygons around the poles and across ±180°; near tables against a brute
/// force over every pair, with pairs planted exactly at their search distance.
@Suite("Proximity: geodesic distances of lines and polygons")
struct ProximityGeodesicShapeTests {
    static let geodesic = Geodesic(.wgs84)
    static let kappa = GeodeticSpatialIndex.largestCurvature(of: .wgs84)

    static func segment(_ a: Coordinate, _ b: Coordinate) -> GeodesicSegment {
        GeodesicSegment(a, b, geodesic: geodesic, curvature: kappa)
    }

    /// The geodesic distance between two geometries in WGS 84, as the index measures it (no filter).
    static func distance(_ a: Geometry, _ b: Geometry) throws -> Double {
        let frame = try GeodeticFrame(input: .wgs84, output: nil)
        let f = try GeodeticSpatialIndex.computeFeatures([a, b], in: frame, curvature: kappa, list: .geometries)
        return GeodeticFeature.distance(f[0], f[1], geodesic: geodesic, curvature: kappa, limit: .infinity)
    }

    static func ring(_ lonLat: [(Double, Double)]) -> Polygon {
        Polygon(shell: lonLat.map { Coordinate(x: $0.0, y: $0.1) }, spatialReference: .wgs84)
    }

    static func point(_ lon: Double, _ lat: Double) -> Geometry { Point(latitude: lat, longitude: lon).geometry }

    // MARK: Distances against independent references

    /// GeographicLib's minimum over the segment (dense sampling, then golden section on its Inverse), for points
    /// near segments worldwide, across ±180°, over the poles, on the equator and on meridians, and for pairs of
    /// segments (minimised over both, so the rule "an end of one, unless they meet" is tested, not assumed).
    @Test func distancesAgreeWithGeographicLibMinimisedOverTheSegment() throws {
        let table = try CSVTable(ReferenceData.text("geodesic/near_segments.csv"))
        #expect(table.rows.count == 96)
        var worst = 0.0
        for (n, row) in table.rows.enumerated() {
            func c(_ k: Int) throws -> Coordinate {
                Coordinate(x: try row.number("lon\(k)"), y: try row.number("lat\(k)"))
            }
            let expected = try row.number("distance_m")
            let ours: Double
            if try row.field("kind") == "point_segment" {
                ours = Self.geodesic.distance(from: try c(1), to: Self.segment(try c(2), try c(3)))
            } else {
                ours = Self.geodesic.distance(between: Self.segment(try c(1), try c(2)), Self.segment(try c(3), try c(4)))
            }
            worst = max(worst, abs(ours - expected))
            #expect(abs(ours - expected) <= 1e-6, "row \(n + 2): \(ours) m, GeographicLib \(expected) m")
        }
        #expect(worst > 0, "the comparison compared nothing")
    }

    /// The meridian arc from the equator to latitude φ on WGS 84, by Helmert's series in n = f/(2 − f) (error of
    /// order n⁵·a, below 0.1 µm): an independent closed form.
    static func meridianArc(_ degrees: Double) -> Double {
        let a = 6_378_137.0, f = 1 / 298.257223563
        let n = f / (2 - f), phi = degrees * .pi / 180
        let (n2, n3, n4) = (n * n, n * n * n, n * n * n * n)
        return a / (1 + n) * ((1 + n2 / 4 + n4 / 64) * phi - 1.5 * (n - n3 / 8) * sin(2 * phi)
            + 15.0 / 16 * (n2 - n4 / 4) * sin(4 * phi) - 35.0 / 48 * n3 * sin(6 * phi) + 315.0 / 512 * n4 * sin(8 * phi))
    }

    /// Closed forms: a point due north of an equatorial segment is the meridian arc from it (its foot is on the
    /// equator, the meridian meeting it at a right angle), the pole a quarter meridian from any of it; a point on
    /// the equator beside a meridian segment is a · Δλ from it (the equator is the shortest geodesic there).
    @Test func distancesAgreeWithClosedFormsOnTheEquatorAndTheMeridians() {
        let equator = Self.segment(Coordinate(x: 170, y: 0), Coordinate(x: -170, y: 0))  // across ±180°
        let cases: [(Coordinate, Double)] = [
            (Coordinate(x: 0, y: 90), Self.meridianArc(90)),
            (Coordinate(x: 123, y: -90), Self.meridianArc(90)),
            (Coordinate(x: 175, y: 1e-3), Self.meridianArc(1e-3)),
            (Coordinate(x: 180, y: 5), Self.meridianArc(5)),
            (Coordinate(x: -179.75, y: -10), Self.meridianArc(10)),
            (Coordinate(x: -171, y: 45), Self.meridianArc(45)),
        ]
        for (p, expected) in cases {
            let ours = Self.geodesic.distance(from: p, to: equator)
            #expect(abs(ours - expected) <= 1e-6, "\(p): \(ours) m, closed form \(expected) m")
        }
        let meridian = Self.segment(Coordinate(x: 10, y: -30), Coordinate(x: 10, y: 40))
        for dLon in [1e-4, 0.5, 20, -35] {
            let ours = Self.geodesic.distance(from: Coordinate(x: 10 + dLon, y: 0), to: meridian)
            let expected = 6_378_137 * abs(dLon) * .pi / 180
            #expect(abs(ours - expected) <= 1e-6, "Δλ \(dLon)°: \(ours) m, closed form \(expected) m")
        }
        // Beyond the end: the meridian arc between the end and the point.
        let beyond = Self.geodesic.distance(from: Coordinate(x: 10, y: 50), to: meridian)
        #expect(abs(beyond - (Self.meridianArc(50) - Self.meridianArc(40))) <= 1e-6)
        // A segment over the north pole passes through it.
        let overThePole = Self.segment(Coordinate(x: 10, y: 80), Coordinate(x: -170, y: 85))
        #expect(Self.geodesic.distance(from: Coordinate(x: 77, y: 90), to: overThePole) <= 1e-6)
    }

    /// Segments that cross are 0 apart, wherever they cross (across ±180°, at a pole); those that do not are
    /// measured from an end, never 0.
    @Test func crossingSegmentsAreZeroApart() {
        let pairs: [((Double, Double), (Double, Double), (Double, Double), (Double, Double))] = [
            ((179, -1), (-179, 1), (179, 1), (-179, -1)),          // an X across the antimeridian
            ((10, 80), (-170, 80), (100, 80), (-80, 80)),          // two meridian pairs crossing at the pole
            ((0, 0), (40, 30), (40, 0), (0, 30)),                  // long, where geodesics are curved in degrees
            ((5, 5), (5.000001, 6), (4, 5.5), (6, 5.5)),           // nearly a meridian
        ]
        for (a, b, c, d) in pairs {
            let s = Self.segment(Coordinate(x: a.0, y: a.1), Coordinate(x: b.0, y: b.1))
            let t = Self.segment(Coordinate(x: c.0, y: c.1), Coordinate(x: d.0, y: d.1))
            #expect(Self.geodesic.meets(s, t), "\(a)-\(b) × \(c)-\(d)")
            #expect(Self.geodesic.distance(between: s, t) == 0)
        }
        // Parallel and disjoint: apart, measured from an end.
        let s = Self.segment(Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0))
        let t = Self.segment(Coordinate(x: 2, y: 0.5), Coordinate(x: 3, y: -0.5))
        #expect(!Self.geodesic.meets(s, t))
        let fromEnd = Self.geodesic.distance(from: Coordinate(x: 1, y: 0), to: t)
        #expect(abs(Self.geodesic.distance(between: s, t) - fromEnd) <= 1e-9 && fromEnd > 100_000)
    }

    // MARK: Inside polygons

    /// A cap around the north pole written as RFC 7946 writes it (an edge along +90°), the same ring without that
    /// edge (winding around the pole: the smaller side), a ring across ±180°, and a hole.
    @Test func pointsInsidePolygonsAreZeroAwayAroundThePolesAndAcrossTheAntimeridian() throws {
        let cap = Self.ring([(-180, 80), (-90, 80), (0, 80), (90, 80), (180, 80), (180, 90), (-180, 90)])
        let winding = Self.ring([(-180, 80), (-90, 80), (0, 80), (90, 80)])
        let southWinding = Self.ring([(0, -75), (120, -75), (-120, -75)])
        let fiji = Self.ring([(170, -10), (-170, -10), (-170, 10), (170, 10)])
        for polygon in [cap, winding] {
            #expect(try Self.distance(.polygon(polygon), Self.point(45, 89)) == 0)
            #expect(try Self.distance(.polygon(polygon), Self.point(-160, 90)) == 0)
            // The edges are geodesics: (45°, 81°) lies south of the edge from (0°, 80°) to (90°, 80°), outside.
            let edge = Self.segment(Coordinate(x: 0, y: 80), Coordinate(x: 90, y: 80))
            let outside = try Self.distance(.polygon(polygon), Self.point(45, 81))
            #expect(outside > 10_000)
            #expect(abs(outside - Self.geodesic.distance(from: Coordinate(x: 45, y: 81), to: edge)) <= 1e-9)
            #expect(try Self.distance(.polygon(polygon), Self.point(45, 0)) > 8_000_000)
        }
        #expect(try Self.distance(.polygon(southWinding), Self.point(33, -89)) == 0)
        #expect(try Self.distance(.polygon(southWinding), Self.point(33, -60)) > 1_000_000)
        for lon in [180.0, -180, 179.9, -170.1, 175] {
            #expect(try Self.distance(.polygon(fiji), Self.point(lon, 3)) == 0, "longitude \(lon)")
        }
        let west = try Self.distance(.polygon(fiji), Self.point(169, 0))
        #expect(abs(west - 6_378_137 * .pi / 180) <= 1e-6)
        #expect(try Self.distance(.polygon(fiji), Self.point(0, 0)) > 15_000_000)
        // A hole: a point in it is as far as the hole's edge.
        let holed = Polygon(shell: fiji.parts[0].shell, holes: [[
            Coordinate(x: 175, y: -8), Coordinate(x: -175, y: -8), Coordinate(x: -175, y: 8), Coordinate(x: 175, y: 8),
        ]], spatialReference: .wgs84)
        let inHole = try Self.distance(.polygon(holed), Self.point(180, 0))
        #expect(abs(inHole - 5 * 6_378_137 * .pi / 180) <= 1e-6)
    }

    /// Lines and polygons inside, across or beside polygons.
    @Test func linesAndPolygonsMeetWhenOneLiesInsideOrCrossesTheOther() throws {
        let fiji = Self.ring([(170, -10), (-170, -10), (-170, 10), (170, 10)])
        let inside = Polyline([Coordinate(x: 175, y: 0), Coordinate(x: -175, y: 1)], spatialReference: .wgs84)
        let across = Polyline([Coordinate(x: 160, y: 0), Coordinate(x: 171, y: 0)], spatialReference: .wgs84)
        let beside = Polyline([Coordinate(x: 160, y: 0), Coordinate(x: 169, y: 0)], spatialReference: .wgs84)
        #expect(try Self.distance(.polyline(inside), .polygon(fiji)) == 0)
        #expect(try Self.distance(.polygon(fiji), .polyline(across)) == 0)
        #expect(abs(try Self.distance(.polyline(beside), .polygon(fiji)) - 6_378_137 * .pi / 180) <= 1e-6)
        let small = Self.ring([(179, -1), (-179, -1), (-179, 1), (179, 1)])
        #expect(try Self.distance(.polygon(small), .polygon(fiji)) == 0)
        #expect(try Self.distance(.polygon(fiji), .polygon(small)) == 0)
        let overlapping = Self.ring([(-175, 5), (-160, 5), (-160, 20), (-175, 20)])
        #expect(try Self.distance(.polygon(overlapping), .polygon(fiji)) == 0)
    }

    // MARK: The filter

    /// A ring with a vertex every degree (interpolated in longitude/latitude), so that its edges are short and the
    /// balls of their normals small: a box of the edges alone would then miss the interior far from them.
    static func densified(_ lonLat: [(Double, Double)]) -> Polygon {
        var out: [Coordinate] = []
        for (k, a) in lonLat.enumerated() {
            let b = lonLat[(k + 1) % lonLat.count]
            // An edge across ±180° (or from -180 to 180, the same meridian) is left as it is.
            let n = abs(b.0 - a.0) >= 180 ? 1 : max(1, Int(max(abs(b.0 - a.0), abs(b.1 - a.1)).rounded(.up)))
            for i in 0..<n {
                let t = Double(i) / Double(n)
                out.append(Coordinate(x: a.0 + t * (b.0 - a.0), y: a.1 + t * (b.1 - a.1)))
            }
        }
        return Polygon(shell: out, spatialReference: .wgs84)
    }

    /// A polygon's box of normals holds its interior: points far from every edge inside a ring winding around the
    /// north pole and inside a polygon around (0°, 0°) are found at distance 0 by the index.
    @Test func theIndexFindsPointsDeepInsidePolygons() throws {
        let cap = Self.densified([(-180, 60), (-60, 60), (60, 60), (180, 60)])
        let middle = Self.densified([(-60, -60), (60, -60), (60, 60), (-60, 60)])
        let index = try GeodeticSpatialIndex([cap, middle])
        for (q, expected) in [(Point(latitude: 89.99, longitude: 17), 0), (Point(latitude: 0.001, longitude: 0.002), 1),
                              (Point(latitude: 90, longitude: 0), 0)] {
            #expect(try index.query(withinDistance: 1, of: q).map { $0.index } == [expected], "\(q)")
            #expect(try index.nearest(to: q).map { $0.distance } == [0], "\(q)")
        }
        #expect(try index.query(withinDistance: 1, of: Point(latitude: 59, longitude: 120.5)).map { $0.index } == [])
    }

    /// A line across ±180° is found from either side, at its distance.
    @Test func theIndexFindsLinesAcrossTheAntimeridian() throws {
        let line = Polyline([Coordinate(x: 179.5, y: 0), Coordinate(x: -179.5, y: 0)], spatialReference: .wgs84)
        let index = try GeodeticSpatialIndex([line])
        for lon in [180.0, -180, 179.9, -179.9] {
            let found = try index.query(withinDistance: 2, of: Point(latitude: 0.01, longitude: lon),
                                        distanceUnit: .kilometers)
            #expect(found.map(\.index) == [0], "longitude \(lon)")
            #expect(abs((found.first?.distance ?? 0) - Self.meridianArc(0.01) / 1000) <= 1e-9)
        }
    }

    // MARK: Near tables against the brute force

    /// Random lines, polygons and points: worldwide, across ±180° and around both poles.
    static func features(_ n: Int, _ rng: inout SplitMix64) -> [Geometry] {
        (0..<n).map { i in
            let (lat, lon): (Double, Double)
            switch i % 4 {
            case 0: (lat, lon) = (Double.random(in: -70...70, using: &rng), Double.random(in: -180...180, using: &rng))
            case 1: (lat, lon) = (Double.random(in: -30...30, using: &rng), 180 - Double.random(in: -1...1, using: &rng))
            case 2: (lat, lon) = (Double.random(in: 88...90, using: &rng), Double.random(in: -180...180, using: &rng))
            default: (lat, lon) = (Double.random(in: -90 ... -88, using: &rng), Double.random(in: -180...180, using: &rng))
            }
            let start = Coordinate(x: normalizedLongitude(lon), y: lat)
            var path = [start]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                path.append(geodesic.move(path.last!, azimuth: Double.random(in: -180...180, using: &rng),
                                          distance: Double.random(in: 5_000...150_000, using: &rng)))
            }
            path = path.map { Coordinate(x: normalizedLongitude($0.x), y: $0.y) }
            switch i % 3 {
            case 0: return Point(latitude: lat, longitude: normalizedLongitude(lon)).geometry
            case 1: return .polyline(Polyline(path, spatialReference: .wgs84))
            default:
                if path.count < 3 {
                    path.append(geodesic.move(start, azimuth: Double.random(in: -180...180, using: &rng), distance: 80_000))
                }
                return .polygon(Polygon(shell: path.map { Coordinate(x: normalizedLongitude($0.x), y: $0.y) },
                                        spatialReference: .wgs84))
            }
        }
    }

    /// The near table by brute force from the matrix of distances between every left and every right.
    static func bruteNearTable(_ matrix: [[Double]], _ distances: [Double]) -> [NearPair] {
        var rows: [NearPair] = []
        for (i, row) in matrix.enumerated() {
            let found = row.indices.filter { row[$0] <= distances[i] }.sorted { (row[$0], $0) < (row[$1], $1) }
            for (rank, j) in found.enumerated() {
                rows.append(NearPair(leftIndex: i, rightIndex: j, distance: row[j], rank: rank + 1))
            }
        }
        return rows
    }

    @Test(arguments: [1, 2])
    func nearTablesOfLinesAndPolygonsEqualTheBruteForce(round: Int) throws {
        let seed = round == 2 ? SplitMix64.testSeed : UInt64(round)
        var rng = SplitMix64(seed: seed)
        let lefts = Self.features(30, &rng)
        var rights = Self.features(70, &rng)
        var distances = lefts.indices.map { _ in Double.random(in: 0...120_000, using: &rng) }
        // Plant, for every other left, a point exactly at its search distance: off the middle of an edge (the
        // interior minimum of a segment decides), or off the vertex for a point.
        var planted: [(left: Int, right: Int)] = []
        for i in lefts.indices where i % 2 == 0 {
            let from: Coordinate, azimuth: Double
            let coordinates = lefts[i].coordinates
            if coordinates.count >= 2 {
                let line = Self.geodesic.line(from: coordinates[0], to: coordinates[1])
                let middle = line.position(line.length / 2)
                from = middle.coordinate
                azimuth = middle.azimuth + (Bool.random(using: &rng) ? 90 : -90)
            } else {
                from = coordinates[0]
                azimuth = Double.random(in: -180...180, using: &rng)
            }
            let c = Self.geodesic.move(from, azimuth: azimuth, distance: Double.random(in: 100...50_000, using: &rng))
            rights.append(Self.point(normalizedLongitude(c.x), c.y))
            distances[i] = try Self.distance(lefts[i], rights.last!)
            planted.append((i, rights.count - 1))
        }
        let ours = try GeometryEngine.geodeticNearPairs(from: lefts, to: rights, distances: distances)
        let matrix = try lefts.map { l in try rights.map { try Self.distance(l, $0) } }
        let brute = Self.bruteNearTable(matrix, distances)
        #expect(ProximityGeodesicTests.sameTable(ours, brute),
                "seed \(seed): \(ProximityGeodesicTests.firstDifference(ours, brute))")
        let missed = planted.filter { p in !ours.contains { $0.leftIndex == p.left && $0.rightIndex == p.right } }
        #expect(missed.isEmpty, "seed \(seed): \(missed.count) features exactly at the distance missed")
        #expect(ours.count > planted.count + 10, "seed \(seed): too few pairs to test anything")
        #expect(ours.contains { $0.distance == 0 }, "seed \(seed): no pair meets")

        // Nearest: the brute force's k nearest, ties by index.
        for k in [1, 3] {
            let nearest = try GeometryEngine.geodeticNearest(from: lefts, to: rights, count: k)
            var expected: [NearPair] = []
            for (i, row) in matrix.enumerated() {
                for (rank, j) in row.indices.sorted(by: { (row[$0], $0) < (row[$1], $1) }).prefix(k).enumerated() {
                    expected.append(NearPair(leftIndex: i, rightIndex: j, distance: row[j], rank: rank + 1))
                }
            }
            #expect(nearest == expected, "seed \(seed), k \(k): \(ProximityGeodesicTests.firstDifference(nearest, expected))")
        }
    }
}
