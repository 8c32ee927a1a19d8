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
        let d = try KMLDataset(contentsOf: URL(fileURLWithPath: out))
        #expect(d.document.name == "Seed")
        let placemarks = d.document.allPlacemarks
        #expect(placemarks.map(\.name) == ["Dallas", "Fort Worth", "Abilene", "Lubbock", "Wichita Falls"])
        let style = d.effectiveStyle(for: placemarks[0])
        #expect(style?.iconStyle?.iconHref == "files/pin.png" && style?.iconStyle?.scale == 1.5)
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
        let d = try KMLDataset(contentsOf: URL(fileURLWithPath: out))
        let p = d.document.allPlacemarks
        #expect(d.effectiveStyle(for: p[0])?.iconStyle?.color == .red)
        #expect(d.effectiveStyle(for: p[1])?.lineStyle == KMLLineStyle(color: KMLColor(red: 0, green: 0, blue: 255, alpha: 128), width: 4))
        #expect(p[1].name == "Feature 2" && p[1].extendedData?.values == ["kind": "road"])

        let wkt = runCommand(["kml", "create", "-", "-o", dir.appendingPathComponent("w.kmz").path, "--in-srs", "EPSG:3857"],
                             stdin: "POINT (-13046000 4036000)\nPOLYGON ((0 0, 100000 0, 100000 100000, 0 0))\n")
        #expect(wkt.status == 0, "\(wkt.stderr)")
        let w = try KMLDataset(contentsOf: dir.appendingPathComponent("w.kmz"))
        #expect(w.document.allPlacemarks.map { $0.geometry?.typeName } == ["Point", "Polygon"])
    }

    @Test func infoAndConvert() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = sharedReference.appendingPathComponent("kml/samples/libkml/kml_kmlsamples.kml").path
        let info = runCommand(["kml", "info", sample, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let json = try JSONValue.decode(Data(info.stdout.utf8))
        #expect(json["placemarks"]?.intValue == 20)
        #expect(json["folders"]?.intValue == 9)
        #expect(json["bbox"]?.arrayValue?.count == 4)
        #expect(runCommand(["kml", "info", sample]).stdout.contains("placemarks: 20"))

        let kmz = dir.appendingPathComponent("s.kmz").path, geojson = dir.appendingPathComponent("s.geojson").path
        #expect(runCommand(["kml", "convert", sample, kmz]).status == 0)
        #expect(try KMLDataset(contentsOf: URL(fileURLWithPath: kmz)).document == KMLDataset(contentsOf: URL(fileURLWithPath: sample)).document)
        let c = runCommand(["kml", "convert", kmz, geojson])
        #expect(c.status == 0, "\(c.stderr)")
        let features = try GeoJSON.decodeFeatures(Data(contentsOf: URL(fileURLWithPath: geojson)))
        #expect(features.count == 20)
        let back = dir.appendingPathComponent("back.kml").path
        #expect(runCommand(["kml", "convert", geojson, back]).status == 0)
        #expect(try KMLDataset(contentsOf: URL(fileURLWithPath: back)).document.allPlacemarks.count == 20)
    }

    @Test func usageAndFailures() {
        #expect(runCommand(["kml"]).status == 2)
        #expect(runCommand(["kml", "bogus"]).status == 2)
        #expect(runCommand(["kml", "create", "x.csv"]).status == 2)  // no -o
        #expect(runCommand(["kml", "create", "x.csv", "-o", "out.txt"]).status == 2)
        #expect(runCommand(["kml", "create", "-", "-o", "/tmp/x.kml", "--line-color", "red"], stdin: "").status == 2)
        #expect(runCommand(["kml", "info", "a.kml", "--icon", "x"]).status == 2)
        let billion = runCommand(["kml", "info", sharedReference.appendingPathComponent("kml/samples/libkml/kml_billion.kml").path])
        #expect(billion.status == 1 && billion.stderr.contains("entity"))
        #expect(runCommand(["--help"]).stdout.contains("kml"))
    }
}
