import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// A GeoPackage geometry GDAL cannot decode is an error naming the file and the feature, on every read path (Arrow
/// and feature by feature, features and bare points); a NULL geometry stays a feature without geometry.
@Suite struct UnreadableGeometryTests {
    /// 20 points (fid 1 to 20) in a GeoPackage, with the geometry of each `fid` of `values` replaced by that SQL value.
    static func geoPackage(_ values: [Int: String]) throws -> (URL, String) {
        let dir = TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("points.gpkg").path
        let table = TableDescription(name: "points", spatialReference: .wgs84, geometryType: .point,
                                     fields: [Field(name: "n", type: .int32)])
        let features = (0..<20).map { i in
            Feature(geometry: .point(Point(x: Double(i), y: 1, spatialReference: .wgs84)), properties: ["n": .number(Double(i))])
        }
        try TestSupport.write(features, to: path, table: table)
        for (fid, value) in values {
            // Through GDAL, whose GeoPackage SQL has the ST_ functions the table's R-tree triggers call.
            let r = TestSupport.run("/usr/bin/ogrinfo", [path, "-sql", "UPDATE points SET geom = \(value) WHERE fid = \(fid)"])
            #expect(r.status == 0, "\(r.error)")
        }
        return (dir, path)
    }

    /// Reads every feature, 7 at a time (Arrow batches are cut across calls), on the Arrow path or feature by feature.
    static func features(_ path: String, arrow: Bool) throws(FeatureDataError) -> [Feature] {
        let table = try FeatureDataSource(path: path).featureTable(named: nil)
        let result = table.queryFeatures(using: QueryParameters(), allowingArrow: arrow)
        #expect(result.usesArrow == arrow)
        var features: [Feature] = []
        while true {
            let batch = try result.nextBatch(maximumCount: 7)
            if batch.isEmpty { return features }
            features += batch
        }
    }

    /// Reads every point as bare coordinates, on the Arrow path or feature by feature.
    static func points(_ path: String, arrow: Bool) throws(FeatureDataError) -> [Coordinate] {
        let table = try FeatureDataSource(path: path).featureTable(named: nil)
        let result = table.queryFeatures(using: QueryParameters(outFields: []), allowingArrow: arrow)
        var points: [Coordinate] = []
        while true {
            let batch = try result.nextPoints()
            if batch.isEmpty { return points }
            points += batch
        }
    }

    /// The description of the error `body` ends in, or `nil` when it ends without one.
    static func failure<T>(_ body: () throws(FeatureDataError) -> T) -> String? {
        do { _ = try body() } catch { return error.description }
        return nil
    }

    @Test(arguments: [
        ("X'00'", "a blob of 1 byte(s) that is not a GeoPackage geometry"),
        ("'POINT (1 2)'", "a value of SQL type text, not a GeoPackage geometry blob"),
        ("X''", "a blob of 0 byte(s) that is not a GeoPackage geometry"),
        // A GeoPackage header whose flags (0xFF) have reserved bits set and no valid envelope kind.
        ("X'475000ffe6100000010100000000000000000000000000000000f03f'",
         "a GeoPackage geometry blob of 28 byte(s) that GDAL cannot decode"),
    ])
    func anUnreadableGeometryNamesTheFeature(value: String, what: String) throws {
        let (dir, path) = try Self.geoPackage([5: "NULL", 12: value])
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = "\(path), layer 'points', feature 12: its geometry cannot be read: \(what)"
        for arrow in [true, false] {
            #expect(Self.failure { () throws(FeatureDataError) in try Self.features(path, arrow: arrow) } == expected,
                    "arrow \(arrow)")
        }
    }

    @Test func theFirstPointWithoutAPointNamesTheUnreadableOne() throws {
        let (dir, path) = try Self.geoPackage([12: "X'00'"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = "\(path), layer 'points', feature 12: its geometry cannot be read: a blob of 1 byte(s) that is not a GeoPackage geometry"
        for arrow in [true, false] {
            #expect(Self.failure { () throws(FeatureDataError) in try Self.points(path, arrow: arrow) } == expected,
                    "arrow \(arrow)")
        }
    }

    @Test func aNullGeometryStaysNull() throws {
        let (dir, path) = try Self.geoPackage([5: "NULL", 6: "NULL"])
        defer { try? FileManager.default.removeItem(at: dir) }
        for arrow in [true, false] {
            let features = try Self.features(path, arrow: arrow)
            #expect(features.count == 20)
            #expect(features.indices.filter { features[$0].geometry == nil } == [4, 5], "arrow \(arrow)")
            #expect(features.map { $0.properties["n"] } == (0..<20).map { JSONValue.number(Double($0)) })
        }
    }
}
