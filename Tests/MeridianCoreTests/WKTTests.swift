import MeridianTestSupport
import Testing

@testable import MeridianCore

/// A projected-looking spatial reference for tests; the codec never looks inside it.
private let sr = SpatialReference(
    definition: "TEST:1", wkid: nil, name: "test", kind: .projected, unit: .meters, ellipsoid: .wgs84, areaOfUse: nil)

private func c(_ x: Double, _ y: Double, _ z: Double? = nil) -> Coordinate { Coordinate(x: x, y: y, z: z) }

private func decode(_ text: String) throws(FormatError) -> Geometry { try WKT.decode(text, spatialReference: sr) }

/// The error `decode` throws for `text`, or `nil` if it succeeds.
private func decodeError(_ text: String) -> FormatError? {
    do {
        _ = try decode(text)
        return nil
    } catch {
        return error
    }
}

@Suite("WKT reading")
struct WKTDecodeTests {
    @Test func point() throws {
        #expect(try decode("POINT (2215204.973 394833.169)") == .point(Point(x: 2215204.973, y: 394833.169, spatialReference: sr)))
        #expect(try decode("point(1 2)") == .point(Point(x: 1, y: 2, spatialReference: sr)))
        #expect(try decode("  POINT\n(\t-1.5e3   +2.25 ) \n") == .point(Point(x: -1500, y: 2.25, spatialReference: sr)))
        #expect(try decode("POINT (.5 -.5)") == .point(Point(x: 0.5, y: -0.5, spatialReference: sr)))
    }

    @Test func pointZ() throws {
        let expected = Geometry.point(Point(x: 1, y: 2, z: 3, spatialReference: sr))
        #expect(try decode("POINT Z (1 2 3)") == expected)
        #expect(try decode("POINTZ(1 2 3)") == expected)
        #expect(try decode("POINT (1 2 3)") == expected)
        #expect(try decode("point z(1 2 3)") == expected)
    }

