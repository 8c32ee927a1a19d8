import Foundation
import Meridian
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// The commands on GeoPackage, Shapefile and FlatGeobuf inputs and outputs (GDAL/OGR): layers chosen with `--layer`
/// (before `-o` the input's, after it the output's), the source's spatial reference and attributes, the refusals.
@Suite struct FeatureTableCommandTests {
    static let texas: SpatialReference = {
        do { return try SpatialReference(wkid: 32038) } catch { fatalError("\(error)") }
    }()

    /// Three named points in EPSG:32038, written as `layer` of a GeoPackage (or a shapefile) by the library.
    static func points(_ path: URL, layer: String = "cities") throws {
        let table = TableDescription(name: layer, spatialReference: texas, geometryType: .point,
                                     fields: [Field(name: "name", type: .text), Field(name: "rank", type: .int32)])
        let writer = try FeatureTableWriter(path: path.path, table: table, overwrite: false)
        for (i, name) in ["Dallas", "Fort Worth", "Arlington"].enumerated() {
            let p = Point(x: 2_400_000 + Double(i) * 50_000, y: 450_000, spatialReference: texas)
            try writer.add(Feature(geometry: .point(p), properties: ["name": .string(name), "rank": .number(Double(i + 1))]))
        }
        try writer.finish()
    }

