import Foundation
import Testing
import Meridian

/// The defects hostile testing found, each through the command a user runs.
@Suite struct HostileFindingsTests {
    /// `kml convert` of a KML someone was sent: its icon hrefs name files outside its folder; the KMZ must hold none
    /// of them, each stays a link and one warning line names it (item 2).
    @Test func kmlConvertPacksNoFileFromOutsideTheDocumentsFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret.png"), doc = folder.appendingPathComponent("doc")
        let secretBytes = Data("SECRET-\(UUID().uuidString)".utf8)
        try secretBytes.write(to: secret)
        try FileManager.default.createDirectory(at: doc, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: doc.appendingPathComponent("pin.png"))
        let hrefs = [secret.path, secret.absoluteString, "../secret.png", "/proc/self/environ", "pin.png"]
        let styles = hrefs.enumerated().map { "<Style id=\"s\($0)\"><IconStyle><Icon><href>\($1)</href></Icon></IconStyle></Style>" }
        let kml = doc.appendingPathComponent("sent.kml")
        try Data(("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\(styles.joined())<Placemark>"
            + "<Point><coordinates>1,2</coordinates></Point></Placemark></Document></kml>").utf8).write(to: kml)
        let out = folder.appendingPathComponent("out.kmz")
        let r = runCommand(["kml", "convert", kml.path, out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: icon ") }
        #expect(warnings.count == 4, "\(r.stderr)")
        let back = try KMLDataset(url: out)
        #expect(back.resources == ["files/pin.png": Data([1, 2, 3])])
        #expect(back.resources.values.reduce(back.kmlData, +).range(of: secretBytes) == nil)

        // The KMZ converted again (its doc.kml names the same paths): nothing comes from the disk.
        let again = folder.appendingPathComponent("again.kmz")
        let r2 = runCommand(["kml", "convert", out.path, again.path])
        #expect(r2.status == 0 && r2.stderr.components(separatedBy: "warning: icon ").count == 5, "\(r2.stderr)")
        #expect(try KMLDataset(url: again).resources == back.resources)
    }

    /// KML coordinates that are not finite numbers (`nan,inf`, `1e400`): `kml convert` wrote null geometries with
    /// exit 0 and a note blaming gx:Track, `kml info` counted the placemarks with exit 0. Now both say which
    /// placemark and line, in one line, and nothing is written.
    @Test func unreadableKMLCoordinatesAreOneLineNamingThePlacemark() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let kml = folder.appendingPathComponent("sent.kml")
        try Data(("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\n"
            + "<Placemark><name>ok</name><Point><coordinates>-96.8,32.7</coordinates></Point></Placemark>\n"
            + "<Placemark><name>bad</name>\n<Point><coordinates>nan,inf</coordinates></Point></Placemark>\n"
            + "</Document></kml>").utf8).write(to: kml)
        let expected = "meridian kml: \(kml.path): placemark 1 (line 3): 'nan' is not a finite number in the coordinates of a Point\n"
        for out in ["o.geojson", "o.kmz", "o.kml"] {
            let target = folder.appendingPathComponent(out).path
            let r = runCommand(["kml", "convert", kml.path, target])
            #expect(r.status == 1 && r.stderr == expected, "\(out): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target))
        }
        let info = runCommand(["kml", "info", kml.path])
        #expect(info.status == 1 && info.stderr == expected, "\(info.stderr)")
    }

