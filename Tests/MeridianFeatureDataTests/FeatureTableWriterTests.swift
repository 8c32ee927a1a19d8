import Foundation
import MeridianCore
import MeridianEngine
import Testing
@testable import MeridianFeatureData

/// Writes are atomic and refuse what the format cannot hold before anything is written.
@Suite struct FeatureTableWriterTests {
    /// The names in a folder (scratch folders of unfinished writes included: they start with a dot).
    static func listing(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    @Test(arguments: [FeatureDataFormat.geoPackage, .shapefile, .flatGeobuf])
    func aFailedWriteLeavesTheOldFileAndNoScratch(format: FeatureDataFormat) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.\(format.fileExtension!)").path
        try TestSupport.write(TestSupport.sampleFeatures(count: 2), to: path)
        let before = FeatureTableWriterTests.listing(dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let writer = try FeatureTableWriter(path: path, table: TestSupport.sampleTable())
        try writer.add(contentsOf: TestSupport.sampleFeatures(count: 5))
        // A point in a polygon table: refused, the writer cancelled.
        let point = Feature(geometry: .point(Point(x: 2_400_000, y: 450_000, spatialReference: TestSupport.texas)))
        #expect(throws: FeatureDataError.self) { try writer.add(point) }
        #expect(throws: FeatureDataError.self) { try writer.finish() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the old file is untouched")
        #expect(FeatureTableWriterTests.listing(dir) == before, "no scratch folder or new sidecar is left")
    }

    /// SQLite's page size, from the file header (bytes 16–17, big-endian; 1 stands for 65,536).
    static func sqlitePageSize(_ path: String) throws -> Int {
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(18))
        let size = Int(header[16]) << 8 | Int(header[17])
        return size == 1 ? 65_536 : size
    }

