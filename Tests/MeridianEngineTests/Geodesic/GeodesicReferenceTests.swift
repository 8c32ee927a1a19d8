import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// GeographicLib's reference data, carried in the repository (`Tests/Fixtures/geodesic`).
let geodesicReference = ReferenceData.root.appendingPathComponent("geodesic")

/// The difference of two angles in degrees, in [0, 180].
func angleGap(_ a: Double, _ b: Double) -> Double {
    let d = abs((a - b).truncatingRemainder(dividingBy: 360))
    return min(d, 360 - d)
}

/// PROJ's geodesic routines against GeographicLib's own test data: the 20 test cases of its test suite and the
/// 100-line sample of GeodTest (Karney's 500,000-geodesic validation set, which includes nearly antipodal,
/// short, polar, meridional and equatorial geodesics). Tolerances: 1e-6 m and 1e-9° (the brief's harness tolerance;
/// GeographicLib itself is good to ~15 nm), areas 0.1 m² (GeographicLib's own test tolerance for S12).
@Suite struct GeodesicReferenceTests {
    let wgs84 = Geodesic(.wgs84)

    struct Case {
        var lat1, lon1, azi1, lat2, lon2, azi2, s12, s12Area: Double
    }

    static func twentyCases() throws -> [Case] {
        let text = try String(contentsOf: geodesicReference.appendingPathComponent("geographiclib_20_testcases_WGS84.csv"),
                              encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let v = line.split(separator: ",").map { Double($0)! }
            return Case(lat1: v[0], lon1: v[1], azi1: v[2], lat2: v[3], lon2: v[4], azi2: v[5], s12: v[6], s12Area: v[11])
        }
    }

    static func geodTest() throws -> [Case] {
        let text = try String(contentsOf: geodesicReference.appendingPathComponent("GeodTest-100.dat"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let v = line.split(separator: " ").map { Double($0)! }
            return Case(lat1: v[0], lon1: v[1], azi1: v[2], lat2: v[3], lon2: v[4], azi2: v[5], s12: v[6], s12Area: v[9])
        }
    }

    @Test func referenceFilesAreComplete() throws {
        #expect(try Self.twentyCases().count == 20)
        #expect(try Self.geodTest().count == 100)
    }

    @Test(arguments: ["20", "GeodTest"])
    func direct(set: String) throws {
        let cases = set == "20" ? try Self.twentyCases() : try Self.geodTest()
        for c in cases {
            let d = wgs84.direct(latitude: c.lat1, longitude: c.lon1, azimuth: c.azi1, distance: c.s12, unroll: true)
            #expect(abs(d.latitude - c.lat2) < 1e-9, "lat \(c)")
            // Position error on the ellipsoid ≤ 1e-6 m.
            let miss = wgs84.inverse(latitude1: d.latitude, longitude1: d.longitude, latitude2: c.lat2, longitude2: c.lon2)
            #expect(miss.distance < 1e-6, "position \(c)")
            // Longitude and azimuth to 1e-9°, except within 0.01° of a pole, where both are ill-conditioned (a
            // 2-nanometre position error there turns the longitude by 1e-9°): there the longitude is compared as
            // arc along the parallel (Δλ·cos φ ≤ 1e-9°) and the azimuth must turn by the same angle as the longitude
            // (a rotation about the pole, not an error of the geodesic).
            if abs(c.lat2) < 89.99 {
                #expect(angleGap(d.longitude, c.lon2) < 1e-9, "lon \(c)")
                #expect(angleGap(d.azimuth, c.azi2) < 1e-9, "azi \(c)")
            } else {
                #expect(angleGap(d.longitude, c.lon2) * cos(c.lat2 * .pi / 180) < 1e-9, "lon \(c)")
                #expect(abs(angleGap(d.azimuth, c.azi2) - angleGap(d.longitude, c.lon2)) < 1e-9, "azi \(c)")
            }
        }
    }

    @Test(arguments: ["20", "GeodTest"])
    func inverse(set: String) throws {
        let cases = set == "20" ? try Self.twentyCases() : try Self.geodTest()
        for c in cases {
            let i = wgs84.inverse(latitude1: c.lat1, longitude1: c.lon1, latitude2: c.lat2, longitude2: c.lon2)
            #expect(abs(i.distance - c.s12) < 1e-6, "s12 \(c)")
            // Azimuths are only defined when the geodesic is unique (not for the coincident/antipodal degenerate rows,
            // where GeographicLib picks one of several shortest geodesics: the distance is what is tested there).
            if c.s12 > 0 && abs(abs(c.lat1) - 90) > 1e-9 && abs(abs(c.lat2) - 90) > 1e-9 {
                #expect(angleGap(i.azimuth1, c.azi1) < 1e-9 || abs(c.lat1 + c.lat2) < 1e-6, "azi1 \(c)")
                #expect(angleGap(i.azimuth2, c.azi2) < 1e-9 || abs(c.lat1 + c.lat2) < 1e-6, "azi2 \(c)")
            }
        }
    }

    /// S12 is the area between the geodesic and the equator; the area of the quadrilateral
    /// (lat1, lon1) → (lat2, lon2) → (0, lon2) → (0, lon1) along geodesics and the equator is S12 as well
    /// (the meridian/equator edges add none), so polygonArea reproduces it.
    @Test(arguments: ["20", "GeodTest"])
    func area(set: String) throws {
        let cases = set == "20" ? try Self.twentyCases() : try Self.geodTest()
        for c in cases {
            // A polygon with edges along the meridians and the equator: valid when each piece is shorter than a
            // half circle (GeodTest's antipodal rows are skipped: their meridian closing edges are ambiguous).
            let d = wgs84.direct(latitude: c.lat1, longitude: c.lon1, azimuth: c.azi1, distance: c.s12, unroll: true)
            guard abs(d.longitude - c.lon1) < 170, c.s12 < 1.5e7 else { continue }
            let direct = GeometryEngine.ringSignedArea(wgs84, lat1: c.lat1, lon1: c.lon1, azi1: c.azi1, s12: c.s12)
            // Our ring runs 1 → 2 → equator, the reverse of S12's counter-clockwise quadrilateral.
            #expect(abs(-direct - c.s12Area) < 0.1, "S12 \(c): \(-direct) vs \(c.s12Area)")
        }
    }
}

extension GeometryEngine {
    /// The area S12 between a geodesic and the equator, by PROJ's polygon routine on the quadrilateral through the
    /// geodesic's ends and their feet on the equator (test helper).
    static func ringSignedArea(_ g: Geodesic, lat1: Double, lon1: Double, azi1: Double, s12: Double) -> Double {
        let end = g.direct(latitude: lat1, longitude: lon1, azimuth: azi1, distance: s12, unroll: true)
        // Densify the geodesic so that each polygon edge is the same geodesic piece.
        let line = g.line(from: Coordinate(x: lon1, y: lat1), to: Coordinate(x: end.longitude, y: end.latitude))
        var ring: [Coordinate] = []
        for k in 0...8 { ring.append(line.position(line.length * Double(k) / 8).coordinate) }
        ring.append(Coordinate(x: end.longitude, y: 0))
        ring.append(Coordinate(x: lon1, y: 0))
        return g.polygonArea(ring, signed: true).area
    }
}
