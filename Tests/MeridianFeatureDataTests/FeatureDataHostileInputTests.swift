import CGDAL
import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// Broken and hostile sources: every case ends in one `FeatureDataError` whose one-line description names the file
/// (and the layer where there is one), and nothing crashes or hangs. GDAL printing nothing is checked in a separate
/// process (the fuzz target's replay tool), whose standard error must stay empty.
@Suite struct FeatureDataHostileInputTests {
    /// Reads a whole source (its only table, or `table`), returning the error it ends in, and checks in a separate
    /// process that reading it prints nothing (the returned `stderr`).
    static func failure(_ path: String, table: String? = nil) -> (error: FeatureDataError?, stderr: String) {
        var caught: FeatureDataError?
        do {
            _ = try TestSupport.readAll(path, table: table)
        } catch let error as FeatureDataError {
            caught = error
        } catch {
            Issue.record("not a FeatureDataError: \(error)")
        }
        let url = URL(fileURLWithPath: path)
        guard ["gpkg", "shp", "fgb", "zip"].contains(url.pathExtension), FileManager.default.fileExists(atPath: path)
        else { return (caught, "") }
        do {
            let (status, stderr) = try TestSupport.readInSeparateProcess([url])
            return (caught, status == 0 ? stderr : "exit \(status): \(stderr)")
        } catch {
            return (caught, "\(error)")
        }
    }

    /// Expects a one-line error naming `path` (and containing each of `mentions`) and a silent GDAL.
    static func expectFailure(_ path: String, table: String? = nil, mentions: [String] = [],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let (error, stderr) = failure(path, table: table)
        guard let error else { Issue.record("read without error", sourceLocation: sourceLocation); return }
        let text = error.description
        #expect(text.contains(path), "names the file: \(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("\n"), "one line: \(text)", sourceLocation: sourceLocation)
        for m in mentions { #expect(text.contains(m), "mentions \(m): \(text)", sourceLocation: sourceLocation) }
        #expect(stderr.isEmpty, "GDAL printed: \(stderr)", sourceLocation: sourceLocation)
    }

    /// A directory with a written sample of the format, for corrupting.
    static func sample(_ format: FeatureDataFormat, count: Int = 20) throws -> (URL, String) {
        let dir = TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("sample.\(format.fileExtension!)").path
        try TestSupport.write(TestSupport.sampleFeatures(count: count), to: path)
        return (dir, path)
    }

    @Test(arguments: [FeatureDataFormat.geoPackage, .flatGeobuf, .shapefile])
    func truncatedFilesFailWithOneLine(format: FeatureDataFormat) throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(format)
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for fraction in [0.3, 0.6, 0.9] {
            try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
            FeatureDataHostileInputTests.expectFailure(path)
        }
    }

    /// GeoPackage connections carry no SpatiaLite: its SQL functions include ones that read any file
    /// (`BlobFromFile`) and GeoPackages need none of them. SQLite's own functions answer (the control), SpatiaLite's
    /// are unknown.
    @Test func geoPackageConnectionsCarryNoSpatiaLite() throws {
        let (dir, path) = try Self.sample(.geoPackage)
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try FeatureDataSource(path: path)  // GDAL loaded and set up as every read sets it up
        let dataset = try #require(gdal.GDALOpenEx(path, UInt32(GDAL_OF_VECTOR), nil, nil, nil))
        defer { gdal.GDALClose(dataset) }
        func answers(_ sql: String) -> Bool {
            guard let result = gdal.GDALDatasetExecuteSQL(dataset, sql, nil, nil) else { return false }
            gdal.GDALDatasetReleaseResultSet(dataset, result)
            return true
        }
        #expect(answers("SELECT sqlite_version()"))
        #expect(!answers("SELECT spatialite_version()"))
        #expect(!answers("SELECT BlobFromFile('\(path)')"))
    }

