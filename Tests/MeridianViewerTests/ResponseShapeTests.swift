import Foundation
import Meridian
import Testing

@testable import MeridianViewer

/// Pins the JSON shape of every endpoint's answer — its keys and the JSON type of each value — as the pages in
/// `Site/js` read them. Each answer is written from an `Encodable` response type (`HealthResponse`,
/// `SpatialReferenceResponse`, `ContainsResponse`, `BufferResponse`, `NearResponse`, `PaletteResponse`,
/// `KMLBridge.OpenResponse`, `ErrorResponse`); a renamed, added, dropped or retyped property changes the wire and
/// fails here. Answers are read with MeridianCore's JSON reader, not the writer under test.
@Suite struct ResponseShapeTests {
    /// The JSON type a value must have.
    indirect enum Shape: Sendable {
        case string, number, integer, bool
        /// `null` or the shape.
        case nullable(Shape)
        /// An array whose every element has the shape.
        case array(Shape)
        /// `[x, y]`.
        case pair
        /// An object with these keys (those in `optional` may be absent) and no other.
        case object([String: Shape], optional: Set<String> = [])
        /// An object whose `type` string picks its shape.
        case tagged([String: Shape])
    }

    /// Checks values against shapes, and remembers which optional keys it saw (each must be seen once, so that the
    /// answers below exercise every key).
    final class Checker {
        var problems: [String] = []
        var seenOptional: Set<String> = []

        func check(_ v: JSONValue, _ shape: Shape, _ path: String) {
            switch (shape, v) {
            case (.string, .string), (.bool, .bool), (.number, .number), (.nullable, .null): return
            case (.integer, .number(let d)) where d == d.rounded(): return
            case (.nullable(let inner), _): check(v, inner, path)
            case (.array(let element), .array(let items)):
                for (i, item) in items.enumerated() { check(item, element, "\(path)[\(i)]") }
            case (.pair, .array(let items)) where items.count == 2:
                for (i, item) in items.enumerated() { check(item, .number, "\(path)[\(i)]") }
            case (.object(let keys, let optional), .object(let o)):
                for key in Set(o.keys).subtracting(keys.keys) { problems.append("\(path): unexpected key '\(key)'") }
                for (key, inner) in keys {
                    if let value = o[key] {
                        if optional.contains(key) { seenOptional.insert("\(strip(path)).\(key)") }
                        check(value, inner, "\(path).\(key)")
                    } else if !optional.contains(key) {
                        problems.append("\(path): missing key '\(key)'")
                    }
                }
            case (.tagged(let shapes), .object(let o)):
                guard let type = o["type"]?.stringValue, let inner = shapes[type] else {
                    problems.append("\(path): type \(o["type"].map { "\($0)" } ?? "missing") is none of \(shapes.keys.sorted())")
                    return
                }
                check(v, inner, path)
            default:
                problems.append("\(path): \(v) is not \(shape)")
            }
        }

        /// The path without array indices ("placemarks[3].style" → "placemarks.style").
        private func strip(_ path: String) -> String { path.replacing(/\[\d+\]/, with: "") }
    }