    /// `--icon` naming a device says what it is, not that it does not exist; nothing is written (item 9).
    @Test func anIconThatIsNotAFileSaysWhatItIs() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.kmz").path
        let r = runCommand(["kml", "create", "-", "-o", out, "--icon", "/dev/zero"], stdin: "lon,lat\n1,2\n")
        #expect(r.status == 1)
        #expect(r.stderr == "meridian kml: the icon file /dev/zero cannot be packed: it is not a regular file (a character device)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A geodesic buffer of a polygon whose hole lies outside its shell names the file, the feature and its line
    /// (it said only "invalid geometry: Hole lies outside shell[-90 10]", item 10); nothing is written.
    @Test func anInvalidPolygonIsNamedInAGeodesicBufferToo() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let holes = folder.appendingPathComponent("holes.geojson")
        try Data(("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"properties\":{},\"geometry\":"
            + "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]],"
            + "[[-90,10],[-80,10],[-80,20],[-90,10]]]}}]}").utf8).write(to: holes)
        let out = folder.appendingPathComponent("o.geojson").path
        let r = runCommand(["buffer", holes.path, "--geodesic", "--distance", "1km", "-o", out])
        #expect(r.status == 1)
        #expect(r.stderr == "meridian buffer: \(holes.path): feature 0 (line 2): invalid polygon: Hole lies outside shell[-90 10] (GeometryEngine.makeValid can repair it)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Work that would multiply vertices beyond `--max-vertices` is refused before it runs, naming the feature and
    /// the limit (`op densify` of a 10 × 10 square every micrometre used 3.1 GB; item 7), and nothing is written;
    /// an offset by 1e300 is refused (it gave a pentagon; item 9).
    @Test func operationsThatWouldMultiplyVerticesAreBounded() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.wkt").path
        let square = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\n"
        let densify = runCommand(["op", "densify", "-", "--max-segment-length", "1e-6", "-o", out], stdin: square)
        #expect(densify.status == 1 && !FileManager.default.fileExists(atPath: out))
        #expect(densify.stderr == "meridian op: stdin: feature 0 (line 1): too large: densify would make about 40,000,001 vertices, more than the 5,000,000 the work may make (--max-vertices; raise it to allow more)\n")
        let raised = runCommand(["op", "densify", "-", "--max-segment-length", "0.01", "--max-vertices", "4001"], stdin: square)
        #expect(raised.status == 0 && raised.stdout.split(separator: ",").count == 4001, "\(raised.stderr)")
        let offset = runCommand(["op", "offset", "-", "--distance", "1e300"], stdin: square)
        #expect(offset.status == 1 && offset.stderr.contains("the offset distance 1e+300 exceeds half the Earth's circumference"))
        // A unit of 1e-300 m makes 1e300 units one metre, within the Earth bound: the square is then under 1,000
        // steps of a double at the result's coordinates, and the offset is refused, not drawn as a pentagon.
        let tiny = runCommand(["op", "offset", "-", "--in-srs", "+proj=tmerc +to_meter=1e-300", "--distance", "1e300",
                               "-o", out], stdin: square)
        #expect(tiny.status == 1 && !FileManager.default.fileExists(atPath: out))
        #expect(tiny.stderr.contains("stdin: feature 0 (line 1): invalid argument: the offset distance 1e+300 dwarfs the geometry: its extent, 10.0, is under 1,000 steps"), "\(tiny.stderr)")
        // A large offset the coordinates resolve is drawn right: the mitred square grown by D is the square
        // [-D, 10 + D]², exactly (analytic; every coordinate is an integer a double holds).
        for d in [1e6, 1.5e7] {
            let grown = runCommand(["op", "offset", "-", "--in-srs", "EPSG:32614", "--distance", String(d)], stdin: square)
            #expect(grown.status == 0, "\(grown.stderr)")
            let polygon = try WKT.decode(grown.stdout, spatialReference: .unspecified).polygon
            let corners = Set((polygon?.parts.first?.shell ?? []).map { "\($0.x) \($0.y)" })
            #expect(corners == Set(["\(-d) \(-d)", "\(10 + d) \(-d)", "\(10 + d) \(10 + d)", "\(-d) \(10 + d)"]), "\(grown.stdout)")
        }
    }

    /// Output meridian writes, meridian reads back (item 4): every KML placemark `kml convert` turns into GeoJSON —
    /// rings of 1 to 5 positions closed or not, lines of 1 to 3 positions, points at the edges of longitude and
    /// latitude and beyond — is either written so that meridian reads the file back, or refused with the
    /// placemark's place and nothing written (a 3-position ring and a point at latitude 95 were written, then
    /// refused when read).
    @Test func kmlConvertWritesOnlyGeoJSONMeridianReadsBack() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corners = ["-97,32", "-97.1,32", "-97.1,32.1", "-97,32.1", "-96.9,32.05"]
        var geometries: [String] = []
        for n in 1...5 {
            for closed in [false, true] {
                let ring = Array(corners.prefix(n)) + (closed ? [corners[0]] : [])
                geometries.append("<Polygon><outerBoundaryIs><LinearRing><coordinates>\(ring.joined(separator: " "))</coordinates></LinearRing></outerBoundaryIs></Polygon>")
            }
        }
        for n in 1...3 { geometries.append("<LineString><coordinates>\(corners.prefix(n).joined(separator: " "))</coordinates></LineString>") }
        for c in ["180,90", "-180,-90", "500,95", "400,45", "-97,91", "181,0"] { geometries.append("<Point><coordinates>\(c)</coordinates></Point>") }
        var (written, refused) = (0, 0)
        for (k, geometry) in geometries.enumerated() {
            let kml = folder.appendingPathComponent("g\(k).kml"), out = folder.appendingPathComponent("g\(k).geojson")
            try Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\n\n<Placemark>\(geometry)</Placemark></Document></kml>".utf8).write(to: kml)
            let r = runCommand(["kml", "convert", kml.path, out.path])
            if r.status == 0 {
                written += 1
                let back = runCommand(["measure", "--geodesic", out.path])
                #expect(back.status == 0, "\(geometry): written, then refused: \(back.stderr)")
            } else {
                refused += 1
                #expect(r.stderr.hasPrefix("meridian kml: \(kml.path): placemark 0 (line 3): "), "\(geometry): \(r.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path))
            }
        }
        #expect(written >= 8 && refused >= 8, "\(written) written, \(refused) refused")
    }

    /// `measure --geodesic` of a buffer meridian split at ±180° (RFC 7946): the cut edges along the antimeridian are
    /// not boundary, so the perimeter is the circle's, 2π·r within 0.5 % (the chords stay within 0.2 % of r of the
    /// circle, and the ellipsoid bends a 100 km circle by less than 0.01 %); it counted the cuts (item 9: 12.1e6 m
    /// instead of about 8.1e6 m for a larger one).
    @Test func measureDoesNotCountTheCutsAtTheAntimeridian() throws {
        let buffer = runCommand(["buffer", "--geodesic", "--distance", "100km"], stdin: "{\"type\":\"Point\",\"coordinates\":[179.9,-17.7]}")
        #expect(buffer.status == 0 && buffer.stdout.contains("MultiPolygon"), "\(buffer.stderr)")
        let r = runCommand(["measure", "--geodesic", "--json"], stdin: buffer.stdout)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let perimeter = try #require((json["total"] as? [String: Any])?["perimeter_m"] as? Double)
        #expect(abs(perimeter - 2 * Double.pi * 100_000) / (2 * Double.pi * 100_000) < 0.005, "\(perimeter)")
    }

    /// Inputs that were misread or said wrongly (item 9): each refused with what it is, where, and that it is not
    /// supported; longitude 400 refused as latitude 91 is; nothing written.
    @Test func unsupportedOrAmbiguousInputIsSaidAsItIs() {
        let cases: [(String, String)] = [
            ("CIRCULARSTRING (0 0, 1 1, 2 0)\n", "found WKT CIRCULARSTRING at line 1, which is not supported (it reads POINT,"),
            ("TRIANGLE ((0 0, 1 0, 0 1, 0 0))\n", "found WKT TRIANGLE at line 1, which is not supported"),
            ("SRID=4326;POINT (1 2)\n", "found EWKT (a line starting SRID=) at line 1, which is not supported"),
            ("0101000000000000000000F03F0000000000000040\n", "found hex-encoded WKB at line 1, which is not supported"),
            ("lon,lat\n1,2\n3,\u{0}4\n", "found binary data: a NUL byte at line 3, column 3"),
            ("lon,lat,lon\n1,2,3\n", "line 1: the CSV header names 'lon' twice (columns 1 and 3); rename one"),
            ("lon,lat\n400,45\n", "feature 0 (line 2): longitude 400.0 is outside -180…180"),
            ("lon,lat\n45,91\n", "feature 0 (line 2): latitude 91.0 is outside -90…90"),
            ("{\"type\":\"Point\",\"coordinates\":[400,45]}", "feature 0 (line 1): longitude 400.0 is outside -180…180"),
        ]
        for (input, message) in cases {
            let r = runCommand(["project", "-", "--to", "EPSG:4326"], stdin: input)
            #expect(r.status == 1 && r.stdout.isEmpty, "\(input): \(r.stderr)")
            #expect(r.stderr.hasPrefix("meridian project: stdin: ") && r.stderr.contains(message), "\(input): \(r.stderr)")
        }
        // A NUL beyond the first 4 KiB the format is judged by: the CSV reader refuses it with its place.
        let late = "lon,lat\n" + String(repeating: "1,2\n", count: 1200) + "3,\u{0}4\n"
        let r = runCommand(["project", "-", "--to", "EPSG:4326"], stdin: late)
        #expect(r.status == 1 && r.stderr.contains("line 1202, column 3: a NUL byte"), "\(r.stderr)")
    }

    /// Planar buffers in a spatial reference whose coordinates are too large for the distance (a false easting of
    /// 1e17: doubles step by 16 there) or at a scale GEOS cannot buffer at (a unit of 1e300 m) were written as
    /// `POLYGON EMPTY` with exit 0 (item 3): refused, naming the feature, nothing written.
    @Test func emptyBuffersAreNotWrittenAsAnswers() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.wkt").path
        for (srs, message) in [("+proj=tmerc +lon_0=-97 +x_0=1e17", "is finer than the coordinates resolve there (about 1e+17"),
                               ("+proj=tmerc +lon_0=-97 +to_meter=1e300", "the buffer came out empty though the distance is positive")] {
            let r = runCommand(["buffer", "-", "--srs", srs, "--distance", "1m", "--allow-outside-area", "-o", out],
                               stdin: "lon,lat\n-97,32\n-96.5,32.5\n")
            #expect(r.status == 1 && r.stderr.hasPrefix("meridian buffer: stdin: feature 0 (line 2): ") && r.stderr.contains(message),
                    "\(srs): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        // A large but resolvable false easting still buffers.
        let fine = runCommand(["buffer", "-", "--srs", "+proj=tmerc +lon_0=-97 +x_0=1e12", "--distance", "1m",
                               "--allow-outside-area", "-o", out], stdin: "lon,lat\n-97,32\n")
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
