import Testing

@testable import MeridianCore

@Suite struct GeometriesTests {
    private let sr = SpatialReference.webMercator

    @Test func pointFromLatitudeLongitudeIsWGS84InLonLatOrder() {
        let p = Point(latitude: 32.7767, longitude: -96.797)
        #expect(p.x == -96.797 && p.y == 32.7767)
        #expect(p.spatialReference == .wgs84)
        #expect(p.spatialReference.isGeographic)
    }

    @Test func ringsAreClosedOnce() {
        let open = [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 0, y: 1)]
        #expect(Polygon.closed(open).count == 4)
        #expect(Polygon.closed(Polygon.closed(open)).count == 4)
        let polygon = Polygon(shell: open, spatialReference: sr)
        #expect(polygon.parts[0].shell.first == polygon.parts[0].shell.last)
    }

    @Test func signedAreaIsTheShoelaceFormula() {
        // Unit square counter-clockwise: +1; clockwise: −1 (analytic).
        let ccw = [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: 1), Coordinate(x: 0, y: 1),
                   Coordinate(x: 0, y: 0)]
        #expect(Polygon.signedArea(ccw) == 1)
        #expect(Polygon.signedArea(ccw.reversed()) == -1)
        // Far from the origin the shift keeps it exact: a 2 × 3 rectangle at (2.4e6, 4.5e5).
        let far = [Coordinate(x: 2.4e6, y: 4.5e5), Coordinate(x: 2.4e6 + 2, y: 4.5e5), Coordinate(x: 2.4e6 + 2, y: 4.5e5 + 3),
                   Coordinate(x: 2.4e6, y: 4.5e5 + 3), Coordinate(x: 2.4e6, y: 4.5e5)]
        #expect(Polygon.signedArea(far) == 6)
    }

    @Test func envelopeAroundCoordinates() throws {
        let e = try #require(Envelope(around: [Coordinate(x: 3, y: -1), Coordinate(x: -2, y: 5)], spatialReference: sr))
        #expect(e.xMin == -2 && e.xMax == 3 && e.yMin == -1 && e.yMax == 5)
        #expect(e.width == 5 && e.height == 6)
        #expect(e.contains(Coordinate(x: 0, y: 0)))
        #expect(!e.contains(Coordinate(x: 4, y: 0)))
        #expect(Envelope(around: [], spatialReference: sr) == nil)
        #expect(Polygon.signedArea(e.polygon.parts[0].shell) == 30)
    }

    @Test func multipointRefusesMixedSpatialReferences() {
        #expect(throws: GeometryError.mixedSpatialReferences) {
            try Multipoint(points: [Point(x: 0, y: 0, spatialReference: .wgs84), Point(x: 0, y: 0, spatialReference: sr)])
        }
        #expect(throws: GeometryError.self) { try Multipoint(points: []) }
    }

    /// `Polyline(points:)` and `Polygon(points:)` follow `Multipoint(points:)`: one spatial reference, not empty;
    /// a path needs two points and a ring three (a closing repeat of the first is not counted).
    @Test func polylineAndPolygonFromPoints() throws {
        let pts = [Point(x: 0, y: 0, spatialReference: sr), Point(x: 4, y: 0, spatialReference: sr),
                   Point(x: 0, y: 3, spatialReference: sr)]
        let line = try Polyline(points: pts)
        #expect(line.parts == [pts.map(\.coordinate)])
        #expect(line.spatialReference == sr)
        let triangle = try Polygon(points: pts)
        #expect(triangle.parts.count == 1 && triangle.parts[0].holes.isEmpty)
        #expect(triangle.parts[0].shell == pts.map(\.coordinate) + [pts[0].coordinate])  // closed for us
        #expect(Polygon.signedArea(triangle.parts[0].shell) == 6)  // ½ · 4 · 3
        #expect(try Polygon(points: pts + [pts[0]]) == triangle)   // already closed: the same polygon
        let other = Point(x: 0, y: 0, spatialReference: .wgs84)
        #expect(throws: GeometryError.mixedSpatialReferences) { try Polyline(points: [pts[0], other]) }
        #expect(throws: GeometryError.mixedSpatialReferences) { try Polygon(points: [pts[0], pts[1], other]) }
        #expect(throws: GeometryError.empty("a polyline needs at least one point")) { try Polyline(points: []) }
        #expect(throws: GeometryError.empty("a polygon needs at least one point")) { try Polygon(points: []) }
        #expect(throws: GeometryError.malformed("a polyline needs at least 2 points, got 1")) {
            try Polyline(points: [pts[0]])
        }
        #expect(throws: GeometryError.malformed("a polygon needs at least 3 points, got 2")) {
            try Polygon(points: [pts[0], pts[1]])
        }
        #expect(throws: GeometryError.malformed("a polygon needs at least 3 points, got 2")) {
            try Polygon(points: [pts[0], pts[1], pts[0]])  // a closed ring of two distinct points
        }
    }

    /// A state plane zone's area of use names every county: the description cuts the name after 60 characters.
    @Test func areaOfUseDescriptionIsShort() {
        let counties = (1...90).map { "County \($0)" }.joined(separator: "; ")
        let area = AreaOfUse(name: "United States (USA) - Texas - counties of " + counties, west: -103.07, south: 31.72,
                             east: -94, north: 34.58)
        #expect(area.description
            == "United States (USA) - Texas - counties of County 1; County 2… (west -103.07°, south 31.72°, east -94.0°, north 34.58°)")
        #expect(AreaOfUse(name: "World", west: -180, south: -90, east: 180, north: 90).description
            == "World (west -180.0°, south -90.0°, east 180.0°, north 90.0°)")
    }

    @Test func mapCoordinatesKeepsTheShape() {
        let polygon = Polygon(parts: [.init(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 2, y: 0), Coordinate(x: 0, y: 2), Coordinate(x: 0, y: 0)],
                                            holes: [[Coordinate(x: 0.1, y: 0.1), Coordinate(x: 0.1, y: 0.2), Coordinate(x: 0.2, y: 0.1), Coordinate(x: 0.1, y: 0.1)]])],
                              spatialReference: sr)
        let moved = Geometry.polygon(polygon).mapCoordinates(into: .wgs84) { Coordinate(x: $0.x + 1, y: $0.y) }
        guard case .polygon(let p) = moved else { Issue.record("not a polygon"); return }
        #expect(p.spatialReference == .wgs84)
        #expect(p.parts[0].holes[0][1].x == 1.1)
        #expect(p.vertexCount == 8)
    }

    @Test func areaOfUseAcrossTheAntimeridian() {
        // Fiji-like box crossing ±180°: west 176, east −178.
        let area = AreaOfUse(name: "test", west: 176, south: -20, east: -178, north: -12)
        #expect(area.contains(longitude: 179.9, latitude: -15))
        #expect(area.contains(longitude: -179.9, latitude: -15))
        #expect(area.contains(longitude: 180, latitude: -15))
        #expect(!area.contains(longitude: 170, latitude: -15))
        #expect(!area.contains(longitude: 179, latitude: -25))
        #expect(area.envelope.xMax == 182)
    }

    @Test func areaOfUseOfTexasNorthCentralMatchesTheSeedBox() {
        // The seed's hard-coded box: lat 31.720–34.580, lon −103.070 to −94.000.
        let area = AreaOfUse(name: "NAD27 / Texas North Central", west: -103.07, south: 31.72, east: -94.0, north: 34.58)
        #expect(area.contains(longitude: -96.797, latitude: 32.7767))  // Dallas
        #expect(!area.contains(longitude: -95.3698, latitude: 29.7604))  // Houston, south of 31.72
    }
}
