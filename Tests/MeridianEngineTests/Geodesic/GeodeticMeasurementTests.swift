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
        let dense = try GeometryEngine.geodeticDensify(line, maxSegmentLength: 100, lengthUnit: .kilometers)
        guard case .polyline(let l) = dense else { Issue.record("not a polyline"); return }
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
}