    /// A GeoPackage for large geometries has 64 KiB pages, one without the hint SQLite's 4 KiB; both hold the same
    /// features (test_union_tables.py checks the spatial index of a large union written so).
    @Test func aGeoPackageForLargeGeometriesHasLargePagesAndTheSameFeatures() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let features = TestSupport.sampleFeatures(count: 30)
        var read: [[Feature]] = []
        for large in [false, true] {
            let path = dir.appendingPathComponent("large-\(large).gpkg").path
            let writer = try FeatureTableWriter(path: path, table: TestSupport.sampleTable(), largeGeometries: large)
            try writer.add(contentsOf: features)
            try writer.finish()
            #expect(try FeatureTableWriterTests.sqlitePageSize(path) == (large ? 65_536 : 4_096))
            read.append(try TestSupport.readAll(path).1)
            let table = try FeatureDataSource(path: path).featureTable(named: nil)
            #expect(table.numberOfFeatures == 30)
        }
        #expect(read[0] == read[1])
        #expect(read[0].count == 30)
        // The thread's GDAL setting is restored: a later GeoPackage without the hint has 4 KiB pages again.
        let after = dir.appendingPathComponent("after.gpkg").path
        try TestSupport.write(features, to: after)
        #expect(try FeatureTableWriterTests.sqlitePageSize(after) == 4_096)
    }

    @Test func releasingAnUnfinishedWriterLeavesNothing() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for ext in ["gpkg", "shp", "fgb"] {
            do {
                let writer = try FeatureTableWriter(path: dir.appendingPathComponent("x.\(ext)").path,
                                                    table: TestSupport.sampleTable())
                try writer.add(contentsOf: TestSupport.sampleFeatures(count: 3))
            }
        }
        #expect(FeatureTableWriterTests.listing(dir).isEmpty)
    }

    @Test func theFileAppearsOnlyAtFinish() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("late.gpkg").path
        let writer = try FeatureTableWriter(path: path, table: TestSupport.sampleTable())
        try writer.add(contentsOf: TestSupport.sampleFeatures(count: 3))
        #expect(!FileManager.default.fileExists(atPath: path))
        try writer.finish()
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(FeatureTableWriterTests.listing(dir) == ["late.gpkg"])
    }

    @Test func existingFilesAreKeptWithoutOverwrite() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("keep.fgb").path
        try TestSupport.write(TestSupport.sampleFeatures(count: 1), to: path)
        #expect(throws: FeatureDataError.self) {
            try FeatureTableWriter(path: path, table: TestSupport.sampleTable(), overwrite: false)
        }
        #expect(try TestSupport.readAll(path).1.count == 1)
    }

    @Test func shapefileFieldNamesAreShortenedWithNotes() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("long.shp").path
        let fields = [Field(name: "population_2020", type: .int32), Field(name: "population_2021", type: .int32),
                      Field(name: "größenordnung", type: .text)]
        var table = TestSupport.sampleTable()
        table.fields = fields
        let writer = try FeatureTableWriter(path: path, table: table)
        #expect(writer.notes.count == 3, "\(writer.notes)")
        #expect(writer.notes.contains { $0.contains("'population_2020' is written as 'population'") })
        #expect(writer.notes.contains { $0.contains("'population_2021' is written as 'populati_1'") })
        var feature = TestSupport.sampleFeatures(count: 1)[0]
        feature.properties = ["population_2020": .number(1), "population_2021": .number(2), "größenordnung": .string("groß")]
        try writer.add(feature)
        try writer.finish()
        let (read, features) = try TestSupport.readAll(path)
        // "größenordnung" is 15 bytes in UTF-8: cut at a character boundary to at most 10 bytes.
        #expect(read.fields.map(\.name) == ["population", "populati_1", "größenor"])
        #expect(features[0].properties["populati_1"] == .number(2))
        #expect(features[0].properties["größenor"] == .string("groß"))
    }

    @Test func whatAShapefileCannotHoldIsRefusedBeforeWriting() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("no.shp").path
        var mixed = TestSupport.sampleTable()
        mixed.geometryType = nil
        var blob = TestSupport.sampleTable()
        blob.fields.append(Field(name: "photo", type: .blob))
        for table in [mixed, blob] {
            #expect {
                try FeatureTableWriter(path: path, table: table)
            } throws: { error in
                guard case .unsupportedByFormat(let format, _, _) = error as? FeatureDataError else { return false }
                return format == "Shapefile"
            }
        }
        var long = TestSupport.sampleFeatures(count: 1)[0]
        long.properties["name"] = .string(String(repeating: "é", count: 128))  // 256 bytes
        var wide = TestSupport.sampleTable()
        wide.fields[0].length = nil
        let writer = try FeatureTableWriter(path: path, table: wide)
        #expect(throws: FeatureDataError.self) { try writer.add(long) }
        #expect(FeatureTableWriterTests.listing(dir).isEmpty)
    }

    @Test func aShapefilePastTheSizeLimitIsRefusedAndNotWritten() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("big.shp").path
        // The limit lowered from 2 GB to 2,000 bytes: 100 header + 8 + 44 + 4 + 16 × 5 = 236 per one-part square.
        let writer = try FeatureTableWriter(path: path, table: TestSupport.sampleTable(), overwrite: true,
                                            shapefileLimit: 2_000)
        var thrown: FeatureDataError?
        for feature in TestSupport.sampleFeatures(count: 30) where thrown == nil {
            do { try writer.add(feature) } catch { thrown = error }
        }
        #expect(thrown?.description.contains("the format's limit") == true, "\(String(describing: thrown))")
        #expect(writer.featuresWritten < 30)
        #expect(FeatureTableWriterTests.listing(dir).isEmpty)
    }

    @Test func theBudgetCountsWhatGDALWrites() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sized.shp").path
        let writer = try FeatureTableWriter(path: path, table: TestSupport.sampleTable(), overwrite: true,
                                            shapefileLimit: ShapefileBudget.defaultLimit)
        let features = TestSupport.sampleFeatures(count: 9)
        var budget = ShapefileBudget(fieldWidths: [40, 11, 18, 24, 8], hasZ: false)
        for f in features { try budget.add(f.geometry) }
        try writer.add(contentsOf: features)
        try writer.finish()
        let shp = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        let dbf = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("sized.dbf").path)[.size] as? Int
        #expect(shp == budget.shpBytes)
        #expect(dbf.map { abs($0 - budget.dbfBytes) <= 1 } == true, "dBase's end-of-file byte aside: \(String(describing: dbf)) vs \(budget.dbfBytes)")
    }

    @Test func featuresMustMatchTheDescription() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let writer = try FeatureTableWriter(path: dir.appendingPathComponent("m.gpkg").path, table: TestSupport.sampleTable())
        var wgs = TestSupport.sampleFeatures(count: 1)[0]
        wgs.geometry = .polygon(Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 0, y: 1)],
                                        spatialReference: .wgs84))
        #expect { try writer.add(wgs) } throws: { "\($0)".contains("project it first") }
        let writer2 = try FeatureTableWriter(path: dir.appendingPathComponent("n.gpkg").path, table: TestSupport.sampleTable())
        var text = TestSupport.sampleFeatures(count: 1)[0]
        text.properties["population"] = .string("many")
        #expect { try writer2.add(text) } throws: { "\($0)".contains("'population' (int32) holds \"many\", not an integer") }
        let writer3 = try FeatureTableWriter(path: dir.appendingPathComponent("o.gpkg").path, table: TestSupport.sampleTable())
        var date = TestSupport.sampleFeatures(count: 1)[0]
        date.properties["founded"] = .string("1841-13-01")
        #expect { try writer3.add(date) } throws: { "\($0)".contains("not a date") }
        #expect(FeatureTableWriterTests.listing(dir).isEmpty)
    }

    @Test func datesTimesBooleansAndBlobsKeepTheirValues() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fields = [Field(name: "when", type: .date), Field(name: "day", type: .dateOnly),
                      Field(name: "ok", type: .boolean), Field(name: "bytes", type: .blob), Field(name: "small", type: .int16)]
        let table = TableDescription(name: "t", spatialReference: .wgs84, geometryType: .point, fields: fields)
        let values: [String: JSONValue] = ["when": .string("2024-05-01T13:45:30.250+02:00"), "day": .string("2024-02-29"),
                                           "ok": .bool(true), "bytes": .string("AAEC/w=="), "small": .number(-32768)]
        let feature = Feature(geometry: .point(Point(latitude: 32.7767, longitude: -96.797)), properties: values)
        let path = dir.appendingPathComponent("t.gpkg").path
        try TestSupport.write([feature], to: path, table: table)
        let (read, features) = try TestSupport.readAll(path)
        #expect(read.fields.map(\.type) == [.date, .dateOnly, .boolean, .blob, .int16])
        #expect(features[0].properties == values)
        #expect(features[0].geometry == feature.geometry)
        // In a shapefile: the date-time as text and the boolean as 1 (noted), the blob refused.
        let shp = dir.appendingPathComponent("t.shp").path
        var noBlob = table
        noBlob.fields.removeAll { $0.type == .blob }
        let writer = try FeatureTableWriter(path: shp, table: noBlob)
        #expect(writer.notes.count == 2, "\(writer.notes)")
        try writer.add(feature)
        try writer.finish()
        let back = try TestSupport.readAll(shp).1[0].properties
        #expect(back["when"] == .string("2024-05-01T13:45:30.250+02:00"))
        #expect(back["ok"] == .number(1))
        #expect(back["day"] == .string("2024-02-29"))
    }

    @Test func isoDatesParseAndRefuse() {
        #expect(ISODate.parse("2024-05-01T13:45:30.250+02:00", as: .date)
                == ISODate.Parts(year: 2024, month: 5, day: 1, hour: 13, minute: 45, second: 30.25, zone: 108))
        #expect(ISODate.parse("2024-05-01 00:00:00Z", as: .date)?.zone == 100)
        #expect(ISODate.parse("2024-05-01T01:00-05:30", as: .date)?.zone == 78)
        #expect(ISODate.parse("13:45", as: .timeOnly) == ISODate.Parts(hour: 13, minute: 45))
        for bad in ["2024-5-01", "2024-05-01T25:00", "2024-05-01T10:00+02:07", "yesterday", "2024-05-01x"] {
            #expect(ISODate.parse(bad, as: .date) == nil, "\(bad)")
        }
        #expect(ISODate.zoneSuffix(ogrFlag: 100 - 22) == "-05:30")
        #expect(ISODate.zoneSuffix(ogrFlag: 1) == "")
    }
}
