import Foundation
import Testing
import Meridian

@testable import MeridianCLI
@testable import MeridianIO

/// What a user names is what is read, and what a message shows of it is safe: a PostGIS password never, a GDAL
/// connection prefix never a second file, an echoed input bounded, an encoding by its right name.
@Suite struct NamedSourceTests {
    /// A connection string libpq cannot read (an unquoted password with a space) is refused without a word of it:
    /// libpq's own message would quote "Tail" as a keyword.
    @Test func aConnectionStringLibpqRefusesIsNeverShown() {
        let connection = "PG:host=127.0.0.1 port=1 password=abc Tail"
        for command in [["buffer", connection, "--srs", "EPSG:32038", "--distance", "1mi"],
                        ["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "-o", connection, "--layer", "t"]] {
            let r = runCommand(command, stdin: "x,y\n2400000,450000\n")
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr == "meridian buffer: PG:(connection string not shown): cannot connect: libpq cannot read the "
                + "connection string: missing \"=\" after \"…\" in connection info string\n", "\(command)")
        }
    }

    /// Runs the built `meridian` in a folder (relative paths are the point), standard error with standard output.
    static func run(in folder: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.environment["MERIDIAN_BIN"]
            ?? packageRoot.appendingPathComponent(".build/debug/meridian").path)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// A file named like GDAL's connection syntax, `GPKG:a.gpkg:t`, beside `a.gpkg`: the file named is the one
    /// recognised and the one read (GDAL was given the name as it stands and opened `a.gpkg`, another file, instead).
    @Test func aFileNamedLikeGDALSyntaxIsTheFileRead() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FeatureTableCommandTests.points(folder.appendingPathComponent("named.gpkg"), layer: "t")
        try FileManager.default.moveItem(at: folder.appendingPathComponent("named.gpkg"),
                                         to: folder.appendingPathComponent("GPKG:a.gpkg:t"))
        let other = TableDescription(name: "t", spatialReference: FeatureTableCommandTests.texas, geometryType: .point,
                                     fields: [Field(name: "name", type: .text)])
        let writer = try FeatureTableWriter(path: folder.appendingPathComponent("a.gpkg").path, table: other)
        try writer.add(Feature(geometry: .point(Point(x: 2_500_000, y: 460_000, spatialReference: FeatureTableCommandTests.texas)),
                               properties: ["name": .string("the other file")]))
        try writer.finish()
        for name in ["GPKG:a.gpkg:t", "./GPKG:a.gpkg:t"] {
            let r = try Self.run(in: folder, ["project", name, "--to", "EPSG:4326", "-o", "out.geojson"])
            #expect(r.status == 0, "\(r.output)")
            let written = try String(contentsOf: folder.appendingPathComponent("out.geojson"), encoding: .utf8)
            #expect(written.contains("Dallas") && !written.contains("the other file"), "\(name): \(written)")
        }
        // Without the file of that name, nothing else is read in its place.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("GPKG:a.gpkg:t"))
        let missing = try Self.run(in: folder, ["project", "GPKG:a.gpkg:t", "--to", "EPSG:4326"])
        #expect(missing.status == 1 && missing.output == "meridian project: cannot read GPKG:a.gpkg:t: No such file or directory\n",
                "\(missing.output)")
        #expect {
            try FeatureDataSource(path: folder.appendingPathComponent("GPKG:a.gpkg:t").path)
        } throws: { error in
            "\(error)" == "\(folder.path)/GPKG:a.gpkg:t: cannot open: No such file or directory"
        }
        #expect {
            try FeatureDataSource(path: "GPKG:\(folder.path)/a.gpkg:t")
        } throws: { error in
            "\(error)" == "GPKG:\(folder.path)/a.gpkg:t: cannot open: No such file or directory (GDAL's connection syntax, "
                + "such as GPKG:file:table, is not read: name the file itself, and choose its layer separately)"
        }
    }

    /// A spatial reference echoed in an error is bounded: the message keeps its first 600 and last 300 characters
    /// (what was refused, and PROJ's reason) and says how many it left out; it printed all 33 KB of a deeply nested WKT.
    @Test func anEchoedSpatialReferenceIsBounded() throws {
        let deep = String(repeating: "GEOGCS[\"x\",", count: 3000)
        let r = runCommand(["buffer", "-", "--srs", deep, "--distance", "1mi"], stdin: "x,y\n2400000,450000\n")
        #expect(r.status == 2)
        var reason = ""
        do { _ = try SpatialReference(parsing: deep) } catch { reason = error.description }
        #expect(reason.count > 30_000 && reason.hasSuffix("': proj_create: too many nesting levels"), "\(reason.suffix(80))")
        let bounded = reason.prefix(600) + "…(\(reason.count - 900) characters elided)…" + reason.suffix(300)
        #expect(r.stderr == "meridian buffer: " + bounded + "\n")
        #expect(r.stderr.count <= MessageText.maximumLineLength + 1)
    }

    /// Text in UTF-32 is named so (its byte-order mark FF FE 00 00 begins with UTF-16's FF FE, and 00 00 FE FF was
    /// called binary data); UTF-16 still is UTF-16.
    @Test(arguments: [([0xFF, 0xFE, 0x00, 0x00], String.Encoding.utf32LittleEndian, "UTF-32"),
                      ([0x00, 0x00, 0xFE, 0xFF], .utf32BigEndian, "UTF-32"),
                      ([0xFF, 0xFE], .utf16LittleEndian, "UTF-16"), ([0xFE, 0xFF], .utf16BigEndian, "UTF-16")])
    func textIsCalledByItsEncoding(_ mark: [UInt8], _ encoding: String.Encoding, _ name: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("points.csv")
        try (Data(mark) + (try #require("lon,lat\n1,2\n".data(using: encoding)))).write(to: file)
        let r = runCommand(["buffer", file.path, "--geodesic", "--distance", "1mi"])
        #expect(r.status == 1)
        #expect(r.stderr == "meridian buffer: \(file.path): not GeoJSON, CSV or WKT: found \(name) text (save it as UTF-8)\n")
    }
}
