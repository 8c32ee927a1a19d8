import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// `geodesicEllipse(parameters:)` and `geodesicSector(parameters:)` through the public API as ArcGIS's Swift sample
/// writes it (parameters filled in one by one, the type argument choosing the output). The vertices themselves are
/// checked against GeographicLib in Tests/python/test_geodesic_shapes.py; here: the API shape, the errors, and two
/// closed-form facts (a circle's vertices all at its radius; the sector's arc ends on its radii).
@Suite("GeometryEngine: geodesic ellipse and sector")
struct GeodesicShapeTests {
    static let center = Point(x: 10, y: 50, spatialReference: .wgs84)

    @Test func filledInOneByOneAsInArcGIS() throws {
        var params = GeodesicSectorParameters<Multipoint>()
        params.center = Self.center
        params.axisDirection = 45
        params.maxPointCount = 2000
        params.maxSegmentLength = 1
        params.sectorAngle = 90
        params.semiAxis1Length = 200
        params.semiAxis2Length = 100
        params.startDirection = 45
        params.linearUnit = .miles
        let arc = try GeometryEngine.geodesicSector(parameters: params)
        #expect(arc.coordinates.count > 2 && arc.coordinates.count <= 2000)
        // The arc runs from the start radius (azimuth 90 + 45 + 45) to the end radius (that + 90).
        let g = Geodesic(Ellipsoid.wgs84)
        let c = Self.center.coordinate
        #expect(abs(remainder(g.inverse(c, arc.coordinates.first!).azimuth1 - 180, 360)) < 1e-7)
        #expect(abs(remainder(g.inverse(c, arc.coordinates.last!).azimuth1 + 90, 360)) < 1e-7)
        let ellipse = try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<Polygon>(
            axisDirection: 45, center: Self.center, linearUnit: .miles, maxPointCount: 2000, maxSegmentLength: 1,
            semiAxis1Length: 200, semiAxis2Length: 100))
        #expect(ellipse.parts.count == 1)
        #expect(ellipse.spatialReference == .wgs84)
    }

    /// A circle: every vertex at the radius from the centre (to Karney's ~15 nm; 1 µm allowed).
    @Test func aCircleHasItsVerticesAtTheRadius() throws {
        let circle = try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<Polyline>(
            center: Self.center, maxPointCount: 64, semiAxis1Length: 5, semiAxis2Length: 5))
        let g = Geodesic(Ellipsoid.wgs84)
        #expect(circle.parts[0].count == 65)
        for v in circle.parts[0] { #expect(abs(g.distance(Self.center.coordinate, v) - 5) < 1e-6) }
    }

    @Test func errorsSayWhy() {
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<Polygon>(semiAxis1Length: 1, semiAxis2Length: 1))
        }
        let planar = Point(x: 0, y: 0, spatialReference: .unspecified)
        #expect(throws: EngineError.spatialReferenceRequired(operation: "a geodesic operation")) {
            try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<Polygon>(
                center: planar, semiAxis1Length: 1, semiAxis2Length: 1))
        }
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodesicSector(parameters: GeodesicSectorParameters<Polygon>(
                center: Self.center, sectorAngle: 360, semiAxis1Length: 1, semiAxis2Length: 1))
        }
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<Polygon>(
                center: Self.center, maxPointCount: 20_000_000, semiAxis1Length: 1, semiAxis2Length: 1))
        }
    }
}
