import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Public measurement API against GeographicLib's published values and closed forms.
@Suite struct GeodeticMeasurementTests {
    @Test func distanceMatchesGeographicLibTestCases() throws {
        for c in try GeodesicReferenceTests.twentyCases() {
            let r = try GeometryEngine.geodeticDistance(from: Point(latitude: c.lat1, longitude: c.lon1),
                                                        to: Point(latitude: c.lat2, longitude: normalizedLongitude(c.lon2)))
            #expect(abs(r.distance - c.s12) < 1e-6)
            #expect(angleGap(r.azimuth1, c.azi1) < 1e-9 && angleGap(r.azimuth2, c.azi2) < 1e-9)
        }
        // In kilometres, and from a projected point (Web Mercator on WGS84): same geodesic.
        let km = try GeometryEngine.geodeticDistance(from: Point(latitude: 0, longitude: 0), to: Point(latitude: 0, longitude: 1),
                                                     distanceUnit: .kilometers)
        #expect(abs(km.distance - 111.31949079327357) < 1e-9)  // a·π/180 along the equator
        let mp = try GeometryEngine.project(Point(latitude: 0, longitude: 0), into: .webMercator)
        let m = try GeometryEngine.geodeticDistance(from: mp, to: Point(latitude: 0, longitude: 1))
        #expect(abs(m.distance - 111_319.49079327357) < 1e-6)
    }

