import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Listing PROJ's candidate operations and projecting with a chosen one.
@Suite("GeometryEngine: datum transformations")
struct DatumTransformationTests {
    /// NAD27 → WGS 84 over Texas: PROJ's database has several Helmert shifts and NADCON grid operations; the
    /// operation `project` picks is among them, and choosing it explicitly gives the same coordinates. Another
    /// available operation gives coordinates that differ by no more than the two operations' accuracies.
    @Test func nad27ToWGS84() throws {
        let nad27 = try SpatialReference(wkid: 4267)
        let list = try GeometryEngine.transformations(from: nad27, to: .wgs84)
        #expect(list.count >= 3, "\(list)")
        #expect(list.allSatisfy { !$0.pipeline.isEmpty && !$0.name.isEmpty })
        let dallas = Point(x: -96.797, y: 32.7767, spatialReference: nad27)
        let chosen = try GeometryEngine.projectReportingOperations(dallas, into: .wgs84)
        let name = try #require(chosen.operations.first?.name)
        // The operation that ran is reported with its axis-order steps around it ("axis order change (2D) + …").
        let same = try #require(list.first { name.contains($0.name) && $0.isAvailable }, "\(name) not in \(list)")
        let explicit = try GeometryEngine.project(dallas, into: .wgs84, datumTransformation: same)
        #expect(explicit.spatialReference == .wgs84)
        let (a, b) = (explicit.coordinates[0], chosen.geometry.coordinates[0])
        #expect(abs(a.x - b.x) < 1e-12 && abs(a.y - b.y) < 1e-12)
        // Another available operation: a different shift, within the sum of the accuracies (degrees ≈ 1.1e5 m).
        let other = try #require(list.first(where: { $0.isAvailable && $0.name != name && $0.accuracy != nil && $0.pipeline != same.pipeline }))
        let c = try GeometryEngine.project(dallas, into: .wgs84, datumTransformation: other).coordinates[0]
        let meters = hypot((c.x - b.x) * 111_320 * cos(32.78 * .pi / 180), (c.y - b.y) * 110_574)
        #expect(meters <= (other.accuracy! + (same.accuracy ?? 0)) * 2 + 1, "\(other): \(meters) m")
        #expect(meters > 0.01, "a different shift must move the point: \(other)")
    }

    @Test func unavailableOperationsAndUnspecifiedAreRefused() throws {
        let nad27 = try SpatialReference(wkid: 4267)
        let list = try GeometryEngine.transformations(from: nad27, to: .wgs84)
        if let missing = list.first(where: { !$0.isAvailable }) {
            #expect(throws: EngineError.self) {
                _ = try GeometryEngine.project(Point(x: -96.8, y: 32.8, spatialReference: nad27), into: .wgs84, datumTransformation: missing)
            }
        }
        #expect(throws: EngineError.self) { _ = try GeometryEngine.transformations(from: .unspecified, to: .wgs84) }
    }

    /// The bulk form runs the same operation as the geometry form, and the domain check runs the chosen operation's
    /// inverse: with it the round trip closes (to 1e-6°), with PROJ's own choice back it would miss by meters.
    @Test func bulkProjectionAndRoundTripWithAChosenOperation() throws {
        let nad27 = try SpatialReference(wkid: 4267)
        let list = try GeometryEngine.transformations(from: nad27, to: .wgs84)
        let chosen = try #require(list.first { $0.name == "NAD27 to WGS 84 (4)" && $0.isAvailable })
        let original = [Coordinate(x: -96.797, y: 32.7767), Coordinate(x: -100.5, y: 31.2)]
        var bulk = original
        let op = try GeometryEngine.project(&bulk, from: nad27, into: .wgs84, datumTransformation: chosen)
        #expect(op.name == chosen.name && op.accuracy == chosen.accuracy)
        let single = try GeometryEngine.project(Multipoint(original, spatialReference: nad27),
                                                into: .wgs84, datumTransformation: chosen).coordinates
        #expect(zip(bulk, single).allSatisfy { $0.x == $1.x && $0.y == $1.y })
        #expect(try GeometryEngine.firstVertexOutsideProjectionDomain(original, bulk, from: nad27, into: .wgs84,
                                                                      datumTransformation: chosen) == nil)
        #expect(try GeometryEngine.firstVertexOutsideProjectionDomain(original, bulk, from: nad27, into: .wgs84) == 0)
    }
}