    @Test func multipointBothForms() throws {
        let expected = Geometry.multipoint(Multipoint([c(1, 2), c(3, 4)], spatialReference: sr))
        #expect(try decode("MULTIPOINT (1 2, 3 4)") == expected)
        #expect(try decode("MULTIPOINT ((1 2), (3 4))") == expected)
        #expect(try decode("MULTIPOINT((1 2),3 4)") == expected)
        #expect(try decode("MULTIPOINT Z ((1 2 5), (3 4 6))")
            == .multipoint(Multipoint([c(1, 2, 5), c(3, 4, 6)], spatialReference: sr)))
    }

    @Test func lines() throws {
        #expect(try decode("LINESTRING (10 10, 100 100)")
            == .polyline(Polyline([c(10, 10), c(100, 100)], spatialReference: sr)))
        #expect(try decode("MULTILINESTRING ((0 0, 10 10), (0 10, 10 0))")
            == .polyline(Polyline(parts: [[c(0, 0), c(10, 10)], [c(0, 10), c(10, 0)]], spatialReference: sr)))
        #expect(try decode("LINEARRING (1 9, 1 1, 9 1, 9 9, 1 9)")
            == .polyline(Polyline([c(1, 9), c(1, 1), c(9, 1), c(9, 9), c(1, 9)], spatialReference: sr)))
        #expect(try decode("LINESTRING Z (0 0 1, 1 1 2)")
            == .polyline(Polyline([c(0, 0, 1), c(1, 1, 2)], spatialReference: sr)))
    }

    @Test func polygons() throws {
        let shell = [c(0, 0), c(10, 0), c(10, 10), c(0, 10), c(0, 0)]
        let hole = [c(2, 2), c(2, 8), c(8, 8), c(8, 2), c(2, 2)]
        #expect(try decode("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))")
            == .polygon(Polygon(parts: [Polygon.Part(shell: shell, holes: [hole])], spatialReference: sr)))
        let other = [c(20, 20), c(30, 20), c(30, 30), c(20, 20)]
        #expect(try decode("MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((20 20, 30 20, 30 30, 20 20)))")
            == .polygon(Polygon(parts: [Polygon.Part(shell: shell), Polygon.Part(shell: other)], spatialReference: sr)))
    }

    @Test func emptyForms() throws {
        let emptyPoints = Geometry.multipoint(Multipoint([], spatialReference: sr))
        let emptyLine = Geometry.polyline(Polyline(parts: [], spatialReference: sr))
        let emptyPolygon = Geometry.polygon(Polygon(parts: [], spatialReference: sr))
        #expect(try decode("POINT EMPTY") == emptyPoints)
        #expect(try decode("MULTIPOINT EMPTY") == emptyPoints)
        #expect(try decode("POINT Z EMPTY") == emptyPoints)
        #expect(try decode("LINESTRING EMPTY") == emptyLine)
        #expect(try decode("LINEARRING EMPTY") == emptyLine)
        #expect(try decode("MULTILINESTRING EMPTY") == emptyLine)
        #expect(try decode("POLYGON EMPTY") == emptyPolygon)
        #expect(try decode("multipolygon empty") == emptyPolygon)
        // EMPTY members (allowed by the OGC grammar; JTS writes `POLYGON( EMPTY)`) add no points.
        #expect(try decode("POLYGON( EMPTY)") == emptyPolygon)
        #expect(try decode("MULTIPOLYGON (EMPTY, ((0 0, 1 0, 1 1, 0 0)))")
            == .polygon(Polygon(parts: [Polygon.Part(shell: [c(0, 0), c(1, 0), c(1, 1), c(0, 0)])], spatialReference: sr)))
        #expect(try decode("MULTIPOINT (EMPTY, (1 2))") == .multipoint(Multipoint([c(1, 2)], spatialReference: sr)))
        #expect(try decode("MULTILINESTRING (EMPTY)") == emptyLine)
        #expect(try decode("POLYGON ((0 0, 1 0, 1 1, 0 0), EMPTY)")
            == .polygon(Polygon(parts: [Polygon.Part(shell: [c(0, 0), c(1, 0), c(1, 1), c(0, 0)])], spatialReference: sr)))
    }

    /// NaN and infinities are refused wherever they stand, z included (NaN used to mean "no z").
    @Test func nanAndInfinityAreRefused() throws {
        for text in ["LINESTRING Z (0 0 1, 1 1 NaN)", "POINT Z (1 2 NaN)", "POINT (NaN 1)", "POINT Z (1 2 1e999)",
                     "POINT (1 inf)"] {
            #expect(decodeError(text) != nil, "\(text)")
        }
    }
}

