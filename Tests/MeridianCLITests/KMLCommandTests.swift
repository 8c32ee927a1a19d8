import Foundation
import Meridian
import Testing

/// `meridian kml create|info|convert` in-process.
@Suite struct KMLCommandTests {
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-kml-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func createFromCSVWithStyleOptions() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icon = dir.appendingPathComponent("pin.png")
        try Data([137, 80, 78, 71]).write(to: icon)
        let out = dir.appendingPathComponent("seed.kmz").path
        let r = runCommand(["kml", "create", packageRoot.appendingPathComponent("examples/seed-points.csv").path, "-o", out,
                            "--name", "Seed", "--icon", icon.path, "--icon-scale", "1.5", "--line-color", "#00ff0080",
                            "--line-width", "3", "--fill-color", "#ffff00", "--no-outline"])
        #expect(r.status == 0, "\(r.stderr)")
        let d = try KMLDataset(url: URL(fileURLWithPath: out))
        #expect(d.document.name == "Seed")
        let placemarks = d.document.allPlacemarks
        #expect(placemarks.map(\.name) == ["Dallas", "Fort Worth", "Abilene", "Lubbock", "Wichita Falls"])
        let style = d.effectiveStyle(for: placemarks[0])
        #expect(style?.iconStyle?.icon?.href == "files/pin.png" && style?.iconStyle?.scale == 1.5)
        #expect(style?.lineStyle?.color?.kmlString == "8000ff00" && style?.lineStyle?.width == 3)
        #expect(style?.polygonStyle?.isOutlined == false)
        #expect(d.resources["files/pin.png"] == Data([137, 80, 78, 71]))
        #expect(placemarks[0].extendedData?.values["radius_mi"] == "40")
        // Not overwritten without --overwrite.
        let again = runCommand(["kml", "create", packageRoot.appendingPathComponent("examples/seed-points.csv").path, "-o", out])
        #expect(again.status == 1 && again.stderr.contains("--overwrite"))
        #expect(runCommand(["kml", "create", packageRoot.appendingPathComponent("examples/seed-points.csv").path, "-o", out, "--overwrite"]).status == 0)
    }

    @Test func createFromGeoJSONWithSimplestyleAndWKT() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let geojson = """
            {"type":"FeatureCollection","features":[
              {"type":"Feature","properties":{"name":"p","marker-color":"#ff0000"},"geometry":{"type":"Point","coordinates":[1,2]}},
              {"type":"Feature","properties":{"stroke":"#0000ff","stroke-opacity":0.5,"stroke-width":4,"kind":"road"},
               "geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}
            """
        let out = dir.appendingPathComponent("s.kml").path
        let r = runCommand(["kml", "create", "-", "-o", out, "--line-color", "#00ff00"], stdin: geojson)
        #expect(r.status == 0, "\(r.stderr)")
        let d = try KMLDataset(url: URL(fileURLWithPath: out))
        let p = d.document.allPlacemarks
        #expect(d.effectiveStyle(for: p[0])?.iconStyle?.color == .red)
        #expect(d.effectiveStyle(for: p[1])?.lineStyle == KMLLineStyle(color: KMLColor(red: 0, green: 0, blue: 255, alpha: 128), width: 4))
        #expect(p[1].name == "Feature 2" && p[1].extendedData?.values == ["kind": "road"])

        let wkt = runCommand(["kml", "create", "-", "-o", dir.appendingPathComponent("w.kmz").path, "--in-srs", "EPSG:3857"],
                             stdin: "POINT (-13046000 4036000)\nPOLYGON ((0 0, 100000 0, 100000 100000, 0 0))\n")
        #expect(wkt.status == 0, "\(wkt.stderr)")
        let w = try KMLDataset(url: dir.appendingPathComponent("w.kmz"))
        #expect(w.document.allPlacemarks.map { $0.geometry?.typeName } == ["Point", "Polygon"])
    }

    @Test func infoAndConvert() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = fixtures.appendingPathComponent("kml/samples/libkml/kml_kmlsamples.kml").path
        let info = runCommand(["kml", "info", sample, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let json = try JSONValue.decode(Data(info.stdout.utf8))
        #expect(json["placemarks"]?.intValue == 20)
        #expect(json["folders"]?.intValue == 9)
        #expect(json["bbox"]?.arrayValue?.count == 4)
        #expect(runCommand(["kml", "info", sample]).stdout.contains("placemarks: 20"))

        let kmz = dir.appendingPathComponent("s.kmz").path, geojson = dir.appendingPathComponent("s.geojson").path
        #expect(runCommand(["kml", "convert", sample, kmz]).status == 0)
        #expect(try KMLDataset(url: URL(fileURLWithPath: kmz)).document == KMLDataset(url: URL(fileURLWithPath: sample)).document)
        let c = runCommand(["kml", "convert", kmz, geojson])
        #expect(c.status == 0, "\(c.stderr)")
        let features = try GeoJSON.decodeFeatures(Data(contentsOf: URL(fileURLWithPath: geojson)))
        #expect(features.count == 20)
        let back = dir.appendingPathComponent("back.kml").path
        #expect(runCommand(["kml", "convert", geojson, back]).status == 0)
        #expect(try KMLDataset(url: URL(fileURLWithPath: back)).document.allPlacemarks.count == 20)
    }

    /// Every command recognises its input by content: a KML document saved as `.xml`, a KMZ saved as `.zip`, GeoJSON
    /// saved as `.txt`; a file that is none of the formats gets one line naming what was found.
    @Test func inputsAreRecognisedByContentNotByName() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = fixtures.appendingPathComponent("kml/samples/libkml/kml_kmlsamples.kml")
        let xml = dir.appendingPathComponent("doc.xml"), zip = dir.appendingPathComponent("doc.zip")
        try FileManager.default.copyItem(at: sample, to: xml)
        let expected = try KMLDataset(url: sample).document

        let toKMZ = runCommand(["kml", "convert", xml.path, dir.appendingPathComponent("a.kmz").path])
        #expect(toKMZ.status == 0, "\(toKMZ.stderr)")
        try FileManager.default.moveItem(at: dir.appendingPathComponent("a.kmz"), to: zip)
        #expect(try KMLDataset(url: zip).document == expected)
        for input in [xml, zip] {
            let geojson = dir.appendingPathComponent("\(input.pathExtension).geojson")
            let c = runCommand(["kml", "convert", input.path, geojson.path])
            #expect(c.status == 0, "\(input.lastPathComponent): \(c.stderr)")
            #expect(try GeoJSON.decodeFeatures(Data(contentsOf: geojson)).count == 20)
            let info = runCommand(["kml", "info", input.path])
            #expect(info.status == 0 && info.stdout.contains("placemarks: 20"), "\(info.stderr)")
            #expect(runCommand(["kml", "info", "--stream", input.path]).stdout.contains("placemarks: 20"))
        }
        // GeoJSON named .txt converts to KML; KML named .geojson is refused by the GeoJSON readers as KML.
        let text = dir.appendingPathComponent("points.txt")
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-97,32]}}]}"#.utf8).write(to: text)
        let fromText = runCommand(["kml", "convert", text.path, dir.appendingPathComponent("p.kml").path])
        #expect(fromText.status == 0, "\(fromText.stderr)")
        let misnamed = dir.appendingPathComponent("doc.geojson")
        try FileManager.default.copyItem(at: sample, to: misnamed)
        let measured = runCommand(["measure", misnamed.path])
        #expect(measured.status == 1 && measured.stderr.contains("is KML/KMZ"), "\(measured.stderr)")

        // Neither format: one line naming what was found.
        let png = dir.appendingPathComponent("picture.kml")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]).write(to: png)
        let svg = dir.appendingPathComponent("drawing.kmz")
        try Data("<?xml version=\"1.0\"?>\n<!-- a comment -->\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8).write(to: svg)
        let cases: [(URL, [String], String)] = [
            (png, ["kml", "convert", png.path, dir.appendingPathComponent("o.geojson").path], "found binary data: a NUL byte at line 3, column 1 (starts with 89 50 4E 47)"),
            (svg, ["kml", "convert", svg.path, dir.appendingPathComponent("o.geojson").path], "found XML whose root element is <svg>"),
            (svg, ["kml", "info", svg.path], "not KML or KMZ: found XML whose root element is <svg>"),
            (text, ["kml", "info", text.path], "not KML or KMZ: found GeoJSON"),
            (png, ["buffer", png.path, "--srs", "EPSG:32038", "--distance", "1mi"], "not GeoJSON, CSV or WKT: found binary data"),
            (svg, ["project", svg.path, "--to", "EPSG:3857"], "not GeoJSON, CSV or WKT: found XML whose root element is <svg>"),
        ]
        for (file, arguments, message) in cases {
            let r = runCommand(arguments)
            #expect(r.status == 1, "\(arguments)")
            #expect(r.stderr.hasPrefix("meridian \(arguments[0]): \(file.path): ") && r.stderr.contains(message), "\(arguments): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
        }
    }

    @Test func usageAndFailures() {
        #expect(runCommand(["kml"]).status == 2)
        #expect(runCommand(["kml", "bogus"]).status == 2)
        #expect(runCommand(["kml", "create", "x.csv"]).status == 2)  // no -o
        #expect(runCommand(["kml", "create", "x.csv", "-o", "out.txt"]).status == 2)
        #expect(runCommand(["kml", "create", "-", "-o", "/tmp/x.kml", "--line-color", "red"], stdin: "").status == 2)
        #expect(runCommand(["kml", "info", "a.kml", "--icon", "x"]).status == 2)
        let billion = runCommand(["kml", "info", fixtures.appendingPathComponent("kml/samples/libkml/kml_billion.kml").path])
        #expect(billion.status == 1 && billion.stderr.contains("entity"))  // the DOCTYPE is skipped to the <kml> root
        #expect(runCommand(["--help"]).stdout.contains("kml"))
    }
}
