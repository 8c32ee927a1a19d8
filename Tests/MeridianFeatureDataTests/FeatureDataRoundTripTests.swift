import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// Writing a table to each format and reading it back gives the same features: vertices bit for bit, attributes
/// with their types, the spatial reference; GDAL's own `ogrinfo` sees the declared types and counts.
@Suite struct FeatureDataRoundTripTests {
    static let formats: [FeatureDataFormat] = [.geoPackage, .shapefile, .flatGeobuf]

    @Test(arguments: formats) func featuresComeBackExactly(format: FeatureDataFormat) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("parcels.\(format.fileExtension!)").path
        let written = TestSupport.sampleFeatures(count: 6)
        try TestSupport.write(written, to: path)
        let (table, read) = try TestSupport.readAll(path)
        #expect(table.format == format)
        #expect(table.spatialReference == TestSupport.texas)
        #expect(table.geometryType == .polygon)
        #expect(table.fields.map(\.name) == TestSupport.fields.map(\.name))
        // A shapefile's .dbf keeps a width, not a type: GDAL reads an 11-character integer back as 64-bit.
        // FlatGeobuf has no date type: dates go out as date-times at midnight.
        #expect(table.fields.map(\.type) == [.text, format == .shapefile ? .int64 : .int32, .int64, .float64,
                                              format == .flatGeobuf ? .date : .dateOnly])
        #expect(read.count == written.count)
        for (a, b) in zip(written, read) {
            // A shapefile stores shells clockwise (GDAL turns them): the same vertices, maybe in reverse order.
            #expect(a.geometry?.normalizedRings == b.geometry?.normalizedRings, "vertices, parts and holes bit for bit")
            if format != .shapefile { #expect(a.geometry == b.geometry, "in the same order") }
            for key in ["name", "population", "big"] {
                #expect(a.properties[key] == b.properties[key], "\(key)")
            }
            let founded = a.properties["founded"]!.stringValue.map { JSONValue.string(format == .flatGeobuf ? $0 + "T00:00:00" : $0) }
            #expect(b.properties["founded"] == founded ?? .null)
            // A shapefile's .dbf holds reals as N(24,15) decimal text: exact to 1e-15, not to the last bit.
            let x = a.properties["area"]!.doubleValue!, y = b.properties["area"]!.doubleValue!
            #expect(format == .shapefile ? abs(x - y) <= 1e-9 : x == y)
        }
        let summary = TestSupport.ogrinfoSummary(path)
        #expect(summary.contains("Feature Count: 6"), "\(summary)")
        #expect(summary.contains("NAD27 / Texas North Central"), "\(summary)")
        #expect(summary.contains("population: Integer"), "\(summary)")
        #expect(summary.contains("big: Integer64"), "\(summary)")
        #expect(summary.contains("area: Real"), "\(summary)")
        #expect(summary.contains(format == .flatGeobuf ? "founded: DateTime" : "founded: Date ("), "\(summary)")
    }

    @Test func geoPackageAndFlatGeobufDeclareMultiPolygons() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for ext in ["gpkg", "fgb"] {
            let path = dir.appendingPathComponent("p.\(ext)").path
            try TestSupport.write(TestSupport.sampleFeatures(), to: path)
            #expect(TestSupport.ogrinfoSummary(path).contains("Geometry: Multi Polygon"))
        }
    }
}
