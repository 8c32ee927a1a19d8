import Foundation
import Meridian
import Testing

/// One rule for every output format: a write that fails (a full disk, a file-size limit) is an error, exit 1, with
/// no file left; a feature the format cannot hold is refused (never left out); an empty result is a valid file.
@Suite struct WriteFailureTests {
    /// 300 points in Texas (longitude, latitude), whose 1 km geodesic buffers take 280–820 KB in every format.
    static func points(in dir: URL) throws -> URL {
        let csv = dir.appendingPathComponent("points.csv")
        var text = "name,lon,lat\n"
        for i in 0..<300 { text += "p\(i),\(-100 + Double(i % 20) * 0.1),\(30 + Double(i / 20) * 0.1)\n" }
        try text.write(to: csv, atomically: true, encoding: .utf8)
        return csv
    }

    /// Runs the built `meridian` with files limited to `kib` KiB (RLIMIT_FSIZE) and SIGXFSZ ignored, so that a write
    /// past the limit fails with EFBIG, as on a full disk, instead of killing the process.
    static func runLimited(kib: Int, _ arguments: [String]) throws -> CommandResult {
        let binary = ProcessInfo.processInfo.environment["MERIDIAN_BIN"]
            ?? packageRoot.appendingPathComponent(".build/debug/meridian").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")  // its ulimit -f counts KiB
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(kib); exec \"$0\" \"$@\"", binary] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self))
    }

    @Test(arguments: ["fgb", "gpkg", "shp", "geojson", "kml", "csv", "wkt", "svg"])
    func aWriteThatFailsIsAnErrorAndLeavesNoFile(ext: String) throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.points(in: dir)
        let output = dir.appendingPathComponent("out.\(ext)")
        let r = try Self.runLimited(kib: 64, ["buffer", input.path, "--geodesic", "--distance", "1km", "-o", output.path])
        #expect(r.status == 1, "\(ext): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("meridian buffer: ") && lines[0].contains("out.\(ext)"),
                "\(ext): \(r.stderr)")
        // Nothing but the input is left: no output, no scratch file or folder, no shapefile sidecar.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == ["points.csv"], "\(ext): \(left)")
    }

    @Test func aCutFlatGeobufSaysHowFarItGot() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.points(in: dir)
        let output = dir.appendingPathComponent("out.fgb")
        let r = try Self.runLimited(kib: 64, ["buffer", input.path, "--geodesic", "--distance", "1km", "-o", output.path])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("meridian buffer: \(output.path), layer 'out': cannot write: the file GDAL wrote holds "),
                "\(r.stderr)")
        #expect(r.stderr.hasSuffix(" feature(s) of 300, then ends at byte 65536 inside the next: a write failed (a full disk or a file-size limit?)\n"),
                "\(r.stderr)")
    }

    @Test func aFeatureWithoutGeometryIsRefusedByFlatGeobufAndKeptByGeoPackage() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"a":1}},
        {"type":"Feature","geometry":null,"properties":{"a":2}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[3,4]},"properties":{"a":3}}]}
        """.write(to: input, atomically: true, encoding: .utf8)
        let fgb = dir.appendingPathComponent("out.fgb")
        let r = runCommand(["project", input.path, "--to", "EPSG:4326", "-o", fgb.path])
        #expect(r.status == 1)
        #expect(r.stderr == "meridian project: \(fgb.path), layer 'out': cannot write: feature 1: it has no geometry, which a FlatGeobuf cannot hold (GDAL would leave the feature out); write a GeoPackage (.gpkg) or GeoJSON instead\n")
        #expect(!FileManager.default.fileExists(atPath: fgb.path))

        let gpkg = dir.appendingPathComponent("out.gpkg")
        #expect(runCommand(["project", input.path, "--to", "EPSG:4326", "-o", gpkg.path]).status == 0)
        let result = try FeatureDataSource(fileURL: gpkg).featureTable(named: nil).queryFeatures()
        var geometries: [Bool] = []
        while let f = try result.next() { geometries.append(f.geometry != nil) }
        #expect(geometries == [true, false, true])
    }

    @Test func everyClipResultEmptyIsRefusedByFlatGeobuf() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.points(in: dir)
        let fgb = dir.appendingPathComponent("clip.fgb")
        let r = runCommand(["op", "clip", input.path, "--envelope", "0,0,1,1", "-o", fgb.path])
        #expect(r.status == 1)
        #expect(r.stderr == "meridian op: \(fgb.path), layer 'clip': cannot write: feature 0: it has an empty geometry, which a FlatGeobuf cannot hold (GDAL would leave the feature out); write a GeoPackage (.gpkg) or GeoJSON instead\n")
        #expect(!FileManager.default.fileExists(atPath: fgb.path))
    }

    @Test func anEmptyResultIsAValidFlatGeobuf() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("square.wkt")
        try "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))\n".write(to: input, atomically: true, encoding: .utf8)
        let fgb = dir.appendingPathComponent("pieces.fgb")
        // A line that does not cut the square: no piece, no feature.
        let r = runCommand(["op", "cut", input.path, "--in-srs", "EPSG:3857", "--with", "LINESTRING (5 5, 6 6)",
                            "-o", fgb.path])
        #expect(r.status == 0, "\(r.stderr)")
        let table = try FlatGeobufFeatureTable(fileURL: fgb)
        #expect(table.tableName == "pieces")
        #expect(table.spatialReference == (try SpatialReference(wkid: 3857)))
        #expect(try table.queryFeatures().next() == nil)
    }
}
