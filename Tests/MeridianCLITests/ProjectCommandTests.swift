import Foundation
import Testing

import Meridian

/// `meridian project` against published conversions (Tests/Fixtures/stateplane).
@Suite struct ProjectCommandTests {
    @Test func csvToStatePlaneKeepsOtherColumns() throws {
        // TXNC GP1 (NGS): NAD27 −96°48′ 32°45′ → E 2215204.973, N 394833.169 US ft; tolerance 0.002 ft.
        let r = runCommand(["project", "--from", "EPSG:4267", "--to", "EPSG:32038"],
                           stdin: "id,lon,lat,note\n7,-96.8,32.75,\"a, quoted\"\n")
        #expect(r.status == 0, "\(r.stderr)")
        let table = try CSV.decode(Data(r.stdout.utf8))
        #expect(table.header == ["id", "x", "y", "note"])
        #expect(table.rows[0][0] == "7")
        #expect(table.rows[0][3] == "a, quoted")
        let e = try #require(Double(table.rows[0][1])), n = try #require(Double(table.rows[0][2]))
        #expect(abs(e - 2_215_204.973) < 0.002)
        #expect(abs(n - 394_833.169) < 0.002)
        #expect(r.stderr.contains("operation:"))
    }

    @Test func webMercatorGuidanceNoteExample() throws {
        // IOGP GN 7-2: 100°20′W 24°22′54.433″N → E −11169055.58, N 2800000.00 m (published to 0.01 m).
        let r = runCommand(["project", "--to", "EPSG:3857"], stdin: "lon,lat\n-100.333333333333333,24.381786944444444\n")
        #expect(r.status == 0, "\(r.stderr)")
        let table = try CSV.decode(Data(r.stdout.utf8))
        #expect(abs(Double(table.rows[0][0])! - -11_169_055.58) < 0.01)
        #expect(abs(Double(table.rows[0][1])! - 2_800_000.00) < 0.01)
    }

    @Test func datumShiftReportsItsAccuracy() {
        // NAD27 → WGS84: PROJ reports the operation it ran and its accuracy (about 7 m without the NADCON grid).
        let r = runCommand(["project", "--from", "EPSG:4267", "--to", "EPSG:4326"], stdin: "lon,lat\n-96.8,32.75\n")
        #expect(r.status == 0)
        #expect(r.stderr.contains("NAD27 to WGS 84"))
        #expect(r.stderr.contains("accuracy:"))
    }

    @Test func geoJSONOutputIsWGS84Only() {
        let point = "{\"type\":\"Point\",\"coordinates\":[-97,32.5]}"
        #expect(runCommand(["project", "--to", "EPSG:32038", "-o", "x.geojson"], stdin: point).status == 2)
        let wkt = runCommand(["project", "--to", "EPSG:32038"], stdin: point)
        #expect(wkt.status == 0)
        #expect(wkt.stdout.hasPrefix("POINT"))
    }

    /// The output files `project` takes for each input, asked of the formats' capabilities (`writesCSVRows`,
    /// `isFeatureTable`, `writesInWorkingSpatialReference`): CSV input as CSV (or .txt), other input as WKT or
    /// GeoJSON (WGS84 only); each refusal word for word.
    @Test func outputFilesForEachInput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(_ out: String, _ stdin: String, to target: String = "EPSG:32038") -> CommandResult {
            runCommand(["project", "--from", "EPSG:4326", "--to", target, "-o", folder.appendingPathComponent(out).path],
                       stdin: stdin)
        }
        let csv = "lon,lat\n-97,32.5\n", point = "{\"type\":\"Point\",\"coordinates\":[-97,32.5]}"
        #expect(run("a.csv", csv).status == 0)
        #expect(run("a.txt", csv).status == 0)
        #expect(run("a.wkt", csv).stderr == "meridian project: CSV input is written as CSV (the coordinate columns "
                + "replaced) or as a feature table (.gpkg, .shp, .fgb, PG:…); use -o OUT.csv, not '.wkt'\n")
        #expect(run("b.wkt", point).status == 0)
        #expect(run("b.geojson", point, to: "EPSG:4326").status == 0)
        for ext in ["csv", "txt"] {
            #expect(run("b.\(ext)", point).stderr == "meridian project: unknown output format '.\(ext)' for GeoJSON "
                    + "input (use .geojson, .wkt, .gpkg, .shp, .fgb or PG:…)\n")
        }
        let geoJSON = run("c.geojson", point)
        #expect(geoJSON.status == 2 && geoJSON.stderr.hasPrefix("meridian project: GeoJSON output is WGS84 only (RFC 7946); write .wkt for "))
    }

    @Test func xyWithoutSourceIsAUsageError() {
        #expect(runCommand(["project", "--to", "EPSG:4326"], stdin: "x,y\n1,2\n").status == 2)
    }
}