    static let ring = Shape.array(.pair)
    /// The one polygon shape of every answer (buffers, spatial references, opened placemarks).
    static let polygonParts = Shape.array(.object(["shell": ring, "holes": .array(ring)]))
    static let polygon = Shape.object(["parts": polygonParts])
    static let shapes: [String: Shape] = [
        "health": .object(["ok": .bool, "version": .string, "cancelled": .integer, "stoppedAtDeadline": .integer]),
        "srs": .object([
            "wkid": .integer, "name": .string, "kind": .string, "unit": .nullable(.string),
            "areaOfUse": .object(["name": .string, "west": .number, "south": .number, "east": .number, "north": .number]),
            "boundary": polygon, "horizon": .nullable(polygon),
            "extent": .object(["xmin": .number, "ymin": .number, "xmax": .number, "ymax": .number]),
        ], optional: ["extent"]),
        "contains": .object(["inside": .bool]),
        "buffer": .object(["mode": .string, "wkid": .integer, "unioned": .bool, "vertexCount": .integer,
                           "polygons": .array(polygon)]),
        "near": .object([
            "mode": .string, "wkid": .integer, "unit": .string, "premises": .array(.object(["x": .number, "y": .number])),
            "pairs": .array(.object(["point": .integer, "premise": .integer, "distance": .number, "rank": .integer])),
            "pointsInBreach": .array(.integer), "premisesInReach": .array(.integer),
        ]),
        "palette": .object([
            "icons": .array(.object(["id": .string, "title": .string, "file": .string])),
            "colors": .array(.object(["name": .string, "hex": .string])),
        ]),
        "kml/open": .object([
            "name": .string, "skipped": .integer, "unmodeled": .integer, "warnings": .array(.string),
            "placemarks": .array(.object([
                "id": .integer, "name": .string, "edit": .string, "kind": .string,
                "geometries": .array(.tagged([
                    "point": .object(["type": .string, "x": .number, "y": .number]),
                    "multipoint": .object(["type": .string, "points": ring]),
                    "polyline": .object(["type": .string, "paths": .array(ring)]),
                    "polygon": .object(["type": .string, "parts": polygonParts]),
                ])),
                "style": .object([
                    "icon": .string, "lineColor": .string, "lineOpacity": .number, "lineWidth": .number,
                    "fillColor": .string, "fillOpacity": .number, "fill": .bool, "outline": .bool,
                ], optional: ["icon", "lineColor", "lineOpacity", "lineWidth", "fillColor", "fillOpacity", "fill", "outline"]),
            ], optional: ["edit", "kind"])),
        ]),
        "error": .object(["error": .string]),
    ]

    /// A document with every kind of placemark and style the open answer describes.
    static let kml = """
        <kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Shapes</name>
        <Style id="line"><LineStyle><color>800000ff</color><width>3.5</width></LineStyle></Style>
        <Placemark><name>pin</name><Style><IconStyle><Icon><href>files/star.png</href></Icon></IconStyle></Style>
        <Point><coordinates>-98.5,32.7</coordinates></Point></Placemark>
        <Placemark><name>road</name><styleUrl>#line</styleUrl><LineString><coordinates>-98,32 -97,33</coordinates></LineString></Placemark>
        <Placemark><name>field</name><Style><PolyStyle><color>7f00ff00</color><fill>1</fill><outline>0</outline></PolyStyle></Style>
        <Polygon><outerBoundaryIs><LinearRing><coordinates>-98,32 -97,32 -97,33 -98,32</coordinates></LinearRing></outerBoundaryIs>
        <innerBoundaryIs><LinearRing><coordinates>-97.8,32.1 -97.3,32.1 -97.3,32.5 -97.8,32.1</coordinates></LinearRing></innerBoundaryIs></Polygon></Placemark>
        <Placemark><name>both</name><MultiGeometry><Point><coordinates>1,2</coordinates></Point>
        <LineString><coordinates>1,2 3,4</coordinates></LineString></MultiGeometry></Placemark>
        <ScreenOverlay><name>logo</name></ScreenOverlay>
        </Document></kml>
        """

