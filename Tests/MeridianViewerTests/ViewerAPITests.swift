import Foundation
import Meridian
import Testing

@testable import MeridianViewer

/// The JSON API, called directly (no network): answers, validation and limits.
@Suite struct ViewerAPITests {
    static let site = StaticSite(files: [
        "/index.html": .init(data: Data("<!doctype html><title>t</title>".utf8), contentType: "text/html; charset=utf-8"),
        "/js/map.js": .init(data: Data("export {}".utf8), contentType: "text/javascript; charset=utf-8"),
    ])
    let api = ViewerAPI(site: Self.site, limits: ViewerLimits(maximumPoints: 50))

    /// A point well inside the EPSG:32038 area of use (98.48°W, 32.76°N, Palo Pinto County), in US survey feet.
    static let inside = (x: 1_700_000.0, y: 400_000.0)

    func post(_ path: String, _ json: String) -> HTTPResponse {
        api.handle(HTTPRequest(method: "POST", path: path, body: Data(json.utf8)))
    }

    func object(_ r: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: r.body) as? [String: Any])
    }

    func error(_ r: HTTPResponse) throws -> String {
        try #require(try object(r)["error"] as? String)
    }

    @Test func healthAnswersJSON() throws {
        let r = api.handle(HTTPRequest(method: "GET", path: "/api/health"))
        #expect(r.status == 200)
        #expect(r.header("content-type")?.hasPrefix("application/json") == true)
        #expect(try object(r)["ok"] as? String == "true")
    }

    @Test func areaOfUseOf32038IsProjectedIntoFeet() throws {
        let r = api.handle(HTTPRequest(method: "GET", path: "/api/srs/32038"))
        #expect(r.status == 200)
        let o = try object(r)
        #expect(o["name"] as? String == "NAD27 / Texas North Central")
        #expect(o["unit"] as? String == "US survey foot")
        let area = try #require(o["areaOfUse"] as? [String: Any])
        #expect(area["west"] as? Double == -103.07)
        #expect(area["north"] as? Double == 34.58)
        let extent = try #require(o["extent"] as? [String: Double])
        // The box spans 9.07° of longitude at ~32-35°N: about 2.8 million feet wide.
        let width = try #require(extent["xmax"]) - (try #require(extent["xmin"]))
        #expect(width > 2_700_000 && width < 3_000_000)
        let boundary = try #require(o["boundary"] as? [String: Any])
        let parts = try #require(boundary["parts"] as? [[String: Any]])
        let shell = try #require(parts.first?["shell"] as? [[Double]])
        #expect(shell.count == 4 * SpatialReferenceCache.stepsPerEdge + 1)
    }

    @Test func unknownAndMalformedSpatialReferences() throws {
        #expect(api.handle(HTTPRequest(method: "GET", path: "/api/srs/999999")).status == 404)
        #expect(api.handle(HTTPRequest(method: "GET", path: "/api/srs/abc")).status == 400)
        #expect(api.handle(HTTPRequest(method: "GET", path: "/api/srs/-5")).status == 400)
    }

    @Test func containsSaysInsideAndOutside() throws {
        let yes = post("/api/contains", #"{"x":\#(Self.inside.x),"y":\#(Self.inside.y)}"#)
        #expect(yes.status == 200)
        #expect(try object(yes)["inside"] as? Bool == true)
        // Far south of the box (the Gulf of Mexico).
        let no = post("/api/contains", #"{"wkid":32038,"x":3000000,"y":-2000000}"#)
        #expect(try object(no)["inside"] as? Bool == false)
    }

    @Test func oneBufferIsACircleOfTheRadiusInFeet() throws {
        let r = post("/api/buffer", #"{"points":[{"x":\#(Self.inside.x),"y":\#(Self.inside.y)}],"radiiMiles":[10]}"#)
        #expect(r.status == 200)
        let o = try object(r)
        let polygons = try #require(o["polygons"] as? [[String: Any]])
        #expect(polygons.count == 1)
        let part = try #require((polygons[0]["parts"] as? [[String: Any]])?.first)
        let shell = try #require(part["shell"] as? [[Double]])
        #expect(shell.count == 65)  // 16 segments per quarter circle, closed
        // Every vertex lies on the circle: 10 miles = 52,800 international feet = 52,799.89 US survey feet.
        let expected = 10 * 1609.344 / (1200.0 / 3937.0)
        for v in shell {
            let d = hypot(v[0] - Self.inside.x, v[1] - Self.inside.y)
            #expect(abs(d - expected) < 0.05)
        }
    }

    @Test func unionMergesOverlappingBuffers() throws {
        let points = #"[{"x":1700000,"y":400000},{"x":1750000,"y":400000},{"x":1800000,"y":420000}]"#
        let separate = try object(post("/api/buffer", #"{"points":\#(points),"radiiMiles":[10,10,10],"union":false}"#))
        let unioned = try object(post("/api/buffer", #"{"points":\#(points),"radiiMiles":[10],"union":true}"#))
        #expect((separate["polygons"] as? [Any])?.count == 3)
        #expect((unioned["polygons"] as? [[String: Any]])?.count == 1)
        #expect(((unioned["polygons"] as? [[String: Any]])?.first?["parts"] as? [Any])?.count == 1)
        #expect(unioned["unioned"] as? Bool == true)
    }

    @Test(arguments: ["0", "300", "-1", "301", "1e308"])
    func radiiOutsideTheSamplesRangeAreRefused(radius: String) throws {
        let r = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[\#(radius)]}"#)
        #expect(r.status == 422)
        #expect(try error(r).contains("between 0 and 300 miles"))
    }

    @Test func malformedBodiesGet400WithAMessage() throws {
        let cases: [(String, String)] = [
            ("", "empty"),
            ("{", "malformed JSON"),
            ("[]", "must be an object"),
            (#"{"radiiMiles":[1]}"#, "missing field 'points'"),
            (#"{"points":[{"x":1}],"radiiMiles":[1]}"#, "missing field 'points[0].y'"),
            (#"{"points":[{"x":"a","y":1}],"radiiMiles":[1]}"#, "'points[0].x' must be a number"),
            (#"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[5],"mode":"spherical"}"#, "mode must be"),
        ]
        for (body, message) in cases {
            let r = post("/api/buffer", body)
            let text = try error(r)
            #expect(r.status == 400, "\(body)")
            #expect(text.contains(message), "\(body): \(text)")
        }
    }

    @Test func limitsAndRangesGet4xx() throws {
        let many = (0..<51).map { #"{"x":\#(1_700_000 + $0 * 100),"y":400000}"# }.joined(separator: ",")
        let tooMany = post("/api/buffer", #"{"points":[\#(many)],"radiiMiles":[1]}"#)
        #expect(tooMany.status == 413)
        #expect(try error(tooMany).contains("limit 50"))
        let outside = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000},{"x":3000000,"y":-2000000}],"radiiMiles":[1]}"#)
        #expect(outside.status == 422)
        #expect(try error(outside).contains("point 1 lies outside"))
        let counts = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[1,2]}"#)
        #expect(counts.status == 422)
        let none = post("/api/buffer", #"{"points":[],"radiiMiles":[1]}"#)
        #expect(none.status == 422)
        let geographic = post("/api/buffer", #"{"wkid":4326,"points":[{"x":-97,"y":32}],"radiiMiles":[1]}"#)
        #expect(geographic.status == 422)
    }

    @Test func exportsBuffersAsGeoJSONInWGS84() throws {
        let r = post("/api/buffer/export",
                     #"{"points":[{"x":1700000,"y":400000},{"x":1750000,"y":400000}],"radiiMiles":[10,20],"format":"geojson"}"#)
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/geo+json")
        #expect(r.header("Content-Disposition") == #"attachment; filename="buffers.geojson""#)
        let features = try GeoJSON.decodeFeatures(r.body)
        #expect(features.count == 2)
        #expect(features[1].properties["radiusMiles"] == .number(20))
        let envelope = try #require(features[0].geometry?.extent)
        // (1,700,000 ft, 400,000 ft) is about 98.48°W, 32.76°N (Palo Pinto County); a 10-mile buffer spans about
        // 0.29° of latitude.
        #expect(envelope.xMin > -98.8 && envelope.xMax < -98.1 && envelope.yMin > 32.4 && envelope.yMax < 33.2)
        #expect(abs((envelope.yMax - envelope.yMin) - 20 * 1609.344 / 110_900) < 0.01)
        let kmz = post("/api/buffer/export",
                       #"{"points":[{"x":1700000,"y":400000},{"x":1750000,"y":400000}],"radiiMiles":[10,20],"format":"kmz"}"#)
        #expect(kmz.status == 200)
        #expect(kmz.header("Content-Type") == "application/vnd.google-earth.kmz")
        #expect(kmz.body.prefix(2) == Data("PK".utf8))
        let unioned = post("/api/buffer/export",
                           #"{"points":[{"x":1700000,"y":400000},{"x":1750000,"y":400000}],"radiiMiles":[30],"union":true,"format":"geojson"}"#)
        #expect(try GeoJSON.decodeFeatures(unioned.body).count == 1)
        #expect(post("/api/buffer/export", #"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[1],"format":"shp"}"#)
            .status == 400)
    }

    @Test func geodesicBuffersAreNearThePlanarOnesInTheMiddleOfTheZone() throws {
        let body = #"{"points":[{"x":2000000,"y":500000}],"radiiMiles":[50],"mode":"MODE"}"#
        let planar = post("/api/buffer", body.replacingOccurrences(of: "MODE", with: "planar"))
        let geodesic = post("/api/buffer", body.replacingOccurrences(of: "MODE", with: "geodesic"))
        #expect(geodesic.status == 200)
        func area(_ r: HTTPResponse) throws -> Double {
            let polygons = try #require(try object(r)["polygons"] as? [[String: Any]])
            let shell = try #require((polygons.first?["parts"] as? [[String: Any]])?.first?["shell"] as? [[Double]])
            return abs(Polygon.signedArea(shell.map { Coordinate(x: $0[0], y: $0[1]) }))
        }
        // Near the projection's centre its scale error is below 1:10,000, so the two agree to well under 1%.
        let ratio = try area(geodesic) / area(planar)
        #expect(abs(ratio - 1) < 0.005)
        #expect(try object(geodesic)["mode"] as? String == "geodesic")
    }

    @Test func savesSketchedPlacemarksAsAKMZTheLibraryReadsBack() throws {
        let site = try StaticSite.bundled()
        let api = ViewerAPI(site: site)
        let body = #"""
            {"name":"Trip","placemarks":[
              {"type":"point","coordinates":[[-10775000,3865000]],"style":{"icon":"round-pin"}},
              {"type":"polyline","coordinates":[[-11500000,3500000],[-10600000,4200000]],"style":{"color":"#ff8000"}},
              {"type":"polygon","coordinates":[[-12000000,4500000],[-11000000,4600000],[-11200000,5300000]],
               "style":{"color":"#800080"}}]}
            """#
        let r = api.handle(HTTPRequest(method: "POST", path: "/api/kml", body: Data(body.utf8)))
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/vnd.google-earth.kmz")
        #expect(r.header("Content-Disposition") == #"attachment; filename="Trip.kmz""#)
        #expect(r.body.prefix(2) == Data("PK".utf8))
        let dataset = try KMLDataset(data: r.body)
        #expect(dataset.document.name == "Trip")
        #expect(dataset.resources["files/round-pin.png"] == site.files["/icons/round-pin.png"]?.data)
        var placemarks: [KMLPlacemark] = []
        for case .placemark(let p) in dataset.document.features { placemarks.append(p) }
        #expect(placemarks.map { $0.name ?? "" } == ["Point 1", "Polyline 1", "Polygon 1"])
        guard case .point(let c)? = placemarks.first?.geometry?.shape else {
            Issue.record("the first placemark is not a point")
            return
        }
        // -10,775,000 m, 3,865,000 m in Web Mercator is 96.7935°W, 32.7714°N.
        #expect(abs(c.x - -96.79347186) < 1e-6 && abs(c.y - 32.77139775) < 1e-6)
        #expect(placemarks[1].style?.lineStyle?.color?.hexRGB == "#ff8000")
        #expect(placemarks[2].style?.polygonStyle?.fillColor?.hexRGB == "#800080")
        #expect(placemarks[2].style?.polygonStyle?.isOutlined == false)

        let opened = api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: r.body))
        #expect(opened.status == 200)
        let o = try object(opened)
        let drawn = try #require(o["placemarks"] as? [[String: Any]])
        #expect(drawn.count == 3)
        let point = try #require((drawn[0]["geometries"] as? [[String: Any]])?.first)
        #expect(abs((point["x"] as? Double ?? 0) - -10_775_000) < 0.01)
        #expect((drawn[0]["style"] as? [String: Any])?["icon"] as? String != nil)
    }

    @Test func kmlRequestsOutOfRangeGet4xx() throws {
        let api = ViewerAPI(site: try StaticSite.bundled(), limits: ViewerLimits(maximumVertices: 10, maximumPlacemarks: 2))
        func save(_ json: String) -> Int {
            api.handle(HTTPRequest(method: "POST", path: "/api/kml", body: Data(json.utf8))).status
        }
        #expect(save(#"{"placemarks":[{"type":"circle","coordinates":[[0,0]]}]}"#) == 422)
        #expect(save(#"{"placemarks":[{"type":"point","coordinates":[[0,0]],"style":{"icon":"heart"}}]}"#) == 422)
        #expect(save(##"{"placemarks":[{"type":"polyline","coordinates":[[0,0]],"style":{"color":"#ff0000"}}]}"##) == 422)
        #expect(save(#"{"placemarks":[{"type":"polyline","coordinates":[[0,0],[1,1]],"style":{"color":"red"}}]}"#) == 422)
        #expect(save(#"{"placemarks":[{"type":"point","coordinates":[[3e7,0]]}]}"#) == 422)
        #expect(save(#"{"placemarks":[{"type":"point","coordinates":[[0]]}]}"#) == 422)
        let three = #"{"type":"point","coordinates":[[0,0]]}"#
        #expect(save(#"{"placemarks":[\#(three),\#(three),\#(three)]}"#) == 413)
        #expect(save(##"{"placemarks":[{"type":"polyline","coordinates":[\##(Array(repeating: "[0,0]", count: 11).joined(separator: ","))],"style":{"color":"#ff0000"}}]}"##) == 413)
        #expect(save(#"{"placemarks":[]}"#) == 200)
        func open(_ bytes: String) -> Int {
            api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: Data(bytes.utf8))).status
        }
        #expect(open("") == 400)
        #expect(open("<html><body>no</body></html>") == 422)
        #expect(open("<kml><Document><Placemark>") == 422)
        #expect(open("PK\u{3}\u{4}garbage") == 422)
    }

    @Test func routingErrors() throws {
        #expect(api.handle(HTTPRequest(method: "GET", path: "/api/buffer")).status == 405)
        #expect(api.handle(HTTPRequest(method: "DELETE", path: "/api/kml")).status == 405)
        #expect(api.handle(HTTPRequest(method: "GET", path: "/api/nothing")).status == 404)
        #expect(try error(api.handle(HTTPRequest(method: "GET", path: "/api/nothing"))).contains("/api/nothing"))
    }

    @Test func paletteHasTheSamplesSevenIconsAndFourteenColors() throws {
        let o = try object(api.handle(HTTPRequest(method: "GET", path: "/api/kml/palette")))
        let icons = try #require(o["icons"] as? [[String: String]])
        let colors = try #require(o["colors"] as? [[String: String]])
        #expect(icons.map { $0["title"] ?? "" }
            == ["No style", "Star", "Diamond", "Circle", "Square", "Round pin", "Square pin"])
        #expect(colors.count == 14)
        #expect(colors.allSatisfy { KMLPalette.rgb($0["hex"] ?? "") != nil })
    }

    @Test func staticFilesAndTheirTypes() {
        let index = api.handle(HTTPRequest(method: "GET", path: "/"))
        #expect(index.status == 200)
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        #expect(api.handle(HTTPRequest(method: "GET", path: "/js/map.js")).header("Content-Type")?
            .hasPrefix("text/javascript") == true)
        #expect(api.handle(HTTPRequest(method: "GET", path: "/../Package.swift")).status == 404)
        #expect(api.handle(HTTPRequest(method: "POST", path: "/index.html")).status == 405)
    }

    @Test func bundledSiteHasBothPagesTheirDataAndIcons() throws {
        let site = try StaticSite.bundled()
        for path in ["/index.html", "/buffers.html", "/kml.html", "/js/map.js", "/js/buffers.js", "/js/kml.js",
                     "/css/viewer.css", "/data/texas-32038.json", "/data/world-3857.json",
                     "/data/LICENSES/ATTRIBUTION.md"]
        {
            #expect(site.files[path] != nil, "\(path)")
        }
        for icon in KMLPalette.icons {
            let png = try #require(site.files["/icons/\(icon.file)"])
            #expect(png.data.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        }
        let total = site.files.values.reduce(0) { $0 + $1.data.count }
        #expect(total < 2 << 20)
    }
}
