import Foundation

/// Well-known binary (OGC Simple Features / ISO 13249-3 WKB, and PostGIS's extended EWKB) for geometries: a reader
/// and a writer, byte for byte as GEOS (and so shapely, PostGIS's GEOS-based tools, DuckDB spatial) writes them.
///
/// Layout: every geometry starts with a byte-order byte (0 big-endian, 1 little-endian) and a 4-byte type code,
/// followed by its content in that byte order: a point's 2 or 3 doubles; a line's vertex count and vertices; a
/// polygon's ring count and rings (each a vertex count and vertices, the first ring the shell); a multi-geometry's
/// member count and members, each a complete geometry with its own byte order and type code.
///
/// Type codes: 1 Point, 2 LineString, 3 Polygon, 4 MultiPoint, 5 MultiLineString, 6 MultiPolygon. With a z per
/// vertex, ISO adds 1000 (`1001` … `1006`); EWKB sets the flag `0x80000000` instead. EWKB may carry an SRID
/// (a signed 4-byte integer) right after the type code of the outermost geometry, flagged by `0x20000000`.
///
/// Written: `Point` → Point; `Multipoint` → MultiPoint (also when empty); a one-part `Polyline` → LineString, any
/// other number → MultiLineString, except no parts → an empty LineString; a one-part `Polygon` → Polygon, any other
/// number → MultiPolygon, except no parts → an empty Polygon; an `Envelope` → its Polygon. A geometry is written
/// with z when any vertex has one; a vertex without z is then written with NaN as its z, which the reader turns
/// back into "no z", except that a point of a Z multipoint without z is written as a 2D point; both as GEOS does.
/// Members of a multi-geometry carry the same byte order and z flag as the whole (but for those 2D points) and
/// never an SRID (as GEOS writes them). Rings are written as they are (no closing, no reorientation).
///
/// Read: both byte orders (also mixed between members), ISO and EWKB type codes (a Z flag in either spelling), and
/// an optional EWKB SRID. Empty geometries as GEOS writes them: an empty Point is a Point whose coordinates are all
/// NaN, and becomes an empty `Multipoint` (as `POINT EMPTY` does in the WKT reader); an empty LineString or
/// MultiLineString becomes a `Polyline` without parts; an empty Polygon or MultiPolygon a `Polygon` without parts.
/// Empty members of a multi-geometry (a NaN point, a line without vertices, a polygon without rings or with an
/// empty shell) add nothing and are dropped, as are empty holes. MultiLineString becomes one `Polyline` with a part
/// per line, MultiPolygon one `Polygon` with a part per polygon. A z of NaN means "no z". Lines need 0 or at least
/// 2 vertices and rings 0 or at least 3, ending where they start (GEOS's rules).
///
/// Refused with one `FormatError` (format "WKB", `offset` the 0-based byte offset of the offending item; never a
/// crash): GeometryCollection, M and ZM coordinates, curves and surfaces (CircularString … Triangle), unknown type
/// codes or byte-order bytes, NaN or infinite x or y (except the empty-point encoding) and infinite z, a member of
/// the wrong type (a MultiPolygon's members must be Polygons, so nesting never goes deeper than one level), a
/// non-empty Z member inside a 2D geometry (mixed dimensions; a 2D member inside a Z geometry is read as vertices
/// without z, because GEOS writes such points), a member SRID different from the whole's, an EWKB SRID that the
/// caller's spatial reference does not match, truncated input, and trailing bytes. Every count is checked against
/// the bytes that remain before anything is allocated, so a hostile count fails at once; reading is one linear pass.
///
/// `decode(encode(g))` equals `g` for every geometry that has no empty parts or lone vertices, except envelopes
/// (which come back as polygons).
public enum WKB {
    /// The order of the bytes in multi-byte numbers.
    public enum ByteOrder: Sendable, Hashable {
        /// Least significant byte first (NDR, byte-order byte 1): what GEOS, shapely and PostGIS write on x86/ARM.
        case littleEndian
        /// Most significant byte first (XDR, byte-order byte 0).
        case bigEndian
    }

