import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore

/// A spatial reference with a wkid, and one without; the codec only compares wkids.
private let sr = SpatialReference(
    definition: "TEST:1", wkid: nil, name: "test", kind: .projected, unit: .meters, ellipsoid: .wgs84, areaOfUse: nil)
private let epsg3857 = SpatialReference.webMercator

private func c(_ x: Double, _ y: Double, _ z: Double? = nil) -> Coordinate { Coordinate(x: x, y: y, z: z) }

/// WKB assembled by hand, independently of the codec's writer: a byte-order byte, then 4-byte integers and 8-byte
/// IEEE 754 doubles in that order.
private struct Bytes {
    var bytes: [UInt8] = []
    var little = true

    func u32(_ v: UInt32) -> Bytes {
        var copy = self
        let b = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        copy.bytes += little ? b : b.reversed()
        return copy
    }
    func f64(_ vs: [Double]) -> Bytes {
        var copy = self
        for v in vs {
            let bits = v.bitPattern
            let b = (0..<8).map { UInt8(bits >> (8 * UInt64($0)) & 0xFF) }
            copy.bytes += little ? b : b.reversed()
        }
        return copy
    }
    /// A complete header: byte order, type code and optional SRID.
    func header(_ type: UInt32, little: Bool = true, srid: Int32? = nil) -> Bytes {
        var copy = self
        copy.little = little
        copy.bytes.append(little ? 1 : 0)
        copy = copy.u32(type | (srid == nil ? 0 : 0x2000_0000))
        if let srid { copy = copy.u32(UInt32(bitPattern: srid)) }
        return copy
    }
    var data: Data { Data(bytes) }
}

private func b() -> Bytes { Bytes() }

private func decode(_ bytes: [UInt8], _ spatialReference: SpatialReference = sr) throws(FormatError) -> Geometry {
    try WKB.decode(Data(bytes), spatialReference: spatialReference)
}

/// The error decoding `bytes` throws, or `nil` if it succeeds.
private func decodeError(_ bytes: [UInt8], _ spatialReference: SpatialReference = sr) -> FormatError? {
    do {
        _ = try decode(bytes, spatialReference)
        return nil
    } catch {
        return error
    }
}

private func hex(_ data: Data) -> String {
    data.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
}

@Suite("WKB writing")
struct WKBEncodeTests {
    // Expected bytes spelled out from the format definition (OGC 06-103r4 §8.2, IEEE 754 binary64):
    // 1.0 = 0x3FF0000000000000, 2.0 = 0x4000000000000000, 3.0 = 0x4008000000000000.

    @Test func pointBothByteOrders() {
        let p = Geometry.point(Point(x: 1, y: 2, spatialReference: sr))
        #expect(WKB.encodeHex(p) == "0101000000" + "000000000000F03F" + "0000000000000040")
        #expect(WKB.encodeHex(p, byteOrder: .bigEndian) == "0000000001" + "3FF0000000000000" + "4000000000000000")
        #expect(WKB.encodeHex(p) == hex(WKB.encode(p)))
    }

