import Foundation
import MeridianCLI
@testable import MeridianIO
import Testing

/// Issue 15's numbered defects at the CLI's edges: every one is a clear failure (exit 1 or 2, one line naming the
/// input and feature), never a crash, a NaN or a success with nothing or garbage written. The process-level cases
/// (/dev/full, closed descriptors, a closed pipe) are in Tests/python/test_cli_edges.py.
@Suite struct EdgeCaseTests {
    static func expectOneLine(
        _ r: CommandResult, status: Int32, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        HostileInputTests.expectOneLine(r, status: status, prefix, sourceLocation: sourceLocation)
    }

    // MARK: 1. Streams that cannot be written

    struct Refused: Error {}

    /// Runs the command line with a standard output (and error) that throw like write(2) on a full disk.
    static func runFailing(_ arguments: [String], stdin: String = "", failingStderr: Bool = false)
        -> (status: Int32, stderr: String)
    {
        final class Buffer: @unchecked Sendable { var err = Data() }
        let buffer = Buffer()
        let io = CommandIO(
            readInput: { Data(stdin.utf8) }, writeOutput: { _ in throw StreamWriteError(code: ENOSPC) },
            writeError: { data in
                if failingStderr { throw StreamWriteError(code: ENOSPC) }
                buffer.err.append(data)
            })
        let status = MeridianCommandLine.run(arguments, io: io)
        return (status, String(decoding: buffer.err, as: UTF8.self))
    }

