import Foundation
import MeridianCore
import MeridianEngine
import Testing
@testable import MeridianFeatureData

/// Files written by GDAL and pyogrio (Tests/Fixtures/gdal): read with their attributes, types, nulls and spatial
/// references as GDAL's own `ogrinfo` reports them.
@Suite struct FixtureReadingTests {
    static let countries = TestSupport.fixtures.appendingPathComponent("pyogrio/naturalearth_lowres.shp")

    /// `ogrinfo -al` of a file: each feature's "name (Type) = value" lines, in order.
    static func ogrinfoFeatures(_ path: String) -> [[String: String]] {
        let text = TestSupport.run("/usr/bin/ogrinfo", ["-ro", "-al", "-q", path]).output
        var features: [[String: String]] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("OGRFeature(") { features.append([:]); continue }
            guard let eq = line.range(of: ") = "), let open = line.range(of: " (") else { continue }
            let name = line[..<open.lowerBound].trimmingCharacters(in: .whitespaces)
            features[features.count - 1][name] = String(line[eq.upperBound...])
        }
        return features
    }

    @Test func naturalEarthCountriesMatchOgrinfo() throws {
        let table = try ShapefileFeatureTable(fileURL: FixtureReadingTests.countries)
        #expect(table.tableName == "naturalearth_lowres")
        #expect(table.spatialReference == .wgs84, "the ESRI .prj GCS_WGS_1984 is identified as EPSG:4326")
        #expect(table.fields.map(\.name) == ["pop_est", "continent", "name", "iso_a3", "gdp_md_est"])
        #expect(table.fields.map(\.type) == [.int64, .text, .text, .text, .float64])
        #expect(table.numberOfFeatures == 177)
        let result = table.queryFeatures()
        var features: [Feature] = []
        while true {
            let batch = try result.nextBatch(maximumCount: 50)
            if batch.isEmpty { break }
            features += batch
        }
        let reference = FixtureReadingTests.ogrinfoFeatures(FixtureReadingTests.countries.path)
        #expect(features.count == 177 && reference.count == 177)
        for (f, r) in zip(features, reference) {
            #expect(f.attributes["name"] == .string(r["name"] ?? "?"))
            #expect(f.attributes["iso_a3"] == .string(r["iso_a3"] ?? "?"))
            #expect(f.attributes["pop_est"]?.intValue == Int(r["pop_est"] ?? "?"))
            #expect(f.attributes["gdp_md_est"]?.doubleValue == Double(r["gdp_md_est"] ?? "?"))
            #expect(f.geometry?.spatialReference == .wgs84)
            #expect(f.geometry?.isAreal == true)
        }
        #expect(features.map { $0.id?.intValue } == (0..<177).map { $0 }, "shapefile feature IDs are record numbers")
    }

    @Test func nullsAndNumericSubtypesFromPyogrio() throws {
        let gpkg = try GeoPackage(fileURL: TestSupport.fixtures.appendingPathComponent("pyogrio/test_gpkg_nulls.gpkg"))
        let table = try #require(gpkg.geoPackageFeatureTables.first)
        #expect(gpkg.geoPackageFeatureTables.count == 1)
        let types = Dictionary(uniqueKeysWithValues: table.fields.map { ($0.name, $0.type) })
        #expect(types["col_bool"] == .boolean && types["col_int16"] == .int16 && types["col_int32"] == .int32)
        #expect(types["col_int64"] == .int64 && types["col_float32"] == .float32 && types["col_float64"] == .float64)
        let result = table.queryFeatures()
        var rows: [Feature] = []
        while let f = try result.next() { rows.append(f) }
        // pyogrio's recipe (fixture README): values 1, 2, 3 (1.5, 2.5, 3.5 for floats; True, False, True), then a row
        // of nulls (NaN for the floats, which Meridian reads as null: JSON has no NaN).
        #expect(rows.count == 4)
        #expect(rows[0].attributes["col_bool"] == .bool(true) && rows[1].attributes["col_bool"] == .bool(false))
        #expect(rows.prefix(3).map { $0.attributes["col_int64"] } == [.number(1), .number(2), .number(3)])
        #expect(rows.prefix(3).map { $0.attributes["col_float32"] } == [.number(1.5), .number(2.5), .number(3.5)])
        #expect(rows[3].attributes.values.allSatisfy { $0.isNull }, "\(rows[3].attributes)")
    }

    @Test func measuresAreDroppedAndCurvesLinearised() throws {
        let (zm, lines) = try TestSupport.readAll(TestSupport.fixtures.appendingPathComponent("pyogrio/line_zm.gpkg").path)
        #expect(zm.hasZ && zm.geometryType == .polyline)
        let line = try #require(lines.first?.geometry?.polyline)
        #expect(line.parts[0].count == 2 && line.parts[0].allSatisfy { $0.z == 0 })
        #expect(line.parts[0][0].x == -123.210798458304 || abs(line.parts[0][0].x + 123.210798458304) < 1e-12)
        let (curve, curves) = try TestSupport.readAll(TestSupport.fixtures.appendingPathComponent("pyogrio/curve.gpkg").path)
        #expect(curve.geometryType == .polyline)
        let straight = try #require(curves.first?.geometry?.polyline)
        #expect(straight.parts.count == 1 && straight.parts[0].count >= 2)
        #expect(straight.parts[0].first?.x == -123.12356779948 || abs(straight.parts[0][0].x + 123.12356779948) < 1e-9)
    }

    @Test func aSpatialReferenceOutsideEPSGComesFromItsDefinition() throws {
        // GDAL's poly.gpkg registers British National Grid under organisation NONE (not EPSG), so Meridian builds
        // the spatial reference from the WKT in gpkg_spatial_ref_sys.
        let (table, features) = try TestSupport.readAll(TestSupport.fixtures.appendingPathComponent("poly.gpkg").path)
        let sr = try #require(table.spatialReference)
        #expect(sr.name.contains("British National Grid"))
        #expect(sr.isProjected && sr.unit?.metersPerUnit == 1)
        #expect(abs(sr.ellipsoid.semiMajorAxis - 6377563.396) < 1e-6, "Airy 1830")
        let polygon = try #require(features.first?.geometry?.polygon)
        #expect(polygon.parts.count == 1 && polygon.parts[0].shell.count == 20, "0x14 vertices in the fixture's WKB")
        #expect(Envelope(around: polygon.parts[0].shell, spatialReference: sr).map { [$0.xMin, $0.yMin, $0.xMax, $0.yMax] }
                == [479647.0, 4764856.5, 480389.6875, 4765610.5], "the envelope in the blob's GeoPackage header")
    }

    @Test func aShapefileWithoutPrjHasNoSpatialReference() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bare.shp").path
        try TestSupport.write(TestSupport.sampleFeatures(count: 2), to: path)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("bare.prj"))
        let table = try ShapefileFeatureTable(fileURL: URL(fileURLWithPath: path))
        #expect(table.spatialReference == nil)
        #expect(try table.queryFeatures().next()?.geometry?.spatialReference == .unspecified)
        table.spatialReference = TestSupport.texas
        #expect(try table.queryFeatures().next()?.geometry?.spatialReference == TestSupport.texas)
    }

    @Test func anEsriCodeSurvivesAShapefile() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let albers = try SpatialReference(code: "ESRI:102003")  // USA Contiguous Albers Equal Area Conic
        let path = dir.appendingPathComponent("albers.shp").path
        let point = Feature(geometry: .point(Point(x: 100_000.5, y: 200_000.25, spatialReference: albers)))
        try TestSupport.write([point], to: path,
                              table: TableDescription(name: "a", spatialReference: albers, geometryType: .point))
        let (table, features) = try TestSupport.readAll(path)
        let sr = try #require(table.spatialReference)
        #expect(sr.name.contains("Albers"), "\(sr)")
        #expect(sr.isProjected && sr.unit?.metersPerUnit == 1)
        #expect(features[0].geometry?.point?.coordinate == Coordinate(x: 100_000.5, y: 200_000.25))
    }

    @Test func aZippedShapefileReadsLikeTheFiles() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let zip = dir.appendingPathComponent("countries.zip")
        let folder = FixtureReadingTests.countries.deletingLastPathComponent()
        let r = TestSupport.run("/usr/bin/env", ["python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for ext in ("shp", "shx", "dbf", "prj", "cpg"):
                    z.write(sys.argv[2] + "/naturalearth_lowres." + ext, "naturalearth_lowres." + ext)
            """, zip.path, folder.path])
        #expect(r.status == 0, "\(r.error)")
        let source = try FeatureDataSource(fileURL: zip)
        #expect(source.isZipped && source.format == .shapefile && source.tableNames == ["naturalearth_lowres"])
        let zipped = try TestSupport.readAll(zip.path).1
        let plain = try TestSupport.readAll(FixtureReadingTests.countries.path).1
        #expect(zipped == plain)
        // The archive's declared sizes count against the limit before anything is inflated.
        #expect(throws: FeatureDataError.self) {
            try FeatureDataSource(path: zip.path, limits: FeatureDataLimits(maximumZipBytes: 10_000))
        }
    }
}
