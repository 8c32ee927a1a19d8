import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// Property tests of geodesic point buffers over random centres worldwide (seed fixed), deliberately including
/// |lat| > 89°, longitudes within 0.01° of ±180° and the exact poles and antimeridian; radii log-uniform from 1 m to
/// 10,000 km. Tolerances: vertices within 1 mm of the requested distance (the contract), every sampled edge point
/// within maxDeviation (the contract, default 0.2 % of the distance), each part valid for GEOS, the poles in or out
/// as the distance says, and the area (edges as drawn) within perimeter × maxDeviation of the true circle's area
/// (every boundary point is within maxDeviation of the circle; in longitude/latitude a chord can bulge outwards
/// as well as inwards), plus 1e-6 of it (the reference circle's own chord error) plus 1 m² (PROJ's polygon area sums one term per edge of the order of a
/// hemisphere's area, 2.5e14 m², each rounded to ~1e-16 relative: for 1 m circles at the poles, with tens of
/// thousands of densified edges, this rounding reaches 0.05 m²).
@Suite struct GeodeticBufferPointTests {
    static func centres() -> [(Coordinate, Double)] {
        var rng = SplitMix64(seed: 20_240_611)
        var result: [(Coordinate, Double)] = []
        func radius() -> Double { pow(10, Double.random(in: 0...7, using: &rng)) }  // 1 m … 10,000 km
        for i in 0..<84 {
            let u = Double.random(in: 0..<1, using: &rng)
            var lat = asin(2 * u - 1) * 180 / .pi
            var lon = Double.random(in: -180..<180, using: &rng)
            switch i % 4 {
            case 1: lat = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 89...90, using: &rng)
            case 2: lon = (Bool.random(using: &rng) ? 1 : -1) * (180 - Double.random(in: 0...0.01, using: &rng))
            case 3:
                lat = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 89...90, using: &rng)
                lon = (Bool.random(using: &rng) ? 1 : -1) * (180 - Double.random(in: 0...0.01, using: &rng))
            default: break
            }
            result.append((Coordinate(x: lon, y: lat), radius()))
        }
        // Exact poles and antimeridian, small and large.
        for c in [Coordinate(x: 0, y: 90), Coordinate(x: 0, y: -90), Coordinate(x: 180, y: 0), Coordinate(x: -180, y: 0),
                  Coordinate(x: 180, y: 90), Coordinate(x: -180, y: -45)] {
            for r in [1.0, 50_000, 3_000_000] { result.append((c, r)) }
        }
        return result
    }

    @Test func randomCentresWorldwide() throws {
        var stats = BufferStats()
        var worstArea = 0.0
        let g = BufferChecks.wgs84
        for (i, (c, r)) in Self.centres().enumerated() {
            let label = String(format: "#%d centre (%.9f, %.9f) r %.3f m", i, c.x, c.y, r)
            let maxDeviation = max(0.002 * r, 1e-4)
            let b = try GeometryEngine.geodeticBuffer(around: Point(latitude: c.y, longitude: c.x), distance: r)
            #expect(!b.parts.isEmpty, "\(label): empty")
            try BufferChecks.check(b, required: r, maxDeviation: maxDeviation, label: label, stats: &stats) { q in
                g.distance(c, q)
            }
            // The poles.
            for pole in [90.0, -90.0] {
                let d = g.distance(c, Coordinate(x: 0, y: pole))
                let touches = try GeometryEngine.isGeometry(b, intersecting: Point(latitude: pole, longitude: 0))
                if d < r - maxDeviation { #expect(touches, "\(label): pole \(pole) should be inside") }
                if d > r { #expect(!touches, "\(label): pole \(pole) should be outside") }
            }
            // Never a world-spanning polygon by mistake: a buffer that contains neither pole and is smaller than
            // 1000 km spans less than 180° of longitude in each part.
            if r < 1_000_000, g.distance(c, Coordinate(x: 0, y: 90)) > r, g.distance(c, Coordinate(x: 0, y: -90)) > r {
                for part in b.parts {
                    let xs = part.shell.map(\.x)
                    #expect(xs.max()! - xs.min()! < 180, "\(label): a part spans \(xs.max()! - xs.min()!)° of longitude")
                }
            }
            // Area.
            let truth = BufferChecks.circleArea(center: c, radius: r)
            let area = try BufferChecks.drawnArea(b)
            let deficit = truth.area - area
            #expect(deficit <= truth.perimeter * maxDeviation, "\(label): area \(area) vs \(truth.area)")
            #expect(deficit >= -truth.perimeter * maxDeviation - 1e-6 * truth.area - 1, "\(label): area \(area) exceeds \(truth.area)")
            if truth.area > 1e6 { worstArea = max(worstArea, abs(deficit) / (truth.perimeter * maxDeviation)) }
        }
        print("GEODESIC POINT BUFFERS: \(stats); worst |area − true area| / (perimeter × maxDeviation) for areas > 1 km² \(worstArea)")
        // "No more than needed": greedy longest chords leave few removable vertices (one per mandatory split at
        // most, e.g. the antimeridian crossings and the curve's last chord).
        #expect(Double(stats.removable) <= 0.05 * Double(stats.removableCandidates), "\(stats)")
    }

    /// A tighter maxDeviation gives the same guarantees with more vertices (≈ √ of the ratio).
    @Test func explicitMaxDeviation() throws {
        var stats = BufferStats()
        let c = Coordinate(x: 12.5, y: 41.9)
        let loose = try GeometryEngine.geodeticBuffer(around: Point(latitude: c.y, longitude: c.x), distance: 100_000,
                                                      maxDeviation: 400)
        let tight = try GeometryEngine.geodeticBuffer(around: Point(latitude: c.y, longitude: c.x), distance: 100,
                                                      distanceUnit: .kilometers, maxDeviation: 0.004)
        try BufferChecks.check(tight, required: 100_000, maxDeviation: 4, label: "tight", stats: &stats) {
            BufferChecks.wgs84.distance(c, $0)
        }
        let ratio = Double(tight.vertexCount) / Double(loose.vertexCount)
        #expect(ratio > 7 && ratio < 13, "vertex ratio \(ratio) for a 100× tighter deviation (expected ≈ 10)")
    }

    @Test func antimeridianSplitAndPoleEdge() throws {
        // Centred on the antimeridian: two parts, each touching ±180 with vertices exactly on it.
        let b = try GeometryEngine.geodeticBuffer(around: Point(latitude: -17, longitude: 180), distance: 200_000)
        #expect(b.parts.count == 2)
        #expect(Set(b.parts.map { $0.shell.contains { $0.x == 180 } }) == [true, false] || b.parts.allSatisfy { p in
            p.shell.contains { abs($0.x) == 180 } })
        for part in b.parts {
            let xs = part.shell.map(\.x)
            #expect(xs.allSatisfy { $0 >= 0 } || xs.allSatisfy { $0 <= 0 })
        }
        // Around the north pole: one part with an edge along +90 from -180 to 180.
        let n = try GeometryEngine.geodeticBuffer(around: Point(latitude: 88, longitude: 30), distance: 500_000)
        #expect(n.parts.count == 1)
        #expect(n.parts[0].shell.contains(Coordinate(x: 180, y: 90)) && n.parts[0].shell.contains(Coordinate(x: -180, y: 90)))
    }

    @Test func largestDistances() throws {
        let g = BufferChecks.wgs84
        var stats = BufferStats()
        for (c, r) in [(Coordinate(x: 0, y: 0), 19_000_000.0), (Coordinate(x: 100, y: 60), 15_000_000),
                       (Coordinate(x: -179.999, y: 89.5), 19_900_000)] {
            let b = try GeometryEngine.geodeticBuffer(around: Point(latitude: c.y, longitude: c.x), distance: r)
            try BufferChecks.check(b, required: r, maxDeviation: 0.002 * r, label: "r \(r)", stats: &stats) {
                g.distance(c, $0)
            }
            let truth = BufferChecks.circleArea(center: c, radius: r)
            let area = try BufferChecks.drawnArea(b)
            #expect(abs(truth.area - area) <= truth.perimeter * 0.002 * r + 1e-6 * truth.area)
        }
        print("GEODESIC LARGE BUFFERS: \(stats)")
        // Beyond 99.9 % of half the meridian: a clear error, not a wrong polygon.
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodeticBuffer(around: Point(latitude: 0, longitude: 0), distance: 20_000_000)
        }
        do {
            _ = try GeometryEngine.geodeticBuffer(around: Point(latitude: 0, longitude: 0), distance: 20_100, distanceUnit: .kilometers)
            Issue.record("no error")
        } catch {
            #expect(error.description.contains("half the meridian"))
        }
    }

    @Test func multipointUnionAcrossTheAntimeridianAndPole() throws {
        var stats = BufferStats()
        let g = BufferChecks.wgs84
        let points = [Coordinate(x: 179.5, y: 10), Coordinate(x: -179.6, y: 10.3), Coordinate(x: 179.9, y: 11.2),
                      Coordinate(x: 0, y: 89.2), Coordinate(x: 120, y: 88.9), Coordinate(x: -100, y: 89.1)]
        let mp = Multipoint(points, spatialReference: .wgs84)
        let r = 150_000.0
        let unioned = try GeometryEngine.geodeticBuffer(around: [mp], distances: [r], shouldUnion: true)
        let single = try GeometryEngine.geodeticBuffer(around: mp, distance: r)
        for b in [unioned[0], single] {
            try BufferChecks.check(b, required: r, maxDeviation: 0.002 * r, label: "multipoint", stats: &stats) { q in
                points.map { g.distance($0, q) }.min()!
            }
        }
        // Separate points unioned: the same result.
        let each = try GeometryEngine.geodeticBuffer(around: points.map { Point($0, spatialReference: .wgs84) },
                                                     distances: [r], shouldUnion: true)[0]
        try BufferChecks.check(each, required: r, maxDeviation: 0.002 * r, label: "points union", stats: &stats) { q in
            points.map { g.distance($0, q) }.min()!
        }
        // Two parts on either side of ±180 plus one polar part.
        #expect(each.parts.count == 3, "parts: \(each.parts.count)")
        print("GEODESIC MULTIPOINT UNION: \(stats)")
    }
}
