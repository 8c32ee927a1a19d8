import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore

/// The repository root (three levels above this file) and the reference data it carries (`Tests/Fixtures`).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let basemap = repositoryRoot.appendingPathComponent("Tests/Fixtures/basemap")

private func c(_ x: Double, _ y: Double, _ z: Double? = nil) -> Coordinate { Coordinate(x: x, y: y, z: z) }

private func geoJSONError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> FormatError? {
    do {
        let f = try GeoJSON.decodeFeatures(Data(text.utf8))
        Issue.record("expected an error, decoded \(f.count) features", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Twice the signed area of a closed ring by the shoelace formula (written here independently of `Polygon`).
private func shoelace(_ ring: [Coordinate]) -> Double {
    var s = 0.0
    for i in 0..<(ring.count - 1) { s += ring[i].x * ring[i + 1].y - ring[i + 1].x * ring[i].y }
    return s
}

/// GeoJSON as Foundation's JSONDecoder reads it (an independent parser), for comparisons.
struct ReferenceCollection: Decodable {
    struct Feature: Decodable { let geometry: Geometry }
    struct Geometry: Decodable {
        let type: String
        let coordinates: Nested
    }
    /// Nested arrays of numbers.
    enum Nested: Decodable {
        case number(Double)
        case array([Nested])
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let d = try? c.decode(Double.self) {
                self = .number(d)
            } else {
                self = .array(try c.decode([Nested].self))
            }
        }
        /// The innermost arrays of numbers, in document order.
        var positions: [[Double]] {
            guard case .array(let a) = self else { return [] }
            if case .number? = a.first { return [a.map { if case .number(let d) = $0 { d } else { .nan } }] }
            return a.flatMap(\.positions)
        }
    }
    let features: [Feature]
}

@Suite struct GeoJSONTests {
    // MARK: RFC 7946 examples (typed from the RFC)

    /// RFC 7946 §1.5, the example FeatureCollection.
    @Test func rfc7946Section1_5Example() throws {
        let text = """
            {
                   "type": "FeatureCollection",
                   "features": [{
                       "type": "Feature",
                       "geometry": {
                           "type": "Point",
                           "coordinates": [102.0, 0.5]
                       },
                       "properties": {
                           "prop0": "value0"
                       }
                   }, {
                       "type": "Feature",
                       "geometry": {
                           "type": "LineString",
                           "coordinates": [
                               [102.0, 0.0],
                               [103.0, 1.0],
                               [104.0, 0.0],
                               [105.0, 1.0]
                           ]
                       },
                       "properties": {
                           "prop0": "value0",
                           "prop1": 0.0
                       }
                   }, {
                       "type": "Feature",
                       "geometry": {
                           "type": "Polygon",
                           "coordinates": [
                               [
                                   [100.0, 0.0],
                                   [101.0, 0.0],
                                   [101.0, 1.0],
                                   [100.0, 1.0],
                                   [100.0, 0.0]
                               ]
                           ]
                       },
                       "properties": {
                           "prop0": "value0",
                           "prop1": {
                               "this": "that"
                           }
                       }
                   }]
               }
            """
        let features = try GeoJSON.decodeFeatures(Data(text.utf8))
        #expect(features.count == 3)
        #expect(
            features[0]
                == Feature(
                    geometry: .point(Point(x: 102, y: 0.5, spatialReference: .wgs84)),
                    properties: ["prop0": "value0"]))
        #expect(
            features[1].geometry
                == .polyline(
                    Polyline(
                        [c(102, 0), c(103, 1), c(104, 0), c(105, 1)],
                        spatialReference: .wgs84)))
        #expect(features[1].properties == ["prop0": "value0", "prop1": 0])
        #expect(
            features[2].geometry
                == .polygon(
                    Polygon(
                        parts: [.init(shell: [c(100, 0), c(101, 0), c(101, 1), c(100, 1), c(100, 0)])],
                        spatialReference: .wgs84)))
        #expect(features[2].properties["prop1"] == ["this": "that"])
        #expect(features.allSatisfy { $0.id == nil && $0.geometry?.spatialReference == .wgs84 })
        // Writing and reading again gives the same features (the polygon's shell is already counter-clockwise).
        #expect(try GeoJSON.decodeFeatures(GeoJSON.encode(features)) == features)
        #expect(try GeoJSON.decodeFeatures(GeoJSON.encode(features, pretty: true)) == features)
    }

    /// RFC 7946 Appendix A.1–A.6: one example per geometry type.
    @Test func rfc7946AppendixAGeometries() throws {
        func geometry(_ text: String) throws -> Geometry { try GeoJSON.decodeGeometry(Data(text.utf8)) }
        // A.1 Points
        #expect(
            try geometry(#"{"type": "Point", "coordinates": [100.0, 0.0]}"#)
                == .point(Point(x: 100, y: 0, spatialReference: .wgs84)))
        // A.2 LineStrings
        #expect(
            try geometry(#"{"type": "LineString", "coordinates": [[100.0, 0.0], [101.0, 1.0]]}"#)
                == .polyline(Polyline([c(100, 0), c(101, 1)], spatialReference: .wgs84)))
        // A.3 Polygons, no holes
        #expect(
            try geometry(
                """
                {"type": "Polygon", "coordinates": [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 1.0], [100.0, 0.0]]]}
                """)
                == .polygon(
                    Polygon(
                        parts: [.init(shell: [c(100, 0), c(101, 0), c(101, 1), c(100, 1), c(100, 0)])],
                        spatialReference: .wgs84)))
        // A.3 Polygons, with holes
        let withHole = try geometry(
            """
            {"type": "Polygon", "coordinates": [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 1.0], [100.0, 0.0]],
              [[100.8, 0.8], [100.8, 0.2], [100.2, 0.2], [100.2, 0.8], [100.8, 0.8]]]}
            """)
        #expect(
            withHole
                == .polygon(
                    Polygon(
                        parts: [
                            .init(
                                shell: [c(100, 0), c(101, 0), c(101, 1), c(100, 1), c(100, 0)],
                                holes: [[c(100.8, 0.8), c(100.8, 0.2), c(100.2, 0.2), c(100.2, 0.8), c(100.8, 0.8)]])
                        ],
                        spatialReference: .wgs84)))
        // A.4 MultiPoints
        #expect(
            try geometry(#"{"type": "MultiPoint", "coordinates": [[100.0, 0.0], [101.0, 1.0]]}"#)
                == .multipoint(Multipoint([c(100, 0), c(101, 1)], spatialReference: .wgs84)))
        // A.5 MultiLineStrings
        #expect(
            try geometry(
                """
                {"type": "MultiLineString", "coordinates": [[[100.0, 0.0], [101.0, 1.0]], [[102.0, 2.0], [103.0, 3.0]]]}
                """)
                == .polyline(
                    Polyline(
                        parts: [[c(100, 0), c(101, 1)], [c(102, 2), c(103, 3)]],
                        spatialReference: .wgs84)))
        // A.6 MultiPolygons
        let multi = try geometry(
            """
            {"type": "MultiPolygon", "coordinates": [
              [[[102.0, 2.0], [103.0, 2.0], [103.0, 3.0], [102.0, 3.0], [102.0, 2.0]]],
              [[[100.0, 0.0], [101.0, 0.0], [101.0, 1.0], [100.0, 1.0], [100.0, 0.0]],
               [[100.2, 0.2], [100.2, 0.8], [100.8, 0.8], [100.8, 0.2], [100.2, 0.2]]]]}
            """)
        #expect(
            multi
                == .polygon(
                    Polygon(
                        parts: [
                            .init(shell: [c(102, 2), c(103, 2), c(103, 3), c(102, 3), c(102, 2)]),
                            .init(
                                shell: [c(100, 0), c(101, 0), c(101, 1), c(100, 1), c(100, 0)],
                                holes: [[c(100.2, 0.2), c(100.2, 0.8), c(100.8, 0.8), c(100.8, 0.2), c(100.2, 0.2)]]),
                        ], spatialReference: .wgs84)))
        // Every example writes and reads back (holes of these examples are already clockwise).
        for g in [withHole, multi] { #expect(try GeoJSON.decodeGeometry(GeoJSON.encode(g)) == g) }
    }

    /// RFC 7946 Appendix A.7: GeometryCollection is not supported, with a clear error.
    @Test func rfc7946AppendixA7GeometryCollectionIsRejected() {
        let text = """
            {"type": "GeometryCollection",
             "geometries": [{"type": "Point", "coordinates": [100.0, 0.0]},
                            {"type": "LineString", "coordinates": [[101.0, 0.0], [102.0, 1.0]]}]}
            """
        #expect(throws: FormatError.self) { try GeoJSON.decodeGeometry(Data(text.utf8)) }
        let e = geoJSONError(text)
        #expect(e?.message == "GeometryCollection is not supported")
        #expect(e?.line == 1 && e?.column == 10)
    }

    /// RFC 7946 §3.1.1 (altitude), §5 (bbox) and §6.1 (foreign members): altitude kept, the rest ignored.
    /// A geometry whose positions mix 2 and 3 numbers loses all its heights (never some: a writer would
    /// need NaN for the missing ones); its neighbours keep theirs. A FeatureCollection must have "features".
    @Test func mixedDimensionsDropHeightsAndFeaturesAreRequired() throws {
        let text = #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0,5],[1,1],[0,0]]]},"properties":{}},
            {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2,3]},"properties":{}}]}
            """#
        let f = try GeoJSON.decodeFeatures(Data(text.utf8))
        #expect(f[0].geometry?.coordinates == [c(0, 0), c(1, 0), c(1, 1), c(0, 0)])
        #expect(f[1].geometry?.coordinates == [c(1, 2, 3)])
        #expect(geoJSONError(#"{"type":"FeatureCollection"}"#)?.message == "the FeatureCollection has no \"features\" member")
        #expect(try GeoJSON.decodeFeatures(Data(#"{"features":[],"type":"FeatureCollection"}"#.utf8)).isEmpty)
    }

    @Test func altitudeBboxAndForeignMembers() throws {
        let text = """
            {"type": "FeatureCollection", "bbox": [100.0, 0.0, 105.0, 1.0], "crs": {"type": "name"},
             "features": [{"type": "Feature", "id": "f1", "title": "Example Feature", "coordinates": "ignored",
                           "geometry": {"type": "Point", "coordinates": [-105.01621, 39.57422, 1534.5, 7],
                                        "bbox": [1, 2, 3, 4], "extra": {"nested": [1, {"x": null}]}},
                           "properties": {"name": "Dinagat Islands"}},
                          {"type": "Feature", "id": 42, "geometry": null, "properties": null},
                          {"type": "Feature", "geometry": {"type": "LineString", "coordinates": []}}]}
            """
        let f = try GeoJSON.decodeFeatures(Data(text.utf8))
        #expect(f.count == 3)
        #expect(f[0].geometry == .point(Point(x: -105.01621, y: 39.57422, z: 1534.5, spatialReference: .wgs84)))
        #expect(f[0].id == "f1")
        #expect(f[0].properties == ["name": "Dinagat Islands"])
        #expect(f[1] == Feature(geometry: nil, properties: [:], id: 42))
        #expect(f[2] == Feature(geometry: nil))  // empty coordinates read as a null geometry (RFC 7946 §3.1)
    }

    @Test func acceptsMembersInAnyOrder() throws {
        let late = """
            {"features": [{"geometry": {"coordinates": [[1, 2], [3, 4]], "type": "LineString"},
                           "properties": {"a": 1}, "type": "Feature"}],
             "type": "FeatureCollection"}
            """
        let f = try GeoJSON.decodeFeatures(Data(late.utf8))
        #expect(
            f == [
                Feature(
                    geometry: .polyline(Polyline([c(1, 2), c(3, 4)], spatialReference: .wgs84)),
                    properties: ["a": 1])
            ])
        // A lone Feature and a bare geometry with "type" last.
        let feature = #"{"geometry": {"type": "Point", "coordinates": [1, 2]}, "id": "x", "type": "Feature"}"#
        #expect(try GeoJSON.decodeFeatures(Data(feature.utf8)).first?.id == "x")
        #expect(try GeoJSON.decodeGeometry(Data(feature.utf8)) == .point(Point(x: 1, y: 2, spatialReference: .wgs84)))
        let point = #"{"coordinates": [1, 2], "type": "Point"}"#
        #expect(
            try GeoJSON.decodeFeatures(Data(point.utf8)) == [
                Feature(
                    geometry: .point(
                        Point(x: 1, y: 2, spatialReference: .wgs84)))
            ])
        // A "features" member is foreign to a Feature: skipped, however odd.
        let odd = #"{"features": 17, "type": "Feature", "geometry": null}"#
        #expect(try GeoJSON.decodeFeatures(Data(odd.utf8)) == [Feature(geometry: nil)])
        // Errors found in members read after "type" still point at the right place.
        let bad =
            "{\"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\",\n \"coordinates\": [1]}}],\n \"type\": \"FeatureCollection\"}"
        let e = geoJSONError(bad)
        #expect(e?.line == 2 && e?.column == 17 && e?.feature == 0)
    }

    // MARK: Writing

    @Test func writesDeterministicSortedOutput() throws {
        let f = Feature(
            geometry: .point(Point(x: -0.0, y: 0.1, z: 12, spatialReference: .wgs84)),
            properties: ["b": 2, "a": [true, nil], "é": "x\"y"], id: 7)
        // Expected text typed by hand from the documented rules.
        let expected =
            #"{"features":[{"geometry":{"coordinates":[0,0.1,12],"type":"Point"},"id":7,"#
            + #""properties":{"a":[true,null],"b":2,"é":"x\"y"},"type":"Feature"}],"type":"FeatureCollection"}"#
        #expect(String(decoding: GeoJSON.encode([f]), as: UTF8.self) == expected)
        #expect(String(decoding: GeoJSON.encode([]), as: UTF8.self) == #"{"features":[],"type":"FeatureCollection"}"#)
        let pretty = String(
            decoding: GeoJSON.encode(
                [
                    Feature(
                        geometry: .multipoint(
                            Multipoint([c(1, 2), c(3.5, -4)], spatialReference: .wgs84)))
                ], pretty: true), as: UTF8.self)
        #expect(
            pretty == """
                {
                  "features": [
                    {
                      "geometry": {
                        "coordinates": [[1, 2], [3.5, -4]],
                        "type": "MultiPoint"
                      },
                      "properties": {},
                      "type": "Feature"
                    }
                  ],
                  "type": "FeatureCollection"
                }
                """)
    }

    @Test func writesEveryGeometryTypeAsRFC7946() throws {
        let envelope = Envelope(xMin: -1, yMin: -2, xMax: 3, yMax: 4, spatialReference: .wgs84)
        let cases: [(Geometry, String)] = [
            (.point(Point(x: 1, y: 2, spatialReference: .wgs84)), "Point"),
            (.multipoint(Multipoint([c(1, 2)], spatialReference: .wgs84)), "MultiPoint"),
            (.polyline(Polyline([c(1, 2), c(3, 4)], spatialReference: .wgs84)), "LineString"),
            (
                .polyline(Polyline(parts: [[c(1, 2), c(3, 4)], [c(5, 6), c(7, 8)]], spatialReference: .wgs84)),
                "MultiLineString"
            ),
            (.polygon(Polygon(shell: [c(0, 0), c(1, 0), c(0, 1)], spatialReference: .wgs84)), "Polygon"),
            (
                .polygon(
                    Polygon(
                        parts: [
                            .init(shell: [c(0, 0), c(1, 0), c(0, 1), c(0, 0)]),
                            .init(shell: [c(5, 5), c(6, 5), c(5, 6), c(5, 5)]),
                        ], spatialReference: .wgs84)),
                "MultiPolygon"
            ),
            (.envelope(envelope), "Polygon"),
        ]
        for (g, type) in cases {
            // Checked with Foundation's parser, independent of ours.
            let object = try #require(try JSONSerialization.jsonObject(with: GeoJSON.encode(g)) as? [String: Any])
            #expect(object["type"] as? String == type)
            #expect(Set(object.keys) == ["type", "coordinates"])
        }
        // The envelope is its counter-clockwise rectangle.
        let e = try GeoJSON.decodeGeometry(GeoJSON.encode(.envelope(envelope)))
        #expect(
            e
                == .polygon(
                    Polygon(
                        parts: [.init(shell: [c(-1, -2), c(3, -2), c(3, 4), c(-1, 4), c(-1, -2)])],
                        spatialReference: .wgs84)))
    }

    @Test func writesRingsClosedAndOrientedPerRFC7946() throws {
        // A clockwise, unclosed shell with a counter-clockwise hole: RFC 7946 §3.1.6 wants the opposite.
        var polygon = Polygon(
            parts: [
                .init(
                    shell: [c(0, 0), c(0, 10), c(10, 10), c(10, 0)],
                    holes: [[c(2, 2), c(4, 2), c(4, 4), c(2, 4), c(2, 2)]])
            ],
            spatialReference: .wgs84)
        let decoded = try GeoJSON.decodeGeometry(GeoJSON.encode(.polygon(polygon)))
        guard case .polygon(let p) = decoded else { Issue.record("not a polygon"); return }
        let shell = p.parts[0].shell, hole = p.parts[0].holes[0]
        #expect(shell.first == shell.last && shell.count == 5)
        #expect(shoelace(shell) > 0)
        #expect(shoelace(hole) < 0)
        #expect(Set(shell) == Set(polygon.parts[0].shell))
        #expect(Array(hole.reversed()) == polygon.parts[0].holes[0])
        polygon.parts[0].shell = shell  // already right: written unchanged
        polygon.parts[0].holes = [hole]
        #expect(try GeoJSON.decodeGeometry(GeoJSON.encode(.polygon(polygon))) == .polygon(polygon))
    }

    @Test func writesNumbersThatReadBackExactly() throws {
        var rng = SplitMix64(seed: 42)
        var coordinates: [Coordinate] = [
            c(-0.0, Double.leastNonzeroMagnitude), c(1.7976931348623157e308, -2.2250738585072014e-308),
            c(0.1, 0.2, 0.30000000000000004), c(1e16, 123456789012345),
        ]
        for _ in 0..<5000 {
            coordinates.append(
                c(
                    Double.random(in: -180...180, using: &rng), Double.random(in: -90...90, using: &rng),
                    Bool.random(using: &rng) ? Double.random(in: -500...9000, using: &rng) : nil))
        }
        // One geometry with heights and one without (a geometry mixing them loses its heights on reading).
        for coordinates in [coordinates.filter { $0.z != nil }, coordinates.filter { $0.z == nil }] {
            let g = Geometry.multipoint(Multipoint(coordinates, spatialReference: .wgs84))
            let text = GeoJSON.encode(g)
            #expect(try GeoJSON.decodeGeometry(text) == g)
            // Foundation's JSONDecoder reads the same numbers.
            let positions = try JSONDecoder().decode(ReferenceCollection.Geometry.self, from: text).coordinates.positions
            #expect(positions.count == coordinates.count && coordinates.count > 2000)
            for (p, c) in zip(positions, coordinates) {
                #expect(p[0] == c.x && p[1] == c.y && (p.count == 3 ? p[2] : nil) == c.z)
            }
            #expect(!String(decoding: text, as: UTF8.self).contains("-0,"))
        }
    }

    // MARK: Errors

    @Test func reportsStructuralErrorsWithPlace() {
        // Ring not closed: the second ring starts at line 4, column 3.
        var e = geoJSONError(
            """
            {"type": "Polygon",
             "coordinates": [
              [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]],
              [[0.2, 0.2], [0.4, 0.2], [0.4, 0.4], [0.2, 0.3]]
             ]}
            """)
        #expect(e?.message.contains("end where it starts") == true)
        #expect(e?.line == 4 && e?.column == 3 && e?.feature == nil)

        // A position with one number, in feature 1 (positions counted by hand: line 3, column 60).
        e = geoJSONError(
            """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":null},
            {"type":"Feature","geometry":{"type":"Point","coordinates":[1]},"properties":{}}
            ]}
            """)
        #expect(e?.message.contains("at least 2 numbers") == true)
        #expect(e?.line == 3 && e?.column == 60 && e?.feature == 1)

        // GeometryCollection in feature 2: the place of its type string.
        e = geoJSONError(
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null},
              {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}},
              {"type":"Feature","properties":{},"geometry":{"type":"GeometryCollection","geometries":[]}}]}
            """)
        #expect(e?.message == "GeometryCollection is not supported")
        #expect(e?.line == 3 && e?.column == 56 && e?.feature == 2)

        // Ring with 3 positions; LineString with 1; wrong nesting; non-finite number; wrong member types.
        let cases: [(String, String, Int)] = [
            (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#, "at least 4 positions", 34),
            (#"{"type":"LineString","coordinates":[[0,0]]}"#, "at least 2 positions", 36),
            (#"{"type":"MultiLineString","coordinates":[[[0,0]]]}"#, "at least 2 positions", 42),
            (#"{"type":"MultiPolygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#, "array of polygons", 38),
            (#"{"type":"Point","coordinates":[[0,0]]}"#, "must be a position", 31),
            (#"{"type":"MultiPolygon","coordinates":[[]]}"#, "at least one linear ring", 39),
            (#"{"type":"MultiPoint","coordinates":[[0,0],[1]]}"#, "at least 2 numbers", 43),
            (#"{"type":"MultiPoint","coordinates":[[0,0],[[1,2]]]}"#, "nested inconsistently", 44),
            (#"{"type":"Point","coordinates":[0,1e999]}"#, "out of range", 34),
            (#"{"type":"Point","coordinates":[0,NaN]}"#, "NaN", 34),
            (#"{"type":"Point","coordinates":[0,"1"]}"#, "a number", 34),
            (#"{"type":"Point","coordinates":"0,1"}"#, "must be an array", 31),
            (#"{"type":"Point"}"#, "no \"coordinates\"", 1),
            (#"{"type":"Pointy","coordinates":[0,0]}"#, "unknown GeoJSON type", 9),
            (#"{"type":7}"#, "must be a string", 9),
            (#"{"coordinates":[0,0]}"#, "no \"type\"", 1),
            (#"{"type":"Feature","properties":[]}"#, "\"properties\" must be an object", 32),
            (#"{"type":"Feature","geometry":[]}"#, "\"geometry\" must be an object", 30),
            (#"{"type":"Feature","id":true}"#, "\"id\" must be a string or a number", 24),
            (#"{"type":"FeatureCollection","features":{}}"#, "\"features\" must be an array", 40),
            (#"{"type":"FeatureCollection","features":[{"type":"feature"}]}"#, "expected a \"Feature\"", 49),
            (#"{"type":"FeatureCollection","features":[{"geometry":null}]}"#, "no \"type\"", 41),
            (#"{"type":"FeatureCollection","features":[[]]}"#, "must be an object", 41),
            (#"[{"type":"Point","coordinates":[0,0]}]"#, "GeoJSON object", 1),
            (#"{"type":"Feature","geometry":{"type":"Feature"}}"#, "expected a geometry type", 38),
        ]
        for (text, message, column) in cases {
            let e = geoJSONError(text)
            #expect(e?.format == "GeoJSON", "\(text)")
            #expect(e?.message.contains(message) == true, "\(text): \(e?.message ?? "-")")
            #expect(e?.line == 1 && e?.column == column, "\(text): column \(e?.column ?? 0)")
        }
        #expect(geoJSONError("")?.message.contains("empty") == true)
        #expect(geoJSONError(" \n\t")?.message.contains("empty") == true)
        #expect(throws: FormatError.self) {
            try GeoJSON.decodeGeometry(Data(#"{"type":"FeatureCollection","features":[]}"#.utf8))
        }
        #expect(throws: FormatError.self) {
            try GeoJSON.decodeGeometry(Data(#"{"type":"Feature","geometry":null}"#.utf8))
        }
        #expect(throws: FormatError.self) {
            try GeoJSON.decodeGeometry(Data(#"{"type":"Polygon","coordinates":[]}"#.utf8))
        }
    }

    /// Truncated and mutated documents must throw a `FormatError` (with a place) or decode, never crash.
    @Test func fuzzTruncatedAndMutatedDocuments() throws {
        let seed = """
            {"type":"FeatureCollection","bbox":[-1,-2,3,4],"features":[
             {"type":"Feature","id":"a\\u00e9","properties":{"n":-1.5e-3,"s":"x\\"y","l":[true,false,null]},
              "geometry":{"type":"Point","coordinates":[102.0,0.5,3]}},
             {"type":"Feature","properties":null,"geometry":{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8]]]}},
             {"type":"Feature","id":3,"properties":{},"geometry":{"type":"MultiPolygon","coordinates":[
               [[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]],[[[20,20],[21,20],[21,21],[20,20]]]]}},
             {"type":"Feature","properties":{"é":{}},"geometry":null}]}
            """
        // Hostile nesting in coordinates, properties and skipped members: an error, not a stack overflow.
        for prefix in [
            #"{"type":"Point","coordinates":"#, #"{"type":"Feature","geometry":null,"properties":{"a":"#,
            #"{"bbox":"#, #"{"type":"FeatureCollection","features":[{"type":"Feature","x":"#,
        ] {
            let e = geoJSONError(prefix + String(repeating: "[", count: 100_000))
            #expect(e?.message.contains("nesting deeper than 512") == true, "\(prefix)")
        }
        let bytes = Array(seed.utf8)
        #expect(try GeoJSON.decodeFeatures(Data(bytes)).count == 4)
        let lines = bytes.filter { $0 == 0x0A }.count + 1
        func check(_ input: [UInt8], mustFail: Bool) {
            do {
                _ = try GeoJSON.decodeFeatures(Data(input))
                #expect(!mustFail, "a truncated document decoded")
            } catch {
                #expect(error.format == "GeoJSON")
                if let line = error.line, let column = error.column {
                    #expect(line >= 1 && line <= lines + 1 && column >= 1 && column <= input.count + 1)
                } else {
                    #expect(error.feature != nil, "no place: \(error)")
                }
            }
        }
        for n in 0..<bytes.count - 1 { check(Array(bytes[0..<n]), mustFail: true) }
        var rng = SplitMix64(seed: 2025)
        let interesting = Array("[]{},:\"\\0123456789-+.eEtfnu \n".utf8) + [0x00, 0xFF, 0xC3, 0x80]
        for _ in 0..<20_000 {
            var m = bytes
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let i = Int.random(in: 0..<m.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: m[i] = interesting.randomElement(using: &rng)!
                case 1: m.remove(at: i)
                case 2: m.insert(interesting.randomElement(using: &rng)!, at: i)
                default:
                    let j = Int.random(in: i..<min(m.count, i + 40), using: &rng)
                    m.insert(contentsOf: m[i...j], at: j)
                }
                if m.isEmpty { m = [0x7B] }
            }
            check(m, mustFail: false)
        }
    }

    // MARK: Reference files

    /// Reference GeoJSON from Tests/Fixtures/basemap: feature counts from its README and from Foundation
    /// (independent parsers): counts and properties via JSONSerialization, coordinates via JSONDecoder.
    /// (JSONSerialization on Linux misreads some 17-digit numbers by a few ulps, e.g. 28.856140999999997 becomes
    /// 28.856140999999987, so it cannot be the reference for exact coordinates; JSONDecoder reads them correctly.)
    @Test(arguments: [
        ("cities/geonames_tx_cities_pop15000.geojson", 196),
        ("cities/geonames_us_cities_pop250000.geojson", 94),
        ("texas_counties_census2016/cb_2016_tx_county_500k.geojson", 254),
        ("usa_states_census2016/cb_2016_tx_state_500k.geojson", 1),
    ])
    func referenceFilesDecode(path: String, readmeCount: Int) throws {
        let url = basemap.appendingPathComponent(path)
        let data = try Data(contentsOf: url)
        let features = try GeoJSON.decodeFeatures(data)
        #expect(features.count == readmeCount)

        let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let theirs = try #require(collection["features"] as? [[String: Any]])
        let decoded = try JSONDecoder().decode(ReferenceCollection.self, from: data)
        #expect(features.count == theirs.count)
        #expect(features.count == decoded.features.count)
        for ((ours, their), reference) in zip(zip(features, theirs), decoded.features) {
            let type = reference.geometry.type
            let expected = reference.geometry.coordinates.positions
            let got = try #require(ours.geometry).coordinates
            #expect(got.count == expected.count)
            #expect(zip(got, expected).allSatisfy { $0.x == $1[0] && $0.y == $1[1] })
            switch (type, ours.geometry) {
            case ("Point", .point?), ("Polygon", .polygon?), ("MultiPolygon", .polygon?): break
            default: Issue.record("\(type) read as \(String(describing: ours.geometry?.typeName))")
            }
            if case .polygon(let p)? = ours.geometry, case .array(let polygons) = reference.geometry.coordinates {
                #expect(p.parts.count == (type == "Polygon" ? 1 : polygons.count))
            }
            let props = try #require(their["properties"] as? [String: Any])
            #expect(ours.properties == props.mapValues(jsonValue(fromFoundation:)))
        }

        // Write, read back: the same features up to ring orientation, and rings oriented per RFC 7946 §3.1.6.
        let encoded = GeoJSON.encode(features)
        let again = try GeoJSON.decodeFeatures(encoded)
        #expect(again.count == features.count)
        for (a, b) in zip(again, features) {
            #expect(a.properties == b.properties && a.id == b.id)
            switch (a.geometry, b.geometry) {
            case (.polygon(let pa)?, .polygon(let pb)?):
                #expect(pa.parts.count == pb.parts.count)
                for (qa, qb) in zip(pa.parts, pb.parts) {
                    #expect(shoelace(qa.shell) > 0)
                    #expect(qa.holes.allSatisfy { shoelace($0) < 0 })
                    for (ra, rb) in zip(qa.rings, qb.rings) { #expect(ra == rb || ra == Array(rb.reversed())) }
                }
            default:
                #expect(a.geometry == b.geometry)
            }
        }
    }

    @Test func texasStateMatchesReadme() throws {
        // README: "the Texas feature only (12,969 vertices, 31 parts)".
        let data = try Data(
            contentsOf: basemap.appendingPathComponent("usa_states_census2016/cb_2016_tx_state_500k.geojson"))
        let f = try GeoJSON.decodeFeatures(data)
        guard case .polygon(let p)? = f.first?.geometry else { Issue.record("no polygon"); return }
        #expect(p.parts.count == 31)
        #expect(p.vertexCount == 12_969)
        #expect(f.first?.properties["NAME"] == "Texas")
    }

    // MARK: Performance

    /// Decodes and encodes 100,000 points; the times are printed, not asserted (this machine is shared).
    @Test func hundredThousandPoints() throws {
        let n = 100_000
        var rng = SplitMix64(seed: 1)
        var parts: [String] = []
        parts.reserveCapacity(n)
        var xs: [Double] = []
        for i in 0..<n {
            let x = Double.random(in: -180...180, using: &rng), y = Double.random(in: -90...90, using: &rng)
            xs.append(x)
            parts.append(
                #"{"type":"Feature","properties":{"i":\#(i),"name":"p\#(i)"},"geometry":{"type":"Point","coordinates":[\#(x),\#(y)]}}"#
            )
        }
        let text = Data(("{\"type\":\"FeatureCollection\",\"features\":[" + parts.joined(separator: ",\n") + "]}").utf8)
        let clock = ContinuousClock()
        var features: [Feature] = []
        let decode = try clock.measure { features = try GeoJSON.decodeFeatures(text) }
        #expect(features.count == n)
        #expect(features[n - 1].properties["i"] == .number(Double(n - 1)))
        #expect(zip(features, xs).allSatisfy { if case .point(let p)? = $0.geometry { p.x == $1 } else { false } })
        var out = Data()
        let encode = clock.measure { out = GeoJSON.encode(features) }
        #expect(try GeoJSON.decodeFeatures(out) == features)
        let mb = Double(text.count) / 1e6
        print("GeoJSON \(n) points (\(String(format: "%.1f", mb)) MB): decode \(decode), encode \(encode)")
    }
}