@Suite("WKT errors")
struct WKTErrorTests {
    /// (text, line, column, a phrase the message must contain). Columns counted by hand: 1-based, in characters.
    static let cases: [(String, Int, Int, String)] = [
        ("", 1, 1, "expected a geometry type"),
        ("POINT", 1, 6, "expected '('"),
        ("POINT (1)", 1, 9, "expected the y coordinate"),
        ("POINT (1 2", 1, 11, "expected ')'"),
        ("POINT (1 2) x", 1, 13, "after the geometry"),
        ("POINT (1 2))", 1, 12, "after the geometry"),
        ("POINT (1 x)", 1, 10, "expected the y coordinate"),
        ("POINT (1 2 3 4)", 1, 14, "M coordinates are not supported"),
        ("POINT M (1 2 3)", 1, 7, "M coordinates are not supported"),
        ("POINTZM (1 2 3 4)", 1, 1, "M coordinates are not supported"),
        ("POINT (1.2.3 4)", 1, 8, "'1.2.3'"),
        ("POINT (1e 4)", 1, 8, "'1e'"),
        ("POINT (1e999 4)", 1, 8, "out of range"),
        ("POINT (0x10 4)", 1, 8, "'0x10'"),
        ("POINT (inf 4)", 1, 8, "expected the x coordinate"),
        ("CIRCLE (1 2)", 1, 1, "unknown geometry type 'CIRCLE'"),
        ("GEOMETRYCOLLECTION (POINT (1 2))", 1, 1, "GEOMETRYCOLLECTION is not supported"),
        ("LINESTRING (1 2)", 1, 12, "at least 2 vertices"),
        ("LINESTRING (0 0 0, 1 1)", 1, 23, "expected a z coordinate"),
        ("LINESTRING (0 0, 1 1 1)", 1, 22, "too many numbers"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0), (5 5, 5 5))", 1, 32, "at least 3 vertices"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 1))", 1, 10, "not closed"),
        ("POLYGON (EMPTY, (0 0, 1 0, 1 1, 0 0))", 1, 10, "shell is EMPTY cannot have holes"),
        ("MULTIPOINT ((1 2) (3 4))", 1, 19, "expected ',' or ')'"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0)) ;", 1, 32, "after the geometry"),
        ("POINT\n  (1 2)\n  garbage", 3, 3, "after the geometry"),
        ("POINT (1 2) é", 1, 13, "'é'"),
        ("POINT (\u{00E9}\u{00E9} 1)", 1, 8, "expected the x coordinate"),
        ("LINESTRING (0 0, 1 1) \u{00E9}x", 1, 23, "after the geometry"),
    ]

    @Test(arguments: cases)
    func errorPosition(_ text: String, line: Int, column: Int, phrase: String) {
        let error = decodeError(text)
        #expect(error != nil, "decoded without error: \(text)")
        guard let error else { return }
        #expect(error.format == "WKT")
        #expect(error.line == line, "\(error)")
        #expect(error.column == column, "\(error)")
        #expect(error.message.contains(phrase), "\(error)")
    }

    /// Every prefix of valid WKT, and every one-byte corruption of it, decodes or throws a `FormatError`; none crashes.
    @Test func truncationsAndCorruptionsNeverCrash() {
        let samples = [
            "POINT Z (1 2 3)",
            "MULTIPOINT ((1 2), (3 4))",
            "MULTILINESTRING ((0 0, 10 10), (0 10, 10 0))",
            "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))",
            "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 0)), ((20 20, 30 20, 30 30, 20 20)))",
            "LINEARRING (1 9, 1 1, 9 1, 9 9, 1 9)",
        ]
        let replacements: [Character] = ["(", ")", ",", " ", "-", ".", "e", "Z", "9", "\u{00E9}", "\0"]
        var decoded = 0
        var failed = 0
        for sample in samples {
            let characters = Array(sample)
            for n in 0...characters.count {
                if decodeError(String(characters[..<n])) == nil { decoded += 1 } else { failed += 1 }
            }
            for i in characters.indices {
                for r in replacements {
                    var mutated = characters
                    mutated[i] = r
                    if decodeError(String(mutated)) == nil { decoded += 1 } else { failed += 1 }
                }
            }
        }
        // Every full sample decodes; most truncations fail.
        #expect(decoded >= samples.count)
        #expect(failed > decoded)
    }
}

