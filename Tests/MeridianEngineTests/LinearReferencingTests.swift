import CGEOS
import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// `point(along:distance:)` and `fractionAlong(line:point:tolerance:)` on hand-computed lines: an L of legs 3 and 4
/// (length 7) and a two-part line. Values are exact in binary (multiples of 1/8 and 3-4-5 triangles), so results are
/// compared exactly or to 1 ulp of the length. Randomised lines are compared with GEOS's own linear referencing
/// (`GEOSInterpolate_r`, `GEOSProject_r`: JTS's LengthIndexedLine, what shapely's `interpolate` and
/// `line_locate_point` call), read by GEOS from WKT so that Meridian's conversion is not involved.
@Suite("GeometryEngine: linear referencing")
struct LinearReferencingTests {
    static let sr = SpatialReference.webMercator
    static let ell = Polyline(parts: [[Coordinate(x: 0, y: 0), Coordinate(x: 3, y: 0), Coordinate(x: 3, y: 4)]],
                              spatialReference: sr)
    static let twoParts = Polyline(parts: [[Coordinate(x: 0, y: 0), Coordinate(x: 2, y: 0)],
                                           [Coordinate(x: 10, y: 0, z: 5), Coordinate(x: 10, y: 2, z: 9)]],
                                   spatialReference: sr)

    @Test func pointAlong() throws {
        let at = { (line: Polyline, d: Double) throws -> Coordinate in try #require(try GeometryEngine.point(along: line, distance: d)).coordinate }
        #expect(try at(Self.ell, 1.5) == Coordinate(x: 1.5, y: 0))
        #expect(try at(Self.ell, 5) == Coordinate(x: 3, y: 2))
        #expect(try at(Self.ell, -1) == Coordinate(x: 0, y: 0))     // clamped to the start
        #expect(try at(Self.ell, 7.5) == Coordinate(x: 3, y: 4))    // clamped to the end
        #expect(try at(Self.twoParts, 2) == Coordinate(x: 2, y: 0)) // the end of the earlier part
        #expect(try at(Self.twoParts, 3) == Coordinate(x: 10, y: 1, z: 7)) // z interpolated
        #expect(try GeometryEngine.point(along: Polyline(parts: [], spatialReference: Self.sr), distance: 1) == nil)
        #expect(throws: EngineError.self) { _ = try GeometryEngine.point(along: Self.ell, distance: .nan) }
    }

    @Test func fractionAlong() throws {
        let f = { (x: Double, y: Double, tolerance: Double) throws -> Double? in
            try GeometryEngine.fractionAlong(line: Self.ell, point: Point(x: x, y: y, spatialReference: Self.sr), tolerance: tolerance)
        }
        #expect(try f(1.5, 1, 1) == 1.5 / 7)          // 1 from the first leg, within the tolerance
        #expect(try f(1.5, 1, 0.5) == nil)            // farther than the tolerance
        #expect(try f(4, 2, -1) == 5.0 / 7)           // any distance, between the ends
        #expect(try f(-1, 0, -1) == nil)              // beyond the start
        #expect(try f(3, 5, -1) == nil)               // beyond the end
        #expect(try f(3, 5, 2) == 1)                  // beyond the end but within the tolerance
        #expect(try f(0, 0, 0) == 0)
        // Two parts, total length 4: the second part starts at 2.
        let second = try GeometryEngine.fractionAlong(line: Self.twoParts, point: Point(x: 11, y: 1, spatialReference: Self.sr), tolerance: 1)
        #expect(second == 3.0 / 4)
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.fractionAlong(line: Self.ell, point: Point(x: 0, y: 0, spatialReference: .wgs84), tolerance: 1)
        }
    }

    /// The two operations are inverse: the point at a fraction's distance lies on the line, and locating it gives
    /// the fraction back (to a few ulps of the length).
    @Test func roundTrip() throws {
        for k in 0...56 {
            let d = Double(k) / 8
            let p = try #require(try GeometryEngine.point(along: Self.ell, distance: d))
            let back = try #require(try GeometryEngine.fractionAlong(line: Self.ell, point: p, tolerance: 1e-12))
            #expect(abs(back * 7 - d) <= 4 * 7.0.ulp, "\(d)")
        }
    }

    /// 200 random lines of 1–3 parts and 2–12 vertices in a 1000-unit square: the point at a random distance and
    /// the fraction of a random point's nearest location, against GEOS. Tolerance 1e-9 units (1e-12 relative to
    /// the coordinates): both sum the same segment lengths in the same order, differing only in rounding.
    @Test func randomLinesAgainstGEOS() throws {
        var rng = SplitMix64(seed: 20261201)
        let handle = try #require(GEOS_init_r())
        defer { GEOS_finish_r(handle) }
        let reader = try #require(GEOSWKTReader_create_r(handle))
        defer { GEOSWKTReader_destroy_r(handle, reader) }
        for _ in 0..<200 {
            let parts = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                (0..<Int.random(in: 2...12, using: &rng)).map { _ in
                    Coordinate(x: Double.random(in: 0...1000, using: &rng), y: Double.random(in: 0...1000, using: &rng))
                }
            }
            let line = Polyline(parts: parts, spatialReference: Self.sr)
            let wkt = "MULTILINESTRING (" + parts.map { "(" + $0.map { "\($0.x) \($0.y)" }.joined(separator: ", ") + ")" }
                .joined(separator: ", ") + ")"
            let g = try #require(GEOSWKTReader_read_r(handle, reader, wkt))
            defer { GEOSGeom_destroy_r(handle, g) }
            var length = 0.0
            #expect(GEOSLength_r(handle, g, &length) == 1)
            let d = Double.random(in: 0...length, using: &rng)
            let ours = try #require(try GeometryEngine.point(along: line, distance: d))
            let theirs = try #require(GEOSInterpolate_r(handle, g, d))
            defer { GEOSGeom_destroy_r(handle, theirs) }
            var (x, y) = (0.0, 0.0)
            GEOSGeomGetX_r(handle, theirs, &x)
            GEOSGeomGetY_r(handle, theirs, &y)
            #expect(abs(ours.x - x) <= 1e-9 && abs(ours.y - y) <= 1e-9, "\(wkt) at \(d)")
            let q = Coordinate(x: Double.random(in: -100...1100, using: &rng), y: Double.random(in: -100...1100, using: &rng))
            let query = try #require(GEOSGeom_createPointFromXY_r(handle, q.x, q.y))
            defer { GEOSGeom_destroy_r(handle, query) }
            let along = GEOSProject_r(handle, g, query)
            let fraction = try #require(try GeometryEngine.fractionAlong(line: line, point: Point(q, spatialReference: Self.sr),
                                                                       tolerance: 1e6))
            #expect(abs(fraction * length - along) <= 1e-9, "\(wkt) locating \(q)")
        }
    }
}