    /// Which WKB dialect to write.
    public enum Flavor: Sendable, Hashable {
        /// ISO 13249-3 / OGC Simple Features 1.2: z is marked by adding 1000 to the type code; no SRID. What
        /// GeoPackage requires and PostGIS's `ST_AsBinary` writes. For 2D geometries it is the same bytes as
        /// `.extended(srid: nil)`.
        case iso
        /// PostGIS EWKB (shapely's and GEOS's default): z is marked by the flag `0x80000000`; a non-zero `srid`
        /// (any 32-bit signed value; PostGIS uses 1 … 998999, usually the EPSG code) is written after the outer
        /// type code with the flag `0x20000000`. `nil` or 0 (the "unknown" SRID of PostGIS and GEOS) writes none,
        /// as GEOS does.
        case extended(srid: Int32?)
    }

    /// Writes a geometry as WKB (see the type's documentation for the mapping).
    /// - Parameters:
    ///   - geometry: Any geometry.
    ///   - flavor: ISO (the default) or EWKB with an optional SRID.
    ///   - byteOrder: The byte order of every number; little-endian by default, like GEOS and shapely.
    /// - Returns: The WKB bytes.
    public static func encode(
        _ geometry: Geometry, flavor: Flavor = .iso, byteOrder: ByteOrder = .littleEndian
    ) -> Data {
        var writer = Writer(
            byteOrder: byteOrder, flavor: flavor,
            hasZ: geometry.coordinates.contains { $0.z != nil })
        writer.geometry(geometry)
        return Data(writer.bytes)
    }