    @Test func zInBothFlavors() {
        let p = Geometry.point(Point(x: 1, y: 2, z: 3, spatialReference: sr))
        #expect(WKB.encodeHex(p) == "01E9030000" + "000000000000F03F0000000000000040" + "0000000000000840")
        #expect(
            WKB.encodeHex(p, flavor: .extended(srid: nil))
                == "0101000080" + "000000000000F03F0000000000000040" + "0000000000000840")
        #expect(
            WKB.encodeHex(p, flavor: .extended(srid: nil), byteOrder: .bigEndian)
                == "0080000001" + "3FF00000000000004000000000000000" + "4008000000000000")
    }

    @Test func sridOnlyOnTheOutermostGeometry() {
        let m = Geometry.multipoint(Multipoint([c(1, 2)], spatialReference: sr))
        // 4326 = 0x10E6.
        #expect(
            WKB.encodeHex(m, flavor: .extended(srid: 4326))
                == "0104000020" + "E6100000" + "01000000" + "0101000000" + "000000000000F03F0000000000000040")
        // SRID 0 is "unknown" and not written (as GEOS does); negative SRIDs are written as given.
        #expect(WKB.encodeHex(m, flavor: .extended(srid: 0)) == WKB.encodeHex(m, flavor: .extended(srid: nil)))
        #expect(WKB.encodeHex(m, flavor: .extended(srid: -5)).hasPrefix("0104000020FBFFFFFF"))
    }

    @Test func typeMapping() {
        let line = [c(0, 0), c(1, 1)]
        let ring = [c(0, 0), c(1, 0), c(1, 1), c(0, 0)]
        func code(_ g: Geometry) -> String { String(WKB.encodeHex(g).dropFirst(2).prefix(8)) }
        #expect(code(.polyline(Polyline(line, spatialReference: sr))) == "02000000")
        #expect(code(.polyline(Polyline(parts: [line, line], spatialReference: sr))) == "05000000")
        #expect(code(.polygon(Polygon(shell: ring, spatialReference: sr))) == "03000000")
        #expect(
            code(.polygon(Polygon(parts: [.init(shell: ring), .init(shell: ring)], spatialReference: sr))) == "06000000"
        )
        #expect(code(.multipoint(Multipoint([c(1, 1)], spatialReference: sr))) == "04000000")
        // An envelope is its polygon.
        let e = Envelope(xMin: 0, yMin: 1, xMax: 2, yMax: 3, spatialReference: sr)
        #expect(WKB.encode(.envelope(e)) == WKB.encode(.polygon(e.polygon)))
    }

    @Test func emptiesAsGEOSWritesThem() {
        #expect(WKB.encodeHex(.multipoint(Multipoint([], spatialReference: sr))) == "010400000000000000")
        #expect(WKB.encodeHex(.polyline(Polyline(parts: [], spatialReference: sr))) == "010200000000000000")
        #expect(WKB.encodeHex(.polygon(Polygon(parts: [], spatialReference: sr))) == "010300000000000000")
        #expect(
            WKB.encodeHex(.polygon(Polygon(parts: [], spatialReference: sr)), byteOrder: .bigEndian)
                == "000000000300000000")
    }

    @Test func multipointMemberWithoutZIs2D() throws {
        // MULTIPOINT Z ((1 2 3), (4 5 NaN)) as GEOS writes it: the second member is a 2D point.
        let g = Geometry.multipoint(Multipoint([c(1, 2, 3), c(4, 5)], spatialReference: sr))
        #expect(
            WKB.encodeHex(g, flavor: .extended(srid: nil)) == "010400008002000000"
                + "0101000080" + "000000000000F03F" + "0000000000000040" + "0000000000000840"
                + "0101000000" + "0000000000001040" + "0000000000001440")
        #expect(try WKB.decode(WKB.encode(g), spatialReference: sr) == g)
    }

    @Test func missingZIsNaN() throws {
        let g = Geometry.polyline(Polyline([c(1, 2, 3), c(1, 2)], spatialReference: sr))
        let h = WKB.encodeHex(g)
        #expect(h.hasSuffix("000000000000F03F" + "0000000000000040" + "000000000000F87F"))
        #expect(try WKB.decodeHex(h, spatialReference: sr) == g)
    }
}

