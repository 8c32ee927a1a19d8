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

    func post(_ api: ViewerAPI, _ path: String, _ json: String) -> HTTPResponse {
        api.handle(HTTPRequest(method: "POST", path: path, body: Data(json.utf8)))
    }

    func object(_ r: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: r.body) as? [String: Any])
    }

    func error(_ r: HTTPResponse) throws -> String {
        try #require(try object(r)["error"] as? String)
    }

    /// `/api/health` answers what `ViewerAPI`'s documentation says: `ok` the JSON boolean `true`, the version, and
    /// the two counts as JSON numbers (it answered the strings "true", "0", "0").
    @Test func healthAnswersWhatItsDocumentationSays() throws {
        let r = api.handle(HTTPRequest(method: "GET", path: "/api/health"))
        #expect(r.status == 200)
        #expect(r.header("content-type")?.hasPrefix("application/json") == true)
        #expect(String(decoding: r.body, as: UTF8.self)
            == #"{"ok":true,"version":"\#(ViewerServer.version)","cancelled":0,"stoppedAtDeadline":0}"#)
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

    /// The page draws where taps are accepted: the horizon's outline, the area of use widened by 5°. What it
    /// encloses is what `/api/contains` accepts: a point between the two outlines (0.5° south of the box) is
    /// inside, one 5.5° south is not; Web Mercator's widened box reaches the poles it cannot map, so it has none.
    @Test func theHorizonOutlineEnclosesWhatContainsAccepts() throws {
        let o = try object(api.handle(HTTPRequest(method: "GET", path: "/api/srs/32038")))
        let horizon = try #require(o["horizon"] as? [String: Any])
        let shell = try #require((horizon["parts"] as? [[String: Any]])?.first?["shell"] as? [[Double]])
        let texas = try SpatialReference(wkid: 32038)
        let outline = Polygon(shell: shell.map { Coordinate(x: $0[0], y: $0[1]) }, spatialReference: texas)
        for (latitude, inside) in [(31.72 - 0.5, true), (31.72 - 5.5, false), (34.58 + 4.9, true), (34.58 + 5.1, false)] {
            let p = try GeometryEngine.project(Point(latitude: latitude, longitude: -98.5), into: texas)
            #expect(try GeometryEngine.doesGeometry(outline, contain: p) == inside, "latitude \(latitude)")
            let r = post("/api/contains", #"{"wkid":32038,"x":\#(p.x),"y":\#(p.y)}"#)
            #expect(try object(r)["inside"] as? Bool == inside, "latitude \(latitude)")
        }
        let mercator = try object(api.handle(HTTPRequest(method: "GET", path: "/api/srs/3857")))
        #expect(mercator["horizon"] is NSNull)
    }

    /// Containment is the engine's horizon (the command line's rule): a polar spatial reference contains its pole
    /// (EPSG:3413, 32661 and 5041 answered 422 "Ring Self-intersection" when the projected box was tested, and
    /// EPSG:3031 called the South Pole outside), Houston (2° south of EPSG:32038's box) is inside, Miami (14° east
    /// of it) is not.
    @Test func containmentIsTheProjectionHorizon() throws {
        for wkid in [3413, 32661, 5041, 3031] {
            let sr = try SpatialReference(wkid: wkid)
            let pole = try GeometryEngine.project(Point(latitude: wkid == 3031 ? -90 : 90, longitude: 0), into: sr)
            let r = post("/api/contains", #"{"wkid": \#(wkid), "x": \#(pole.x), "y": \#(pole.y)}"#)
            #expect(r.status == 200, "EPSG:\(wkid): \(String(decoding: r.body, as: UTF8.self))")
            #expect(try object(r)["inside"] as? Bool == true, "EPSG:\(wkid)")
        }
        let texas = try SpatialReference(wkid: 32038)
        for (lat, lon, inside) in [(29.7604, -95.3698, true), (25.7617, -80.1918, false)] {
            let p = try GeometryEngine.project(Point(latitude: lat, longitude: lon), into: texas)
            let r = post("/api/contains", #"{"x": \#(p.x), "y": \#(p.y)}"#)
            #expect(r.status == 200)
            #expect(try object(r)["inside"] as? Bool == inside, "\(lat), \(lon)")
        }
    }

    /// A geodesic buffer on ±180° in Web Mercator is computed (it answered 422 "needs more than 200,000 vertices…
    /// raise maxDeviation" at x = +20037508), and no engine message naming maxDeviation, a field the API does not
    /// have, reaches the client.
    @Test func geodesicBuffersAtTheAntimeridianAndNoFieldTheAPIDoesNotHave() throws {
        for x in [20_037_508.342789244, -20_037_508.342789244] {
            let r = post("/api/buffer", #"{"wkid": 3857, "points": [{"x": \#(x), "y": 0}], "radiiMiles": [10], "mode": "geodesic"}"#)
            #expect(r.status == 200, "\(x): \(String(decoding: r.body, as: UTF8.self))")
        }
        let error = api.failure(.invalidDistance("the buffer needs more than 200,000 vertices on one curve; raise maxDeviation"))
        #expect(error.status == 422 && !error.message.contains("maxDeviation"), "\(error)")
    }

    /// An engine error located at an item of the request names it as the API's own messages do (the points, the
    /// premises), and a located refusal naming maxDeviation is still kept from the client (the engine's geodesic
    /// buffer locates its refusals at the geometry).
    @Test func locatedEngineErrorsNameTheRequestsItems() {
        let deviation = EngineError.invalidDistance("maxDeviation 0.0001 m must be at least 0.1 mm")
        let hidden = api.failure(deviation.at(EngineError.Location(geometry: 0)))
        #expect(hidden.status == 422 && !hidden.message.contains("maxDeviation"), "\(hidden)")
        let point = api.failure(EngineError.invalidDistance("too far").at(EngineError.Location(geometry: 2)))
        #expect(point.message == "invalid distance: point 2: too far")
        let premise = api.failure(EngineError.badGeometry(.empty("(a point) has no vertices"))
            .at(EngineError.Location(.nearFeatures, geometry: 1)), doing: .proximity)
        #expect(premise.message == "empty geometry: premise 1 (a point) has no vertices")
        let stopped = api.failure(EngineError.interrupted("the work was cancelled").at(EngineError.Location(geometry: 0)))
        #expect(stopped.status == 503, "\(stopped)")
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
        #expect(try error(outside).contains("point 1 is outside the area of use of NAD27 / Texas North Central"))
        let counts = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[1,2]}"#)
        #expect(counts.status == 422)
        let none = post("/api/buffer", #"{"points":[],"radiiMiles":[1]}"#)
        #expect(none.status == 422)
        let geographic = post("/api/buffer", #"{"wkid":4326,"points":[{"x":-97,"y":32}],"radiiMiles":[1]}"#)
        #expect(geographic.status == 422)
    }

    /// The smallest radius is the library's rule, the command line's too: 1e-300 mi was buffered into an empty
    /// polygon with 200. A geodesic radius too small to compute says so, not "use smaller radii".
    @Test func radiiUnderAMicrometreAndTooSmallGeodesicRadiiAreRefused() throws {
        for mode in ["planar", "geodesic"] {
            let tiny = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000},{"x":1700100,"y":400000}],"radiiMiles":[1,1e-300],"mode":"\#(mode)"}"#)
            #expect(tiny.status == 422)
            #expect(try error(tiny) == "radius 1: |1e-300| mi (1.61e-297 m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)")
        }
        // 1e-9 mi (1.6 µm) passes the rule; a geodesic curve of it in NAD27, drawn in WGS84, cannot be computed.
        let small = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[1e-9],"mode":"geodesic"}"#)
        #expect(small.status == 422)
        #expect(try error(small) == "the geodesic buffer cannot be computed at a radius this small here (one curve would need more than 200,000 vertices): use a larger radius or planar mode")
        let planar = post("/api/buffer", #"{"points":[{"x":1700000,"y":400000}],"radiiMiles":[1e-9]}"#)
        #expect(planar.status == 200)
    }

    /// An opened file whose coordinates are not numbers is refused, naming the placemark and its line (its
    /// geometries were dropped from the drawing).
    @Test func openingAFileWithUnreadableCoordinatesNamesThePlacemark() throws {
        let kml = "<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\n<Placemark><Point><coordinates>1,2</coordinates></Point></Placemark>\n"
            + "<Placemark><name>x</name>\n<LineString><coordinates>1,2 1e400,3</coordinates></LineString></Placemark>\n</Document></kml>"
        let r = api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: Data(kml.utf8)))
        #expect(r.status == 422)
        #expect(try error(r) == "cannot read the file as KML or KMZ: placemark 1 (line 3): '1e400' is not a finite number in the coordinates of a LineString")
    }

    @Test func exportsBuffersAsGeoJSONInWGS84() throws {
        let r = post("/api/buffer/export",
                     #"{"points":[{"x":1700000,"y":400000},{"x":1750000,"y":400000}],"radiiMiles":[10,20],"format":"geojson"}"#)
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/geo+json")
        #expect(r.header("Content-Disposition")
            == #"attachment; filename="buffers.geojson"; filename*=UTF-8''buffers.geojson"#)
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
        #expect(r.header("Content-Disposition") == #"attachment; filename="Trip.kmz"; filename*=UTF-8''Trip.kmz"#)
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

    /// A file with what the page's editor does not show: nested folders, a shared style, a MultiGeometry, a
    /// network link and a ground overlay; placemark ids 0 (path), 1 (multi), 2 (gone), 3 (pin).
    static let editableKML = #"""
        <kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Edits</name>
        <Style id="s"><LineStyle><color>ff0000ff</color><width>4</width></LineStyle></Style>
        <Folder><name>A</name><Folder><name>B</name>
        <Placemark><name>path</name><styleUrl>#s</styleUrl><LineString><altitudeMode>absolute</altitudeMode>
        <coordinates>10.123456789012,50.1,100 10.2,50.2,200 10.3,50.3,300</coordinates></LineString></Placemark>
        </Folder></Folder>
        <Placemark><name>multi</name><MultiGeometry><Point><coordinates>1,1</coordinates></Point>
        <Point><coordinates>2,2</coordinates></Point></MultiGeometry></Placemark>
        <Placemark><name>gone</name><Point><coordinates>5,5</coordinates></Point></Placemark>
        <Placemark><name>pin</name><styleUrl>#s</styleUrl><Point><coordinates>6,6</coordinates></Point></Placemark>
        <NetworkLink><name>live</name><Link><href>http://example.com/x.kml</href></Link></NetworkLink>
        <GroundOverlay><name>g</name><Icon><href>i.png</href></Icon><LatLonBox><north>1</north><south>0</south>
        <east>1</east><west>0</west></LatLonBox></GroundOverlay>
        </Document></kml>
        """#

    /// Web Mercator → WGS84 by the spherical formulas (R = 6,378,137 m), independent of PROJ.
    static func inverseMercator(_ x: Double, _ y: Double) -> (lon: Double, lat: Double) {
        let r = 6_378_137.0
        return (x / r * 180 / .pi, (2 * atan(exp(y / r)) - .pi / 2) * 180 / .pi)
    }

    @Test func openedDocumentsAreSavedWithTheirEditsAndEverythingElseAsRead() throws {
        let site = try StaticSite.bundled()
        let api = ViewerAPI(site: site)
        let source = Data(Self.editableKML.utf8)
        let opened = try object(api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: source)))
        let drawn = try #require(opened["placemarks"] as? [[String: Any]])
        #expect(drawn.map { $0["id"] as? Int } == [0, 1, 2, 3])
        #expect(drawn.map { $0["edit"] as? String } == ["polyline", nil, "point", "point"])
        #expect(drawn[1]["kind"] as? String == "a MultiGeometry")
        #expect(opened["unmodeled"] as? Int == 2)
        let path = try #require(((drawn[0]["geometries"] as? [[String: Any]])?.first?["paths"] as? [[[Double]]])?.first)
        // Vertex 0 kept (as the page got it), vertex 1 moved 1 km east, one inserted between 1 and 2, vertex 2 kept.
        let moved = [path[1][0] + 1000, path[1][1]]
        let inserted = [(path[1][0] + path[2][0]) / 2, (path[1][1] + path[2][1]) / 2]
        let edits = #"""
            [{"id":0,"coordinates":[[\#(path[0][0]),\#(path[0][1]),0],[\#(moved[0]),\#(moved[1]),1],
              [\#(inserted[0]),\#(inserted[1])],[\#(path[2][0]),\#(path[2][1]),2]]},
             {"id":2,"delete":true},{"id":3,"style":{"icon":"star"}}]
            """#
        let body = #"""
            {"name":"edits","placemarks":[{"type":"polygon","coordinates":[[0,0],[100000,0],[0,100000]],
             "style":{"color":"#00ff00"}}],"source":{"data":"\#(source.base64EncodedString())","edits":\#(edits)}}
            """#
        let r = post(api, "/api/kml", body)
        #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
        #expect(r.header("Content-Disposition") == #"attachment; filename="edits.kmz"; filename*=UTF-8''edits.kmz"#)
        let saved = try KMLDataset(data: r.body)
        #expect(saved.document.name == "Edits")
        #expect(saved.document.styles.count == 1)
        let names = saved.document.allPlacemarks.map { $0.name ?? "" }
        #expect(names == ["path", "multi", "pin", "Polygon 1"])
        // The path is still two folders deep, with its shared style and altitude mode.
        guard case .folder(let a) = saved.document.features.first, case .folder(let b) = a.features.first,
              case .placemark(let edited) = b.features.first, case .lineString(let cs)? = edited.geometry?.shape
        else {
            Issue.record("the path is not where the file had it")
            return
        }
        #expect(edited.styleUrl == "#s" && edited.geometry?.altitudeMode == .absolute)
        #expect(cs.count == 4)
        // Untouched vertices are the file's own (not re-projected), altitudes included.
        #expect(cs[0] == Coordinate(x: 10.123456789012, y: 50.1, z: 100))
        #expect(cs[3] == Coordinate(x: 10.3, y: 50.3, z: 300))
        // The moved one keeps its altitude; the new one takes its neighbours' mean (200, 300).
        let m = Self.inverseMercator(moved[0], moved[1]), n = Self.inverseMercator(inserted[0], inserted[1])
        #expect(abs(cs[1].x - m.lon) < 1e-9 && abs(cs[1].y - m.lat) < 1e-9 && cs[1].z == 200)
        #expect(abs(cs[2].x - n.lon) < 1e-9 && abs(cs[2].y - n.lat) < 1e-9 && cs[2].z == 250)
        // Restyled from the palette: its icon inline, overriding the shared style's (whose line style stays).
        let pin = try #require(saved.document.allPlacemarks.first { $0.name == "pin" })
        #expect(pin.styleUrl == "#s" && pin.style?.iconStyle?.icon?.href == "files/star.png")
        #expect(saved.effectiveStyle(for: pin)?.iconStyle?.icon?.href == "files/star.png")
        #expect(saved.effectiveStyle(for: pin)?.lineStyle?.width == 4)
        #expect(saved.resources["files/star.png"] == site.files["/icons/star.png"]?.data)
        // What the page never showed is written back as read.
        let original = try KMLDataset(data: source)
        #expect(saved.document.allPlacemarks.first { $0.name == "multi" }
                == original.document.allPlacemarks.first { $0.name == "multi" })
        let kept = saved.document.features.filter { if case .unmodeled = $0 { true } else { false } }
        let read = original.document.features.filter { if case .unmodeled = $0 { true } else { false } }
        #expect(kept.count == 2 && kept == read)
    }

    @Test func editsOfOpenedDocumentsAreChecked() throws {
        let api = ViewerAPI(site: try StaticSite.bundled(), limits: ViewerLimits(maximumVertices: 20, maximumPlacemarks: 5))
        let data = Data(Self.editableKML.utf8).base64EncodedString()
        func save(_ edits: String, data: String = data, placemarks: String = "[]") -> (Int, String) {
            let r = post(api, "/api/kml", #"{"placemarks":\#(placemarks),"source":{"data":"\#(data)","edits":\#(edits)}}"#)
            let message = (try? JSONSerialization.jsonObject(with: r.body) as? [String: Any])?["error"] as? String
            return (r.status, message ?? "")
        }
        #expect(save("[]").0 == 200)
        #expect(save("[]", data: "not base64!").0 == 400)
        #expect(save("[]", data: Data("<html/>".utf8).base64EncodedString()).0 == 422)
        #expect(save(#"[{"id":1,"coordinates":[[0,0]]}]"#) == (422, "placemark 1 ('multi'): its MultiGeometry cannot be edited"))
        #expect(save(#"[{"id":1,"style":{"icon":"star"}}]"#).0 == 422)
        #expect(save(#"[{"id":9,"delete":true}]"#) == (422, "placemark 9 does not exist in the file (it has 4 placemarks)"))
        #expect(save(#"[{"id":2,"delete":true},{"id":2,"delete":true}]"#).0 == 400)
        #expect(save(#"[{"id":0,"coordinates":[[0,0]]}]"#).0 == 422)  // a polyline needs 2 vertices
        #expect(save(#"[{"id":0,"coordinates":[[0,0,0],[1,1,7]]}]"#).0 == 422)  // the file's path has no vertex 7
        #expect(save(#"[{"id":2,"coordinates":[[0,0],[1,1]]}]"#).0 == 422)  // a point has one vertex
        #expect(save(##"[{"id":2,"style":{"color":"#ff0000"}}]"##).0 == 422)  // a point takes an icon
        let many = Array(repeating: "[0,0]", count: 20).joined(separator: ",")
        #expect(save(#"[{"id":0,"coordinates":[\#(many)]}]"#).0 == 413)  // 20 + the file's other vertices
        let point = #"{"type":"point","coordinates":[[0,0]],"style":{"icon":"star"}}"#
        #expect(save("[]", placemarks: "[\(point),\(point)]").0 == 413)  // 4 + 2 placemarks
    }

    @Test func aLonePlacemarkGainsADocumentAndIconsNeverOverwriteTheFiles() throws {
        let site = try StaticSite.bundled()
        let api = ViewerAPI(site: site)
        let lone = Data(#"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>p</name><Point><coordinates>1,2</coordinates></Point></Placemark></kml>"#.utf8)
        let point = #"{"type":"point","coordinates":[[0,0]],"style":{"icon":"star"}}"#
        let r = post(api, "/api/kml", #"{"placemarks":[\#(point)],"source":{"data":"\#(lone.base64EncodedString())","edits":[]}}"#)
        #expect(r.status == 200)
        let saved = try KMLDataset(data: r.body)
        #expect(!saved.document.isImplicit && saved.document.allPlacemarks.map { $0.name ?? "" } == ["p", "Point 1"])
        // A KMZ holding another image as files/star.png keeps it; the palette's star goes beside it.
        var dataset = try KMLDataset(data: lone)
        dataset.resources["files/star.png"] = Data("the file's own star".utf8)
        let kmz = try KMLBridge.kmzData(dataset)
        let r2 = post(api, "/api/kml", #"{"placemarks":[\#(point)],"source":{"data":"\#(kmz.base64EncodedString())","edits":[]}}"#)
        #expect(r2.status == 200)
        let saved2 = try KMLDataset(data: r2.body)
        #expect(saved2.resources["files/star.png"] == Data("the file's own star".utf8))
        #expect(saved2.resources["files/meridian-1-star.png"] == site.files["/icons/star.png"]?.data)
        #expect(saved2.document.allPlacemarks.last?.style?.iconStyle?.icon?.href == "files/meridian-1-star.png")
    }

    @Test func aRingTheFileLeftOpenIsEditedVertexForVertexAndSavedClosed() throws {
        let api = ViewerAPI(site: try StaticSite.bundled())
        let kml = Data(#"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,1</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>"#.utf8)
        let o = try object(api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: kml)))
        let p = try #require((o["placemarks"] as? [[String: Any]])?.first)
        #expect(p["edit"] as? String == "polygon")
        let ring = try #require(((p["geometries"] as? [[String: Any]])?.first?["parts"] as? [[String: Any]])?.first?["shell"] as? [[Double]])
        #expect(ring.count == 4)  // as the file has it: the page keeps all four
        let kept = ring.enumerated().map { "[\($0.element[0]),\($0.element[1]),\($0.offset)]" }.joined(separator: ",")
        let r = post(api, "/api/kml", #"{"placemarks":[],"source":{"data":"\#(kml.base64EncodedString())","edits":[{"id":0,"coordinates":[\#(kept)]}]}}"#)
        #expect(r.status == 200)
        let saved = try KMLDataset(data: r.body)
        guard case .polygon(let outer, let inner)? = saved.document.allPlacemarks.first?.geometry?.shape else {
            Issue.record("no polygon saved")
            return
        }
        #expect(inner.isEmpty)
        #expect(outer.map { [$0.x, $0.y] } == [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]])
    }

    @Test func savingAnOpenedFileNeverPacksFilesOfTheServersDisk() throws {
        let api = ViewerAPI(site: try StaticSite.bundled())
        // Hrefs naming files that exist on this machine (absolute, file://, ../ from the server's working directory)
        // and one that does not: all written back as they are, none read.
        let up = Array(repeating: "..", count: 40).joined(separator: "/") + "/etc/hostname"
        let hrefs = ["/etc/hostname", "file:///etc/passwd", up, "/nonexistent/meridian/icon.png"]
        let styles = hrefs.enumerated().map { #"<Style id="s\#($0.offset)"><IconStyle><Icon><href>\#($0.element)</href></Icon></IconStyle></Style>"# }
        let kml = Data(#"<kml xmlns="http://www.opengis.net/kml/2.2"><Document>\#(styles.joined())<Placemark><styleUrl>#s0</styleUrl><Point><coordinates>1,2</coordinates></Point></Placemark></Document></kml>"#.utf8)
        let r = post(api, "/api/kml", #"{"placemarks":[],"source":{"data":"\#(kml.base64EncodedString())","edits":[]}}"#)
        #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
        let saved = try KMLDataset(data: r.body)
        #expect(saved.resources.isEmpty)
        #expect(saved.iconHrefs.sorted() == hrefs.sorted())
    }

    @Test func anOpenedKMZKeepsItsPackedIconsAndUntouchedPlacemarks() throws {
        // openlayers/iceland.kmz: 83 points whose 16 icons are PNGs inside the archive.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/kml/samples/openlayers/iceland.kmz")
        let kmz = try Data(contentsOf: url)
        let api = ViewerAPI(site: try StaticSite.bundled())
        let opened = try object(api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: kmz)))
        let first = try #require((opened["placemarks"] as? [[String: Any]])?.first)
        #expect(first["edit"] as? String == "point")
        let g = try #require((first["geometries"] as? [[String: Any]])?.first)
        let x = try #require(g["x"] as? Double) + 5000, y = try #require(g["y"] as? Double) - 2000
        let id = try #require(first["id"] as? Int)
        let r = post(api, "/api/kml", #"{"name":"iceland","placemarks":[],"source":{"data":"\#(kmz.base64EncodedString())","edits":[{"id":\#(id),"coordinates":[[\#(x),\#(y),0]]}]}}"#)
        #expect(r.status == 200)
        let original = try KMLDataset(data: kmz), saved = try KMLDataset(data: r.body)
        #expect(original.resources.count == 16 && saved.resources == original.resources)
        let before = original.document.allPlacemarks, after = saved.document.allPlacemarks
        #expect(after.count == before.count && after.count == 83)
        for k in before.indices where k != id { #expect(after[k] == before[k], "placemark \(k)") }
        guard case .point(let c)? = after[id].geometry?.shape else {
            Issue.record("the moved placemark is not a point")
            return
        }
        let expected = Self.inverseMercator(x, y)
        #expect(abs(c.x - expected.lon) < 1e-9 && abs(c.y - expected.lat) < 1e-9)
        #expect(after[id].styleUrl == before[id].styleUrl && after[id].name == before[id].name)
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
        #expect(try error(api.handle(HTTPRequest(method: "PUT", path: "/api/buffer")))
            == "PUT is not allowed on /api/buffer")
        #expect(api.handle(HTTPRequest(method: "POST", path: "/api/srs/32038")).status == 405)
        #expect(api.handle(HTTPRequest(method: "GET", path: "/api/srs/32038/extra")).status == 404)
        #expect(api.handle(HTTPRequest(method: "HEAD", path: "/api/health")).status == 200)
        #expect(api.handle(HTTPRequest(method: "HEAD", path: "/api/kml/palette")).status == 405)
    }

    /// Every route of the table answers its method and refuses the others with 405 and an `Allow` naming the
    /// table's methods for that path; a body over the route's limit is refused with 413.
    @Test func routesComeFromOneTable() throws {
        let paths = Dictionary(grouping: ViewerAPI.routes) { $0.pattern.map { $0 == "*" ? "32038" : $0 }.joined(separator: "/") }
        #expect(paths.keys.sorted() == ["buffer", "buffer/export", "contains", "health", "kml", "kml/open", "kml/palette",
                                        "near", "srs/32038"])
        for (path, routes) in paths {
            let allowed = Set(routes.map(\.method))
            for method in ["GET", "HEAD", "POST", "PUT", "DELETE"] {
                let r = api.handle(HTTPRequest(method: method, path: "/api/" + path, body: method == "POST" ? Data("{}".utf8) : Data()))
                if allowed.contains(method) {
                    #expect(r.status != 405 && r.status != 404, "\(method) /api/\(path)")
                } else {
                    #expect(r.status == 405, "\(method) /api/\(path)")
                    #expect(r.header("Allow") == routes.map(\.method).joined(separator: ", "), "\(method) /api/\(path)")
                }
            }
        }
        let withBody = api.handle(HTTPRequest(method: "GET", path: "/api/health", body: Data("x".utf8)))
        #expect(withBody.status == 413)
        #expect(try error(withBody) == "GET /api/health takes no request body")
        let small = ViewerAPI(site: Self.site, limits: ViewerLimits(maximumBodySize: 10))
        let tooLarge = small.handle(HTTPRequest(method: "POST", path: "/api/contains", body: Data(#"{"x":1,"y":22222}"#.utf8)))
        #expect(tooLarge.status == 413)
        #expect(try error(tooLarge) == "request body too large (limit 10 bytes)")
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
        for path in ["/index.html", "/buffers.html", "/kml.html", "/js/map.js", "/js/page.js", "/js/basemap.js",
                     "/js/buffers.js", "/js/kml.js", "/js/pages.js", "/css/viewer.css", "/data/texas-32038.json",
                     "/data/texas-32038-detail.json", "/data/world-3857.json", "/data/world-3857-detail.json",
                     "/data/LICENSES/ATTRIBUTION.md"]
        {
            #expect(site.files[path] != nil, "\(path)")
        }
        for icon in KMLPalette.icons {
            let png = try #require(site.files["/icons/\(icon.file)"])
            #expect(png.data.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        }
        // The page is loaded into memory: about 1.9 MB of basemap (four files, docs/viewer.md) and 0.1 MB else.
        let total = site.files.values.reduce(0) { $0 + $1.data.count }
        #expect(total < 5 << 19)
    }
}