    @Test func everyEndpointAnswersItsPinnedShape() throws {
        let api = ViewerAPI(site: try StaticSite.bundled())
        func call(_ method: String, _ path: String, _ body: String = "") -> HTTPResponse {
            api.handle(HTTPRequest(method: method, path: path, body: Data(body.utf8)))
        }
        let inside = #"{"x":1700000,"y":400000}"#
        let points = #""points":[{"x":1700000,"y":400000},{"x":1710000,"y":405000}],"radiiMiles":[3]"#
        let answers: [(shape: String, status: Int, response: HTTPResponse)] = [
            ("health", 200, call("GET", "/api/health")),
            ("srs", 200, call("GET", "/api/srs/32038")),
            ("srs", 200, call("GET", "/api/srs/3857")),
            ("contains", 200, call("POST", "/api/contains", inside)),
            ("buffer", 200, call("POST", "/api/buffer", "{\(points)}")),
            ("buffer", 200, call("POST", "/api/buffer", #"{\#(points),"union":true,"mode":"geodesic"}"#)),
            ("near", 200, call("POST", "/api/near", #"{\#(points),"premises":[{"x":1701000,"y":400500}],"premisesCSV":{"text":"lon,lat\n-98.48,32.76\n"}}"#)),
            ("palette", 200, call("GET", "/api/kml/palette")),
            ("kml/open", 200, call("POST", "/api/kml/open", Self.kml)),
            ("error", 400, call("POST", "/api/buffer", "{")),
            ("error", 404, call("GET", "/api/nothing")),
        ]
        let checker = Checker()
        for (name, status, response) in answers {
            #expect(response.status == status, "\(name): \(String(decoding: response.body, as: UTF8.self).prefix(300))")
            checker.check(try JSONValue.decode(response.body), try #require(Self.shapes[name]), name)
        }
        #expect(checker.problems.isEmpty, "\(checker.problems.prefix(20))")
        let optional = Set(["srs.extent", "kml/open.placemarks.edit", "kml/open.placemarks.kind"])
            .union(["icon", "lineColor", "lineOpacity", "lineWidth", "fillColor", "fillOpacity", "fill", "outline"]
                .map { "kml/open.placemarks.style.\($0)" })
        #expect(optional.subtracting(checker.seenOptional).isEmpty, "never seen: \(optional.subtracting(checker.seenOptional))")
    }

    /// The keys of an object shape.
    static func keys(_ shape: Shape?) -> Set<String> {
        if case .object(let keys, _)? = shape { return Set(keys.keys) }
        if case .array(let element)? = shape { return Self.keys(element) }
        return []
    }

    /// The stored properties of a response type (what its synthesized `encode(to:)` writes, or its own keys).
    static func properties(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap { $0.label })
    }

    /// Each response type's properties are exactly the keys pinned above: a property added to a type (even one the
    /// answers above never set) or removed from it fails here, without an endpoint to exercise it.
    @Test func theResponseTypesHoldExactlyThePinnedKeys() throws {
        func object(_ name: String, _ path: String...) -> Shape? {
            var shape = Self.shapes[name]
            for key in path {
                if case .array(let element)? = shape { shape = element }
                guard case .object(let keys, _)? = shape else { return nil }
                shape = keys[key]
            }
            if case .array(let element)? = shape { return element }
            return shape
        }
        let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: 1)],
                             spatialReference: .webMercator)
        let polygon = PolygonJSON(square, .drawn)
        let near = ViewerAPI.NearResponse(mode: .planar, wkid: 1, premises: [],
                                          pairs: [NearPair(leftIndex: 0, rightIndex: 0, distance: 1, rank: 1)])
        let placemark = KMLBridge.OpenedPlacemark(id: 0, name: "", edit: nil, kind: nil, geometries: [],
                                                  style: KMLBridge.DrawnStyle())
        let pairs: [(Any, Shape?)] = [
            (ViewerAPI.HealthResponse(ok: true, version: "", cancelled: 0, stoppedAtDeadline: 0), object("health")),
            (ViewerAPI.SpatialReferenceResponse(
                wkid: 1, name: "", kind: "", unit: nil,
                areaOfUse: .init(name: "", west: 0, south: 0, east: 0, north: 0), boundary: polygon, horizon: nil,
                extent: nil), object("srs")),
            (AreaOfUse(name: "", west: 0, south: 0, east: 0, north: 0), object("srs", "areaOfUse")),
            (ViewerAPI.SpatialReferenceResponse.Extent(xmin: 0, ymin: 0, xmax: 0, ymax: 0), object("srs", "extent")),
            (polygon, object("srs", "boundary")),
            (try #require(polygon.parts.first), object("srs", "boundary", "parts")),
            (ViewerAPI.ContainsResponse(inside: true), object("contains")),
            (ViewerAPI.BufferResponse(mode: "", wkid: 1, unioned: false, vertexCount: 0, polygons: []), object("buffer")),
            (near, object("near")),
            (try #require(near.pairs.first), object("near", "pairs")),
            (XY(x: 0, y: 0), object("near", "premises")),
            (ViewerAPI.PaletteResponse(icons: [], colors: []), object("palette")),
            (try #require(KMLPalette.icons.first), object("palette", "icons")),
            (try #require(KMLPalette.colors.first), object("palette", "colors")),
            (KMLBridge.OpenResponse(name: "", placemarks: [], skipped: 0, unmodeled: 0, warnings: []), object("kml/open")),
            (placemark, object("kml/open", "placemarks")),
            (KMLBridge.DrawnStyle(), object("kml/open", "placemarks", "style")),
            (ErrorResponse(error: ""), object("error")),
        ]
        for (value, shape) in pairs {
            #expect(Self.properties(value) == Self.keys(shape), "\(type(of: value))")
            #expect(!Self.keys(shape).isEmpty, "\(type(of: value)): no pinned shape")
        }
    }
}