@Suite("WKB reading")
struct WKBDecodeTests {
    @Test func handWrittenBytesBothOrders() throws {
        for little in [true, false] {
            #expect(
                try decode(b().header(1, little: little).f64([1, 2]).bytes)
                    == .point(Point(x: 1, y: 2, spatialReference: sr)))
            #expect(
                try decode(b().header(1001, little: little).f64([1, 2, 3]).bytes)
                    == .point(Point(x: 1, y: 2, z: 3, spatialReference: sr)))
            #expect(
                try decode(b().header(0x8000_0002, little: little).u32(2).f64([1, 2, 3, 4, 5, 6]).bytes)
                    == .polyline(Polyline([c(1, 2, 3), c(4, 5, 6)], spatialReference: sr)))
        }
    }

    @Test func membersMayUseAnotherByteOrder() throws {
        var m = b()
        m = m.header(4, little: false).u32(2)
        m = m.header(1, little: true).f64([1, 2])
        m = m.header(1, little: false).f64([3, 4])
        #expect(try decode(m.bytes) == .multipoint(Multipoint([c(1, 2), c(3, 4)], spatialReference: sr)))
    }

    @Test func multiGeometriesBecomeParts() throws {
        let ring = [0.0, 0, 4, 0, 4, 4, 0, 0]
        let hole = [1.0, 1, 2, 1, 2, 2, 1, 1]
        var mp = b()
        mp = mp.header(6).u32(2)
        mp = mp.header(3).u32(2).u32(4).f64(ring).u32(4).f64(hole)
        mp = mp.header(3).u32(1).u32(4).f64(ring.map { $0 + 10 })
        let r = stride(from: 0, to: 8, by: 2).map { c(ring[$0], ring[$0 + 1]) }
        let h = stride(from: 0, to: 8, by: 2).map { c(hole[$0], hole[$0 + 1]) }
        let r10 = r.map { c($0.x + 10, $0.y + 10) }
        #expect(
            try decode(mp.bytes)
                == .polygon(
                    Polygon(
                        parts: [.init(shell: r, holes: [h]), .init(shell: r10)],
                        spatialReference: sr)))
        var ml = b()
        ml = ml.header(5).u32(2)
        ml = ml.header(2).u32(2).f64([0, 0, 1, 1])
        ml = ml.header(2).u32(3).f64([5, 5, 6, 6, 7, 5])
        #expect(
            try decode(ml.bytes)
                == .polyline(
                    Polyline(
                        parts: [[c(0, 0), c(1, 1)], [c(5, 5), c(6, 6), c(7, 5)]],
                        spatialReference: sr)))
    }

    @Test func emptiesAsGEOSWritesThem() throws {
        let nan = Double.nan
        // POINT EMPTY (2D and Z) is a Point with NaN coordinates; it reads as an empty multipoint, like WKT's.
        #expect(try decode(b().header(1).f64([nan, nan]).bytes) == .multipoint(Multipoint([], spatialReference: sr)))
        #expect(
            try decode(b().header(0x8000_0001).f64([nan, nan, nan]).bytes)
                == .multipoint(Multipoint([], spatialReference: sr)))
        // MULTIPOINT (EMPTY, (1 2)) as GEOS writes it: the empty member is dropped.
        var mp = b()
        mp = mp.header(4).u32(2)
        mp = mp.header(1).f64([nan, nan])
        mp = mp.header(1).f64([1, 2])
        #expect(try decode(mp.bytes) == .multipoint(Multipoint([c(1, 2)], spatialReference: sr)))
        // MULTIPOINT Z ((1 2 3), EMPTY) as GEOS writes it: the empty member is 2D.
        var mpz = b().header(1004).u32(2)
        mpz = mpz.header(1001).f64([1, 2, 3])
        mpz = mpz.header(1).f64([nan, nan])
        #expect(try decode(mpz.bytes) == .multipoint(Multipoint([c(1, 2, 3)], spatialReference: sr)))
        for type: UInt32 in [2, 5] {
            #expect(try decode(b().header(type).u32(0).bytes) == .polyline(Polyline(parts: [], spatialReference: sr)))
        }
        for type: UInt32 in [3, 6] {
            #expect(try decode(b().header(type).u32(0).bytes) == .polygon(Polygon(parts: [], spatialReference: sr)))
        }
        // MULTIPOLYGON (EMPTY, ((0 0, 1 0, 1 1, 0 0))) and POLYGON (EMPTY) (one ring without vertices).
        var mpoly = b()
        mpoly = mpoly.header(6).u32(2)
        mpoly = mpoly.header(3).u32(0)
        mpoly = mpoly.header(3).u32(1).u32(4).f64([0, 0, 1, 0, 1, 1, 0, 0])
        #expect(
            try decode(mpoly.bytes)
                == .polygon(
                    Polygon(
                        parts: [.init(shell: [c(0, 0), c(1, 0), c(1, 1), c(0, 0)])],
                        spatialReference: sr)))
        #expect(try decode(b().header(3).u32(1).u32(0).bytes) == .polygon(Polygon(parts: [], spatialReference: sr)))
        // An empty hole is dropped.
        #expect(
            try decode(b().header(3).u32(2).u32(4).f64([0, 0, 1, 0, 1, 1, 0, 0]).u32(0).bytes)
                == .polygon(Polygon(parts: [.init(shell: [c(0, 0), c(1, 0), c(1, 1), c(0, 0)])], spatialReference: sr)))
    }

    @Test func nanZMeansNoZ() throws {
        #expect(
            try decode(b().header(1001).f64([1, 2, .nan]).bytes) == .point(Point(x: 1, y: 2, spatialReference: sr)))
    }

    @Test func threeVertexRingAsGEOSReadsIt() throws {
        // POLYGON ((0 0, 10 10, 0 0)): GEOS accepts rings of 0 or at least 3 vertices.
        #expect(
            try decode(b().header(3).u32(1).u32(3).f64([0, 0, 10, 10, 0, 0]).bytes)
                == .polygon(Polygon(parts: [.init(shell: [c(0, 0), c(10, 10), c(0, 0)])], spatialReference: sr)))
    }

    @Test func sridAndSpatialReference() throws {
        let bytes = b().header(1, srid: 3857).f64([1, 2]).bytes
        // Without a resolver the SRID must be the given spatial reference's wkid.
        #expect(try decode(bytes, epsg3857) == .point(Point(x: 1, y: 2, spatialReference: epsg3857)))
        let mismatch = decodeError(bytes, .wgs84)
        #expect(mismatch?.offset == 5)
        #expect(mismatch?.message.contains("SRID 3857") == true)
        // With one, the resolver decides; it is not asked without an SRID or for SRID 0 (unknown).
        var asked: [Int] = []
        let resolved = try WKB.decode(Data(bytes), spatialReference: sr) { srid in
            asked.append(srid)
            return epsg3857
        }
        #expect(resolved == .point(Point(x: 1, y: 2, spatialReference: epsg3857)) && asked == [3857])
        #expect(
            try WKB.decode(b().header(1, srid: 0).f64([1, 2]).data, spatialReference: sr) { _ in
                Issue.record("the resolver was called for SRID 0")
                return epsg3857
            } == .point(Point(x: 1, y: 2, spatialReference: sr)))
        // A resolver's error becomes a FormatError at the SRID.
        struct Unknown: Error {}
        #expect(throws: FormatError.self) {
            try WKB.decode(Data(bytes), spatialReference: sr) { _ in throw Unknown() }
        }
        do {
            _ = try WKB.decode(Data(bytes), spatialReference: sr) { _ in throw Unknown() }
        } catch {
            #expect(error.offset == 5 && error.message.contains("SRID 3857"))
        }
    }

    @Test func hexText() throws {
        let expected = Geometry.point(Point(x: 1, y: 2, spatialReference: sr))
        #expect(try WKB.decodeHex("0101000000000000000000F03F0000000000000040", spatialReference: sr) == expected)
        #expect(try WKB.decodeHex(" 0101000000000000000000f03f0000000000000040\n", spatialReference: sr) == expected)
        #expect(try WKB.decodeHex("\\x0101000000000000000000F03F0000000000000040", spatialReference: sr) == expected)
        func hexError(_ s: String) -> FormatError? {
            do {
                _ = try WKB.decodeHex(s, spatialReference: sr)
                return nil
            } catch {
                return error
            }
        }
        #expect(hexError("010")?.message.contains("odd") == true)
        let bad = hexError("01010000G0")
        #expect(bad?.column == 9 && bad?.message.contains("\"G\"") == true)
        #expect(hexError("é1")?.column == 1)
        // A problem in the decoded bytes names both the byte and the character where it starts.
        let truncated = hexError("  \\x0101000000000000000000F03F")
        #expect(truncated?.offset == 5 && truncated?.column == 15)
        #expect(hexError("")?.offset == 0)
    }

    @Test func roundTrips() throws {
        let ring = [c(0, 0), c(4, 0), c(4, 4), c(0, 0)]
        let hole = [c(1, 1), c(2, 2), c(2, 1), c(1, 1)]
        let geometries: [Geometry] = [
            .point(Point(x: -1.5, y: 1e-300, spatialReference: sr)),
            .point(Point(x: 1.7976931348623157e308, y: -0.0, z: 5, spatialReference: sr)),
            .multipoint(Multipoint([c(1, 2), c(3, 4)], spatialReference: sr)),
            .multipoint(Multipoint([c(1, 2, 3), c(3, 4)], spatialReference: sr)),
            .multipoint(Multipoint([], spatialReference: sr)),
            .polyline(Polyline([c(0, 0), c(1, 1), c(2, 0)], spatialReference: sr)),
            .polyline(Polyline(parts: [[c(0, 0, 1), c(1, 1, 2)], [c(5, 5, 3), c(6, 6, 4)]], spatialReference: sr)),
            .polyline(Polyline(parts: [], spatialReference: sr)),
            .polygon(Polygon(parts: [.init(shell: ring, holes: [hole])], spatialReference: sr)),
            .polygon(
                Polygon(
                    parts: [.init(shell: ring), .init(shell: ring.map { c($0.x + 9, $0.y, 7) })],
                    spatialReference: sr)),
            .polygon(Polygon(parts: [], spatialReference: sr)),
        ]
        for g in geometries {
            for flavor in [WKB.Flavor.iso, .extended(srid: nil), .extended(srid: 0)] {
                for order in [WKB.ByteOrder.littleEndian, .bigEndian] {
                    let data = WKB.encode(g, flavor: flavor, byteOrder: order)
                    #expect(try WKB.decode(data, spatialReference: sr) == g, "\(g) \(flavor) \(order)")
                    #expect(
                        try WKB.decodeHex(WKB.encodeHex(g, flavor: flavor, byteOrder: order), spatialReference: sr) == g
                    )
                }
            }
            let withSRID = WKB.encode(g, flavor: .extended(srid: 3857))
            #expect(try WKB.decode(withSRID, spatialReference: epsg3857) == g.mapCoordinates(into: epsg3857) { $0 })
        }
    }
}

