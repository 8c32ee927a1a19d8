import Foundation
import Testing

/// `meridian near` end to end: the rows of each output shape with exact values, and bad input refused in one line
/// naming the file and the feature, with no output file.
@Suite struct NearCommandTests {
    /// LEFT: A at the origin (radius 10) and B at (100, 0) (radius 5), in EPSG:32038 (US survey feet).
    static let left = "name,x,y,r\nA,0,0,10\nB,100,0,5\n"
    /// RIGHT: P 5 from A, Q exactly 10 from A (the boundary), R 4 from B.
    static let right = "name,x,y,kind\nP,3,4,x\nQ,6,8,y\nR,104,0,z\n"

    /// Writes files into a fresh folder and runs `near` there with `arguments` (file names relative to it).
    private func near(_ files: [String: String], _ arguments: [String]) throws -> (CommandResult, URL) {
        let folder = try temporaryFolder()
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        let args = arguments.map { files[$0] != nil || $0.hasPrefix("out.") ? folder.appendingPathComponent($0).path : $0 }
        var result = runCommand(["near"] + args)
        result.stdout = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")  // CSV records end in CRLF
        return (result, folder)
    }

    /// Pairs: LEFT's and RIGHT's attributes (the shared `name` suffixed), the distance in the SRS unit named in the
    /// column, the rank; the boundary is inclusive (Q is exactly 10 from A).
    @Test func pairsHoldBothSidesAttributesTheDistanceAndTheRank() throws {
        let (r, folder) = try near(["l.csv": Self.left, "r.csv": Self.right],
                                   ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance", "10"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            name_left,r,name_right,kind,distance_us_ft,rank,wkt
            A,10,P,x,5,1,POINT (0 0)
            A,10,Q,y,10,2,POINT (0 0)
            B,5,R,z,4,1,POINT (100 0)

            """)
    }

    /// Per-feature radii with `--nearest 1`: each LEFT feature's nearest within its own radius (B's radius 5 keeps
    /// R at 4); `--count` lists every LEFT feature, 0 included; `--left-only` and `--right-only` each matched feature
    /// once.
    @Test func nearestCountAndOneSideShapes() throws {
        let files = ["l.csv": Self.left, "r.csv": Self.right, "far.csv": "name,x,y\nZ,5000,5000\n"]
        let base = ["l.csv", "r.csv", "--in-srs", "EPSG:32038"]
        let (nearest, folder) = try near(files, base + ["--distance-field", "r", "--nearest", "1"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(nearest.stdout == "name_left,r,name_right,kind,distance_us_ft,rank,wkt\nA,10,P,x,5,1,POINT (0 0)\nB,5,R,z,4,1,POINT (100 0)\n",
                "\(nearest.stderr)")
        let (count, f2) = try near(files, ["l.csv", "far.csv", "--in-srs", "EPSG:32038", "--distance", "1000", "--count"])
        defer { try? FileManager.default.removeItem(at: f2) }
        #expect(count.stdout == "name,r,near_count,wkt\nA,10,0,POINT (0 0)\nB,5,0,POINT (100 0)\n", "\(count.stderr)")
        let (leftOnly, f3) = try near(files, base + ["--distance", "4.5", "--left-only"])
        defer { try? FileManager.default.removeItem(at: f3) }
        #expect(leftOnly.stdout == "name,r,wkt\nB,5,POINT (100 0)\n", "\(leftOnly.stderr)")
        let (rightOnly, f4) = try near(files, base + ["--distance", "10", "--right-only"])
        defer { try? FileManager.default.removeItem(at: f4) }
        #expect(rightOnly.stdout == "name,kind,wkt\nP,x,POINT (3 4)\nQ,y,POINT (6 8)\nR,z,POINT (104 0)\n", "\(rightOnly.stderr)")
    }

    /// `-o -` is the standard output, CSV as without `-o`: the same bytes in every shape (the wkt column was once
    /// decided from the path's name, so `-o -` wrote a header without it and rows without their last column).
    @Test func dashIsTheStandardOutputInEveryShape() throws {
        let files = ["l.csv": Self.left, "r.csv": Self.right]
        let base = ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance", "10"]
        for shape in ["--pairs", "--count", "--left-only", "--right-only"] {
            let (implicit, f1) = try near(files, base + [shape])
            defer { try? FileManager.default.removeItem(at: f1) }
            let (dash, f2) = try near(files, base + [shape, "-o", "-"])
            defer { try? FileManager.default.removeItem(at: f2) }
            #expect(implicit.status == 0 && dash.status == 0, "\(implicit.stderr)\(dash.stderr)")
            #expect(dash.stdout == implicit.stdout, "\(shape)")
            #expect(dash.stdout.split(separator: "\n").first?.hasSuffix(",wkt") == true, "\(shape): \(dash.stdout)")
        }
    }

    /// An empty RIGHT (a CSV header alone) is an answer: no pairs, every near_count 0.
    @Test func emptyRightGivesNoPairs() throws {
        let (r, folder) = try near(["l.csv": Self.left, "r.csv": "name,x,y\n"],
                                   ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance", "10", "--count"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(r.status == 0 && r.stdout == "name,r,near_count,wkt\nA,10,0,POINT (0 0)\nB,5,0,POINT (100 0)\n", "\(r.stderr)")
    }

    /// `--geodesic`: meters on the ellipsoid, across ±180° (1° of longitude on the equator is 111,319.49 m).
    @Test func geodesicDistancesAreMetersAcrossTheAntimeridian() throws {
        let (r, folder) = try near(["l.csv": "id,lon,lat\na,179.5,0\n", "r.csv": "id,lon,lat\nb,-179.5,0\n"],
                                   ["--geodesic", "l.csv", "r.csv", "--distance", "112km"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first == "id_left,id_right,distance_m,rank,wkt", "\(r.stderr)")
        let distance = try #require(Double(lines[1].split(separator: ",")[2]))
        #expect(abs(distance - 111_319.490_793) < 1e-3)
    }

    /// Bad input: one line naming the file and the feature, exit 1, no output file (`@` in a message stands for the
    /// test's folder).
    @Test func badInputIsOneLineNamingTheFeatureAndWritesNothing() throws {
        let wgs = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-96.8,32.7]},"properties":{}},{"type":"Feature","geometry":null,"properties":{}}]}"#
        let cases: [([String: String], [String], String)] = [
            (["l.csv": "name,x,y,r\nA,0,0,10\nB,1,1,-5\n", "r.csv": Self.right],
             ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance-field", "r"],
             "@l.csv: feature 1 (line 3): 'r' is negative; a search distance must be 0 or more"),
            (["l.csv": "name,x,y,r\nA,0,0,nan\n", "r.csv": Self.right],
             ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance-field", "r"],
             "@l.csv: feature 0 (line 2): 'r' is 'nan', not a number"),
            (["l.csv": Self.left, "r.csv": Self.right],
             ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance-field", "radius"],
             "@l.csv: feature 0 (line 2) has no 'radius' property"),
            (["l.geojson": wgs, "r.csv": "id,lon,lat\nb,-96.8,32.7\n"],
             ["--geodesic", "l.geojson", "r.csv", "--distance", "1km"],
             "@l.geojson: feature 1 (line 1) has no geometry"),
            (["l.csv": "id,lon,lat\na,-96.8,32.7\n", "r.csv": "id,lon,lat\nb,-96.8,32.7\n"],
             ["l.csv", "r.csv", "--distance", "1"],
             "@l.csv is in WGS 84 (EPSG:4326), which is geographic, not projected: a planar near measures in a projected spatial reference's unit; give --srs SRS (e.g. a UTM zone) to project both inputs, or --geodesic to measure on the ellipsoid"),
            (["l.csv": Self.left, "r.wkt": "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))\n"],
             ["l.csv", "r.wkt", "--in-srs", "EPSG:32038", "--distance", "1"],
             "@r.wkt: feature 0 (line 1): invalid polygon: Self-intersection[5 5] (GeometryEngine.makeValid can repair it)"),
        ]
        for (files, arguments, message) in cases {
            let (r, folder) = try near(files, arguments + ["-o", "out.csv"])
            defer { try? FileManager.default.removeItem(at: folder) }
            let expected = "meridian near: " + message.replacingOccurrences(of: "@", with: folder.path + "/") + "\n"
            #expect(r.status == 1 && r.stderr == expected, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.csv").path))
        }
    }

    /// LEFT and RIGHT in different spatial references (a GeoPackage in EPSG:32038, a longitude/latitude CSV) without
    /// --srs: refused, naming both; with --srs both are projected into it and measured there.
    @Test func mismatchedSpatialReferencesNeedSRS() throws {
        let (made, folder) = try near(["l.csv": Self.left, "r.csv": "id,lon,lat\nb,-96.8,32.7\n"], [])
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = made
        let gpkg = folder.appendingPathComponent("l.gpkg").path, csv = folder.appendingPathComponent("r.csv").path
        let project = runCommand(["project", folder.appendingPathComponent("l.csv").path, "--from", "EPSG:32038",
                                  "--to", "EPSG:32038", "-o", gpkg])
        #expect(project.status == 0, "\(project.stderr)")
        let out = folder.appendingPathComponent("out.csv").path
        let r = runCommand(["near", gpkg, csv, "--distance", "1", "-o", out])
        #expect(r.status == 1 && r.stderr == "meridian near: LEFT \(gpkg), layer 'l' is in NAD27 / Texas North Central (EPSG:32038) but RIGHT \(csv) is in WGS 84 (EPSG:4326): give --srs SRS to project both into one projected spatial reference\n",
                "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let fixed = runCommand(["near", gpkg, csv, "--srs", "EPSG:32038", "--allow-outside-area", "--nearest", "1", "-o", out])
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }

    /// Usage errors: exit 2, one line, before anything is read.
    @Test func usageErrors() {
        let cases: [([String], String)] = [
            (["l.csv", "r.csv"], "give --distance D, --distance-field NAME or --nearest K"),
            (["l.csv", "r.csv", "--distance", "-1"], "--distance expects a number of 0 or more with an optional unit (m, km, ft, us-ft, mi, us-mi or nmi), got '-1'"),
            (["l.csv", "r.csv", "--distance", "1", "--count", "--right-only"], "give one of --count and --right-only, not several"),
            (["l.csv", "r.csv", "--distance", "1", "--srs", "EPSG:4326"], "--srs EPSG:4326 is geographic; a planar near needs a projected spatial reference (its unit would be degrees). Use a projected one, e.g. a UTM zone, or --geodesic for distances on the ellipsoid"),
            (["--geodesic", "l.csv", "r.csv", "--distance", "1", "--srs", "EPSG:32038"], "--srs does not apply to a --geodesic near (it applies to a planar near)"),
            (["l.csv", "r.csv", "--distance", "1", "--distance-unit", "mi"], "--distance-unit applies to --distance-field values"),
            (["l.csv", "r.csv", "--distance", "1", "-o", "x.wkt"], "near does not write WKT ('x.wkt'); use .csv, .geojson, .json, .geojsons, .gpkg, .shp, .fgb or PG:…"),
        ]
        for (arguments, message) in cases {
            let r = runCommand(["near"] + arguments)
            #expect(r.status == 2 && r.stderr == "meridian near: \(message)\n", "\(r.stderr)")
        }
    }
}
