import Foundation
import Testing

@testable import MeridianCore

/// `Geometry`'s typed accessors, `VertexGeometry`'s conversions and the short descriptions.
@Suite struct GeometryTests {
    private let sr = SpatialReference.webMercator

    private var point: Point { Point(x: 1, y: 2, spatialReference: sr) }
    private var multipoint: Multipoint { Multipoint([Coordinate(x: 1, y: 2), Coordinate(x: 3, y: 4)], spatialReference: sr) }
    private var polyline: Polyline { Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 5, y: 0)], spatialReference: sr) }
    private var polygon: Polygon {
        Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 4, y: 0), Coordinate(x: 0, y: 3)], spatialReference: sr)
    }
    private var envelope: Envelope { Envelope(xMin: 0, yMin: 0, xMax: 2, yMax: 1, spatialReference: sr) }

    /// Each accessor gives the payload for its own case and `nil` for the four others; so does `init?(_:)`.
    @Test func typedAccessorsReturnThePayloadOnlyForTheirCase() {
        let all: [Geometry] = [.point(point), .multipoint(multipoint), .polyline(polyline), .polygon(polygon),
                               .envelope(envelope)]
        #expect(all.map { $0.point != nil } == [true, false, false, false, false])
        #expect(all.map { $0.multipoint != nil } == [false, true, false, false, false])
        #expect(all.map { $0.polyline != nil } == [false, false, true, false, false])
        #expect(all.map { $0.polygon != nil } == [false, false, false, true, false])
        #expect(all.map { $0.envelope != nil } == [false, false, false, false, true])
        #expect(all[0].point == point && all[1].multipoint == multipoint && all[2].polyline == polyline)
        #expect(all[3].polygon == polygon && all[4].envelope == envelope)
        #expect(all.map { Point($0) != nil } == [true, false, false, false, false])
        #expect(all.map { Multipoint($0) != nil } == [false, true, false, false, false])
        #expect(all.map { Polyline($0) != nil } == [false, false, true, false, false])
        #expect(all.map { Polygon($0) != nil } == [false, false, false, true, false])  // an envelope is not converted
        #expect(all.allSatisfy { Geometry($0) == $0 })
    }

    /// `pointCoordinate` is a point's coordinate and nil for the rest; `isIn(_:)` says what `spatialReference == sr`
    /// says, for every case, with the same spatial reference, an equal one made apart, and another.
    @Test func pointCoordinateAndIsInAgreeWithTheirLongForms() throws {
        let all: [Geometry] = [.point(point), .multipoint(multipoint), .polyline(polyline), .polygon(polygon),
                               .envelope(envelope)]
        #expect(all.map { $0.pointCoordinate } == [Coordinate(x: 1, y: 2), nil, nil, nil, nil])
        let equal = try JSONDecoder().decode(SpatialReference.self, from: JSONEncoder().encode(sr))  // its own storage
        for g in all {
            for other in [sr, equal, .wgs84, .unspecified] {
                #expect(g.isIn(other) == (g.spatialReference == other), "\(g.typeName) in \(other)")
            }
            #expect(g.isIn(sr) && g.isIn(equal) && !g.isIn(.wgs84), "\(g.typeName)")
        }
    }

    /// `extent` is the bounding box of any geometry (the old `Geometry.envelope`): the triangle's is 4 × 3.
    @Test func extentIsTheBoundingBox() throws {
        let box = try #require(Geometry.polygon(polygon).extent)
        #expect([box.xMin, box.yMin, box.xMax, box.yMax] == [0, 0, 4, 3])
        #expect(Geometry.multipoint(Multipoint([], spatialReference: sr)).extent == nil)
        #expect(Geometry.envelope(envelope).extent == envelope)
    }

    /// The typed `mapCoordinates` keep the type and structure; `Geometry`'s turns an envelope into its polygon.
    @Test func mapCoordinatesKeepsTheType() {
        let shift = { (c: Coordinate) in Coordinate(x: c.x + 10, y: c.y, z: c.z) }
        let p: Polygon = polygon.mapCoordinates(into: .wgs84, shift)
        #expect(p.spatialReference == .wgs84)
        #expect(p.parts[0].shell.map(\.x) == [10, 14, 10, 10])
        let l: Polyline = polyline.mapCoordinates(into: sr, shift)
        #expect(l.parts == [[Coordinate(x: 10, y: 0), Coordinate(x: 15, y: 0)]])
        #expect(point.mapCoordinates(into: sr, shift).coordinate == Coordinate(x: 11, y: 2))
        #expect(multipoint.mapCoordinates(into: sr, shift).coordinates.map(\.x) == [11, 13])
        let moved = Geometry.envelope(envelope).mapCoordinates(into: sr, shift)
        #expect(moved.polygon?.parts[0].shell.map(\.x) == [10, 12, 12, 10, 10])
    }

    /// Short descriptions: counts and the spatial reference, never the coordinates.
    @Test func descriptionsAreShort() {
        #expect(point.description == "Point(x: 1.0, y: 2.0, WGS 84 / Pseudo-Mercator (EPSG:3857))")
        #expect(Point(latitude: 1, longitude: 2, altitude: 3).description == "Point(x: 2.0, y: 1.0, z: 3.0, WGS 84 (EPSG:4326))")
        #expect(multipoint.description == "Multipoint(2 points, WGS 84 / Pseudo-Mercator (EPSG:3857))")
        #expect(polyline.description == "Polyline(1 part, 2 vertices, WGS 84 / Pseudo-Mercator (EPSG:3857))")
        #expect(polygon.description == "Polygon(1 part, 0 holes, 4 vertices, WGS 84 / Pseudo-Mercator (EPSG:3857))")
        #expect(envelope.description
            == "Envelope(xMin: 0.0, yMin: 0.0, xMax: 2.0, yMax: 1.0, WGS 84 / Pseudo-Mercator (EPSG:3857))")
        let two = Polygon(parts: polygon.parts + [Polygon.Part(shell: polygon.parts[0].shell, holes: [[], []])],
                          spatialReference: sr)
        #expect(two.description == "Polygon(2 parts, 2 holes, 8 vertices, WGS 84 / Pseudo-Mercator (EPSG:3857))")
        #expect(Geometry.polygon(polygon).description == polygon.description)
        #expect("\(Geometry.point(point))" == point.description)
        // A large polygon still prints one short line.
        let ring = (0..<10_000).map { Coordinate(x: Double($0), y: Double($0 % 7)) }
        #expect(Polygon(shell: ring, spatialReference: sr).description.count < 100)
    }
}