@Suite("WKB errors")
struct WKBErrorTests {
    /// Expects decoding `bytes` to fail at `offset` with a message containing `fragment`.
    private func expectError(
        _ bytes: [UInt8], at offset: Int, _ fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let e = decodeError(bytes)
        #expect(e != nil, "no error for \(bytes)", sourceLocation: sourceLocation)
        guard let e else { return }
        #expect(
            e.format == "WKB" && e.offset == offset && e.message.contains(fragment),
            "\(e)", sourceLocation: sourceLocation)
        #expect(e.description.hasPrefix("WKB byte \(offset): "), sourceLocation: sourceLocation)
    }

    @Test func unsupportedTypes() {
        expectError(b().header(7).u32(0).bytes, at: 1, "GeometryCollection is not supported")
        expectError(b().header(1007, little: false).u32(0).bytes, at: 1, "GeometryCollection")
        for (code, name) in [
            (8, "CircularString"), (9, "CompoundCurve"), (10, "CurvePolygon"), (11, "MultiCurve"),
            (12, "MultiSurface"), (1008, "CircularString"), (15, "PolyhedralSurface"), (16, "TIN"),
            (17, "Triangle"),
        ] as [(UInt32, String)] {
            expectError(b().header(code).u32(0).bytes, at: 1, "\(name) is not supported")
        }
        for code: UInt32 in [0, 18, 999, 4001, 0x1000_0001, 0xFFFF_FFFF] {
            expectError(b().header(code).f64([1, 2]).bytes, at: 1, "unknown geometry type code \(code)")
        }
    }

    @Test func mCoordinates() {
        for code: UInt32 in [2001, 3001, 0x4000_0001, 0xC000_0001] {
            expectError(b().header(code).f64([1, 2, 3, 4]).bytes, at: 1, "M coordinates are not supported")
        }
        // A member with M inside a 2D multipoint.
        var m = b()
        m = m.header(4).u32(1)
        expectError(m.header(2001).f64([1, 2, 3]).bytes, at: 10, "M coordinates")
    }

    @Test func byteOrderByte() {
        var bytes = b().header(1).f64([1, 2]).bytes
        bytes[0] = 2
        expectError(bytes, at: 0, "byte-order byte 2")
    }

    @Test func nonFiniteCoordinates() {
        expectError(b().header(1).f64([.nan, 2]).bytes, at: 5, "not finite")
        expectError(b().header(1).f64([1, .infinity]).bytes, at: 5, "not finite")
        expectError(b().header(1001).f64([1, 2, -.infinity]).bytes, at: 5, "not finite")
        expectError(b().header(1001).f64([.nan, .nan, 3]).bytes, at: 5, "not finite")
        // In a line the NaN empty-point encoding has no meaning: the second vertex (offset 9 + 16) is refused.
        expectError(b().header(2).u32(2).f64([0, 0, .nan, .nan]).bytes, at: 25, "not finite")
        expectError(b().header(3).u32(1).u32(4).f64([0, 0, 1, 0, 1, .infinity, 0, 0]).bytes, at: 13 + 32, "not finite")
    }

    @Test func mixedDimensions() throws {
        var m = b()
        m = m.header(5).u32(2)
        m = m.header(2).u32(2).f64([0, 0, 1, 1])
        let offset = m.bytes.count
        expectError(m.header(1002).u32(2).f64([0, 0, 0, 1, 1, 1]).bytes, at: offset, "mixed dimensions")
        let twoD = b().header(4).u32(1)
        expectError(
            twoD.header(0x8000_0001).f64([1, 2, 3]).bytes, at: 9, "mixed dimensions: a Point Z member in a MultiPoint")
        // The other way round is what GEOS writes for a point of a Z multipoint whose z is NaN: vertices without z.
        let ez = b().header(0x8000_0004).u32(2).header(0x8000_0001).f64([1, 2, 3])
        #expect(
            try decode(ez.header(1).f64([4, 5]).bytes)
                == .multipoint(Multipoint([c(1, 2, 3), c(4, 5)], spatialReference: sr)))
    }

    @Test func membersOfTheWrongType() {
        // Nesting stops at one level: a multi-geometry inside a multi-geometry is refused at the member.
        var nested = b()
        nested = nested.header(6).u32(1)
        expectError(nested.header(6).u32(0).bytes, at: 9, "must be a Polygon, found a MultiPolygon")
        var line = b()
        line = line.header(4).u32(1)
        expectError(line.header(2).u32(0).f64([0, 0]).bytes, at: 9, "must be a Point")
        // A GeometryCollection member is refused as such.
        var gc = b()
        gc = gc.header(4).u32(1)
        expectError(gc.header(7).u32(0).f64([0, 0]).bytes, at: 10, "GeometryCollection")
    }

    @Test func memberSRID() throws {
        let ok = b().header(4, srid: 4326).u32(1)
        #expect(
            try WKB.decode(ok.header(1, srid: 4326).f64([1, 2]).data, spatialReference: .wgs84)
                == .multipoint(Multipoint([c(1, 2)], spatialReference: .wgs84)))
        expectError(ok.header(1, srid: 3857).f64([1, 2]).bytes, at: 18, "SRID 3857 differs")
    }

    @Test func linesAndRings() {
        expectError(b().header(2).u32(1).f64([0, 0]).bytes, at: 5, "0 or at least 2 vertices, found 1")
        expectError(b().header(3).u32(1).u32(2).f64([0, 0, 0, 0]).bytes, at: 9, "0 or at least 3 vertices, found 2")
        expectError(b().header(3).u32(1).u32(4).f64([0, 0, 1, 0, 1, 1, 0, 1]).bytes, at: 9, "not closed")
        expectError(
            b().header(3).u32(2).u32(0).u32(4).f64([0, 0, 1, 0, 1, 1, 0, 0]).bytes, at: 9,
            "shell is empty")
    }

    @Test func trailingBytes() {
        expectError(b().header(1).f64([1, 2]).bytes + [0], at: 21, "1 unexpected bytes after the Point")
        let empty = b().header(4).u32(0).bytes
        expectError(empty + empty, at: 9, "after the MultiPoint")
    }

    @Test func emptyInput() {
        expectError([], at: 0, "empty")
    }

    @Test func everyTruncationIsRefusedWhereTheInputEnds() {
        let ring = [c(0, 0), c(4, 0), c(4, 4), c(0, 0)]
        let geometries: [Geometry] = [
            .point(Point(x: 1, y: 2, z: 3, spatialReference: sr)),
            .polyline(Polyline(parts: [[c(0, 0), c(1, 1)], [c(2, 2), c(3, 3)]], spatialReference: sr)),
            .polygon(Polygon(parts: [.init(shell: ring, holes: [ring]), .init(shell: ring)], spatialReference: sr)),
            .multipoint(Multipoint([c(1, 2), c(3, 4)], spatialReference: sr)),
        ]
        for g in geometries {
            for order in [WKB.ByteOrder.littleEndian, .bigEndian] {
                let full = [UInt8](WKB.encode(g, flavor: .extended(srid: nil), byteOrder: order))
                for n in 0..<full.count {
                    let e = decodeError(Array(full[0..<n]))
                    #expect(e != nil, "prefix of \(n) bytes accepted")
                    // The error is at or before the end, and says the input ends (or that a count cannot fit).
                    if let e, let offset = e.offset {
                        #expect(
                            offset <= n
                                && (e.message.contains("ends inside") || e.message.contains("only")
                                    || e.message.contains("empty")),
                            "\(e)")
                    }
                }
            }
        }
    }

    @Test func hostileCountsFailBeforeAllocating() {
        // 2^31 vertices announced in a 20-byte input: refused at the count itself, at once.
        let bytes = b().header(2).u32(0x8000_0000).f64([1]).bytes + [0, 0, 0]
        #expect(bytes.count == 20)
        let e = decodeError(bytes)
        #expect(e?.offset == 5 && e?.message.contains("2147483648 vertices") == true)
        for type: UInt32 in [3, 4, 5, 6] {
            let e = decodeError(b().header(type).u32(0xFFFF_FFFF).bytes + [UInt8](repeating: 0, count: 64))
            #expect(e?.offset == 5 && e?.message.contains("4294967295") == true, "\(String(describing: e))")
        }
        // A small count that the rest cannot hold is refused at the count too, not at the first missing vertex.
        let short = decodeError(b().header(2).u32(5).f64([0, 0, 1, 1, 2, 2, 3, 3]).bytes)
        #expect(
            short?.offset == 5
                && short?.message.contains("5 vertices of the LineString need at least 80 bytes") == true,
            "\(String(describing: short))")
        // The ring count of a polygon too, and a hole's vertex count.
        let h = decodeError(b().header(3).u32(2).u32(4).f64([0, 0, 1, 0, 1, 1, 0, 0]).u32(0x7FFF_FFFF).bytes)
        #expect(h?.offset == 77 && h?.message.contains("2147483647") == true)
    }

    @Test func mutatedInputNeverCrashes() {
        // Random byte edits of valid WKB: each either reads or throws a FormatError with an offset inside the input.
        let ring = [c(0, 0), c(4, 0), c(4, 4), c(0, 0)]
        let seeds: [[UInt8]] = [
            [UInt8](
                WKB.encode(
                    .polygon(
                        Polygon(
                            parts: [.init(shell: ring, holes: [ring]), .init(shell: ring)],
                            spatialReference: sr)), flavor: .extended(srid: 4326))),
            [UInt8](
                WKB.encode(
                    .polyline(
                        Polyline(
                            parts: [[c(0, 0, 1), c(1, 1, 1)], [c(2, 2), c(3, 3)]],
                            spatialReference: sr)), byteOrder: .bigEndian)),
            [UInt8](WKB.encode(.multipoint(Multipoint([c(1, 2), c(3, 4)], spatialReference: sr)))),
        ]
        var rng = SplitMix64(seed: 0x776B_62)
        let interesting: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0x20, 0x40, 0xE8, 0x03, 0xFF, 0x7F, 0xF8, 0xF0]
        var thrown = 0, read = 0
        for _ in 0..<5000 {
            var m = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !m.isEmpty {
                let i = Int.random(in: 0..<m.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: m[i] = interesting.randomElement(using: &rng)!
                case 1: m.remove(at: i)
                default: m.insert(interesting.randomElement(using: &rng)!, at: i)
                }
            }
            if let e = decodeError(m, .wgs84) {
                thrown += 1
                #expect(e.offset.map { $0 >= 0 && $0 <= m.count } == true, "\(e)")
            } else {
                read += 1
            }
        }
        #expect(thrown > 1000 && read > 100)
    }
}