    @Test func lengthAndArea() throws {
        // The equator quarter: length a·π/2; the octant (0,0)-(90,0)-(0,90): area = ellipsoid area / 8.
        let g = Geodesic(.wgs84)
        let quarter = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 45, y: 0), Coordinate(x: 90, y: 0)], spatialReference: .wgs84)
        #expect(abs(try GeometryEngine.geodeticLength(of: quarter) - 6_378_137 * .pi / 2) < 1e-6)
        let octant = [Coordinate(x: 0, y: 0), Coordinate(x: 90, y: 0), Coordinate(x: 0, y: 90)]
        let ccw = Polygon(shell: octant, spatialReference: .wgs84)
        let cw = Polygon(shell: octant.reversed(), spatialReference: .wgs84)
        let eighth = g.ellipsoidArea / 8
        #expect(abs(try GeometryEngine.geodeticArea(of: ccw) - eighth) < 1)
        #expect(abs(try GeometryEngine.geodeticArea(of: cw) - eighth) < 1)  // orientation does not matter
        // GeographicLib's documented example: perimeter of the octant 30,022,685 m (geod_polygon_compute doc: 3 30022685.)
        #expect(abs(try GeometryEngine.geodeticLength(of: ccw) - 30_022_685) < 1)
        // A hole is subtracted whatever its orientation.
        let outer = [Coordinate(x: 0, y: 0), Coordinate(x: 2, y: 0), Coordinate(x: 2, y: 2), Coordinate(x: 0, y: 2)]
        let inner = [Coordinate(x: 0.5, y: 0.5), Coordinate(x: 1.5, y: 0.5), Coordinate(x: 1.5, y: 1.5), Coordinate(x: 0.5, y: 1.5)]
        let a = try GeometryEngine.geodeticArea(of: Polygon(shell: outer, spatialReference: .wgs84))
        let h = try GeometryEngine.geodeticArea(of: Polygon(shell: inner, spatialReference: .wgs84))
        let withHole = try GeometryEngine.geodeticArea(of: Polygon(shell: outer, holes: [inner], spatialReference: .wgs84))
        let withReversedHole = try GeometryEngine.geodeticArea(of: Polygon(shell: outer, holes: [inner.reversed()], spatialReference: .wgs84))
        #expect(abs(withHole - (a - h)) < 1e-3 && abs(withReversedHole - (a - h)) < 1e-3)
        // Square kilometres.
        #expect(abs(try GeometryEngine.geodeticArea(of: ccw, unit: .squareKilometers) - eighth / 1e6) < 1e-6)
        // A polar cap given in RFC 7946 form (edge along -90): the cap south of -80°, more than... its area by formula.
        let cap = Polygon(shell: [Coordinate(x: -180, y: -90), Coordinate(x: 180, y: -90), Coordinate(x: 180, y: -80),
                                  Coordinate(x: 90, y: -80), Coordinate(x: 0, y: -80), Coordinate(x: -90, y: -80), Coordinate(x: -180, y: -80)],
                          spatialReference: .wgs84)
        let capArea = try GeometryEngine.geodeticArea(of: cap)
        #expect(capArea > 0 && capArea < g.ellipsoidArea / 2)
        // The rest of the world (everything north of that ring, given as a lon/lat band): total − cap.
        let band = Polygon(shell: [Coordinate(x: -180, y: -80), Coordinate(x: -90, y: -80), Coordinate(x: 0, y: -80),
                                   Coordinate(x: 90, y: -80), Coordinate(x: 180, y: -80), Coordinate(x: 180, y: 90), Coordinate(x: -180, y: 90)],
                           spatialReference: .wgs84)
        #expect(abs(try GeometryEngine.geodeticArea(of: band) + capArea - g.ellipsoidArea) < 1)
    }

    @Test func densifyAndMove() throws {
        let line = Polyline([Coordinate(x: 170, y: 50), Coordinate(x: -170, y: 50)], spatialReference: .wgs84)
        let l: Polyline = try GeometryEngine.geodeticDensify(line, maxSegmentLength: 100, lengthUnit: .kilometers)
        let g = Geodesic(.wgs84)
        let pieces = zip(l.parts[0], l.parts[0].dropFirst()).map { g.distance($0, $1) }
        #expect(pieces.allSatisfy { $0 <= 100_000 + 1e-6 })
        #expect(abs(pieces.reduce(0, +) - (try GeometryEngine.geodeticLength(of: line))) < 1e-6)
        // New vertices lie on the geodesic (crossing the antimeridian, the short way, north of 50°).
        #expect(l.parts[0].dropFirst().dropLast().allSatisfy { abs($0.x) > 170 && $0.y > 50 })
        // Move: GeographicLib test case 1 as a direct problem.
        let c = try GeodesicReferenceTests.twentyCases()[0]
        let moved = try GeometryEngine.geodeticMove([Point(latitude: c.lat1, longitude: c.lon1)], distance: c.s12, azimuth: c.azi1)
        #expect(abs(moved[0].y - c.lat2) < 1e-9 && angleGap(moved[0].x, c.lon2) < 1e-9)
        let back = try GeometryEngine.geodeticMove(moved, distance: -c.s12 / 1000, distanceUnit: .kilometers, azimuth: c.azi2)
        #expect(abs(back[0].y - c.lat1) < 1e-9 && angleGap(back[0].x, c.lon1) < 1e-9)
        #expect(throws: EngineError.self) { try GeometryEngine.geodeticDensify(line, maxSegmentLength: 0) }
    }

    /// Every unit parameter against values computed independently of the unit types: the definitions of the acre
    /// (4046.8564224 m², NIST SP 811), the international mile (1609.344 m), the foot (0.3048 m) and π rad = 180°.
    /// Each comparison is between the same quantity computed twice, so the bound is a few ulp of the value
    /// (relative 1e-12 covers the one multiplication and division each side does).
    @Test func unitParametersConvertByTheirDefinitions() throws {
        let square = Polygon(shell: [Coordinate(x: -97, y: 32), Coordinate(x: -96, y: 32), Coordinate(x: -96, y: 33),
                                     Coordinate(x: -97, y: 33)], spatialReference: .wgs84)
        let m2 = try GeometryEngine.geodeticArea(of: square)
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-12 * abs(b) }
        #expect(close(try GeometryEngine.geodeticArea(of: square, unit: .acres), m2 / 4046.8564224))
        #expect(close(try GeometryEngine.geodeticArea(of: square, unit: .hectares), m2 / 10_000))
        #expect(close(try GeometryEngine.geodeticArea(of: square, unit: .squareMiles), m2 / (1609.344 * 1609.344)))
        #expect(close(try GeometryEngine.geodeticArea(of: square, unit: .squareFeet), m2 / (0.3048 * 0.3048)))
        let meters = try GeometryEngine.geodeticLength(of: square)
        #expect(close(try GeometryEngine.geodeticLength(of: square, lengthUnit: .miles), meters / 1609.344))
        // Distance and azimuths: miles and radians against metres and degrees.
        let (a, b) = (Point(latitude: 32.7767, longitude: -96.797), Point(latitude: 32.7555, longitude: -97.3308))
        let base = try GeometryEngine.geodeticDistance(from: a, to: b)
        #expect(base.distanceUnit == .meters && base.azimuthUnit == .degrees)
        let other = try GeometryEngine.geodeticDistance(from: a, to: b, distanceUnit: .miles, azimuthUnit: .radians)
        #expect(close(other.distance, base.distance / 1609.344))
        #expect(close(other.azimuth1, base.azimuth1 * .pi / 180) && close(other.azimuth2, base.azimuth2 * .pi / 180))
        // Move by the same distance and azimuth given in miles and radians: the same point (to 1e-9°, ~0.1 mm).
        let moved = try GeometryEngine.geodeticMove([a], distance: other.distance, distanceUnit: .miles,
                                                    azimuth: other.azimuth1, azimuthUnit: .radians)
        #expect(abs(moved[0].x - b.x) < 1e-9 && abs(moved[0].y - b.y) < 1e-9)
        // Geodetic buffer radius in miles: every vertex 1 mile (1609.344 m) from the centre, within the 1 mm contract.
        let circle = try GeometryEngine.geodeticBuffer(around: a, distance: 1, distanceUnit: .miles)
        for c in circle.parts[0].shell {
            let d = try GeometryEngine.geodeticDistance(from: a, to: Point(c, spatialReference: .wgs84)).distance
            #expect(abs(d - 1609.344) < 1e-3)
        }
    }
}
