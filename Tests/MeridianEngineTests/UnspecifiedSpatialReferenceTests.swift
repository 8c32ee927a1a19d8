import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Plain planar coordinates without a spatial reference (`SpatialReference.unspecified`): planar operations work in
/// the coordinates' own unit, and whatever needs a place on the Earth throws `.spatialReferenceRequired`.
@Suite("SpatialReference.unspecified")
struct UnspecifiedSpatialReferenceTests {
    static let sr = SpatialReference.unspecified

    static func requiresSpatialReference(_ error: any Error) -> Bool {
        if case .spatialReferenceRequired? = error as? EngineError { return true }
        return false
    }

    /// A unit-radius buffer is the regular 64-gon, area 32·sin(π/32); two unit squares overlapping by half share 0.5.
    @Test func planarOperationsWork() throws {
        #expect(Self.sr.isUnspecified && !SpatialReference.wgs84.isUnspecified && Self.sr.areaOfUse == nil)
        let buffer = try GeometryEngine.buffer(around: Point(x: 0, y: 0, spatialReference: Self.sr), distance: 1)
        #expect(abs(try GeometryEngine.area(of: buffer) - 32 * sin(Double.pi / 32)) < 1e-12)
        let a = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: 1), Coordinate(x: 0, y: 1)],
                        spatialReference: Self.sr)
        let b = GeometryEngine.move(a, deltaX: 0.5, deltaY: 0)
        #expect(abs(try GeometryEngine.area(of: try GeometryEngine.intersection(a, b)) - 0.5) < 1e-12)
        #expect(try GeometryEngine.isGeometry(a, overlapping: b))
        #expect(try GeometryEngine.firstVertexOutsideHorizon([a], of: Self.sr) == nil)
        #expect(try WKT.decode("POINT (1 2)", spatialReference: Self.sr).spatialReference.isUnspecified)
    }

    @Test func whatNeedsThePlaceOnTheEarthIsRefused() {
        let p = Point(x: 1, y: 2, spatialReference: Self.sr)
        #expect(performing: { _ = try GeometryEngine.project(p, into: .wgs84) }, throws: Self.requiresSpatialReference)
        #expect(performing: { _ = try GeometryEngine.project(Point(latitude: 1, longitude: 2), into: Self.sr) },
                throws: Self.requiresSpatialReference)
        #expect(performing: { _ = try GeometryEngine.geodeticBuffer(around: p, distance: 10) }, throws: Self.requiresSpatialReference)
        #expect(performing: { _ = try GeometryEngine.geodeticLength(of: Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0)], spatialReference: Self.sr)) },
                throws: Self.requiresSpatialReference)
        #expect(performing: {
            _ = try GeometryEngine.buffer(around: [p], distances: [1], distanceUnit: .meters, shouldUnion: false)
        }, throws: Self.requiresSpatialReference)
        // Mixed with a real spatial reference: the usual mismatch.
        #expect(performing: { _ = try GeometryEngine.intersection(p, Point(x: 1, y: 2, spatialReference: .webMercator)) },
                throws: { if case .spatialReferenceMismatch? = $0 as? EngineError { true } else { false } })
    }
}
