import Foundation
import Testing
import Meridian

@testable import MeridianCLI

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
}
