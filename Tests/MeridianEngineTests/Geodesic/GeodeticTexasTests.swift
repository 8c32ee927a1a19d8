import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Geodesic vs planar buffers in EPSG:32038 (NAD27 / Texas North Central, Lambert conformal conic 2SP, US survey
/// feet) inside its area of use. In a conformal projection a short geodesic of length s maps to a nearly straight
/// line of length ∫k ds, so the geodesic buffer's vertices lie at the projected radius D·k̄ (k̄ the mean scale
/// factor along the radius, Simpson's rule of the point scale factor) and the planar buffer's vertices lie at the
/// geodesic distance D/k̄. The scale factor is computed here independently of PROJ from Snyder's formulas
/// (Map Projections — A Working Manual, USGS PP 1395, eqs. 14-15, 15-9, 15-10) for Clarke 1866 and the
/// zone's standard parallels 33°58′ and 32°08′; tests/python cross-checks it against pyproj's `get_factors`.
@Suite struct GeodeticTexasTests {
    /// Clarke 1866 (EPSG:7008): a = 6378206.4 m, b = 6356583.8 m.
    static let a = 6_378_206.4
    static let e2 = 1 - pow(6_356_583.8 / 6_378_206.4, 2)

    static func m(_ phi: Double) -> Double { cos(phi) / (1 - e2 * sin(phi) * sin(phi)).squareRoot() }
    static func t(_ phi: Double) -> Double {
        let e = e2.squareRoot()
        return tan(.pi / 4 - phi / 2) / pow((1 - e * sin(phi)) / (1 + e * sin(phi)), e / 2)
    }

    /// The point scale factor of the zone at a latitude (degrees).
    static func k(_ latitude: Double) -> Double {
        let p1 = (33 + 58.0 / 60) * .pi / 180, p2 = (32 + 8.0 / 60) * .pi / 180
        let n = (log(m(p1)) - log(m(p2))) / (log(t(p1)) - log(t(p2)))
        let f = m(p1) / (n * pow(t(p1), n))
        let phi = latitude * .pi / 180
        return n * f * pow(t(phi), n) / m(phi)
    }

    @Test func scaleFactorIsOneOnTheStandardParallels() {
        #expect(abs(Self.k(33 + 58.0 / 60) - 1) < 1e-12)
        #expect(abs(Self.k(32 + 8.0 / 60) - 1) < 1e-12)
        #expect(Self.k(33) < 1 && Self.k(34.5) > 1)
    }

    @Test func geodesicAndPlanarBuffersDifferByTheScaleFactor() throws {
        let sr = try SpatialReference(code: "EPSG:32038")
        let nad27 = try SpatialReference(code: "EPSG:4267")
        let clarke = Geodesic(sr.ellipsoid)
        #expect(abs(sr.ellipsoid.semiMajorAxis - Self.a) < 1e-6)
        let usFoot = LinearUnit.usSurveyFeet.metersPerUnit
        var worstGeodesic = 0.0, worstPlanar = 0.0, largestDifference = 0.0
        for (lon, lat) in [(-97.5, 32.9), (-102.9, 31.8), (-94.2, 34.5), (-99.0, 33.3)] {
            for d in [16_093.44, 50_000.0] {
                let c = try GeometryEngine.project(Point(x: lon, y: lat, spatialReference: nad27), into: sr)
                let ll = Coordinate(x: lon, y: lat)
                // Geodesic buffer, written in EPSG:32038: projected radius = D·k̄.
                let geodesic = try GeometryEngine.geodeticBuffer(around: c, distance: d)
                #expect(geodesic.spatialReference == sr)
                for v in geodesic.parts[0].shell {
                    let radius = hypot(v.x - c.x, v.y - c.y) * usFoot
                    let vll = try GeometryEngine.project(Point(v, spatialReference: sr), into: nad27)
                    let mid = clarke.line(from: ll, to: vll.coordinate)
                    let midLat = mid.position(mid.length / 2).coordinate.y
                    let kBar = (Self.k(lat) + 4 * Self.k(midLat) + Self.k(vll.y)) / 6
                    worstGeodesic = max(worstGeodesic, abs(radius - d * kBar) / d)
                    largestDifference = max(largestDifference, abs(radius - d))
                }
                // Planar buffer of radius D (in feet): geodesic distance of its vertices = D/k̄.
                let planar = try GeometryEngine.buffer(around: c, distance: d / usFoot)
                for v in planar.parts[0].shell {
                    let s = try GeometryEngine.geodeticDistance(from: c, to: Point(v, spatialReference: sr)).distance
                    let vll = try GeometryEngine.project(Point(v, spatialReference: sr), into: nad27)
                    let mid = clarke.line(from: ll, to: vll.coordinate)
                    let midLat = mid.position(mid.length / 2).coordinate.y
                    let kBar = (Self.k(lat) + 4 * Self.k(midLat) + Self.k(vll.y)) / 6
                    worstPlanar = max(worstPlanar, abs(s * kBar - d) / d)
                }
            }
        }
        print(String(format: "GEODESIC VS EPSG:32038: worst |r − D·k̄|/D %.2e (geodesic buffer), |s·k̄ − D|/D %.2e (planar buffer); largest |r − D| %.3f m",
                     worstGeodesic, worstPlanar, largestDifference))
        // Second-order terms neglected by r = D·k̄: the curvature of the geodesic's image (≈ (D/R)²·tan φ/8 ≈ 5e-7
        // for D = 50 km) and Simpson's error on k (< 1e-9): bound 1e-6 of D.
        #expect(worstGeodesic < 1e-6)
        #expect(worstPlanar < 1e-6)
        // The difference itself is what the scale factor allows: at most D·max|k − 1| over the latitudes the buffers
        // reach (31.3°…35.1°), about 3e-4 of D (15 m at 50 km).
        let kRange = stride(from: 31.3, through: 35.1, by: 0.01).map { abs(Self.k($0) - 1) }.max()!
        #expect(largestDifference <= 50_000 * kRange)
        #expect(largestDifference > 0.5 * 50_000 * kRange * 0.5)  // and it is really there (not a planar copy)
    }
}
