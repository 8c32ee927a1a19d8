import Foundation
import MeridianCore
import MeridianEngine
@testable import MeridianFeatureData

/// Paths, sample tables and helpers the feature data tests share.
enum TestSupport {
    /// The repository root (three levels above this file).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `Tests/Fixtures/gdal`.
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/gdal")

    /// A fresh temporary directory.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-fd-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a program; returns its exit status, standard output and standard error.
    static func run(_ program: String, _ arguments: [String]) -> (status: Int32, output: String, error: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { return (-1, "", "cannot run \(program): \(error)") }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// `ogrinfo -al -so` of a dataset (GDAL's own reader: an independent view of what was written).
    static func ogrinfoSummary(_ path: String, layer: String? = nil) -> String {
        let r = run("/usr/bin/ogrinfo", ["-ro", "-al", "-so", path] + (layer.map { [$0] } ?? []))
        return r.output + r.error
    }

    /// The OGR connection string of the tests' PostGIS server (scripts/postgis.sh, started by scripts/test.sh).
    static func postGIS() throws -> String {
        guard let pg = ProcessInfo.processInfo.environment["MERIDIAN_PG"], !pg.isEmpty else {
            throw MissingDatabase()
        }
        return pg
    }

    /// The PostGIS tests need the server: they fail, never skip, without it.
    struct MissingDatabase: Error, CustomStringConvertible {
        var description: String {
            "MERIDIAN_PG is not set: run the tests through scripts/test.sh, or first eval \"$(scripts/postgis.sh start)\""
        }
    }

    /// EPSG:32038, NAD27 / Texas North Central (US survey feet): the seed's spatial reference.
    static let texas: SpatialReference = {
        do { return try SpatialReference(wkid: 32038) } catch { fatalError("PROJ has no EPSG:32038: \(error)") }
    }()

    /// The fields of the sample table: one of each type every format carries.
    static let fields = [
        Field(name: "name", type: .text, length: 40), Field(name: "population", type: .int32),
        Field(name: "big", type: .int64), Field(name: "area", type: .float64), Field(name: "founded", type: .dateOnly),
    ]

    /// Sample polygons in EPSG:32038 (a square, a square with a hole, two parts) with attributes of every type;
    /// coordinates with fractional digits that a text round trip would disturb.
    static func sampleFeatures(count: Int = 3) -> [Feature] {
        (0..<count).map { i in
            let x = 2_400_000.123456789 + Double(i) * 10_000.000000001, y = 450_000.987654321
            let square = { (x: Double, y: Double, s: Double) -> [Coordinate] in
                [Coordinate(x: x, y: y), Coordinate(x: x + s, y: y), Coordinate(x: x + s, y: y + s),
                 Coordinate(x: x, y: y + s), Coordinate(x: x, y: y)]
            }
            var parts = [Polygon.Part(shell: square(x, y, 1000.5))]
            if i % 3 == 1 { parts[0].holes = [square(x + 100, y + 100, 10.25).reversed()] }
            if i % 3 == 2 { parts.append(Polygon.Part(shell: square(x + 5000, y, 333.3))) }
            return Feature(
                geometry: .polygon(Polygon(parts: parts, spatialReference: texas)),
                properties: ["name": .string("parcel \(i) – Dallas"), "population": .number(Double(1000 * i - 7)),
                             "big": .number(9_007_199_254_740_000 + Double(i)), "area": .number(1234.5678901234567 * Double(i + 1)),
                             "founded": i == 2 ? .null : .string("18\(41 + i)-02-\(10 + i % 18)")])
        }
    }

    /// The sample table's description.
    static func sampleTable(name: String = "parcels") -> TableDescription {
        TableDescription(name: name, spatialReference: texas, geometryType: .polygon, fields: fields)
    }

    /// Writes features to a path through `FeatureTableWriter`.
    static func write(_ features: [Feature], to path: String, table: TableDescription = sampleTable()) throws {
        let writer = try FeatureTableWriter(path: path, table: table)
        try writer.add(contentsOf: features)
        try writer.finish()
    }

    /// Every feature of a source's only (or named) table.
    static func readAll(_ path: String, table: String? = nil) throws -> (FeatureTable, [Feature]) {
        let t = try FeatureDataSource(path: path).featureTable(named: table)
        let result = t.queryFeatures()
        var features: [Feature] = []
        while let f = try result.next() { features.append(f) }
        return (t, features)
    }

    /// Reads sources in a separate process, the replay tool of the fuzz target `ogr` (`meridian-fuzz ogr FILE...`,
    /// built with the tests), and returns its exit status and standard error: GDAL must print nothing of its own.
    /// Each source is packed as the target expects: a GeoPackage or FlatGeobuf as a kind byte and its bytes, a
    /// shapefile as the kind byte, the lengths of its `.shx` and `.dbf`, then `.shx`, `.dbf` and `.shp`.
    static func readInSeparateProcess(_ sources: [URL]) throws -> (status: Int32, stderr: String) {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var packed: [String] = []
        for (i, source) in sources.enumerated() {
            var bytes: [UInt8]
            switch source.pathExtension {
            case "shp":
                let base = source.deletingPathExtension()
                let shx = (try? Data(contentsOf: base.appendingPathExtension("shx"))) ?? Data()
                let dbf = (try? Data(contentsOf: base.appendingPathExtension("dbf"))) ?? Data()
                bytes = [2, UInt8(shx.count & 0xFF), UInt8(shx.count >> 8), UInt8(dbf.count & 0xFF), UInt8(dbf.count >> 8)]
                bytes += shx + dbf + (try Data(contentsOf: source))
            case "fgb": bytes = [1] + (try Data(contentsOf: source))
            case "zip": bytes = [3] + (try Data(contentsOf: source))
            default: bytes = [0] + (try Data(contentsOf: source))
            }
            let file = dir.appendingPathComponent("input-\(i)")
            try Data(bytes).write(to: file)
            packed.append(file.path)
        }
        let tool = root.appendingPathComponent(".build/debug/meridian-fuzz").path
        let r = run(tool, ["ogr"] + packed)
        return (r.status, r.error)
    }
}

extension Geometry {
    /// The geometry with every ring turned to one orientation (counter-clockwise shells, clockwise holes), for
    /// comparing with a format that stores rings the other way round (a shapefile's shells are clockwise).
    var normalizedRings: Geometry {
        guard case .polygon(var p) = self else { return self }
        func oriented(_ ring: [Coordinate], counterClockwise: Bool) -> [Coordinate] {
            (Polygon.signedArea(ring) > 0) == counterClockwise ? ring : ring.reversed()
        }
        p.parts = p.parts.map {
            Polygon.Part(shell: oriented($0.shell, counterClockwise: true),
                         holes: $0.holes.map { oriented($0, counterClockwise: false) })
        }
        return .polygon(p)
    }
}