@Suite("WKT writing")
struct WKTEncodeTests {
    @Test func exactText() {
        #expect(WKT.encode(.point(Point(x: 1, y: 2, spatialReference: sr))) == "POINT (1 2)")
        #expect(WKT.encode(.point(Point(x: 0.1, y: -2.5, z: 3, spatialReference: sr))) == "POINT Z (0.1 -2.5 3)")
        #expect(WKT.encode(.multipoint(Multipoint([c(1, 2), c(3, 4)], spatialReference: sr))) == "MULTIPOINT ((1 2), (3 4))")
        #expect(WKT.encode(.multipoint(Multipoint([], spatialReference: sr))) == "MULTIPOINT EMPTY")
        #expect(WKT.encode(.polyline(Polyline([c(0, 0), c(1, 1)], spatialReference: sr))) == "LINESTRING (0 0, 1 1)")
        #expect(WKT.encode(.polyline(Polyline(parts: [], spatialReference: sr))) == "LINESTRING EMPTY")
        #expect(WKT.encode(.polyline(Polyline(parts: [[c(0, 0), c(1, 1)], [c(2, 2), c(3, 3)]], spatialReference: sr)))
            == "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))")
        #expect(WKT.encode(.polygon(Polygon(parts: [], spatialReference: sr))) == "POLYGON EMPTY")
        #expect(WKT.encode(.envelope(Envelope(xMin: 0, yMin: 0, xMax: 2, yMax: 1, spatialReference: sr)))
            == "POLYGON ((0 0, 2 0, 2 1, 0 1, 0 0))")
        // Mixed dimensions (KML allows them): written in 2-D, never with NaN.
        #expect(WKT.encode(.polyline(Polyline([c(0, 0, 1), c(1, 1)], spatialReference: sr))) == "LINESTRING (0 0, 1 1)")
        #expect(WKT.encode(.polyline(Polyline([c(0, 0, 1), c(1, 1, 2)], spatialReference: sr))) == "LINESTRING Z (0 0 1, 1 1 2)")
    }

    /// A point held as a coordinate is written as the `Point` with that coordinate is.
    @Test func aPointAsACoordinateIsWrittenAsThePoint() {
        for coordinate in [c(1, 2), c(0.1, -2.5, 3), c(979_088.829006738, 166_338.3740178746), c(-0.0, 1e-7, -0.0)] {
            var out = ByteBuffer(capacity: 16)
            WKT.writePoint(coordinate, to: &out)
            #expect(out.string == WKT.encode(.point(Point(coordinate, spatialReference: sr))))
        }
        var out = ByteBuffer(capacity: 16)
        WKT.writePoint(c(0.1, -2.5, 3), to: &out)
        #expect(out.string == "POINT Z (0.1 -2.5 3)")
    }

    /// Shortest round-trip text, compared with values written by hand.
    @Test func numbers() {
        #expect(WKT.number(1) == "1")
        #expect(WKT.number(-0.5) == "-0.5")
        #expect(WKT.number(0.1) == "0.1")
        #expect(WKT.number(2215204.973) == "2215204.973")
        #expect(WKT.number(1e-7) == "1e-07")
        #expect(WKT.number(0.1 + 0.2) == "0.30000000000000004")
        #expect(WKT.number(1200.0 / 3937.0) == "0.3048006096012192")
    }

    /// Pseudo-random bit patterns (a fixed seed): every finite double's text reads back to the same bits.
    @Test func numbersRoundTripExactly() throws {
        var random = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        var checked = 0
        for _ in 0..<20_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            let text = WKT.number(value)
            let back = try #require(Double(text))
            #expect(back.bitPattern == value.bitPattern, "\(value) → \(text)")
            checked += 1
        }
        #expect(checked > 19_000)
    }

    @Test(arguments: [
        "POINT (1 2)",
        "POINT Z (1 2 3)",
        "MULTIPOINT ((1 2), (3 4))",
        "MULTIPOINT Z ((1 2 3))",
        "LINESTRING (0.1 0.2, 1e-07 -1.7976931348623157e+308)",
        "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3, 4 5))",
        "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))",
        "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 0)), ((20 20, 30 20, 30 30, 20 20), (21 21, 29 21, 29 22, 21 21)))",
        "POLYGON Z ((0 0 1, 1 0 2, 1 1 3, 0 0 1))",
        "MULTIPOINT EMPTY",
        "LINESTRING EMPTY",
        "POLYGON EMPTY",
    ])
    func textRoundTrip(_ text: String) throws {
        let g = try decode(text)
        #expect(WKT.encode(g) == text)
        #expect(try decode(WKT.encode(g)) == g)
    }

    @Test func geometryRoundTripKeepsEveryBit() throws {
        let awkward: [Double] = [0.1, -0.0, .leastNonzeroMagnitude, 1.7976931348623157e308, 2215204.973, 394833.169, .pi, 1 / 3]
        let cs = awkward.indices.map { c(awkward[$0], awkward[awkward.count - 1 - $0]) }
        let g = Geometry.polyline(Polyline(cs, spatialReference: sr))
        let back = try decode(WKT.encode(g))
        guard case .polyline(let line) = back else {
            Issue.record("expected a polyline")
            return
        }
        for (a, b) in zip(line.parts[0], cs) {
            #expect(a.x.bitPattern == b.x.bitPattern)
            #expect(a.y.bitPattern == b.y.bitPattern)
        }
    }
}