    /// Writes a geometry as hexadecimal WKB text, upper case and without a prefix, as shapely's
    /// `to_wkb(hex=True)`, GEOS's hex writer and PostGIS's text form of a geometry write it.
    /// - Parameters:
    ///   - geometry: Any geometry.
    ///   - flavor: ISO (the default) or EWKB with an optional SRID.
    ///   - byteOrder: The byte order of every number; little-endian by default.
    /// - Returns: Two hexadecimal digits per byte, e.g. `0101000000000000000000F03F0000000000000040` for POINT (1 2).
    public static func encodeHex(
        _ geometry: Geometry, flavor: Flavor = .iso, byteOrder: ByteOrder = .littleEndian
    ) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        let bytes = encode(geometry, flavor: flavor, byteOrder: byteOrder)
        text.reserveCapacity(bytes.count * 2)
        for b in bytes {
            text.append(digits[Int(b >> 4)])
            text.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads one geometry from WKB (ISO or EWKB, either byte order; see the type's documentation).
    /// - Parameters:
    ///   - wkb: The bytes of exactly one geometry.
    ///   - spatialReference: The spatial reference of the coordinates when the input carries no SRID (ISO WKB, or
    ///     EWKB without one or with the "unknown" SRID 0 or below, as PostGIS treats those). Without `resolveSRID`,
    ///     a positive SRID must equal this spatial reference's `wkid`, or the input is refused.
    ///   - resolveSRID: Maps a positive EWKB SRID to the spatial reference to use, e.g.
    ///     `{ try SpatialReference(wkid: $0) }` from `MeridianEngine`; an error it throws becomes a `FormatError`
    ///     at the SRID. Called at most once, after the rest of the input has been read successfully.
    /// - Returns: The geometry.
    /// - Throws: `FormatError` (format "WKB") with the 0-based byte `offset` of the problem.
    public static func decode(
        _ wkb: Data, spatialReference: SpatialReference, resolveSRID: ((Int) throws -> SpatialReference)? = nil
    ) throws(FormatError) -> Geometry {
        try decode(bytes: Array(wkb), spatialReference: spatialReference, resolveSRID: resolveSRID, column: nil)
    }

    /// Reads one geometry from hexadecimal WKB text, as shapely's `to_wkb(hex=True)`, GEOS and PostGIS write it.
    /// - Parameters:
    ///   - hex: Two hexadecimal digits per byte, in either case, optionally after PostgreSQL's `\x` bytea prefix;
    ///     white space around the text is ignored.
    ///   - spatialReference: The spatial reference when the input carries no SRID (as in
    ///     `decode(_:spatialReference:resolveSRID:)`).
    ///   - resolveSRID: Maps a positive EWKB SRID to a spatial reference (as in
    ///     `decode(_:spatialReference:resolveSRID:)`).
    /// - Returns: The geometry.
    /// - Throws: `FormatError` (format "WKB") with the 1-based `column` (character) of the problem in `hex`, and, for
    ///   a problem in the decoded bytes, their 0-based byte `offset` too.
    public static func decodeHex(
        _ hex: String, spatialReference: SpatialReference, resolveSRID: ((Int) throws -> SpatialReference)? = nil
    ) throws(FormatError) -> Geometry {
        let text = Array(hex.utf8)
        var start = 0, end = text.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while start < end, isSpace(text[start]) { start += 1 }
        while end > start, isSpace(text[end - 1]) { end -= 1 }
        if end - start >= 2, text[start] == UInt8(ascii: "\\"), text[start + 1] | 0x20 == UInt8(ascii: "x") {
            start += 2
        }
        // Columns count characters: only ASCII precedes `start`, so byte and character positions agree up to there.
        func column(ofByte i: Int) -> Int { String(decoding: text[0..<i], as: UTF8.self).count + 1 }
        var digits: [UInt8] = []
        digits.reserveCapacity(end - start)
        for i in start..<end {
            guard let v = HexDigit.value(text[i]) else {
                var scalarEnd = i + 1
                while scalarEnd < text.count, text[scalarEnd] & 0xC0 == 0x80 { scalarEnd += 1 }
                let shown = String(decoding: text[i..<scalarEnd], as: UTF8.self).debugDescription
                throw FormatError(
                    format: "WKB", message: "\(shown) is not a hexadecimal digit", column: column(ofByte: i))
            }
            digits.append(v)
        }
        guard digits.count % 2 == 0 else {
            throw FormatError(
                format: "WKB",
                message: "hexadecimal WKB needs two digits per byte, found an odd number "
                    + "(\(digits.count))", column: column(ofByte: end))
        }
        let bytes = stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
        return try decode(
            bytes: bytes, spatialReference: spatialReference, resolveSRID: resolveSRID,
            column: { start + 2 * $0 + 1 })
    }

    /// The shared reader: `column` maps a byte offset to a 1-based column of hexadecimal text, if that was the input.
    private static func decode(
        bytes: [UInt8], spatialReference: SpatialReference, resolveSRID: ((Int) throws -> SpatialReference)?,
        column: ((Int) -> Int)?
    ) throws(FormatError) -> Geometry {
        var reader = Reader(bytes: bytes, column: column)
        let (shape, srid) = try reader.read()
        var sr = spatialReference
        if let srid, srid.value > 0 {
            if let resolveSRID {
                do {
                    sr = try resolveSRID(Int(srid.value))
                } catch {
                    throw reader.error("SRID \(srid.value) cannot be used: \(error)", at: srid.offset)
                }
            } else if spatialReference.wkid != Int(srid.value) {
                throw reader.error(
                    "the WKB's SRID \(srid.value) is not the expected spatial reference's "
                        + "(\(spatialReference))", at: srid.offset)
            }
        }
        return shape.geometry(sr)
    }
}

// MARK: - Writer

extension WKB {
    /// Type codes of the geometry types Meridian reads and writes, and of those it refuses by name.
    enum Kind: UInt32 {
        case point = 1, lineString, polygon, multiPoint, multiLineString, multiPolygon, geometryCollection
        case circularString, compoundCurve, curvePolygon, multiCurve, multiSurface, curve, surface
        case polyhedralSurface, tin, triangle

        /// The OGC name, e.g. "MultiPolygon".
        var name: String {
            switch self {
            case .point: "Point"
            case .lineString: "LineString"
            case .polygon: "Polygon"
            case .multiPoint: "MultiPoint"
            case .multiLineString: "MultiLineString"
            case .multiPolygon: "MultiPolygon"
            case .geometryCollection: "GeometryCollection"
            case .circularString: "CircularString"
            case .compoundCurve: "CompoundCurve"
            case .curvePolygon: "CurvePolygon"
            case .multiCurve: "MultiCurve"
            case .multiSurface: "MultiSurface"
            case .curve: "Curve"
            case .surface: "Surface"
            case .polyhedralSurface: "PolyhedralSurface"
            case .tin: "TIN"
            case .triangle: "Triangle"
            }
        }
    }

    /// Appends WKB to a byte buffer.
    struct Writer {
        let byteOrder: ByteOrder
        let flavor: Flavor
        /// Whether every vertex is written with a z (the whole geometry's dimension).
        let hasZ: Bool
        var bytes: [UInt8] = []

        init(byteOrder: ByteOrder, flavor: Flavor, hasZ: Bool) {
            self.byteOrder = byteOrder
            self.flavor = flavor
            self.hasZ = hasZ
        }

        mutating func uint32(_ v: UInt32) {
            let ordered = byteOrder == .littleEndian ? v.littleEndian : v.bigEndian
            withUnsafeBytes(of: ordered) { bytes.append(contentsOf: $0) }
        }

        mutating func double(_ v: Double) {
            let bits = v.bitPattern
            let ordered = byteOrder == .littleEndian ? bits.littleEndian : bits.bigEndian
            withUnsafeBytes(of: ordered) { bytes.append(contentsOf: $0) }
        }

        /// Byte order and type code (and, for the outermost geometry of EWKB, the SRID).
        mutating func header(_ kind: Kind, outermost: Bool, hasZ: Bool? = nil) {
            let hasZ = hasZ ?? self.hasZ
            bytes.append(byteOrder == .littleEndian ? 1 : 0)
            switch flavor {
            case .iso:
                uint32(kind.rawValue + (hasZ ? 1000 : 0))
            case .extended(let srid):
                let writesSRID = outermost && srid != nil && srid != 0
                uint32(kind.rawValue | (hasZ ? 0x8000_0000 : 0) | (writesSRID ? 0x2000_0000 : 0))
                if writesSRID, let srid { uint32(UInt32(bitPattern: srid)) }
            }
        }

        mutating func coordinate(_ c: Coordinate, hasZ: Bool? = nil) {
            double(c.x)
            double(c.y)
            if hasZ ?? self.hasZ { double(c.z ?? .nan) }
        }

        mutating func sequence(_ cs: [Coordinate]) {
            uint32(UInt32(truncatingIfNeeded: cs.count))
            for c in cs { coordinate(c) }
        }

        mutating func polygon(_ part: Polygon.Part) {
            uint32(UInt32(truncatingIfNeeded: part.holes.count + 1))
            sequence(part.shell)
            for hole in part.holes { sequence(hole) }
        }

        mutating func geometry(_ geometry: Geometry) {
            switch geometry {
            case .point(let p):
                header(.point, outermost: true)
                coordinate(p.coordinate)
            case .multipoint(let m):
                header(.multiPoint, outermost: true)
                uint32(UInt32(truncatingIfNeeded: m.coordinates.count))
                for c in m.coordinates {
                    // A member without z is a 2D point even in a Z multipoint, as GEOS writes it.
                    header(.point, outermost: false, hasZ: hasZ && c.z != nil)
                    coordinate(c, hasZ: hasZ && c.z != nil)
                }
            case .polyline(let l):
                if l.parts.count == 1 {
                    header(.lineString, outermost: true)
                    sequence(l.parts[0])
                } else if l.parts.isEmpty {
                    header(.lineString, outermost: true)
                    uint32(0)
                } else {
                    header(.multiLineString, outermost: true)
                    uint32(UInt32(truncatingIfNeeded: l.parts.count))
                    for part in l.parts {
                        header(.lineString, outermost: false)
                        sequence(part)
                    }
                }
            case .polygon(let p):
                if p.parts.count == 1 {
                    header(.polygon, outermost: true)
                    polygon(p.parts[0])
                } else if p.parts.isEmpty {
                    header(.polygon, outermost: true)
                    uint32(0)
                } else {
                    header(.multiPolygon, outermost: true)
                    uint32(UInt32(truncatingIfNeeded: p.parts.count))
                    for part in p.parts {
                        header(.polygon, outermost: false)
                        polygon(part)
                    }
                }
            case .envelope(let e):
                self.geometry(.polygon(e.polygon))
            }
        }
    }
}

// MARK: - Reader

extension WKB {
    /// What was read, before the spatial reference is attached.
    enum Shape {
        case point(Coordinate)
        case multipoint([Coordinate])
        case polyline([[Coordinate]])
        case polygon([Polygon.Part])

        func geometry(_ sr: SpatialReference) -> Geometry {
            switch self {
            case .point(let c): .point(Point(c, spatialReference: sr))
            case .multipoint(let cs): .multipoint(Multipoint(cs, spatialReference: sr))
            case .polyline(let parts): .polyline(Polyline(parts: parts, spatialReference: sr))
            case .polygon(let parts): .polygon(Polygon(parts: parts, spatialReference: sr))
            }
        }
    }

    /// A geometry's header: its type, whether its vertices have z, and its EWKB SRID (with the SRID's offset).
    struct Header {
        let kind: Kind
        let hasZ: Bool
        let srid: (value: Int32, offset: Int)?
        /// Offset of the byte-order byte.
        let offset: Int

        /// "MultiPolygon", "Point Z".
        var name: String { kind.name + (hasZ ? " Z" : "") }
    }

    /// A single forward pass over the bytes; every read is bounds-checked first.
    struct Reader {
        let bytes: [UInt8]
        let column: ((Int) -> Int)?
        var position = 0
        /// The byte order of the geometry being read (each geometry, members too, states its own).
        var littleEndian = true

        init(bytes: [UInt8], column: ((Int) -> Int)?) {
            self.bytes = bytes
            self.column = column
        }

        func error(_ message: String, at offset: Int) -> FormatError {
            FormatError(format: "WKB", message: message, offset: offset, column: column?(offset))
        }

        var remaining: Int { bytes.count - position }

        /// Fails unless `count` more bytes are there for `what`.
        func need(_ count: Int, for what: String) throws(FormatError) {
            guard count <= remaining else {
                throw error("the input ends inside \(what) (\(count) bytes needed, \(remaining) left)", at: position)
            }
        }

        mutating func uint32(_ what: String) throws(FormatError) -> UInt32 {
            try need(4, for: what)
            var v: UInt32 = 0
            for i in 0..<4 {
                let b = UInt32(bytes[position + i])
                v |= littleEndian ? b << (8 * i) : b << (8 * (3 - i))
            }
            position += 4
            return v
        }

        /// A double whose 8 bytes are known to be there.
        mutating func double() -> Double {
            var v: UInt64 = 0
            for i in 0..<8 {
                let b = UInt64(bytes[position + i])
                v |= littleEndian ? b << (8 * i) : b << (8 * (7 - i))
            }
            position += 8
            return Double(bitPattern: v)
        }

        /// A count of items, each needing at least `minimumSize` bytes: refused at once when the rest of the input
        /// cannot hold that many, before anything is allocated.
        mutating func count(of what: String, minimumSize: Int) throws(FormatError) -> Int {
            let offset = position
            let n = Int(try uint32("the number of \(what)"))
            guard n <= remaining / minimumSize else {
                throw error(
                    "\(n) \(what) need at least \(n * minimumSize) bytes, but only \(remaining) are left",
                    at: offset)
            }
            return n
        }

        mutating func header() throws(FormatError) -> Header {
            let offset = position
            try need(1, for: "the byte-order byte")
            switch bytes[position] {
            case 0: littleEndian = false
            case 1: littleEndian = true
            case let b:
                throw error("byte-order byte \(b) is neither 0 (big-endian) nor 1 (little-endian)", at: offset)
            }
            position += 1
            let typeOffset = position
            let code = try uint32("the geometry type code")
            let low = code & 0x0FFF_FFFF
            let hex = "0x" + String(code, radix: 16, uppercase: true)
            guard code & 0x1000_0000 == 0, low < 4000, let kind = Kind(rawValue: low % 1000) else {
                throw error("unknown geometry type code \(code) (\(hex))", at: typeOffset)
            }
            let isoDimension = low / 1000  // 0 xy, 1 xyz, 2 xym, 3 xyzm
            let hasZ = code & 0x8000_0000 != 0 || isoDimension == 1 || isoDimension == 3
            let hasM = code & 0x4000_0000 != 0 || isoDimension >= 2
            switch kind {
            case .geometryCollection:
                throw error(
                    "GeometryCollection is not supported: Meridian geometries are points, multipoints, "
                        + "polylines or polygons; give the members one by one", at: typeOffset)
            case .circularString, .compoundCurve, .curvePolygon, .multiCurve, .multiSurface, .curve, .surface:
                throw error("\(kind.name) is not supported (Meridian has no curves; type code \(code))", at: typeOffset)
            case .polyhedralSurface, .tin, .triangle:
                throw error("\(kind.name) is not supported (type code \(code))", at: typeOffset)
            default:
                break
            }
            guard !hasM else {
                throw error(
                    "M coordinates are not supported (\(kind.name) \(hasZ ? "ZM" : "M"), type code \(code) "
                        + "(\(hex)))", at: typeOffset)
            }
            var srid: (Int32, Int)?
            if code & 0x2000_0000 != 0 {
                let sridOffset = position
                srid = (Int32(bitPattern: try uint32("the SRID")), sridOffset)
            }
            return Header(kind: kind, hasZ: hasZ, srid: srid, offset: offset)
        }

        /// The outermost geometry, then the check that nothing follows it.
        mutating func read() throws(FormatError) -> (Shape, (value: Int32, offset: Int)?) {
            guard !bytes.isEmpty else { throw error("the input is empty (no WKB geometry)", at: 0) }
            let h = try header()
            let shape: Shape
            switch h.kind {
            case .point:
                shape = try point(h).map(Shape.point) ?? .multipoint([])
            case .lineString:
                shape = .polyline(try line(h).map { [$0] } ?? [])
            case .polygon:
                shape = .polygon(try polygon(h).map { [$0] } ?? [])
            case .multiPoint:
                shape = .multipoint(
                    try members(of: h, .point, minimumSize: 21) { (r, m) throws(FormatError) in
                        try r.point(m)
                    })
            case .multiLineString:
                shape = .polyline(
                    try members(of: h, .lineString, minimumSize: 9) { (r, m) throws(FormatError) in
                        try r.line(m)
                    })
            default:  // .multiPolygon (header() refused the rest)
                shape = .polygon(
                    try members(of: h, .polygon, minimumSize: 9) { (r, m) throws(FormatError) in
                        try r.polygon(m)
                    })
            }
            guard position == bytes.count else {
                throw error("\(bytes.count - position) unexpected bytes after the \(h.kind.name)", at: position)
            }
            return (shape, h.srid)
        }

        /// The members of a multi-geometry: each must be a `kind` with the same z flag (and SRID, if any); empty
        /// members (`nil` from `read`) are dropped.
        mutating func members<T>(
            of outer: Header, _ kind: Kind, minimumSize: Int, _ read: (inout Reader, Header) throws(FormatError) -> T?
        ) throws(FormatError) -> [T] {
            let n = try count(of: "\(kind.name) members", minimumSize: minimumSize)
            var result: [T] = []
            result.reserveCapacity(n)
            for _ in 0..<n {
                let m = try header()
                guard m.kind == kind else {
                    throw error(
                        "a member of a \(outer.kind.name) must be a \(kind.name), found a \(m.kind.name)",
                        at: m.offset)
                }
                if let s = m.srid, s.value != outer.srid?.value {
                    throw error(
                        "the member's SRID \(s.value) differs from the \(outer.kind.name)'s "
                            + (outer.srid.map { "(\($0.value))" } ?? "(none)"), at: s.offset)
                }
                // A 2D member in a Z geometry has vertices without z (GEOS writes the points of a Z multipoint
                // whose z is NaN, and empty points, as 2D points); a non-empty Z member in a 2D geometry is refused.
                guard let member = try read(&self, m) else { continue }
                guard !m.hasZ || outer.hasZ else {
                    throw error("mixed dimensions: a \(m.name) member in a \(outer.name)", at: m.offset)
                }
                result.append(member)
            }
            return result
        }

        /// A vertex of a line or ring: finite x and y, and z (NaN meaning none) when the geometry has z.
        mutating func vertex(_ hasZ: Bool) throws(FormatError) -> Coordinate {
            try need(hasZ ? 24 : 16, for: "a vertex")  // the count check already ensured it; kept as a safety net
            let offset = position
            let x = double(), y = double()
            let z = hasZ ? double() : nil
            guard x.isFinite, y.isFinite, z.map({ !$0.isInfinite }) ?? true else {
                throw error("the vertex (\(x), \(y)\(z.map { ", \($0)" } ?? "")) is not finite", at: offset)
            }
            return Coordinate(x: x, y: y, z: z.flatMap { $0.isNaN ? nil : $0 })
        }

        /// A point, or `nil` for the empty point (every coordinate NaN).
        mutating func point(_ h: Header) throws(FormatError) -> Coordinate? {
            try need(h.hasZ ? 24 : 16, for: "the \(h.name)'s coordinates")
            let offset = position
            let x = double(), y = double()
            let z = h.hasZ ? double() : nil
            if x.isNaN, y.isNaN, z?.isNaN ?? true { return nil }
            position = offset
            return try vertex(h.hasZ)
        }

        /// The vertices of a line or ring.
        mutating func vertices(_ hasZ: Bool, of what: String) throws(FormatError) -> [Coordinate] {
            let size = hasZ ? 24 : 16
            let n = try count(of: "vertices of the \(what)", minimumSize: size)
            var cs: [Coordinate] = []
            cs.reserveCapacity(n)
            for _ in 0..<n { cs.append(try vertex(hasZ)) }
            return cs
        }

        /// A line of 0 (`nil`: empty) or at least 2 vertices.
        mutating func line(_ h: Header) throws(FormatError) -> [Coordinate]? {
            let offset = position
            let cs = try vertices(h.hasZ, of: h.name)
            guard cs.count != 1 else {
                throw error("a \(h.kind.name) needs 0 or at least 2 vertices, found 1", at: offset)
            }
            return cs.isEmpty ? nil : cs
        }

        /// A polygon: rings of 0 or at least 3 vertices, closed; `nil` when it has no rings or an empty shell
        /// (which then must have no non-empty holes).
        mutating func polygon(_ h: Header) throws(FormatError) -> Polygon.Part? {
            let n = try count(of: "rings of the \(h.name)", minimumSize: 4)
            var shell: [Coordinate]?
            var holes: [[Coordinate]] = []
            var emptyShellOffset: Int?
            for i in 0..<n {
                let offset = position
                let ring = try vertices(h.hasZ, of: i == 0 ? "shell" : "hole")
                if ring.isEmpty {
                    if i == 0 { emptyShellOffset = offset }
                    continue
                }
                guard ring.count >= 3 else {
                    throw error("a ring needs 0 or at least 3 vertices, found \(ring.count)", at: offset)
                }
                guard ring[0].x == ring[ring.count - 1].x, ring[0].y == ring[ring.count - 1].y else {
                    throw error("the ring is not closed (its last vertex differs from its first)", at: offset)
                }
                if let emptyShellOffset {
                    throw error("a polygon whose shell is empty cannot have holes", at: emptyShellOffset)
                }
                if i == 0 { shell = ring } else { holes.append(ring) }
            }
            return shell.map { Polygon.Part(shell: $0, holes: holes) }
        }
    }
}
