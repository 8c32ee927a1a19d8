import Foundation
import Testing

import Meridian

/// `meridian buffer` end to end: the seed scenario, the area-of-use rule, bad input, atomic output.
/// Numeric references: the NGS/PROJ TXNC GP1 point (Tests/Fixtures/stateplane) and the analytic area of a
/// regular polygon.
@Suite struct BufferCommandTests {
    /// TXNC GP1: NAD27 lon −96°48′, lat 32°45′ → E 2215204.973, N 394833.169 US ft in EPSG:32038 (published to 1 mm).
    let gp1 = (lon: -96.8, lat: 32.75, e: 2_215_204.973, n: 394_833.169)

    @Test func oneMileBufferAroundTheNGSPointIsTheRegular64Gon() throws {
        let csv = "name,lon,lat\nGP1,\(gp1.lon),\(gp1.lat)\n"
        let toStdout = runCommand(["buffer", "--srs", "EPSG:32038", "--in-srs", "EPSG:4267", "--distance", "1mi", "-o", "-"], stdin: csv)
        #expect(toStdout.status == 0, "\(toStdout.stderr)")
        #expect(toStdout.stdout.contains("\"FeatureCollection\""))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("b.wkt").path
        let w = runCommand(["buffer", "--srs", "EPSG:32038", "--in-srs", "EPSG:4267", "--distance", "1mi", "-o", out], stdin: csv)
        #expect(w.status == 0, "\(w.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let geometry = try WKT.decode(text.trimmingCharacters(in: .whitespacesAndNewlines), spatialReference: .webMercator)
        guard case .polygon(let polygon) = geometry else { Issue.record("not a polygon: \(text)"); return }
        let ring = polygon.parts[0].shell
        #expect(ring.count == 65)  // 64 chords, closed
        // Radius: 1 international mile in US survey feet, exactly 1609.344 × 3937/1200.
        let r = 1609.344 * 3937 / 1200
        // Analytic area of the regular 64-gon inscribed in that circle: (n/2) r² sin(2π/n); shoelace on ~1e5 ft
        // coordinates keeps ~1e-12 relative.
        let expected = 32 * r * r * sin(2 * Double.pi / 64)
        #expect(abs(Polygon.signedArea(ring) - expected) / expected < 1e-9)
        // Centre: the mean of the 64 distinct vertices is the projected point; against the NGS value within
        // 0.002 ft (the published precision is 0.001 ft; PROJ's LCC agrees with NGS to < 0.001 ft).
        let cx = ring.dropLast().reduce(0) { $0 + $1.x } / 64, cy = ring.dropLast().reduce(0) { $0 + $1.y } / 64
        #expect(abs(cx - gp1.e) < 0.002)
        #expect(abs(cy - gp1.n) < 0.002)
        // Every vertex at distance r from the centre (vertices lie on the circle) to 1e-6 ft (the arithmetic on
        // ~2e6 ft coordinates is good to ~1e-9 ft).
        for v in ring { #expect(abs(hypot(v.x - cx, v.y - cy) - r) < 1e-6) }
    }

    @Test func seedScenarioUnionedAndSeparate() throws {
        let csv = try String(contentsOf: packageRoot.appendingPathComponent("examples/seed-points.csv"), encoding: .utf8)
        let separate = runCommand(["buffer", "--srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi"], stdin: csv)
        #expect(separate.status == 0, "\(separate.stderr)")
        let features = try GeoJSON.decodeFeatures(Data(separate.stdout.utf8))
        #expect(features.count == 5)
        #expect(features[0].properties["name"] == .string("Dallas"))
        #expect(features[0].properties["radius_mi"] == .number(40))
        let unioned = runCommand(["buffer", "--srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi", "--union"], stdin: csv)
        #expect(unioned.status == 0, "\(unioned.stderr)")
        let one = try GeoJSON.decodeFeatures(Data(unioned.stdout.utf8))
        #expect(one.count == 1)
        // Dallas (40 mi) and Fort Worth (30 mi) are 31 miles apart: their buffers merge, so fewer parts than points.
        guard case .polygon(let p)? = one[0].geometry else { Issue.record("not a polygon"); return }
        #expect(p.parts.count < 5)
    }

    @Test func pointsOutsideTheAreaOfUseAreRefusedByName() throws {
        // Miami is 13.8° east of the zone's area of use, beyond the horizon's 5° margin.
        let csv = "name,lon,lat\nDallas,-96.797,32.7767\nMiami,-80.1918,25.7617\n"
        let r = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "10mi"], stdin: csv)
        #expect(r.status == 1)
        #expect(r.stderr.contains("feature 1 (line 3)"))
        #expect(r.stderr.contains("outside the area of use of NAD27 / Texas North Central"))
        #expect(r.stdout.isEmpty)
        let allowed = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "10mi", "--allow-outside-area"], stdin: csv)
        #expect(allowed.status == 0)
        // Houston, 2° south of the area of use, is within the horizon (its area widened by 5°): buffered.
        let houston = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "10mi"],
                                 stdin: "name,lon,lat\nHouston,-95.3698,29.7604\n")
        #expect(houston.status == 0, "\(houston.stderr)")
    }

    /// NGS's l176 test point GP4 of NAD27 Alaska zone 1 (−129.5417, 54.5417; PROJ's test suite), 30 km outside EPSG's
    /// box, is buffered and projected without `--allow-outside-area`, to PROJ's published 3561180.429, 1015414.284 ft
    /// (within 0.01 ft: EPSG's parameters of the zone differ from PROJ's old nad27 file's by 0.004 ft here).
    @Test func anNGSTestPointOutsideTheBoxIsWithinTheHorizon() throws {
        let gp4 = "lon,lat\n-129.541666666666667,54.541666666666667\n"
        let projected = runCommand(["project", "-", "--from", "EPSG:4267", "--to", "EPSG:26731"], stdin: gp4)
        #expect(projected.status == 0, "\(projected.stderr)")
        let fields = projected.stdout.split(whereSeparator: \.isNewline).last.map { $0.split(separator: ",") } ?? []
        let (x, y) = (Double(fields.first ?? "") ?? 0, Double(fields.last ?? "") ?? 0)
        #expect(abs(x - 3561180.429) < 0.01 && abs(y - 1015414.284) < 0.01, "\(projected.stdout)")
        let buffered = runCommand(["buffer", "--srs", "EPSG:26731", "--in-srs", "EPSG:4267", "--distance", "1mi"],
                                  stdin: gp4.replacingOccurrences(of: "lon,lat", with: "x,y"))
        #expect(buffered.status == 0, "\(buffered.stderr)")
    }

    /// With --allow-outside-area, a buffer PROJ cannot take to WGS84 for GeoJSON is named by its feature and line
    /// (the streamed per-feature path, where the buffers are projected one by one), and nothing is written.
    @Test func aBufferThatCannotBeProjectedIsNamed() throws {
        let csv = "id,x,y\n0,0,1500000\n1,90000000,90000000\n"
        let r = runCommand(["buffer", "--srs", "EPSG:5070", "--distance", "1km", "--allow-outside-area"], stdin: csv)
        #expect(r.status == 1)
        #expect(r.stderr.contains("feature 1 (line 3): buffer: projection failed: vertex 0 (90001000.0, 90000000.0)"))
        #expect(r.stdout.isEmpty)
    }

    @Test func aStreamedUnionRefusesPointsOutsideTheAreaOfUseAndLeavesNoFile() throws {
        // More points than one union batch, so the union is streamed while the area of use is checked on a second
        // thread: the check's error, naming the point, and no output file (nor a temporary one).
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var csv = "x,y\n"
        for i in 0..<70_536 {  // BufferOutput.unionBatchSize (65,536) + 5,000
            // Isolated circles on a 4 km lattice around Kansas in EPSG:5070; one point in the Atlantic.
            let (x, y) = i == 40_000 ? (3_500_000.0, 1_000_000.0) : (Double(i % 300) * 4_000, 1_500_000 + Double(i / 300) * 4_000)
            csv += "\(x),\(y)\n"
        }
        let input = folder.appendingPathComponent("p.csv"), output = folder.appendingPathComponent("u.wkt")
        try csv.write(to: input, atomically: true, encoding: .utf8)
        let r = runCommand(["buffer", input.path, "--srs", "EPSG:5070", "--distance", "100", "--union", "-o", output.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("p.csv: feature 40000 (line 40002) at longitude"), "\(r.stderr)")
        #expect(r.stderr.contains("is outside the area of use of NAD83 / Conus Albers"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["p.csv"])
    }

    @Test func badDistancesAndUnits() {
        let csv = "lon,lat,d\n-97,32.5,0\n"
        #expect(runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "abc"], stdin: csv).status == 2)
        #expect(runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "3 furlongs"], stdin: csv).status == 2)
        #expect(runCommand(["buffer", "--srs", "EPSG:32038"], stdin: csv).status == 2)
        let zero = runCommand(["buffer", "--srs", "EPSG:32038", "--distance-field", "d"], stdin: csv)
        #expect(zero.status == 1)
        #expect(zero.stderr.contains("feature 0 (line 2)"))
        #expect(zero.stderr.contains("positive distance"))
        let huge = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1e12mi"], stdin: csv)
        #expect(huge.status == 1)
        #expect(huge.stderr.contains("half the Earth's circumference"))
        #expect(runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "--segments", "0"], stdin: csv).status == 2)
    }

    @Test func nonFiniteFieldDistancesAreRefusedAlikeByPlanarAndGeodesicBuffers() {
        for value in ["nan", "inf", "-inf", "1e999"] {
            let csv = "lon,lat,d\n-97,32.5,1\n-97,32.6,\(value)\n"
            for mode in [["--srs", "EPSG:32038"], ["--geodesic"]] {
                let r = runCommand(["buffer"] + mode + ["--distance-field", "d", "--unit", "mi"], stdin: csv)
                #expect(r.status == 1, "\(mode) \(value)")
                #expect(r.stderr.contains("feature 1 (line 3): 'd' is '\(value)', not a number"), "\(mode): \(r.stderr)")
                #expect(r.stderr.split(separator: "\n").count == 1)
                #expect(r.stdout.isEmpty)
            }
        }
    }

    @Test func badInputNamesTheLine() {
        let nan = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi"], stdin: "lon,lat\n-97,32.5\n-97,nan\n")
        #expect(nan.status == 1)
        #expect(nan.stderr.contains("line 3"))
        let json = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi"],
                              stdin: "{\"type\": \"FeatureCollection\",\n \"features\": [}\n")
        #expect(json.status == 1)
        #expect(json.stderr.contains("line 2"))
        let empty = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi"], stdin: "  \n")
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("empty"))
        let header = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi"], stdin: "a,b\n1,2\n")
        #expect(header.status == 1)
        #expect(header.stderr.contains("lon,lat"))
    }

    @Test func failedRunsLeaveNoFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("never.geojson")
        let r = runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "-o", out.path], stdin: "lon,lat\n-80.19,25.76\n")
        #expect(r.status == 1)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(leftovers.isEmpty)
    }

    @Test func svgPictureShowsAreaOfUseBuffersAndPoints() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("b.svg")
        let csv = try String(contentsOf: packageRoot.appendingPathComponent("examples/seed-points.csv"), encoding: .utf8)
        let r = runCommand(["buffer", "--srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi", "-o", out.path], stdin: csv)
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOf: out, encoding: .utf8)
        #expect(svg.contains("stroke-dasharray"))  // the red dashed area of use
        #expect(svg.components(separatedBy: "<circle").count - 1 == 5)
        #expect(svg.components(separatedBy: "fill=\"#ffff00\"").count - 1 == 5)
    }
}

