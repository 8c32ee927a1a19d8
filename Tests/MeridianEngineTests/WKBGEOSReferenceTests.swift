import CGEOS
import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

// Meridian's WKB codec (MeridianCore, no C) against GEOS's own WKB writer and reader, called here directly through
// the C API (not through MeridianEngine's GEOS conversion, so the reference is independent of Meridian's code).
// Each random geometry is written by this test as WKT text, which GEOS parses; GEOS then writes WKB in every
// flavour/byte order/SRID combination, and Meridian must write the same bytes from the same geometry and read
// GEOS's bytes back to an equal geometry. GEOS is the library shapely's `to_wkb`/`from_wkb` wrap (shapely 2.0.6
// bundles GEOS 3.11.4; the system library here is 3.11.1, same WKB writer).

/// A GEOS context for this test only, with GEOS's error messages collected.
private final class GEOSReference {
    let handle: GEOSContextHandle_t
    let wktReader: OpaquePointer
    let wkbReader: OpaquePointer

    init() {
        handle = GEOS_init_r()!
        wktReader = GEOSWKTReader_create_r(handle)!
        wkbReader = GEOSWKBReader_create_r(handle)!
    }

    deinit {
        GEOSWKTReader_destroy_r(handle, wktReader)
        GEOSWKBReader_destroy_r(handle, wkbReader)
        GEOS_finish_r(handle)
    }

