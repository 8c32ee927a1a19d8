import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// `GeometryEngine.project`'s typed forms: the result has the input's type (an envelope gives a polygon), checked
/// against the spherical Web Mercator formulas x = a·λ, y = a·ln tan(π/4 + φ/2) with a = 6 378 137 m (EPSG:3857's
/// definition). PROJ evaluates the same formulas in doubles: the difference is a few ulps of coordinates below
/// 2·10⁷ m (about 4·10⁻⁹ m each); the tolerance of 10⁻⁶ m leaves room for a different but equivalent evaluation order.
@Suite("GeometryEngine: typed projection")
struct GeometryEngineTests {
    static let a = 6_378_137.0
    static let tolerance = 1e-6

    static func mercator(_ c: Coordinate) -> Coordinate {
        Coordinate(x: a * c.x * .pi / 180, y: a * log(tan(.pi / 4 + c.y * .pi / 360)))
    }

    static func close(_ got: [Coordinate], _ lonLat: [Coordinate]) -> Bool {
        got.count == lonLat.count && zip(got, lonLat.map(mercator)).allSatisfy {
            abs($0.x - $1.x) <= tolerance && abs($0.y - $1.y) <= tolerance
        }
    }

    static func c(_ x: Double, _ y: Double) -> Coordinate { Coordinate(x: x, y: y) }

    @Test func projectReturnsTheInputType() throws {
        let wm = SpatialReference.webMercator
        let shell = [Self.c(-97, 32), Self.c(-96, 32), Self.c(-96, 33), Self.c(-97, 33), Self.c(-97, 32)]
        let hole = [Self.c(-96.6, 32.4), Self.c(-96.6, 32.6), Self.c(-96.4, 32.6), Self.c(-96.4, 32.4), Self.c(-96.6, 32.4)]
        let polygon = Polygon(parts: [Polygon.Part(shell: shell, holes: [hole])], spatialReference: .wgs84)
        let p: Polygon = try GeometryEngine.project(polygon, into: wm)
        #expect(p.spatialReference == wm)
        #expect(p.parts.count == 1 && p.parts[0].holes.count == 1)
        #expect(Self.close(p.parts[0].shell, shell) && Self.close(p.parts[0].holes[0], hole))

        let paths = [[Self.c(0, 0), Self.c(10, 10)], [Self.c(-10, -20), Self.c(-5, 60), Self.c(170, 80)]]
        let line: Polyline = try GeometryEngine.project(Polyline(parts: paths, spatialReference: .wgs84), into: wm)
        #expect(line.parts.count == 2 && Self.close(line.parts[0], paths[0]) && Self.close(line.parts[1], paths[1]))

        let points = [Self.c(-179, -85), Self.c(179, 85)]
        let multipoint: Multipoint = try GeometryEngine.project(Multipoint(points, spatialReference: .wgs84), into: wm)
        #expect(Self.close(multipoint.coordinates, points))

        let point: Point = try GeometryEngine.project(Point(latitude: 45, longitude: 90), into: wm)
        #expect(Self.close([point.coordinate], [Self.c(90, 45)]) && point.spatialReference == wm)

        // A Geometry in, a Geometry out, with the same vertices.
        let wrapped = try GeometryEngine.project(Geometry.polygon(polygon), into: wm)
        #expect(wrapped.polygon == p)
        #expect(try GeometryEngine.projectReportingOperations(polygon, into: wm).geometry.polygon == p)
        // Already in the target: returned as is.
        #expect(try GeometryEngine.project(p, into: wm) == p)
    }

    /// A projected envelope is a polygon through its four projected corners, counter-clockwise from the south-west.
    @Test func projectingAnEnvelopeGivesAPolygon() throws {
        let wm = SpatialReference.webMercator
        let box = Envelope(xMin: -97, yMin: 32, xMax: -96, yMax: 33, spatialReference: .wgs84)
        let p: Polygon = try GeometryEngine.project(box, into: wm)
        let corners = [Self.c(-97, 32), Self.c(-96, 32), Self.c(-96, 33), Self.c(-97, 33), Self.c(-97, 32)]
        #expect(p.parts.count == 1 && Self.close(p.parts[0].shell, corners))
        #expect(p.spatialReference == wm)
        // Held as a Geometry it comes back as the same polygon.
        #expect(try GeometryEngine.project(Geometry.envelope(box), into: wm).polygon == p)
    }
}
