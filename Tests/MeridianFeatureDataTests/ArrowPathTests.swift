import CGDAL
import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// GeoPackages and FlatGeobufs are read through GDAL's Arrow stream where it gives the same features: these compare
/// the two paths, feature by feature, on every fixture and sample that takes the Arrow path.
@Suite struct ArrowPathTests {
    static func read(_ table: FeatureTable, _ parameters: QueryParameters, arrow: Bool) throws -> ([Feature], Bool) {
        let result = table.queryFeatures(using: parameters, allowingArrow: arrow)
        let used = result.usesArrow
        var features: [Feature] = []
        while true {
            let batch = try result.nextBatch(maximumCount: 7)  // smaller than an Arrow batch: pending features are kept
            if batch.isEmpty { break }
            features += batch
        }
        return (features, used)
    }

    @Test func bothPathsGiveTheSameFeatures() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var paths = [TestSupport.fixtures.appendingPathComponent("pyogrio/test_gpkg_nulls.gpkg").path,
                     TestSupport.fixtures.appendingPathComponent("poly.gpkg").path,
                     TestSupport.fixtures.appendingPathComponent("pyogrio/line_zm.gpkg").path,
                     TestSupport.fixtures.appendingPathComponent("pyogrio/curve.gpkg").path]
        for ext in ["gpkg", "fgb"] {
            let path = dir.appendingPathComponent("sample.\(ext)").path
            try TestSupport.write(TestSupport.sampleFeatures(count: 40), to: path)
            paths.append(path)
        }
        let blobs = dir.appendingPathComponent("blobs.gpkg").path
        let table = TableDescription(name: "b", spatialReference: .wgs84, geometryType: .multipoint,
                                     fields: [Field(name: "bytes", type: .blob), Field(name: "ok", type: .boolean)])
        var features: [Feature] = []
        for i in 0..<20 {
            let points = Multipoint([Coordinate(x: Double(i), y: 1), Coordinate(x: 2, y: Double(i))], spatialReference: .wgs84)
            let bytes: JSONValue = i % 3 == 0 ? .null : .string(Data([UInt8(i), 0, 255]).base64EncodedString())
            features.append(Feature(geometry: .multipoint(points), properties: ["bytes": bytes, "ok": .bool(i % 2 == 0)]))
        }
        try TestSupport.write(features, to: blobs, table: table)
        paths.append(blobs)
        var arrowPaths = 0
        for path in paths {
            let table = try FeatureDataSource(path: path).featureTable(named: nil)
            for parameters in [QueryParameters(), QueryParameters(outFields: []), QueryParameters(maxFeatures: 3),
                               QueryParameters(returnsGeometry: false)] {
                let (viaArrow, used) = try ArrowPathTests.read(table, parameters, arrow: true)
                let (direct, _) = try ArrowPathTests.read(table, parameters, arrow: false)
                #expect(viaArrow == direct, "\(path) \(parameters)")
                if used { arrowPaths += 1 }
            }
        }
        // All 4 queries of poly, line_zm, curve and sample.gpkg; of the files with a boolean (nulls, blobs) or a
        // date-time field (sample.fgb) only the query without attributes: 16 + 3.
        #expect(arrowPaths == 19, "the Arrow path was taken \(arrowPaths) times")
    }

    /// A 64-bit integer field read through the Arrow stream: ±2^53 are numbers, one beyond is refused with the same
    /// message, naming the feature and the field, as reading feature by feature gives.
    @Test func integersBeyondTwoToThe53AreRefusedByNameOnBothPaths() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = TableDescription(name: "n", spatialReference: .wgs84, geometryType: .point,
                                     fields: [Field(name: "label", type: .text), Field(name: "big", type: .int64)])
        func features(_ values: [Int64]) -> [Feature] {
            values.enumerated().map { i, v in
                Feature(geometry: .point(Point(x: Double(i), y: 1, spatialReference: .wgs84)),
                        properties: ["label": .string("f\(i)"), "big": .number(Double(v))])
            }
        }
        let limit: Int64 = 1 << 53
        let fine = dir.appendingPathComponent("fine.gpkg").path
        try TestSupport.write(features([0, limit, -limit, 7]), to: fine, table: table)
        let fineTable = try FeatureDataSource(path: fine).featureTable(named: nil)
        let (viaArrow, used) = try ArrowPathTests.read(fineTable, QueryParameters(), arrow: true)
        #expect(used)
        #expect(viaArrow == (try ArrowPathTests.read(fineTable, QueryParameters(), arrow: false).0))
        #expect(viaArrow.map { $0.properties["big"] } == [.number(0), .number(0x1p53), .number(-0x1p53), .number(7)])
        // 2^53 + 1 cannot come through a Double: set by SQL in the GeoPackage itself.
        let beyond = dir.appendingPathComponent("beyond.gpkg").path
        try TestSupport.write(features([1, 2, 3]), to: beyond, table: table)
        let update = try #require(gdal.GDALOpenEx(beyond, UInt32(GDAL_OF_VECTOR | GDAL_OF_UPDATE), nil, nil, nil))
        if let result = gdal.GDALDatasetExecuteSQL(update, "UPDATE n SET big = 9007199254740993 WHERE fid = 2", nil, nil) {
            gdal.GDALDatasetReleaseResultSet(update, result)
        }
        gdal.GDALClose(update)
        let beyondTable = try FeatureDataSource(path: beyond).featureTable(named: nil)
        var messages: [String] = []
        for arrow in [true, false] {
            do {
                _ = try ArrowPathTests.read(beyondTable, QueryParameters(), arrow: arrow)
                Issue.record("arrow \(arrow): 2^53 + 1 was read")
            } catch {
                messages.append(String(describing: error))
            }
        }
        #expect(messages.count == 2 && messages[0] == messages[1], "\(messages)")
        #expect(messages.first?.contains("'big' holds 9007199254740993") == true, "\(messages)")
    }

    @Test(arguments: ["gpkg", "fgb", "shp"]) func pointsComeAsCoordinatesInOrder(ext: String) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("p.\(ext)").path
        let points = (0..<70_000).map { i in
            Feature(geometry: .point(Point(x: 2_400_000 + Double(i) * 0.001, y: 450_000 - Double(i % 977) / 3,
                                           spatialReference: TestSupport.texas)),
                    properties: ["name": .string("p\(i)")])
        }
        let table = TableDescription(name: "p", spatialReference: TestSupport.texas, geometryType: .point,
                                     fields: [Field(name: "name", type: .text)])
        try TestSupport.write(points, to: path, table: table)
        let t = try FeatureDataSource(path: path).featureTable(named: nil)
        let result = t.queryFeatures(using: QueryParameters(outFields: []))
        #expect(result.usesArrow == (ext != "shp"))
        var coordinates: [Coordinate] = []
        while true {
            let batch = try result.nextPoints()
            if batch.isEmpty { break }
            #expect(batch.count <= 65_536)
            coordinates += batch
        }
        #expect(coordinates == points.map { $0.geometry!.point!.coordinate })
        let limited = t.queryFeatures(using: QueryParameters(maxFeatures: 10, outFields: []))
        #expect(try limited.nextPoints().count == 10)
        #expect(try limited.nextPoints().isEmpty)
    }

    /// `nextColumns` hands over the features `nextBatch` gives, as columns (names in the table's field order),
    /// through the Arrow stream and feature by feature, whatever the batch sizes: 65,000 takes a part of GDAL's first
    /// Arrow batch of 65,536, then its rest joined to the next batch's 4 rows; 4,096 from a query of that batch size
    /// takes each of GDAL's batches whole.
    @Test(arguments: ["gpkg", "fgb", "shp"]) func columnsHoldTheFeaturesOfNextBatch(ext: String) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("c.\(ext)").path
        let features = (0..<65_540).map { (i: Int) -> Feature in
            let x = 2_400_000 + Double(i), y = 450_000 - Double(i % 977)
            // (a FlatGeobuf holds no feature without a geometry)
            let point: Geometry? = i % 1000 == 7 && ext != "fgb" ? nil : .point(Point(x: x, y: y, spatialReference: TestSupport.texas))
            let name: JSONValue = i % 5 == 0 ? .null : .string("p\(i)")
            return Feature(geometry: point, properties: ["name": name, "rank": .number(Double(i % 13))])
        }
        let table = TableDescription(name: "c", spatialReference: TestSupport.texas, geometryType: .point,
                                     fields: [Field(name: "rank", type: .int32), Field(name: "name", type: .text)])
        try TestSupport.write(features, to: path, table: table)
        let t = try FeatureDataSource(path: path).featureTable(named: nil)
        let (expected, _) = try ArrowPathTests.read(t, QueryParameters(), arrow: false)  // feature by feature
        #expect(expected.count == features.count)
        for (size, batchSize) in [(7, nil), (65_000, nil), (4_096, 4_096)] as [(Int, Int?)] {
            let result = t.queryFeatures(using: QueryParameters(batchSize: batchSize))
            #expect(result.usesArrow == (ext != "shp"))
            var read: [Feature] = []
            var sizes: [Int] = []
            while true {
                let columns = try result.nextColumns(maximumCount: size)
                if columns.count == 0 { break }
                #expect(columns.names == ["rank", "name"])
                #expect(columns.ids.count == columns.count && columns.values.allSatisfy { $0.count == columns.count })
                sizes.append(columns.count)
                read += columns.features
            }
            let differs = read.indices.first { $0 >= expected.count || read[$0] != expected[$0] }
            #expect(read.count == expected.count && differs == nil,
                    "\(ext), batches of \(size): \(read.count) features, the first different: \(differs.map(String.init) ?? "none")")
            #expect(sizes.dropLast().allSatisfy { $0 == size } && sizes.last! <= size, "\(sizes.prefix(3))")
        }
    }

    @Test(arguments: ["gpkg", "shp"]) func aNewQueryStopsTheOldOne(ext: String) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("q.\(ext)").path
        try TestSupport.write(TestSupport.sampleFeatures(count: 5), to: path)
        let table = try FeatureDataSource(path: path).featureTable(named: nil)
        let first = table.queryFeatures()
        #expect(try first.next() != nil)
        let second = table.queryFeatures()
        #expect(throws: FeatureDataError.self) { try first.next() }
        #expect(throws: FeatureDataError.self) { try first.nextPoints() }
        var count = 0
        while try second.next() != nil { count += 1 }
        #expect(count == 5, "the new query reads from the first feature")
    }

    /// A shapefile has no Arrow stream: `nextPoints` reads OGR's points directly, which must give what the feature
    /// path gives (z included) and refuse a truncated file as the feature path does.
    @Test func shapefilePointsAreTheFeaturePathsAndATruncatedFileIsRefused() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("z.shp").path
        let points = (0..<500).map { i in
            Feature(geometry: .point(Point(Coordinate(x: -97 + Double(i) / 1000, y: 32.5 - Double(i % 7) / 100,
                                                      z: Double(i) * 0.25), spatialReference: .wgs84)),
                    properties: ["n": .number(Double(i))])
        }
        let description = TableDescription(name: "z", spatialReference: .wgs84, geometryType: .point, hasZ: true,
                                           fields: [Field(name: "n", type: .int32)])
        try TestSupport.write(points, to: path, table: description)
        let table = try FeatureDataSource(path: path).featureTable(named: nil)
        let direct = try table.queryFeatures(using: QueryParameters(outFields: [])).nextPoints()
        let (features, _) = try ArrowPathTests.read(table, QueryParameters(), arrow: false)
        #expect(direct.count == 500)
        let same = direct == features.map { $0.geometry!.point!.coordinate }
        #expect(same, "nextPoints differs from the feature path")
        #expect(direct.allSatisfy { $0.z != nil })
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count * 6 / 10).write(to: URL(fileURLWithPath: path))
        let truncated = try FeatureDataSource(path: path).featureTable(named: nil)
        let result = truncated.queryFeatures(using: QueryParameters(outFields: []))
        #expect { while try !result.nextPoints().isEmpty {} } throws: { "\($0)".contains("z.shp") }
    }

    @Test func pointsOfAPolygonTableAreRefused() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for ext in ["gpkg", "shp"] {
            let path = dir.appendingPathComponent("poly.\(ext)").path
            try TestSupport.write(TestSupport.sampleFeatures(count: 2), to: path)
            let result = try FeatureDataSource(path: path).featureTable(named: nil).queryFeatures()
            #expect { try result.nextPoints() } throws: { "\($0)".contains("not a point") }
        }
    }

    /// GDAL 3.6 passes a GeoPackage row's columns to one SQL function, which SQLite limits to 127 arguments: a table
    /// of 125 fields (with the feature ID and the geometry, 127) is read through Arrow, a wider one feature by
    /// feature, with the same values.
    @Test(arguments: [125, 126, 1000]) func aWideGeoPackageIsReadWhole(fields: Int) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("wide.gpkg").path
        let table = TableDescription(name: "wide", spatialReference: .wgs84, geometryType: .point,
                                     fields: (0..<fields).map { Field(name: "c\($0)", type: .int32) })
        let written = (0..<3).map { row in
            Feature(geometry: .point(Point(x: Double(row), y: 1, spatialReference: .wgs84)),
                    properties: Dictionary(uniqueKeysWithValues: (0..<fields).map { ("c\($0)", JSONValue.number(Double(row * 10_000 + $0))) }))
        }
        try TestSupport.write(written, to: path, table: table)
        let read = try FeatureDataSource(path: path).featureTable(named: nil)
        let (features, used) = try ArrowPathTests.read(read, QueryParameters(), arrow: true)
        #expect(used == (fields <= 125))
        #expect(features.map(\.geometry) == written.map(\.geometry))
        #expect(features.map(\.properties) == written.map(\.properties))
    }

    @Test func civilDatesFromDayCounts() {
        // Python's proleptic Gregorian ordinals: date(1970, 1, 1) is 719,163 and date(1, 1, 1) is 1, so day
        // -719,162 is 0001-01-01; 2000-02-29 is 10,957 days (30 years, 7 leap days) + 59 after 1970-01-01.
        #expect(ArrowDates.civilDate(days: 0) == "1970-01-01")
        #expect(ArrowDates.civilDate(days: 11_016) == "2000-02-29")
        #expect(ArrowDates.civilDate(days: -1) == "1969-12-31")
        #expect(ArrowDates.civilDate(days: -719_162) == "0001-01-01")
        #expect(ArrowDates.civilDate(days: 2_932_896) == "9999-12-31")
    }
}