    /// GEOS's WKB for a WKT text, or `nil` if GEOS refuses the text.
    func wkb(ofWKT wkt: String, iso: Bool, littleEndian: Bool, srid: Int32?) -> [UInt8]? {
        guard let g = GEOSWKTReader_read_r(handle, wktReader, wkt) else { return nil }
        defer { GEOSGeom_destroy_r(handle, g) }
        if let srid { GEOSSetSRID_r(handle, g, srid) }
        let writer = GEOSWKBWriter_create_r(handle)!
        defer { GEOSWKBWriter_destroy_r(handle, writer) }
        GEOSWKBWriter_setOutputDimension_r(handle, writer, 3)
        GEOSWKBWriter_setByteOrder_r(
            handle, writer, Int32(littleEndian ? GEOS_WKB_NDR.rawValue : GEOS_WKB_XDR.rawValue))
        GEOSWKBWriter_setFlavor_r(handle, writer, Int32(iso ? GEOS_WKB_ISO.rawValue : GEOS_WKB_EXTENDED.rawValue))
        GEOSWKBWriter_setIncludeSRID_r(handle, writer, srid == nil ? 0 : 1)
        var size = 0
        guard let bytes = GEOSWKBWriter_write_r(handle, writer, g, &size) else { return nil }
        defer { GEOSFree_r(handle, bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// What GEOS reads from WKB, written again by GEOS as ISO little-endian WKB with z (the form every random case
    /// is first written in), or `nil` if GEOS refuses the bytes. (Not WKT: GEOS 3.11.1's trimmed WKT writer
    /// overflows a buffer on numbers such as 1.8e308.)
    func isoWKB(ofWKB wkb: [UInt8]) -> [UInt8]? {
        guard let g = GEOSWKBReader_read_r(handle, wkbReader, wkb, wkb.count) else { return nil }
        defer { GEOSGeom_destroy_r(handle, g) }
        let writer = GEOSWKBWriter_create_r(handle)!
        defer { GEOSWKBWriter_destroy_r(handle, writer) }
        GEOSWKBWriter_setOutputDimension_r(handle, writer, 3)
        GEOSWKBWriter_setByteOrder_r(handle, writer, Int32(GEOS_WKB_NDR.rawValue))
        GEOSWKBWriter_setFlavor_r(handle, writer, Int32(GEOS_WKB_ISO.rawValue))
        var size = 0
        guard let bytes = GEOSWKBWriter_write_r(handle, writer, g, &size) else { return nil }
        defer { GEOSFree_r(handle, bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}

private let testSR = SpatialReference(
    definition: "TEST:1", wkid: nil, name: "test", kind: .projected, unit: .meters, ellipsoid: .wgs84, areaOfUse: nil)

/// A stand-in for the spatial reference of an SRID (the codec only passes SRIDs through).
private func srOf(_ srid: Int) -> SpatialReference {
    SpatialReference(
        definition: "EPSG:\(srid)", wkid: srid, name: "srid \(srid)", kind: .projected, unit: .meters,
        ellipsoid: .wgs84, areaOfUse: nil)
}

/// One random case: the WKT text GEOS reads, the Meridian geometry it stands for, and whether Meridian writes that
/// geometry with the same type GEOS has (false for forms Meridian normalises: POINT EMPTY, one-member multis, …).
private struct Case {
    let wkt: String
    let geometry: Geometry
    let sameForm: Bool
}

/// Random geometries of every type Meridian holds, 2D and Z, with holes, several parts and empties, plus the forms
/// GEOS writes that Meridian reads but normalises.
private struct Generator {
    var rng: SplitMix64

    mutating func number() -> Double {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return Double(Int.random(in: -1000...1000, using: &rng))
        case 1: return Double.random(in: -180...180, using: &rng)
        case 2: return Double.random(in: -2e7...2e7, using: &rng)
        case 3: return Double.random(in: -1...1, using: &rng) * pow(10, Double(Int.random(in: -300...300, using: &rng)))
        case 4:
            return [0.0, -0.0, 0.1, 1e-7, 1.7976931348623157e308, -Double.leastNonzeroMagnitude].randomElement(
                using: &rng)!
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    /// A vertex; with z, sometimes without one (written as NaN), but never the first of a geometry.
    mutating func vertex(_ hasZ: Bool, first: Bool) -> Coordinate {
        let z: Double? = hasZ ? (first || Int.random(in: 0..<8, using: &rng) > 0 ? number() : nil) : nil
        return Coordinate(x: number(), y: number(), z: z)
    }

    mutating func vertices(_ n: Int, _ hasZ: Bool, first: inout Bool) -> [Coordinate] {
        (0..<n).map { _ in
            defer { first = false }
            return vertex(hasZ, first: first)
        }
    }

    mutating func ring(_ hasZ: Bool, first: inout Bool) -> [Coordinate] {
        var r = vertices(Int.random(in: 3...7, using: &rng), hasZ, first: &first)
        r.append(r[0])
        return r
    }

    mutating func part(_ hasZ: Bool, first: inout Bool) -> Polygon.Part {
        let shell = ring(hasZ, first: &first)
        return Polygon.Part(
            shell: shell, holes: (0..<Int.random(in: 0...2, using: &rng)).map { _ in ring(hasZ, first: &first) })
    }

    mutating func next() -> Case {
        let hasZ = Bool.random(using: &rng)
        var first = true
        let tag = hasZ ? " Z" : ""
        switch Int.random(in: 0..<14, using: &rng) {
        case 0:
            let c = vertex(hasZ, first: true)
            return Case(
                wkt: "POINT\(tag) (\(text(c, hasZ)))", geometry: .point(Point(c, spatialReference: testSR)),
                sameForm: true)
        case 1:
            let cs = vertices(Int.random(in: 1...5, using: &rng), hasZ, first: &first)
            return Case(
                wkt: "MULTIPOINT\(tag) (\(cs.map { "(\(text($0, hasZ)))" }.joined(separator: ", ")))",
                geometry: .multipoint(Multipoint(cs, spatialReference: testSR)), sameForm: true)
        case 2:
            let cs = vertices(Int.random(in: 2...6, using: &rng), hasZ, first: &first)
            return Case(
                wkt: "LINESTRING\(tag) \(sequence(cs, hasZ))",
                geometry: .polyline(Polyline(cs, spatialReference: testSR)), sameForm: true)
        case 3:
            let parts = (0..<Int.random(in: 2...4, using: &rng)).map { _ in
                vertices(Int.random(in: 2...5, using: &rng), hasZ, first: &first)
            }
            return Case(
                wkt: "MULTILINESTRING\(tag) (\(parts.map { sequence($0, hasZ) }.joined(separator: ", ")))",
                geometry: .polyline(Polyline(parts: parts, spatialReference: testSR)), sameForm: true)
        case 4, 5:
            let p = part(hasZ, first: &first)
            return Case(
                wkt: "POLYGON\(tag) \(polygon(p, hasZ))",
                geometry: .polygon(Polygon(parts: [p], spatialReference: testSR)), sameForm: true)
        case 6, 7:
            let parts = (0..<Int.random(in: 2...3, using: &rng)).map { _ in part(hasZ, first: &first) }
            return Case(
                wkt: "MULTIPOLYGON\(tag) (\(parts.map { polygon($0, hasZ) }.joined(separator: ", ")))",
                geometry: .polygon(Polygon(parts: parts, spatialReference: testSR)), sameForm: true)
        case 8:
            return [
                Case(
                    wkt: "MULTIPOINT EMPTY", geometry: .multipoint(Multipoint([], spatialReference: testSR)),
                    sameForm: true),
                Case(
                    wkt: "LINESTRING EMPTY", geometry: .polyline(Polyline(parts: [], spatialReference: testSR)),
                    sameForm: true),
                Case(
                    wkt: "POLYGON EMPTY", geometry: .polygon(Polygon(parts: [], spatialReference: testSR)),
                    sameForm: true),
            ].randomElement(using: &rng)!
        // Forms Meridian reads but writes differently.
        case 9:
            return [
                Case(
                    wkt: "POINT EMPTY", geometry: .multipoint(Multipoint([], spatialReference: testSR)), sameForm: false
                ),
                Case(
                    wkt: "POINT Z EMPTY", geometry: .multipoint(Multipoint([], spatialReference: testSR)),
                    sameForm: false),
                Case(
                    wkt: "MULTILINESTRING EMPTY", geometry: .polyline(Polyline(parts: [], spatialReference: testSR)),
                    sameForm: false),
                Case(
                    wkt: "MULTIPOLYGON EMPTY", geometry: .polygon(Polygon(parts: [], spatialReference: testSR)),
                    sameForm: false),
            ].randomElement(using: &rng)!
        case 10:
            // One-member multi-geometries come back as their single form.
            let cs = vertices(Int.random(in: 2...4, using: &rng), hasZ, first: &first)
            if Bool.random(using: &rng) {
                return Case(
                    wkt: "MULTILINESTRING\(tag) (\(sequence(cs, hasZ)))",
                    geometry: .polyline(Polyline(cs, spatialReference: testSR)), sameForm: false)
            }
            let p = part(hasZ, first: &first)
            return Case(
                wkt: "MULTIPOLYGON\(tag) (\(polygon(p, hasZ)))",
                geometry: .polygon(Polygon(parts: [p], spatialReference: testSR)), sameForm: false)
        case 11:
            // Empty members are dropped.
            let cs = vertices(Int.random(in: 1...3, using: &rng), hasZ, first: &first)
            var members = cs.map { "(\(text($0, hasZ)))" }
            members.insert("EMPTY", at: Int.random(in: 0...members.count, using: &rng))
            return Case(
                wkt: "MULTIPOINT\(tag) (\(members.joined(separator: ", ")))",
                geometry: .multipoint(Multipoint(cs, spatialReference: testSR)), sameForm: false)
        case 12:
            if Bool.random(using: &rng) {
                let lines = (0..<2).map { _ in vertices(Int.random(in: 2...4, using: &rng), hasZ, first: &first) }
                return Case(
                    wkt: "MULTILINESTRING\(tag) (EMPTY, \(sequence(lines[0], hasZ)), \(sequence(lines[1], hasZ)))",
                    geometry: .polyline(Polyline(parts: lines, spatialReference: testSR)), sameForm: false)
            }
            let parts = (0..<2).map { _ in part(hasZ, first: &first) }
            let members = parts.map { polygon($0, hasZ) }
            return Case(
                wkt: "MULTIPOLYGON\(tag) (\(members[0]), EMPTY, \(members[1]))",
                geometry: .polygon(Polygon(parts: parts, spatialReference: testSR)), sameForm: false)
        default:
            // A three-vertex ring, which GEOS reads (and Meridian writes back the same).
            let a = vertex(hasZ, first: true), b = vertex(hasZ, first: false)
            return Case(
                wkt: "POLYGON\(tag) (\(sequence([a, b, a], hasZ)))",
                geometry: .polygon(Polygon(parts: [.init(shell: [a, b, a])], spatialReference: testSR)),
                sameForm: true)
        }
    }

    /// The test's own WKT spelling: Swift's shortest round-trip decimal (GEOS parses it exactly), NaN for no z.
    func text(_ c: Coordinate, _ hasZ: Bool) -> String {
        "\(c.x) \(c.y)" + (hasZ ? " " + (c.z.map { "\($0)" } ?? "NaN") : "")
    }
    func sequence(_ cs: [Coordinate], _ hasZ: Bool) -> String {
        "(" + cs.map { text($0, hasZ) }.joined(separator: ", ") + ")"
    }
    func polygon(_ p: Polygon.Part, _ hasZ: Bool) -> String {
        "(" + p.rings.map { sequence($0, hasZ) }.joined(separator: ", ") + ")"
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
}

@Suite("WKB against GEOS")
struct WKBGEOSReferenceTests {
    @Test func byteForByteOnRandomGeometries() throws {
        let geos = GEOSReference()
        var generator = Generator(rng: SplitMix64(seed: 0x4745_4F53_574B_42))
        var compared = 0, normalised = 0
        var types: [String: Int] = [:]
        for _ in 0..<3000 {
            let c = generator.next()
            types[String(c.wkt.prefix { $0 != " " && $0 != "(" }), default: 0] += 1
            for iso in [true, false] {
                for little in [true, false] {
                    for srid in iso ? [Int32?.none] : [nil, 4326, 2263, 0, -5] {
                        guard let reference = geos.wkb(ofWKT: c.wkt, iso: iso, littleEndian: little, srid: srid) else {
                            Issue.record("GEOS refused \(c.wkt)")
                            continue
                        }
                        let order: WKB.ByteOrder = little ? .littleEndian : .bigEndian
                        // Read GEOS's bytes: the geometry the WKT stands for, in the SRID's spatial reference.
                        let expectedSR = srid.map { $0 > 0 ? srOf(Int($0)) : testSR } ?? testSR
                        let decoded = try WKB.decode(Data(reference), spatialReference: testSR) { srOf($0) }
                        #expect(
                            decoded == c.geometry.mapCoordinates(into: expectedSR) { $0 },
                            "\(c.wkt) from \(hex(reference))")
                        // Write: the same bytes as GEOS, when GEOS's form is Meridian's.
                        let flavor: WKB.Flavor = iso ? .iso : .extended(srid: srid)
                        let mine = [UInt8](WKB.encode(c.geometry, flavor: flavor, byteOrder: order))
                        if c.sameForm {
                            #expect(hex(mine) == hex(reference), "\(c.wkt) \(flavor) \(order)")
                            compared += 1
                        } else {
                            // GEOS reads Meridian's normalised bytes as the same geometry Meridian reads from them.
                            let again = try WKB.decode(Data(mine), spatialReference: testSR) { srOf($0) }
                            #expect(again == decoded, "\(c.wkt) \(flavor) \(order)")
                            #expect(
                                geos.isoWKB(ofWKB: mine) != nil, "GEOS refused Meridian's \(hex(mine)) for \(c.wkt)")
                            normalised += 1
                        }
                    }
                }
            }
        }
        print(
            "WKB vs GEOS: \(compared) byte-for-byte comparisons, \(normalised) normalised forms; cases by type: "
                + types.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        #expect(compared > 20_000 && normalised > 3_000)
        #expect(types.count == 6)
    }

    @Test func geosReadsMeridiansBytesAsTheSameWKT() {
        // GEOS's reader, given Meridian's bytes in any flavour and byte order, sees the geometry GEOS itself read
        // from the WKT (compared through GEOS's own ISO writer).
        let geos = GEOSReference()
        var generator = Generator(rng: SplitMix64(seed: 77))
        var checked = 0
        for _ in 0..<500 {
            let c = generator.next()
            guard c.sameForm, let reference = geos.wkb(ofWKT: c.wkt, iso: true, littleEndian: true, srid: nil) else {
                continue
            }
            for order in [WKB.ByteOrder.littleEndian, .bigEndian] {
                for flavor in [WKB.Flavor.iso, .extended(srid: 3857)] {
                    let mine = [UInt8](WKB.encode(c.geometry, flavor: flavor, byteOrder: order))
                    #expect(geos.isoWKB(ofWKB: mine).map(hex) == hex(reference), "\(c.wkt)")
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }
}

@Suite("WKB SRIDs through PROJ")
struct WKBSRIDResolutionTests {
    /// The resolver the `WKB.decode` documentation suggests, with MeridianEngine's PROJ lookup.
    private func decode(_ hex: String) throws(FormatError) -> Geometry {
        try WKB.decodeHex(hex, spatialReference: .wgs84) { try SpatialReference(wkid: $0) }
    }

    @Test func ewkbSRIDBecomesTheSpatialReference() throws {
        // POINT (1 2) with SRID 32038 (0x7D26), as PostGIS's ST_AsEWKB and shapely's to_wkb(include_srid=True)
        // write it.
        let g = try decode("0101000020267D0000000000000000F03F0000000000000040")
        #expect(g.spatialReference == (try SpatialReference(wkid: 32038)))
        #expect(g.spatialReference.name == "NAD27 / Texas North Central")
        // Without an SRID the given spatial reference stays.
        #expect(try decode("0101000000000000000000F03F0000000000000040").spatialReference == .wgs84)
    }

    @Test func unknownSRIDIsAFormatErrorAtTheSRID() {
        // SRID 999999 (0x0F423F) is in neither EPSG nor ESRI.
        #expect(throws: FormatError.self) { try decode("01010000203F420F00000000000000F03F0000000000000040") }
        do {
            _ = try decode("01010000203F420F00000000000000F03F0000000000000040")
        } catch {
            #expect(error.offset == 5 && error.column == 11 && error.message.contains("SRID 999999"), "\(error)")
        }
    }
}