/// `meridian buffer -o out.kmz`: the sample's graphics as KML placemarks, read back by the library.
@Suite struct BufferKMLOutputTests {
    @Test func kmzHoldsOneStyledPlacemarkPerBufferAndInput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = try String(contentsOf: packageRoot.appendingPathComponent("examples/seed-points.csv"), encoding: .utf8)
        for (ext, union) in [("kmz", false), ("kml", true)] {
            let out = folder.appendingPathComponent("b.\(ext)")
            var args = ["buffer", "--srs", "EPSG:32038", "--distance-field", "radius_mi", "--unit", "mi", "-o", out.path]
            if union { args.append("--union") }
            let r = runCommand(args, stdin: csv)
            #expect(r.status == 0, "\(r.stderr)")
            let dataset = try KMLDataset(url: out)
            let placemarks = dataset.document.allPlacemarks
            #expect(placemarks.count == (union ? 1 : 5) + 5)
            let buffer = try #require(placemarks.first)
            #expect(buffer.styleUrl == "#\(KMLDocument.bufferStyleID)")
            // Yellow at 60% opacity: KML's aabbggrr is 99 00 ff ff (0.6 × 255 = 153 = 0x99).
            let style = try #require(KMLStyleResolver(document: dataset.document).effectiveStyle(for: buffer))
            #expect(style.polygonStyle?.fillColor?.kmlString == "9900ffff")
        }
        // The geodesic buffer writes KML too.
        let g = folder.appendingPathComponent("g.kmz")
        let geodesic = runCommand(["buffer", "--geodesic", "--distance", "50km", "-o", g.path], stdin: csv)
        #expect(geodesic.status == 0, "\(geodesic.stderr)")
        #expect(try KMLDataset(url: g).document.allPlacemarks.count == 10)
    }
}