    @Test func corruptedDbfFailsWithOneLine() throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(.shapefile)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dbf = dir.appendingPathComponent("sample.dbf")
        var bytes = [UInt8](try Data(contentsOf: dbf))
        bytes[8] = 0xFF; bytes[9] = 0x7F  // header length beyond the file
        try Data(bytes).write(to: dbf)
        FeatureDataHostileInputTests.expectFailure(path)
    }

    @Test func hugeDeclaredRecordCountIsNotTrusted() throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(.shapefile)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dbf = dir.appendingPathComponent("sample.dbf")
        var bytes = [UInt8](try Data(contentsOf: dbf))
        bytes.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])  // 2^31 − 1 records declared
        try Data(bytes).write(to: dbf)
        let (error, stderr) = FeatureDataHostileInputTests.failure(path)
        #expect(stderr.isEmpty, "\(stderr)")
        if let error {
            #expect(error.description.contains(path))
        } else {
            // Read, then, as the 20 records the .shx indexes: nothing invented, nothing allocated for 2^31.
            #expect(try TestSupport.readAll(path).1.count == 20)
        }
    }

    @Test func shapefileWithoutShxIsRefusedByName() throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(.shapefile)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("sample.shx"))
        FeatureDataHostileInputTests.expectFailure(path, mentions: ["sample.shx is missing"])
    }

    @Test func missingLayerListsTheOnesThereAre() throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(.geoPackage)
        defer { try? FileManager.default.removeItem(at: dir) }
        FeatureDataHostileInputTests.expectFailure(path, table: "roads", mentions: ["no layer named 'roads'", "'parcels'"])
    }

    @Test func sqlLookingLayerNamesAreOnlyNames() throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(.geoPackage)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["parcels; DROP TABLE parcels", "parcels' OR '1'='1", "\"parcels\"", "x\") UNION SELECT * FROM parcels --"] {
            FeatureDataHostileInputTests.expectFailure(path, table: name, mentions: ["no layer named"])
        }
        #expect(try TestSupport.readAll(path).1.count == 20, "the table is untouched")
    }

    @Test func otherFilesAreNamedForWhatTheyAre() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("notes.gpkg")
        try Data("just text\n".utf8).write(to: text)
        FeatureDataHostileInputTests.expectFailure(text.path, mentions: ["not a GeoPackage"])
        let sqlite = dir.appendingPathComponent("plain.gpkg")
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0, count: 200)).write(to: sqlite)
        FeatureDataHostileInputTests.expectFailure(sqlite.path, mentions: ["without the GeoPackage application id"])
        FeatureDataHostileInputTests.expectFailure(dir.path, mentions: ["not a regular file"])
        FeatureDataHostileInputTests.expectFailure(dir.appendingPathComponent("absent.shp").path, mentions: ["No such file"])
        FeatureDataHostileInputTests.expectFailure("/vsicurl/http://127.0.0.1:9/x.gpkg", mentions: ["virtual file systems"])
    }

    @Test func aZipWithoutShapefileIsRefused() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let zip = dir.appendingPathComponent("data.zip")
        // An empty zip archive: just the end-of-central-directory record.
        try Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)).write(to: zip)
        FeatureDataHostileInputTests.expectFailure(zip.path)
    }

    @Test func everyCorruptionOfAGeoPackageHeaderEndsInAnError() throws {
        let (dir, path) = try FeatureDataHostileInputTests.sample(.geoPackage, count: 3)
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // Overwrite one 512-byte stretch at a time with 0xFF: the header, the schema page, the table pages.
        var offset = 100
        while offset < original.count {
            var bytes = original
            for i in offset..<min(offset + 512, bytes.count) { bytes[i] = 0xFF }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let (_, stderr) = FeatureDataHostileInputTests.failure(path)  // an error or a read: never a crash or output
            #expect(stderr.isEmpty, "offset \(offset): \(stderr)")
            offset += 4096
        }
    }
}
