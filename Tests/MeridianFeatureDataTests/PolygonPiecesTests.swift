import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// A polygon feature written a piece at a time (`beginPolygon` / `addPiece` / `endPolygon`, as the CLI writes a
/// union batch by batch) is the same feature as the whole polygon written at once, and misuse leaves no file.
@Suite struct PolygonPiecesTests {
    /// The sample features' polygons, as pieces of one polygon (parts with and without holes).
    static var pieces: [Polygon] {
        TestSupport.sampleFeatures(count: 6).compactMap { if case .polygon(let p) = $0.geometry { p } else { nil } }
    }

    @Test(arguments: [FeatureDataFormat.geoPackage, .shapefile, .flatGeobuf])
    func piecesMakeTheWholePolygon(format: FeatureDataFormat) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = TableDescription(name: "union", spatialReference: TestSupport.texas, geometryType: .polygon,
                                     fields: [Field(name: "count", type: .int64)])
        let whole = Polygon(parts: Self.pieces.flatMap(\.parts), spatialReference: TestSupport.texas)
        let ext = format.fileExtension!
        let a = dir.appendingPathComponent("whole.\(ext)").path, b = dir.appendingPathComponent("pieces.\(ext)").path
        try TestSupport.write([Feature(geometry: .polygon(whole), properties: ["count": .number(6)])], to: a, table: table)
        let writer = try FeatureTableWriter(path: b, table: table)
        try writer.beginPolygon(properties: ["count": .number(6)])
        for piece in Self.pieces { try writer.addPiece(piece) }
        try writer.endPolygon()
        try writer.finish()
        let (_, fromWhole) = try TestSupport.readAll(a), (_, fromPieces) = try TestSupport.readAll(b)
        #expect(fromPieces.count == 1 && fromPieces.first?.properties["count"] == .number(6))
        #expect(fromPieces.first?.geometry == fromWhole.first?.geometry, "every part and hole, in order")
        #expect(fromPieces.first?.geometry?.normalizedRings == Geometry.polygon(whole).normalizedRings)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)).count == Data(contentsOf: URL(fileURLWithPath: b)).count)
    }

    @Test func anUnendedPolygonOrAPieceOfAnotherTypeWritesNothing() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = TableDescription(name: "union", spatialReference: TestSupport.texas, geometryType: .polygon)
        let unended = try FeatureTableWriter(path: dir.appendingPathComponent("a.gpkg").path, table: table)
        try unended.beginPolygon(properties: [:])
        try unended.addPiece(Self.pieces[0])
        #expect(throws: FeatureDataError.self) { try unended.finish() }
        let otherSR = try FeatureTableWriter(path: dir.appendingPathComponent("b.gpkg").path, table: table)
        try otherSR.beginPolygon(properties: [:])
        var wgs84 = Self.pieces[0]
        wgs84.spatialReference = .wgs84
        #expect(throws: FeatureDataError.self) { try otherSR.addPiece(wgs84) }
        #expect(throws: FeatureDataError.self) { try otherSR.endPolygon() }
        let points = try FeatureTableWriter(path: dir.appendingPathComponent("c.gpkg").path,
                                            table: TableDescription(name: "p", spatialReference: TestSupport.texas,
                                                                    geometryType: .point))
        #expect(throws: FeatureDataError.self) { try points.beginPolygon(properties: [:]) }
        #expect(FeatureTableWriterTests.listing(dir).isEmpty, "no file and no scratch folder")
    }
}
