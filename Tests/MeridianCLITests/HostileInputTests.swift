import Foundation
import Testing

/// Every command facing bad paths and hostile input: one clear line on stderr, exit 1 or 2, no partial file.
@Suite struct HostileInputTests {
    static let point = "{\"type\":\"Point\",\"coordinates\":[-97,32.5]}"
    static let kmlText = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><Point><coordinates>-97,32.5</coordinates></Point></Placemark></kml>
        """

    /// Exactly one line on stderr, starting with `prefix`.
    static func expectOneLine(
        _ r: CommandResult, status: Int32, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.status == status, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix(prefix), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(
            r.stderr.hasSuffix("\n") && r.stderr.dropLast().split(separator: "\n").count == 1, "\(r.stderr)",
            sourceLocation: sourceLocation)
    }

    @Test func noCommandIsOneLine() {
        let r = runCommand([])
        Self.expectOneLine(r, status: 2, "meridian: missing command: buffer, project, srs, measure, op, near, kml")
    }

    @Test func aDirectoryAsInputSaysSo() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dir = folder.appendingPathComponent("points.geojson")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        let p = dir.path
        for (command, args) in [
            ("buffer", ["buffer", p, "--srs", "EPSG:32038", "--distance", "1mi"]),
            ("project", ["project", p, "--to", "EPSG:3857"]), ("measure", ["measure", p]),
            ("kml", ["kml", "create", p, "-o", folder.appendingPathComponent("o.kmz").path]),
        ] {
            Self.expectOneLine(runCommand(args), status: 1, "meridian \(command): cannot read \(p): it is a directory")
        }
        for args in [["kml", "info", p], ["kml", "info", p, "--stream"]] {
            let r = runCommand(args)
            Self.expectOneLine(r, status: 1, "meridian kml: cannot read \(p): it is a directory")
            #expect(r.stderr.components(separatedBy: p).count == 2, "the path once: \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["points.geojson"])
    }

    @Test func devNullIsAnEmptyInput() {
        Self.expectOneLine(
            runCommand(["measure", "/dev/null"]), status: 1, "meridian measure: /dev/null: the input is empty")
    }

    @Test func kmlInputIsRefusedWithTheConversionToRun() throws {
        let sample = fixtures.appendingPathComponent("kml/samples/libkml/kml_ge-point.kml").path
        let r = runCommand(["buffer", sample, "--geodesic", "--distance", "1km"])
        Self.expectOneLine(r, status: 1, "meridian buffer: \(sample) is KML/KMZ")
        #expect(r.stderr.contains("meridian kml convert \(sample) OUT.geojson"))
        // By content too: KML on stdin, and a KMZ (a ZIP archive) under another name.
        Self.expectOneLine(
            runCommand(["measure", "--geodesic"], stdin: Self.kmlText), status: 1, "meridian measure: stdin is KML/KMZ")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let kmz = folder.appendingPathComponent("doc.dat")
        try Data([0x50, 0x4B, 0x03, 0x04, 0, 0, 0, 0]).write(to: kmz)
        Self.expectOneLine(
            runCommand(["project", kmz.path, "--to", "EPSG:3857"]), status: 1,
            "meridian project: \(kmz.path) is KML/KMZ")
    }

    @Test func kmlInfoOnSomethingElseSaysItIsNotKML() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("point.kml")
        try Data(Self.point.utf8).write(to: json)
        Self.expectOneLine(
            runCommand(["kml", "info", json.path]), status: 1,
            "meridian kml: \(json.path): not KML or KMZ: found GeoJSON")
        let empty = folder.appendingPathComponent("empty.kml")
        try Data().write(to: empty)
        Self.expectOneLine(
            runCommand(["kml", "info", empty.path]), status: 1,
            "meridian kml: \(empty.path): not KML or KMZ: found an empty file")
    }

    @Test func unwritableOutputsNameTheReasonAndLeaveNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        let missing = folder.appendingPathComponent("missing").path
        let cases: [(String, String)] = [
            ("\(missing)/out", "the folder \(missing) does not exist"),
            ("\(file.path)/out", "\(file.path) is not a folder"),
        ]
        for (base, reason) in cases {
            Self.expectOneLine(
                runCommand(
                    ["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "-o", base + ".geojson"],
                    stdin: Self.point),
                status: 1, "meridian buffer: cannot write \(base).geojson: \(reason)")
            Self.expectOneLine(
                runCommand(
                    ["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "-o", base + ".kmz"], stdin: Self.point),
                status: 1, "meridian buffer: \(base).kmz: \(reason)")
            Self.expectOneLine(
                runCommand(["project", "--to", "EPSG:32038", "-o", base + ".wkt"], stdin: Self.point),
                status: 1, "meridian project: cannot write \(base).wkt: \(reason)")
            Self.expectOneLine(
                runCommand(["kml", "create", "-", "-o", base + ".kml"], stdin: Self.point),
                status: 1, "meridian kml: \(base).kml: \(reason)")
        }
        let asDirectory = folder.appendingPathComponent("dir.geojson")
        try FileManager.default.createDirectory(at: asDirectory, withIntermediateDirectories: false)
        Self.expectOneLine(
            runCommand(
                ["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "-o", asDirectory.path], stdin: Self.point),
            status: 1, "meridian buffer: cannot write \(asDirectory.path): it is a directory")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["dir.geojson", "file.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: asDirectory.path).isEmpty)
    }

    @Test func projectChecksTheOutputBeforeWorkingAndReportsOnlyAfterWriting() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let never = folder.appendingPathComponent("never.geojson").path
        // GeoJSON out for a projected target: refused up front, without the operation notes.
        let r = runCommand(["project", "--to", "EPSG:3857", "-o", never], stdin: Self.point)
        Self.expectOneLine(r, status: 2, "meridian project: GeoJSON output is WGS84 only")
        // CSV in is CSV or a feature table out: a .geojson name would have held CSV text.
        let csv = runCommand(["project", "--to", "EPSG:3857", "-o", never], stdin: "lon,lat\n-97,32.5\n")
        Self.expectOneLine(csv, status: 2, "meridian project: CSV input is written as CSV")
        #expect(!FileManager.default.fileExists(atPath: never))
        // A failed write: one line, no notes before it.
        let out = folder.appendingPathComponent("missing/out.csv").path
        Self.expectOneLine(
            runCommand(["project", "--to", "EPSG:3857", "-o", out], stdin: "lon,lat\n-97,32.5\n"),
            status: 1, "meridian project: cannot write \(out): the folder")
    }

    @Test func geodesicDistancesBelowAMicrometreOrHugeAreRefusedReadably() {
        for d in ["1e-12", "1e-320"] {
            let r = runCommand(["buffer", "--geodesic", "--distance", d], stdin: Self.point)
            Self.expectOneLine(r, status: 1, "meridian buffer: invalid distance: stdin: feature 0 (line 1): ")
            #expect(r.stderr.contains("less than 1 µm"), "\(r.stderr)")
        }
        let huge = runCommand(["buffer", "--geodesic", "--distance", "1e308"], stdin: Self.point)
        Self.expectOneLine(huge, status: 1, "meridian buffer: invalid distance: stdin: feature 0 (line 1): 1e+308 m is more than")
        #expect(huge.stderr.count < 220, "\(huge.stderr)")
        #expect(runCommand(["buffer", "--geodesic", "--distance", "1e-6"], stdin: Self.point).status == 0)
    }

    @Test func wktErrorsGiveTheLineAndColumnInTheFile() {
        let r = runCommand(["measure", "--in-srs", "EPSG:32038", "-"], stdin: "POINT (1 2)\n\n  POINT (nan 2)\n")
        Self.expectOneLine(
            r, status: 1, "meridian measure: stdin: WKT line 3, column 10: expected the x coordinate, found 'nan'")
        // CRLF line ends, a tab before the geometry (one column), white space at the end; read from the bytes.
        let crlf = runCommand(["measure", "--in-srs", "EPSG:32038", "-"],
                              stdin: "POINT (1 2) \r\n\r\n\tPOINT (1 2) x\r\n")
        Self.expectOneLine(crlf, status: 1, "meridian measure: stdin: WKT line 3, column 14: unexpected 'x' after the geometry")
        let fine = runCommand(["measure", "--in-srs", "EPSG:32038", "-"], stdin: "\tPOINT (1 2)\r\n\r\n  POINT (3 4)  \r\n")
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    @Test func outputThroughASymbolicLinkWritesTheFileItNames() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = folder.appendingPathComponent("real.geojson"), link = folder.appendingPathComponent("link.geojson")
        try Data("{}".utf8).write(to: real)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let r = runCommand(["buffer", "--geodesic", "--distance", "1km", "-o", link.path], stdin: Self.point)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        #expect(try String(contentsOf: real, encoding: .utf8).contains("FeatureCollection"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "link.geojson", "real.geojson",
            ])
    }

    @Test func outputToAPipeIsWrittenInPlaceNotReplaced() throws {
        // Like `-o /dev/stdout`: renaming a temporary file over it would swap the pipe (or device) for a file.
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("out.geojson").path
        #expect(mkfifo(fifo, 0o600) == 0)
        final class Received: @unchecked Sendable { var data = Data() }
        let received = Received()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received.data = (try? handle.readToEnd()) ?? Data() }
            done.signal()
        }
        let r = runCommand(["buffer", "--geodesic", "--distance", "1km", "-o", fifo], stdin: Self.point)
        #expect(r.status == 0, "\(r.stderr)")
        var status = stat()
        #expect(stat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the pipe was replaced")
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(String(decoding: received.data, as: UTF8.self).contains("FeatureCollection"))
    }
}
