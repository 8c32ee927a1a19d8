import Foundation
import Meridian
import Testing

/// Inputs that cannot be read as they are: every verb says so in one line naming the file (and the feature), exit 1,
/// never an answer made without part of the input.
@Suite struct UnreadableInputTests {
    /// Runs a program, returning its exit status and standard error.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }

    /// Three points in a GeoPackage written by the library (fid 1 to 3), the geometry of fid 2 replaced by one byte.
    static func corruptGeoPackage(in dir: URL) throws -> URL {
        let gpkg = dir.appendingPathComponent("points.gpkg")
        let table = TableDescription(name: "points", spatialReference: .wgs84, geometryType: .point,
                                     fields: [Field(name: "name", type: .text)])
        let writer = try FeatureTableWriter(path: gpkg.path, table: table)
        for i in 0..<3 {
            try writer.add(Feature(geometry: .point(Point(x: -97 + Double(i), y: 32, spatialReference: .wgs84)),
                                   properties: ["name": .string("p\(i)")]))
        }
        try writer.finish()
        let r = try run("/usr/bin/ogrinfo", [gpkg.path, "-sql", "UPDATE points SET geom = X'00' WHERE fid = 2"])
        #expect(r.status == 0, "\(r.stderr)")
        return gpkg
    }

    @Test func anUnreadableGeometryIsTheSameErrorForEveryVerb() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpkg = try Self.corruptGeoPackage(in: dir)
        let reason = "\(gpkg.path), layer 'points', feature 2: its geometry cannot be read: a blob of 1 byte(s) that is not a GeoPackage geometry"
        let runs: [(String, [String])] = [
            ("project", ["project", gpkg.path, "--to", "EPSG:3857", "-o", dir.appendingPathComponent("p.wkt").path]),
            ("kml", ["kml", "convert", gpkg.path, dir.appendingPathComponent("p.kml").path]),
            ("buffer", ["buffer", gpkg.path, "--geodesic", "--distance", "1km", "-o", dir.appendingPathComponent("b.geojson").path]),
            ("buffer", ["buffer", gpkg.path, "--geodesic", "--distance", "1km", "--union",
                        "-o", dir.appendingPathComponent("u.geojson").path]),
            ("op", ["op", "convex-hull", gpkg.path, "-o", dir.appendingPathComponent("h.wkt").path]),
            ("measure", ["measure", "--geodesic", gpkg.path]),
        ]
        for (verb, arguments) in runs {
            let r = runCommand(arguments)
            #expect(r.status == 1, "\(arguments)")
            #expect(r.stderr == "meridian \(verb): \(reason)\n", "\(arguments)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["points.gpkg"])
    }
}