    @Test func aFullStandardOutputIsExit1WithOneLine() {
        for args in [["srs", "EPSG:32038"], ["--help"], ["--version"], ["buffer", "--help"],
                     ["measure", "-", "--geodesic", "--json"]] {
            let r = Self.runFailing(args, stdin: "lon,lat\n-97,32.5\n")
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.hasSuffix("cannot write standard output: No space left on device\n"), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
    }

    @Test func aFailingStandardErrorIsIgnored() {
        #expect(Self.runFailing(["measure", "/nonexistent/x.csv"], failingStderr: true).status == 1)
        #expect(Self.runFailing(["bogus"], failingStderr: true).status == 2)
    }

    // MARK: 2. Input echoed in messages is escaped

    @Test func controlCharactersFromInputAreEscaped() {
        // A quoted CSV field holding a line break and an ESC sequence that would recolour the terminal.
        let csv = "lon,lat\n\"-97\n\u{1B}[31mred\",32.5\n"
        let r = runCommand(["measure", "-"], stdin: csv)
        Self.expectOneLine(r, status: 1, "meridian measure: stdin: line 2: ")
        #expect(!r.stderr.contains("\u{1B}"), "\(r.stderr)")
        #expect(r.stderr.contains("'-97\\n\\u{1B}[31mred'"), "\(r.stderr)")
        // A GeoJSON property read as a distance.
        let geojson = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-97,32.5]},"properties":{"d":"1\u001b]0;pwned\u0007\r\n"}}"#
        let d = runCommand(["buffer", "-", "--geodesic", "--distance-field", "d"], stdin: geojson)
        Self.expectOneLine(d, status: 1, "meridian buffer: stdin: feature 0 (line 1): 'd' is '1\\u{1B}]0;pwned\\u{7}\\r\\n'")
        // The command name too.
        Self.expectOneLine(runCommand(["x\u{1B}[2J"]), status: 2, "meridian: unknown command 'x\\u{1B}[2J'")
    }

    // MARK: 3. No NaN written; mixed dimensions have one rule

    static let mixedRing = #"{"type":"Polygon","coordinates":[[[-97,32],[-96,32,10],[-96,33],[-97,32]]]}"#

    @Test func aRingMixingHeightsIsWrittenWithoutNaN() {
        let r = runCommand(["project", "-", "--to", "EPSG:3857"], stdin: Self.mixedRing)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("POLYGON (("), "\(r.stdout)")
        #expect(!r.stdout.lowercased().contains("nan") && !r.stdout.lowercased().contains("inf"), "\(r.stdout)")
        // And GeoJSON out: the heights dropped for the whole geometry, never some.
        let g = runCommand(["project", "-", "--to", "EPSG:4326", "-o", "-"], stdin: Self.mixedRing)
        #expect(g.status == 0 && g.stdout.contains("[-96,32]") && !g.stdout.contains("10]"), "\(g.stdout)")
    }

    @Test func wktWithNaNOrInfinityIsRefused() {
        for wkt in ["POINT Z (1 2 NaN)", "POINT (NaN 2)", "LINESTRING Z (1 2 3, 4 5 1e999)"] {
            let r = runCommand(["project", "-", "--from", "EPSG:3857", "--to", "EPSG:4326"], stdin: wkt + "\n")
            #expect(r.status == 1, "\(wkt): \(r.stdout)")
            #expect(r.stderr.hasPrefix("meridian project: stdin: WKT line 1"), "\(wkt): \(r.stderr)")
        }
    }

    // MARK: 4. Missing or empty input is an error

    @Test func noFeaturesOrNoGeometriesAreErrors() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = [
            #"{"type":"FeatureCollection"}"#: "the FeatureCollection has no \"features\" member",
            #"{"type":"FeatureCollection","features":[]}"#: "the input has no features",
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{}},{"type":"Feature","geometry":{"type":"LineString","coordinates":[]},"properties":{}}]}"#:
                "no feature has a geometry (2 feature(s), each null or empty)",
        ]
        for (text, message) in inputs {
            let kmz = folder.appendingPathComponent("o.kmz").path
            for (command, args) in [("project", ["project", "-", "--to", "EPSG:3857"]), ("measure", ["measure", "-"]),
                                    ("kml", ["kml", "create", "-", "-o", kmz])] {
                let r = runCommand(args, stdin: text)
                Self.expectOneLine(r, status: 1, "meridian \(command): stdin")
                #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
                #expect(!r.stderr.contains("operation: none") && r.stdout.isEmpty, "\(args)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test func theOperationLineIsTrue() {
        let r = runCommand(["project", "-", "--to", "EPSG:3857"], stdin: "lon,lat\n-97,32.5\n")
        #expect(r.status == 0)
        #expect(r.stderr.contains("operation: ") && !r.stderr.contains("operation: none"), "\(r.stderr)")
        let same = runCommand(["project", "-", "--to", "EPSG:4326"], stdin: "lon,lat\n-97,32.5\n")
        #expect(same.stderr.contains("operation: none (WGS 84 and WGS 84 are the same)"), "\(same.stderr)")
    }

    // MARK: 5. Out-of-domain projection is refused

    @Test func projectAppliesTheAreaOfUseRule() {
        let r = runCommand(["project", "-", "--to", "EPSG:32038"], stdin: "lon,lat\n-97,32.5\n170,30\n")
        Self.expectOneLine(r, status: 1, "meridian project: stdin: feature 1 (line 3) at longitude 170.000000, latitude 30.000000 is outside the area of use of NAD27 / Texas North Central")
        #expect(r.stderr.contains("use --allow-outside-area to project it anyway"))
        #expect(r.stdout.isEmpty)
        // Overridden: a point outside the area but inside the projection's domain is projected.
        let o = runCommand(["project", "-", "--to", "EPSG:32038", "--allow-outside-area"],
                           stdin: "lon,lat\n-97,32.5\n-90,30\n")
        #expect(o.status == 0, "\(o.stderr)")
        // Poles into Web Mercator: within its area of use widened by 5°, but PROJ cannot project them.
        let pole = runCommand(["project", "-", "--to", "EPSG:3857"], stdin: #"{"type":"Point","coordinates":[0,90]}"#)
        Self.expectOneLine(pole, status: 1, "meridian project: stdin: feature 0 (line 1) at longitude 0.000000, latitude 90.000000 cannot be projected into WGS 84 / Pseudo-Mercator")
    }

    @Test func projectRefusesPointsOutsideTheProjectionsDomainEvenWhenAllowed() {
        let far = runCommand(["project", "-", "--from", "EPSG:32038", "--to", "EPSG:4326", "--allow-outside-area"],
                             stdin: "x,y\n2000000,400000\n1e15,1e15\n")
        Self.expectOneLine(far, status: 1, "meridian project: stdin: feature 1 (line 3) (1000000000000000, 1000000000000000) is outside the domain of the projection")
        #expect(far.stdout.isEmpty)
        let pole = runCommand(["project", "-", "--to", "EPSG:3857", "--allow-outside-area"],
                              stdin: #"{"type":"LineString","coordinates":[[0,80],[0,90]]}"#)
        Self.expectOneLine(pole, status: 1, "meridian project: stdin: feature 0 (line 1) vertex 1 (0, 90) is outside the domain")
    }

    // MARK: 6. Errors say where, in the input's coordinates

    @Test func anInvalidPolygonIsNamedInTheInputsCoordinates() {
        // Feature 1's hole lies outside its shell, near (-97.5, 32.5) in longitude/latitude.
        let text = #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"Point","coordinates":[-97,32.5]},"properties":{}},
            {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[-97,32],[-96,32],[-96,33],[-97,32]],[[-97.6,32.4],[-97.4,32.4],[-97.4,32.6],[-97.6,32.4]]]},"properties":{}}]}
            """#
        let r = runCommand(["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi"], stdin: text)
        Self.expectOneLine(r, status: 1, "meridian buffer: stdin: feature 1 (line 3): invalid polygon: Hole lies outside shell[-97.")
    }

    // MARK: 7. Consistency

    @Test func tinyDistancesAndEmptyGeometriesAreRefusedPlanarAndGeodesic() {
        let point = #"{"type":"Point","coordinates":[-97,32.5]}"#
        for args in [["--srs", "EPSG:32038", "--distance", "1e-300"], ["--geodesic", "--distance", "1e-300"]] {
            let r = runCommand(["buffer", "-"] + args, stdin: point)
            Self.expectOneLine(r, status: 1, "meridian buffer: invalid distance: stdin: feature 0 (line 1): ")
            #expect(r.stderr.contains("less than 1 µm"), "\(args): \(r.stderr)")
        }
        let empty = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-97,32.5]},"properties":{}},{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[]},"properties":{}}]}"#
        for args in [["--srs", "EPSG:32038", "--distance", "1mi"], ["--geodesic", "--distance", "1mi"]] {
            let r = runCommand(["buffer", "-"] + args, stdin: empty)
            Self.expectOneLine(r, status: 1, "meridian buffer: stdin: feature 1 (line 1) has no geometry")
        }
    }

    @Test func anEmptyOptionValueIsAUsageError() {
        for args in [["project", "-", "--to", "EPSG:3857", "-o", ""], ["project", "-", "--to", "EPSG:3857", "--output="],
                     ["buffer", "-", "--srs=", "--distance", "1"]] {
            let r = runCommand(args, stdin: "lon,lat\n-97,32.5\n")
            Self.expectOneLine(r, status: 2, "meridian \(args[0]): ")
            #expect(r.stderr.contains("needs a value, not an empty one"), "\(args): \(r.stderr)")
        }
    }

    @Test func kmlCreateRefusesALatitudeBeyond90() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.kml").path
        let r = runCommand(["kml", "create", "-", "-o", out], stdin: "lon,lat\n-97,32.5\n-97,91\n")
        Self.expectOneLine(r, status: 1, "meridian kml: stdin: feature 1 (line 3): latitude 91.0 is outside -90…90")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func buffersEstimatedTooLargeAreRefusedBeforeAnyWork() {
        // 20,000 points at 1000 segments: about 80 million vertices (the process used to abort at 7.9 GB).
        var csv = "lon,lat\n"
        for i in 0..<20_000 { csv += "\(-97 + Double(i % 200) * 0.01),\(32 + Double(i / 200) * 0.01)\n" }
        let r = runCommand(["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "--segments", "1000"], stdin: csv)
        // Streamed output is buffered a batch of 4096 features at a time, each batch's estimate (4001 vertices per
        // point) counted before it is buffered: the first batch is already over the limit.
        Self.expectOneLine(r, status: 1, "meridian buffer: too large: the buffers would make about 16,388,096 vertices, more than the 5,000,000 the work may make (4096 features so far, --segments 1000)")
        #expect(r.stdout.isEmpty, "nothing is written before the refusal")
        #expect(r.stderr.contains("raise --max-vertices"))
        // The limit is the user's to raise (and to lower).
        let three = "lon,lat\n-97,32.5\n-96.9,32.5\n-96.8,32.5\n"
        let low = runCommand(["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "--segments", "1000",
                              "--max-vertices", "12000", "-o", "-"], stdin: three)
        #expect(low.status == 1 && low.stderr.contains("about 12,003 vertices, more than the 12,000"), "\(low.stderr)")
        let raised = runCommand(["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "--segments", "1000",
                                 "--max-vertices", "12003"], stdin: three)
        #expect(raised.status == 0, "\(raised.stderr)")
    }
}
