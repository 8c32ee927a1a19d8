import Foundation
import Meridian
import Testing

@testable import MeridianViewer

/// `POST /api/near`, called directly (no network): which premises lie within each point's buffer radius — the
/// pairs, their distances in miles and their order, planar and geodesic, the premises of a CSV file, bad input and
/// the limits.
@Suite struct NearAPITests {
    static let site = StaticSite(files: [:])
    let api = ViewerAPI(site: Self.site)

    /// Planar distances in EPSG:32038 are in US survey feet: 1200/3937 m each, 1609.344 m to the mile.
    static func miles(feet: Double) -> Double { feet * 1200 / 3937 / 1609.344 }

    func post(_ json: String) -> HTTPResponse { post(api, json) }

    func post(_ api: ViewerAPI, _ json: String) -> HTTPResponse {
        api.handle(HTTPRequest(method: "POST", path: "/api/near", body: Data(json.utf8)))
    }

    func object(_ r: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: r.body) as? [String: Any], "\(String(decoding: r.body, as: UTF8.self))")
    }

    func error(_ r: HTTPResponse) throws -> String {
        try #require(try object(r)["error"] as? String)
    }

    /// The pairs of an answer as (point, premise, distance, rank).
    func pairs(_ r: HTTPResponse) throws -> [(point: Int, premise: Int, distance: Double, rank: Int)] {
        let rows = try #require(try object(r)["pairs"] as? [[String: Any]])
        return try rows.map {
            (try #require($0["point"] as? Int), try #require($0["premise"] as? Int),
             try #require($0["distance"] as? Double), try #require($0["rank"] as? Int))
        }
    }

    func xy(_ points: [(Double, Double)]) -> String {
        "[" + points.map { #"{"x":\#($0.0),"y":\#($0.1)}"# }.joined(separator: ",") + "]"
    }

    /// Two points and five premises at distances made of 3-4-5 triangles: the pairs are those within each point's
    /// radius, ordered by point, then distance, then premise (equal distances by premise), as `meridian near` orders
    /// them, with the distances in miles.
    @Test func planarPairsAreSortedAsTheCommandLineSortsThem() throws {
        let (x0, y0) = (1_700_000.0, 400_000.0), (x1, y1) = (1_760_000.0, 400_000.0)
        let premises = [(x0 + 30_000, y0 + 40_000),  // 50,000 ft from point 0
                        (x0 - 3_000, y0 - 4_000),  // 5,000 ft from point 0
                        (x0 + 4_000, y0 - 3_000),  // 5,000 ft from point 0: ties with premise 1
                        (x1 + 600, y1 + 800),  // 1,000 ft from point 1
                        (x0 + 90_000, y0)]  // 30,000 ft from point 1, 90,000 ft from point 0
        let r = post(#"{"points":\#(xy([(x0, y0), (x1, y1)])),"radiiMiles":[10,6],"premises":\#(xy(premises))}"#)
        #expect(r.status == 200)
        let found = try pairs(r)
        // 10 mi = 52,799.9 ft: premises 1, 2 and 0 of point 0; 6 mi = 31,679.9 ft: premises 3 and 4 of point 1.
        let near = Self.miles(feet: 5_000), far = Self.miles(feet: 50_000)
        let next = Self.miles(feet: 1_000), last = Self.miles(feet: 30_000)
        let expected: [(Int, Int, Double, Int)] = [(0, 1, near, 1), (0, 2, near, 2), (0, 0, far, 3), (1, 3, next, 1),
                                                   (1, 4, last, 2)]
        #expect(found.count == expected.count)
        for (f, e) in zip(found, expected) {
            #expect(f.point == e.0 && f.premise == e.1 && f.rank == e.3, "\(f)")
            #expect(abs(f.distance - e.2) < 1e-9, "\(f)")
        }
        let o = try object(r)
        #expect(o["pointsInBreach"] as? [Int] == [0, 1])
        #expect(o["premisesInReach"] as? [Int] == [0, 1, 2, 3, 4])
        #expect(o["mode"] as? String == "planar" && o["unit"] as? String == "mi" && o["wkid"] as? Int == 32038)
        // A smaller radius for point 0 leaves premise 0 out, and with it nothing else changes.
        let smaller = try pairs(post(#"{"points":\#(xy([(x0, y0), (x1, y1)])),"radiiMiles":[9,6],"premises":\#(xy(premises))}"#))
        #expect(smaller.map { [$0.point, $0.premise] } == [[0, 1], [0, 2], [1, 3], [1, 4]])
    }

    /// A premise exactly at a point's radius is within its buffer (the boundary is included), one a hundredth of a
    /// foot farther is not. The radius is one whose miles and feet convert into each other exactly, so that the
    /// test is of the comparison, not of rounding.
    @Test func aPremiseOnTheBufferBoundaryIsWithinIt() throws {
        let feet = try #require((5_000...6_000).map(Double.init).first { d in
            let miles = LinearUnit.usSurveyFeet.convert(d, to: .miles)
            return LinearUnit.miles.convert(miles, to: .usSurveyFeet) == d
        })
        let radius = LinearUnit.usSurveyFeet.convert(feet, to: .miles)
        let (x, y) = (1_700_000.0, 400_000.0)
        let r = post(#"{"points":\#(xy([(x, y)])),"radiiMiles":[\#(radius)],"premises":\#(xy([(x + feet + 0.01, y), (x, y - feet)]))}"#)
        #expect(r.status == 200)
        #expect(try pairs(r).map { [$0.point, $0.premise] } == [[0, 1]])
        #expect(abs(try #require(try pairs(r).first?.distance) - radius) < 1e-9)  // written to 9 decimals
    }

    /// Geodesic mode measures on the ellipsoid of EPSG:32038's datum (NAD27: Clarke 1866), as its buffers are
    /// drawn. The references are GeographicLib's (`Geodesic(6378206.4, 1/294.978698213898).Inverse` between the
    /// points' NAD27 longitudes/latitudes from pyproj), not Meridian's.
    @Test func geodesicModeMeasuresOnTheEllipsoid() throws {
        // Premise 1 is 15,839 ft due south: 2.99982 mi in the plane, 3.00016 mi on the ellipsoid (the projection's
        // scale is below 1 here), so a 3-mile radius reaches it only in planar mode.
        let body = #"{"mode":"MODE","points":[{"x":1750000,"y":400000}],"radiiMiles":[3],"premises":[{"x":1760000,"y":410000},{"x":1750000,"y":384161}]}"#
        let geodesic = post(body.replacingOccurrences(of: "MODE", with: "geodesic"))
        #expect(geodesic.status == 200)
        let g = try pairs(geodesic)
        #expect(g.map { $0.premise } == [0])
        #expect(abs(g[0].distance - 2.6787507959060894) < 2e-9)  // GeographicLib
        let far = try pairs(post(body.replacingOccurrences(of: "MODE", with: "geodesic").replacingOccurrences(of: "[3]", with: "[3.1]")))
        #expect(far.map { $0.premise } == [0, 1])
        #expect(abs(far[1].distance - 3.0001550542632787) < 2e-9)  // GeographicLib
        let planar = try pairs(post(body.replacingOccurrences(of: "MODE", with: "planar")))
        #expect(planar.map { $0.premise } == [0, 1])
        #expect(abs(planar[0].distance - Self.miles(feet: hypot(10_000, 10_000))) < 1e-9)
        #expect(abs(planar[1].distance - Self.miles(feet: 15_839)) < 1e-9)
        #expect(try object(geodesic)["mode"] as? String == "geodesic")
    }

    /// Points are searched in batches: every point keeps its own index and radius past the first batch.
    @Test func pointsBeyondOneBatchKeepTheirIndicesAndRadii() throws {
        let n = 3 * ViewerAPI.nearBatch + 5
        let points = (0..<n).map { (1_500_000 + Double($0) * 2_000, 400_000.0) }
        // Premise i lies 1,000 ft north of point n-1-i; each radius is just over 1,000 ft for even points and just
        // under it for odd ones.
        let premises = (0..<n).map { (points[n - 1 - $0].0, 401_000.0) }
        let radii = (0..<n).map { Self.miles(feet: $0 % 2 == 0 ? 1_000.5 : 999.5) }
        let body = #"{"points":\#(xy(points)),"radiiMiles":\#(radii),"premises":\#(xy(premises))}"#
        let found = try pairs(post(body))
        let evens = stride(from: 0, to: n, by: 2).map { [$0, n - 1 - $0] }
        #expect(found.map { [$0.point, $0.premise] } == evens)
        #expect(found.allSatisfy { abs($0.distance - Self.miles(feet: 1_000)) < 1e-9 && $0.rank == 1 })
    }

    /// A CSV file's premises are read by MeridianIO's reader (the command line's): x,y in the request's spatial
    /// reference, lon,lat in WGS84 projected into it; tapped premises first.
    @Test func csvPremisesAreAddedAfterTheTappedOnes() throws {
        let csv = "name,X , Y\r\n\"Smith, J.\",1700000,400000\r\n\r\nB,1700100.5,400000\r\n"
        let r = post(#"{"points":[],"radiiMiles":[],"premises":[{"x":1800000,"y":400000}],"premisesCSV":{"name":"p.csv","text":\#(json(csv))}}"#)
        #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
        let premises = try #require(try object(r)["premises"] as? [[String: Double]])
        #expect(premises == [["x": 1_800_000, "y": 400_000], ["x": 1_700_000, "y": 400_000], ["x": 1_700_100.5, "y": 400_000]])
        #expect(try pairs(r).isEmpty)

        let lonLat = "lon,lat\n-97.3308,32.7555\n"
        let projected = try object(post(#"{"points":[],"radiiMiles":[],"premisesCSV":{"text":\#(json(lonLat))}}"#))
        let p = try #require((projected["premises"] as? [[String: Double]])?.first)
        let texas = try SpatialReference(wkid: 32038)
        let fortWorth = try GeometryEngine.project(Point(latitude: 32.7555, longitude: -97.3308), into: texas)
        let (x, y) = (try #require(p["x"]), try #require(p["y"]))
        #expect(abs(x - fortWorth.x) < 1e-6 && abs(y - fortWorth.y) < 1e-6)
    }

    func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// Bad input: one line naming the premise, or the file and its line; nothing computed.
    @Test func badInputIsRefusedWithOneLineNamingThePremiseOrTheFileAndLine() throws {
        let area = "is outside the area of use of NAD27 / Texas North Central (W -103.07, S 31.72, E -94, N 34.58; 5° beyond it are accepted)"
        func refusal(_ premises: String = "[]", csv: String? = nil, name: String = "p.csv", points: String = "[]",
                     radii: String = "[]") throws -> (Int, String) {
            let file = csv.map { #","premisesCSV":{"name":\#(json(name)),"text":\#(json($0))}"# } ?? ""
            let r = post(#"{"points":\#(points),"radiiMiles":\#(radii),"premises":\#(premises)\#(file)}"#)
            return (r.status, try error(r))
        }
        #expect(try refusal(xy([(1_700_000, 400_000), (3_000_000, -2_000_000)]))
            == (422, "premise 1 \(area): tap within the projection's horizon"))
        #expect(try refusal(csv: "id,name\n1,a\n")
            == (422, "p.csv: line 1: the CSV header needs lon,lat (or longitude,latitude) or x,y columns; it has id,name"))
        #expect(try refusal(csv: "x,y,X\n1,2,3\n")
            == (422, "p.csv: line 1: the CSV header names 'X' twice (columns 1 and 3); rename one"))
        #expect(try refusal(csv: "x,y,id\n1700000,400000,1\n1700000,400000\n")
            == (422, "p.csv: CSV line 3: the row has 2 fields, the header has 3"))
        #expect(try refusal(csv: "x,y\n1700000,400000\n1700000,4e5x\n")
            == (422, "p.csv: line 3: '1700000','4e5x' is not a finite coordinate pair"))
        #expect(try refusal(csv: "lon,lat\n-97,32\n-97,95\n") == (422, "p.csv: feature 1 (line 3): latitude 95.0 is outside -90…90"))
        #expect(try refusal(csv: "lon,lat\n-97,32\n-80.19,25.76\n") == (422, "p.csv: feature 1 (line 3): the premise \(area)"))
        #expect(try refusal(csv: "x,y\n3000000,-2000000\n") == (422, "p.csv: feature 0 (line 2): the premise \(area)"))
        #expect(try refusal(csv: "x,y\n\"1700000,400000\n") == (422, "p.csv: CSV line 2, column 1: unterminated quoted field"))
        #expect(try refusal(csv: "x,y\r\n") == (422, "p.csv: the input has no features"))
        let notCSV = "not CSV: premises are read from a CSV file with x,y or lon,lat columns"
        #expect(try refusal(csv: "") == (422, "p.csv is an empty file, \(notCSV)"))
        #expect(try refusal(csv: #"{"type":"Point","coordinates":[-97,32]}"#) == (422, "p.csv is GeoJSON, \(notCSV)"))
        #expect(try refusal(csv: "<kml xmlns=\"http://www.opengis.net/kml/2.2\"/>") == (422, "p.csv is KML, \(notCSV)"))
        // The points keep the buffers' rules and messages.
        #expect(try refusal(points: xy([(1_700_000, 400_000)]), radii: "[300]")
            == (422, "radius 0 is 300.0: enter a value between 0 and 300 miles"))
        #expect(try refusal(points: xy([(1_700_000, 400_000)]), radii: "[1,2]")
            == (422, "give one radius per point or one radius for all (1 points, 2 radii)"))
        // A file's name is the page's: a long one is cut, and it reaches the client only JSON-escaped.
        let hostile = "<script>\u{1}" + String(repeating: "n", count: 100) + ".csv"
        let (status, message) = try refusal(csv: "id\n1\n", name: hostile)
        #expect(status == 422 && message.hasPrefix("<script>\u{1}nnn") && message.contains("nnn…: line 1: the CSV header"))
        let r = post(#"{"points":[],"radiiMiles":[],"mode":"spherical","premises":[]}"#)
        let modeMessage = try error(r)
        #expect(r.status == 400 && modeMessage == #"mode must be "planar" or "geodesic", got "spherical""#)
        let missing = post(#"{"radiiMiles":[],"premises":[]}"#)
        let missingMessage = try error(missing)
        #expect(missing.status == 400 && missingMessage == "missing field 'points'")
    }

    /// The limits: premises per request (tapped and read together, `maximumPoints`), pairs per answer
    /// (`maximumNearPairs`) and the work budget.
    @Test func premisesPairsAndWorkAreBounded() throws {
        let small = ViewerAPI(site: Self.site, limits: ViewerLimits(maximumPoints: 50))
        let tapped = xy((0..<30).map { (1_700_000 + Double($0), 400_000) })
        let rows = "x,y\n" + (0..<21).map { "\(1_700_000 + $0),400100\n" }.joined()
        let tooMany = post(small, #"{"points":[],"radiiMiles":[],"premises":\#(tapped),"premisesCSV":{"text":\#(json(rows))}}"#)
        #expect(tooMany.status == 413)
        #expect(try error(tooMany) == "too many premises: 51 (limit 50)")
        #expect(post(small, #"{"points":[],"radiiMiles":[],"premises":\#(tapped),"premisesCSV":{"text":\#(json(String(rows.dropLast(15))))}}"#).status == 200)

        var limits = ViewerLimits()
        limits.maximumNearPairs = 10
        let few = ViewerAPI(site: Self.site, limits: limits)
        let points = xy((0..<4).map { (1_700_000 + Double($0) * 10, 400_000) })
        let premises = xy((0..<3).map { (1_700_000 + Double($0) * 10, 401_000) })
        let twelve = post(few, #"{"points":\#(points),"radiiMiles":[1],"premises":\#(premises)}"#)
        #expect(twelve.status == 413)
        #expect(try error(twelve) == "more than 10 point–premise pairs are within reach (the limit): use smaller radii, fewer points or fewer premises")
        #expect(try pairs(post(few, #"{"points":\#(points),"radiiMiles":[0.1],"premises":\#(premises)}"#)).isEmpty)

        let hurried = ViewerAPI(site: Self.site, limits: ViewerLimits(workSeconds: 1e-9))
        let stopped = post(hurried, #"{"points":\#(points),"radiiMiles":[1],"premises":\#(premises)}"#)
        #expect(stopped.status == 503)
        #expect(try error(stopped) == "the search was stopped: it would take longer than the 1e-09 s allowed for one request (use fewer points or premises, or smaller radii)")
    }
}
