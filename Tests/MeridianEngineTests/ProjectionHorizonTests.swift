import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// The one area-of-use rule: a projection's horizon is its area of use widened by
/// `ProjectionHorizon.margin`, where PROJ's round trip also returns the point.
@Suite struct ProjectionHorizonTests {
    /// One US survey foot in metres (exact).
    static let usFoot = 1200.0 / 3937.0

    /// NGS's l176 test points for all 126 SPCS27 zones in PROJ's test suite (Tests/Fixtures/stateplane/README.md):
    /// every one is within its zone's horizon, given as longitude/latitude or as the zone's own coordinates, and
    /// projects to PROJ's published value. Tolerance 0.01 ft: the YAML's values are PROJ's outputs with the old
    /// `nad27` init definitions printed to 0.001 ft, and EPSG's definitions of Rhode Island and Alaska zone 1 differ
    /// from those in their last digits (pyproj, with the same EPSG definitions, differs by up to 0.009 ft there and
    /// 0.0015 ft elsewhere); l176's own values agree with PROJ's to 0.002 ft, so the same bound holds against them.
    @Test func everyNGSTestPointOfEveryNAD27ZoneIsWithinItsHorizonAndProjects() throws {
        let table = try CSVTable(try ReferenceData.text("stateplane/nad27_l176_points.csv"))
        var zones = Set<String>(), outsideTheBox = 0, worst = 0.0
        for row in table.rows {
            let label = try row.field("label")
            let sr = try SpatialReference(code: "EPSG:\(try row.field("epsg"))")
            let base = try SpatialReference(code: "EPSG:\(try row.field("geographic_epsg"))")
            let lon = try row.angle("lon_dms"), lat = try row.angle("lat_dms")
            let (decimalLon, decimalLat) = (try row.number("lon"), try row.number("lat"))
            #expect(abs(lon - decimalLon) < 1e-12 && abs(lat - decimalLat) < 1e-12, "\(label)")
            let point = Point(Coordinate(x: lon, y: lat), spatialReference: base)
            if let area = sr.areaOfUse, !area.contains(longitude: lon, latitude: lat) { outsideTheBox += 1 }
            #expect(try GeometryEngine.firstVertexOutsideHorizon([point], of: sr) == nil, "\(label) EPSG:\(sr.wkid ?? 0)")
            let projected = try GeometryEngine.project(point, into: sr)
            #expect(try GeometryEngine.firstVertexOutsideHorizon([projected], of: sr) == nil, "\(label) projected")
            let feet = (sr.unit?.metersPerUnit ?? 1) / Self.usFoot
            let (e, n) = (projected.x * feet, projected.y * feet)
            let published = [(try row.number("proj_easting_usft"), try row.number("proj_northing_usft")),
                             (try row.number("l176_easting_usft"), try row.number("l176_northing_usft"))]
            for (expectedE, expectedN) in published {
                let error = max(abs(e - expectedE), abs(n - expectedN))
                worst = max(worst, error)
                #expect(error <= 0.01, "\(label) EPSG:\(sr.wkid ?? 0): (\(e), \(n)) against (\(expectedE), \(expectedN))")
            }
            zones.insert(try row.field("zone"))
        }
        #expect(table.rows.count == 265 && zones.count == 126)
        // The margin matters: 14 points (of 11 zones) lie outside EPSG's boxes (PROJ's WGS84 box, tested here on the
        // zone's own datum, metres from WGS84).
        #expect(outsideTheBox >= 12, "\(outsideTheBox) points outside the boxes")
        print("NGS l176 points: \(table.rows.count) in \(zones.count) zones, \(outsideTheBox) outside EPSG's boxes, worst \(worst) ft")
    }