    @Test func theLayerAfterOutputNamesTheOutputsLayer() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.gpkg"), output = dir.appendingPathComponent("out.gpkg")
        try Self.points(input)
        let r = runCommand(["buffer", input.path, "--layer", "cities", "--srs", "EPSG:32038", "--distance", "1mi",
                            "-o", output.path, "--layer", "zones"])
        #expect(r.status == 0, "\(r.stderr)")
        let source = try FeatureDataSource(fileURL: output)
        #expect(source.tableNames == ["zones"])
        let table = try source.featureTable(named: "zones")
        #expect(table.fields.map(\.name) == ["name", "rank"])
        #expect(table.fields.map(\.type) == [.text, .int32])
        #expect(table.spatialReference == Self.texas)
        let result = table.queryFeatures()
        var names: [String] = []
        while let f = try result.next() {
            names.append(f.attributes["name"]?.stringValue ?? "")
            #expect(f.geometry?.polygon != nil)
        }
        #expect(names == ["Dallas", "Fort Worth", "Arlington"])
    }

    @Test func severalLayersWithoutLayerListThem() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.gpkg"), b = dir.appendingPathComponent("b.gpkg")
        try Self.points(a, layer: "cities")
        try Self.points(b, layer: "towns")
        // Two layers in one GeoPackage: the second added by `project` writing… a second file; instead copy with GDAL.
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/usr/bin/ogr2ogr")
        copy.arguments = ["-update", "-append", a.path, b.path]
        try copy.run()
        copy.waitUntilExit()
        #expect(copy.terminationStatus == 0)
        let r = runCommand(["measure", a.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("has 2 layers: choose one with --layer ('cities', 'towns')"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(runCommand(["measure", a.path, "--layer", "towns"]).status == 0)
        let missing = runCommand(["measure", a.path, "--layer", "roads"])
        #expect(missing.status == 1 && missing.stderr.contains("no layer named 'roads'"))
    }

    @Test func aShapefileWithoutPrjNeedsInSRS() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shp = dir.appendingPathComponent("p.shp")
        try Self.points(shp)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("p.prj"))
        let out = dir.appendingPathComponent("b.wkt")
        let r = runCommand(["buffer", shp.path, "--srs", "EPSG:32038", "--distance", "1mi", "-o", out.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("p.shp has no .prj") && r.stderr.contains("give --in-srs"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let ok = runCommand(["buffer", shp.path, "--in-srs", "EPSG:32038", "--srs", "EPSG:32038", "--distance", "1mi",
                             "-o", out.path])
        #expect(ok.status == 0 && FileManager.default.fileExists(atPath: out.path), "\(ok.stderr)")
    }

    @Test func layerNamesWhereThereAreNoLayersAreUsageErrors() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("p.csv")
        try Data("x,y\n2400000,450000\n".utf8).write(to: csv)
        let onWKT = runCommand(["buffer", csv.path, "--srs", "EPSG:32038", "--distance", "1mi", "-o",
                                dir.appendingPathComponent("o.wkt").path, "--layer", "x"])
        #expect(onWKT.status == 2 && onWKT.stderr.contains("WKT has no layers"), "\(onWKT.stderr)")
        let onCSV = runCommand(["buffer", csv.path, "--layer", "x", "--srs", "EPSG:32038", "--distance", "1mi"])
        #expect(onCSV.status == 2 && onCSV.stderr.contains("--layer chooses a layer"), "\(onCSV.stderr)")
        let noTable = runCommand(["buffer", csv.path, "--srs", "EPSG:32038", "--distance", "1mi", "-o", "PG:dbname=x password=secret"])
        #expect(noTable.status == 2 && noTable.stderr.contains("needs the table's name"), "\(noTable.stderr)")
        #expect(!noTable.stderr.contains("secret"))
    }

    @Test func aGeoPackageFromStandardInputIsRefusedByName() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpkg = dir.appendingPathComponent("p.gpkg")
        try Self.points(gpkg)
        let bytes = try Data(contentsOf: gpkg)
        #expect(InputFormat.sniff(bytes) == .featureTable(.geoPackage))
        // Through a pipe (GDAL reads a GeoPackage in place, so standard input cannot be one).
        let piped = Process()
        piped.executableURL = URL(fileURLWithPath: "/bin/sh")
        let binary = ProcessInfo.processInfo.environment["MERIDIAN_BIN"] ?? packageRoot.appendingPathComponent(".build/debug/meridian").path
        piped.arguments = ["-c", "cat \"$1\" | \"$2\" measure - 2>&1", "sh", gpkg.path, binary]
        let out = Pipe()
        piped.standardOutput = out
        try piped.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        piped.waitUntilExit()
        #expect(piped.terminationStatus == 1)
        #expect(text.contains("is a GeoPackage, which is read from its file"), "\(text)")
    }

    @Test func opProjectAndKMLReadAndWriteTables() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpkg = dir.appendingPathComponent("p.gpkg")
        try Self.points(gpkg)
        let buffers = dir.appendingPathComponent("b.shp")
        #expect(runCommand(["buffer", gpkg.path, "--srs", "EPSG:32038", "--distance", "2mi", "-o", buffers.path]).status == 0)
        let hulls = dir.appendingPathComponent("h.fgb")
        let op = runCommand(["op", "convex-hull", buffers.path, "-o", hulls.path])
        #expect(op.status == 0, "\(op.stderr)")
        let hullTable = try FlatGeobufFeatureTable(fileURL: hulls)
        #expect(hullTable.fields.map(\.name) == ["name", "rank"])
        #expect(hullTable.spatialReference == Self.texas)
        let wgs = dir.appendingPathComponent("w.gpkg")
        let project = runCommand(["project", hulls.path, "--to", "EPSG:4326", "-o", wgs.path])
        #expect(project.status == 0, "\(project.stderr)")
        #expect(try GeoPackage(fileURL: wgs).geoPackageFeatureTables.first?.spatialReference == .wgs84)
        let kmz = dir.appendingPathComponent("c.kmz")
        let convert = runCommand(["kml", "convert", wgs.path, kmz.path])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try KMLDataset(url: kmz).document.allPlacemarks.map { $0.name } == ["Dallas", "Fort Worth", "Arlington"])
        let created = dir.appendingPathComponent("d.kml")
        #expect(runCommand(["kml", "create", buffers.path, "-o", created.path]).status == 0)
        #expect(try KMLDataset(url: created).document.allPlacemarks.count == 3)
    }
}
