import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// `geodeticNearestCoordinate(in:to:maxDeviation:deviationUnit:)` against an exhaustive search: every edge's
/// geodesic sampled every 500 m, then every 0.5 m within 1 km of the best sample (Karney's `geod_direct`/`geod_inverse`
/// through the same `Geodesic`, but no golden-section search). The brute force can only overestimate the minimum
/// (by at most (0.25 m)² / (2 d) ≈ 3e-6 m at d = 10 km), and Meridian's answer can only be at or above the true
/// minimum, so |ours − brute| ≤ 1 mm is required (the 1 cm default maxDeviation bounds the location along the edge;
/// the distance is flat near its minimum).
@Suite("GeometryEngine: geodetic nearest coordinate")
struct GeodeticNearestCoordinateTests {
    static func bruteForce(_ parts: [[Coordinate]], _ q: Coordinate, _ g: Geodesic) -> Double {
        var best = Double.infinity
        for part in parts {
            for i in 0..<(part.count - 1) {
                let edge = g.inverse(part[i], part[i + 1])
                var coarse = (s: 0.0, d: Double.infinity)
                for s in stride(from: 0.0, through: edge.distance, by: 500) {
                    let d = g.distance(q, g.move(part[i], azimuth: edge.azimuth1, distance: s))
                    if d < coarse.d { coarse = (s, d) }
                }
                best = min(best, coarse.d, g.distance(q, part[i + 1]))
                for s in stride(from: max(0, coarse.s - 1000), through: min(edge.distance, coarse.s + 1000), by: 0.5) {
                    best = min(best, g.distance(q, g.move(part[i], azimuth: edge.azimuth1, distance: s)))
                }
            }
        }
        return best
    }

    /// A three-edge line across Texas (edges of 300–600 km) and 40 seeded random points within 3° of it.
    @Test func againstExhaustiveSearch() throws {
        let vertices = [Coordinate(x: -103, y: 31), Coordinate(x: -99, y: 34.5), Coordinate(x: -96, y: 30),
                        Coordinate(x: -94, y: 33)]
        let line = Polyline(parts: [vertices], spatialReference: .wgs84)
        let geodesic = Geodesic(SpatialReference.wgs84.ellipsoid)
        var rng = SplitMix64(seed: 11)
        for _ in 0..<40 {
            let q = Coordinate(x: Double.random(in: -106 ... -91, using: &rng), y: Double.random(in: 28...37, using: &rng))
            let ours = try #require(try GeometryEngine.geodeticNearestCoordinate(in: line, to: Point(q, spatialReference: .wgs84)))
            let brute = Self.bruteForce([vertices], q, geodesic)
            #expect(abs(ours.distance - brute) <= 1e-3, "\(q): \(ours.distance) vs \(brute)")
            // The location reported is at the distance reported.
            #expect(abs(geodesic.distance(q, ours.coordinate.coordinate) - ours.distance) <= 1e-6)
        }
    }

    /// A polygon in EPSG:32038 (US survey feet): a point inside is at distance 0; one outside gets a location in
    /// the polygon's own spatial reference whose geodesic distance (measured in WGS 84's NAD27 base) matches.
    @Test func projectedPolygonInsideAndOutside() throws {
        let texas = try SpatialReference(wkid: 32038)
        let ring = [Coordinate(x: 2_000_000, y: 300_000), Coordinate(x: 2_400_000, y: 300_000),
                    Coordinate(x: 2_400_000, y: 600_000), Coordinate(x: 2_000_000, y: 600_000)]
        let polygon = Polygon(shell: ring, spatialReference: texas)
        let inside = try #require(try GeometryEngine.geodeticNearestCoordinate(
            in: polygon, to: Point(x: 2_100_000, y: 400_000, spatialReference: texas)))
        #expect(inside.distance == 0 && inside.coordinate.x == 2_100_000)
        let outsidePoint = Point(x: 2_500_000, y: 450_000, spatialReference: texas)
        let outside = try #require(try GeometryEngine.geodeticNearestCoordinate(in: polygon, to: outsidePoint))
        #expect(outside.coordinate.spatialReference == texas)
        // The east edge, x = 2,400,000 ft: the nearest location lies on it (within 1 ft of the straight edge in the
        // projection, which is nearly a geodesic over 300,000 ft) and about 100,000 ft = 30.48 km away.
        #expect(abs(outside.coordinate.x - 2_400_000) < 1 && outside.partIndex == 0)
        #expect(abs(outside.distance - 100_000 * 1200.0 / 3937.0) < 0.01 * 30_480)
        let measured = try GeometryEngine.geodeticDistance(from: outsidePoint, to: outside.coordinate)
        #expect(abs(measured.distance - outside.distance) < 1e-3)
    }

    @Test func pointsEmptiesAndErrors() throws {
        let points = Multipoint([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 1)], spatialReference: .wgs84)
        let near = try #require(try GeometryEngine.geodeticNearestCoordinate(in: points, to: Point(x: 0.9, y: 0.8, spatialReference: .wgs84)))
        #expect(near.partIndex == 1 && near.coordinate.x == 1)
        #expect(try GeometryEngine.geodeticNearestCoordinate(in: Multipoint([], spatialReference: .wgs84),
                                                             to: Point(x: 0, y: 0, spatialReference: .wgs84)) == nil)
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.geodeticNearestCoordinate(in: points, to: Point(x: 0, y: 0, spatialReference: .webMercator))
        }
    }
}