    /// Far points stay outside: longitude 170° into Texas North Central (a tap far outside its area), given as
    /// longitude/latitude or as the coordinates PROJ computes for it, and a point 6° (beyond the margin) south.
    @Test func farPointsAreOutside() throws {
        let texas = try SpatialReference(wkid: 32038)
        let far = Point(latitude: 30, longitude: 170)
        let outside = try #require(try GeometryEngine.firstVertexOutsideHorizon([far], of: texas))
        #expect(outside.reason == .outsideAreaOfUse && outside.geometryIndex == 0 && outside.vertexIndex == 0)
        #expect(abs(outside.longitude - 170) < 0.01 && abs(outside.latitude - 30) < 0.01)
        let farProjected = try GeometryEngine.project(far, into: texas)
        #expect(try GeometryEngine.firstVertexOutsideHorizon([farProjected], of: texas)?.reason == .outsideAreaOfUse)
        // The box's south is 31.72°: 26.5° is beyond the margin, 27.5° within it.
        #expect(try !GeometryEngine.isGeometry(Point(latitude: 26.5, longitude: -97), withinHorizonOf: texas))
        #expect(try GeometryEngine.isGeometry(Point(latitude: 27.5, longitude: -97), withinHorizonOf: texas))
        // The first vertex outside, in order: geometry 1's vertex 2.
        let line = Polyline([Coordinate(x: -97, y: 32), Coordinate(x: -96, y: 33), Coordinate(x: -80, y: 33)],
                            spatialReference: .wgs84)
        let first = try #require(try GeometryEngine.firstVertexOutsideHorizon(
            [Geometry.point(Point(latitude: 32.7767, longitude: -96.797)), line.geometry], of: texas))
        #expect(first.geometryIndex == 1 && first.vertexIndex == 2 && first.reason == .outsideAreaOfUse)
    }

    /// A polar area of use contains its pole, given as longitude/latitude or as the projected pole (the viewer's
    /// `POST /api/contains` for EPSG:3413, 32661, 5041 and 3031); the pole of Web Mercator, whose widened box
    /// reaches it, is refused by the round trip (PROJ cannot project it).
    @Test func polarHorizonsContainTheirPole() throws {
        for (wkid, latitude) in [(3413, 90.0), (32661, 90), (5041, 90), (3031, -90), (5042, -90), (32761, -90)] {
            let sr = try SpatialReference(wkid: wkid)
            let pole = Point(latitude: latitude, longitude: 0)
            #expect(try GeometryEngine.isGeometry(pole, withinHorizonOf: sr), "EPSG:\(wkid)")
            let projected = try GeometryEngine.project(pole, into: sr)
            #expect(try GeometryEngine.isGeometry(projected, withinHorizonOf: sr), "EPSG:\(wkid) at \(projected)")
            // The other pole is outside.
            #expect(try !GeometryEngine.isGeometry(Point(latitude: -latitude, longitude: 0), withinHorizonOf: sr))
        }
        let mercator = try #require(try GeometryEngine.firstVertexOutsideHorizon(
            [Point(latitude: 90, longitude: 0)], of: .webMercator))
        #expect(mercator.reason == .notProjectable)
    }

    /// The round trip refuses where PROJ returns another point: a transverse Mercator 85° from its central
    /// meridian (PROJ's inverse misses by about 1.4 m there), for a spatial reference with no area of use, so that
    /// only the round trip decides; 5° from it the point is within. Projected coordinates far outside a zone
    /// (x = y = 10^15 ft in Texas North Central, which PROJ's inverse takes to the south pole) are refused too.
    @Test func theRoundTripRefusesWherePROJReturnsAnotherPoint() throws {
        let utm = try SpatialReference(projString: "+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs")
        #expect(utm.areaOfUse == nil)
        let far = try #require(try GeometryEngine.firstVertexOutsideHorizon([Point(latitude: 10, longitude: 100)], of: utm))
        #expect(far.reason == .roundTripMismatch)
        #expect(try GeometryEngine.isGeometry(Point(latitude: 10, longitude: 20), withinHorizonOf: utm))
        let texas = try SpatialReference(wkid: 32038)
        let garbage = Point(x: 1e15, y: 1e15, spatialReference: texas)
        #expect(try GeometryEngine.firstVertexOutsideHorizon([garbage], of: texas) != nil)
        // Unspecified coordinates have no horizon.
        let plain = Point(x: 1e15, y: 0, spatialReference: .unspecified)
        #expect(try GeometryEngine.firstVertexOutsideHorizon([plain], of: .unspecified) == nil)
    }

    /// The widened box: latitudes clamped at the poles, longitudes wrapped across ±180° (Alaska zone 10's box runs
    /// from 172.42°E across the antimeridian to 164.84°W), the whole circle once they would span it.
    @Test func theAreaOfUseIsWidenedByTheMarginOnEverySide() throws {
        let m = ProjectionHorizon.margin
        let box = ProjectionHorizon.widened(AreaOfUse(name: "a", west: 172.42, south: 51.3, east: -164.84, north: 54.34))
        #expect(box.west == 172.42 - m && box.east == -164.84 + m && box.south == 51.3 - m && box.north == 54.34 + m)
        let aleutians = ProjectionHorizon(of: try SpatialReference(wkid: 26740))
        #expect(aleutians.widenedAreaContains(longitude: 168, latitude: 52))
        #expect(!aleutians.widenedAreaContains(longitude: 166, latitude: 52))
        #expect(aleutians.widenedAreaContains(longitude: -160, latitude: 50))
        let world = ProjectionHorizon.widened(AreaOfUse(name: "w", west: -179, south: 80, east: 178, north: 88))
        #expect(world.west == -180 && world.east == 180 && world.north == 90 && world.south == 75)
    }
}
