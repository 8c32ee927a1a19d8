import MeridianTestSupport
import Testing

import MeridianCore
@testable import MeridianEngine

/// The batch projection must give exactly what one call per geometry gives (a vertex is projected the same way, by
/// PROJ or its interpolant, whatever else is in the call), keep each geometry's shape, and refuse mixed spatial
/// references.
@Suite struct BatchProjectionTests {
    @Test func batchEqualsOneCallPerGeometry() throws {
        let texas = try SpatialReference(wkid: 32038)
        let seed = SplitMix64.testSeed
        var rng = SplitMix64(seed: seed)
        var geometries: [Geometry] = []
        for i in 0..<200 {
            let lon = Double.random(in: -102...(-95), using: &rng), lat = Double.random(in: 32...34, using: &rng)
            switch i % 3 {
            case 0: geometries.append(.point(Point(latitude: lat, longitude: lon)))
            case 1: geometries.append(.polyline(Polyline([Coordinate(x: lon, y: lat), Coordinate(x: lon + 0.1, y: lat + 0.05)],
                                                         spatialReference: .wgs84)))
            default:
                geometries.append(.polygon(Polygon(shell: [Coordinate(x: lon, y: lat), Coordinate(x: lon + 0.1, y: lat),
                                                           Coordinate(x: lon, y: lat + 0.1)], spatialReference: .wgs84)))
            }
        }
        let batch = try GeometryEngine.projectReportingOperations(geometries, into: texas)
        #expect(batch.geometries.count == geometries.count)
        #expect(batch.operations.count == 1)
        for (g, b) in zip(geometries, batch.geometries) {
            #expect(try GeometryEngine.project(g, into: texas) == b, "seed \(seed)")
        }
        #expect(try GeometryEngine.project([Geometry](), into: texas).isEmpty)
    }

    @Test func mixedSpatialReferencesAreRefused() throws {
        let a = Geometry.point(Point(latitude: 32, longitude: -97))
        let b = Geometry.point(Point(x: 0, y: 0, spatialReference: .webMercator))
        #expect(throws: EngineError.self) { try GeometryEngine.project([a, b], into: .webMercator) }
    }
}

/// The horizon check against the seed's box for EPSG:32038 (W −103.07, S 31.72, E −94.0, N 34.58), widened by
/// `ProjectionHorizon.margin` (5°).
@Suite struct AreaOfUseCheckTests {
    @Test func firstGeometryOutsideIsNamedWithItsVertex() throws {
        let texas = try SpatialReference(wkid: 32038)
        let dallas = Geometry.point(Point(latitude: 32.7767, longitude: -96.797))
        let line = Geometry.polyline(Polyline([Coordinate(x: -97, y: 32), Coordinate(x: -80.19, y: 25.76)],
                                              spatialReference: .wgs84))  // ends in Miami, 13.8° east of −94
        #expect(try GeometryEngine.firstVertexOutsideHorizon([dallas], of: texas) == nil)
        let outside = try #require(try GeometryEngine.firstVertexOutsideHorizon([dallas, line], of: texas))
        #expect(outside.geometryIndex == 1 && outside.vertexIndex == 1 && outside.reason == .outsideAreaOfUse)
        // Longitude/latitude on the zone's datum (NAD27): within 0.001° of the WGS84 input.
        #expect(abs(outside.longitude + 80.19) < 1e-3 && abs(outside.latitude - 25.76) < 1e-3)
        // Projected input is checked too: Dallas projected into EPSG:32038 is still inside.
        let projected = try GeometryEngine.project(dallas, into: texas)
        #expect(try GeometryEngine.firstVertexOutsideHorizon([projected], of: texas) == nil)
    }
}
