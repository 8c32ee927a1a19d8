/// Well-known text (OGC Simple Features WKT) for geometries: a reader and a writer.
///
/// Read: `POINT`, `MULTIPOINT` (both `MULTIPOINT (1 2, 3 4)` and `MULTIPOINT ((1 2), (3 4))`), `LINESTRING`,
/// `LINEARRING` (read as a one-part polyline), `MULTILINESTRING`, `POLYGON`, `MULTIPOLYGON`, each optionally with a
/// `Z` tag (`POINT Z (1 2 3)`, `POINTZ (1 2 3)`) or with three numbers per vertex, and each `EMPTY`. Keywords are
/// case-insensitive. Empty geometries become an empty multipoint (`POINT EMPTY`, `MULTIPOINT EMPTY`), polyline
/// (`LINESTRING`/`LINEARRING`/`MULTILINESTRING EMPTY`) or polygon (`POLYGON`/`MULTIPOLYGON EMPTY`).
///
/// Refused with a `FormatError` (never a crash): `GEOMETRYCOLLECTION` (Meridian's `Geometry` has no mixed
/// collection; read the members one by one), `M`/`ZM` coordinates, non-finite x or y, a line with fewer than two
/// vertices, a ring that is not closed or has fewer than three vertices (GEOS reads `POLYGON ((0 0, 1 1, 0 0))`, so
/// Meridian does too: such a ring is invalid, which `GeometryEngine.isSimple` reports and `simplify` repairs), a polygon whose shell is `EMPTY` but which
/// has holes, and any text after the geometry. `EMPTY` members, which the OGC grammar allows
/// (`MULTIPOINT (EMPTY, (1 2))`, `POLYGON (EMPTY)` as JTS writes it), add no points and are dropped. Errors carry the 1-based line and column (in characters) of the offending token.
///
/// Written: `Point` → `POINT`; `Multipoint` → `MULTIPOINT ((x y), …)`; a one-part `Polyline` → `LINESTRING`, more
/// parts → `MULTILINESTRING`; a one-part `Polygon` → `POLYGON`, more → `MULTIPOLYGON`; an `Envelope` → its
/// `POLYGON`. Numbers use the shortest text that reads back to the same `Double` (`1`, `0.1`, `1e-07`). A geometry
/// is written with `Z` when every vertex has a z; a geometry mixing vertices with and without one is written in 2-D,
/// its heights dropped (the rule of `Coordinate`), so NaN is never written; the reader refuses NaN and infinities. `decode(encode(g))` equals `g` for every geometry except envelopes (which come back as polygons) and
/// such mixed geometries.
public enum WKT {
    /// Reads one geometry from well-known text.
    /// - Parameters:
    ///   - text: The WKT, e.g. `POINT (2215204.973 394833.169)`; surrounding white space is ignored.
    ///   - spatialReference: The spatial reference the coordinates are in (WKT does not say).
    /// - Returns: The geometry.
    /// - Throws: `FormatError` (format "WKT") with the line and column of the offending token.
    public static func decode(_ text: String, spatialReference: SpatialReference) throws(FormatError) -> Geometry {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(FormatError) in try decode(bytes, spatialReference: spatialReference) }
        }
        return try result.get()
    }

    /// Reads one geometry from well-known text given as UTF-8 bytes, without making a `String` of it (numbers are
    /// parsed straight from the bytes).
    /// - Parameters:
    ///   - bytes: The WKT's UTF-8 bytes; surrounding white space is ignored.
    ///   - spatialReference: The spatial reference the coordinates are in (WKT does not say).
    /// - Returns: The geometry.
    /// - Throws: `FormatError` (format "WKT") with the line and column of the offending token.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, spatialReference: SpatialReference)
        throws(FormatError) -> Geometry
    {
        var parser = Parser(bytes)
        let geometry = try parser.geometry(spatialReference)
        let trailing = parser.next()
        guard case .end = trailing.kind else {
            throw parser.error("unexpected \(trailing.kind) after the geometry", at: trailing)
        }
        return geometry
    }

    /// Writes a geometry as well-known text (see the type's documentation for the mapping).
    /// - Parameter geometry: Any geometry.
    /// - Returns: The WKT, e.g. `POLYGON ((0 0, 1 0, 1 1, 0 0))`.
    public static func encode(_ geometry: Geometry) -> String {
        var out = ByteBuffer(capacity: 64 + 40 * geometry.coordinates.count)
        write(geometry, to: &out)
        return out.string
    }

    /// Appends a geometry as well-known text (the text of `encode(_:)`) to a buffer, which may stream.
    /// - Parameters:
    ///   - geometry: Any geometry.
    ///   - out: The output.
    public static func write(_ geometry: Geometry, to out: inout ByteBuffer) {
        let hasZ: Bool
        switch geometry {
        // With Z only when every vertex has a height (a geometry without vertices has none).
        case .point(let p): hasZ = p.coordinate.z != nil
        case .multipoint(let m): hasZ = !m.coordinates.isEmpty && m.coordinates.allSatisfy { $0.z != nil }
        case .polyline(let l):
            hasZ = l.parts.contains { !$0.isEmpty } && l.parts.allSatisfy { $0.allSatisfy { $0.z != nil } }
        case .polygon(let p):
            hasZ = p.parts.contains { $0.rings.contains { !$0.isEmpty } }
                && p.parts.allSatisfy { $0.rings.allSatisfy { $0.allSatisfy { $0.z != nil } } }
        case .envelope: hasZ = false
        }
        let tag: StaticString = hasZ ? " Z" : ""
        func coordinate(_ c: Coordinate, _ out: inout ByteBuffer) { writeCoordinate(c, hasZ: hasZ, to: &out) }
        func sequence(_ cs: [Coordinate], _ out: inout ByteBuffer) { writeSequence(cs, hasZ: hasZ, to: &out) }
        func polygon(_ part: Polygon.Part, _ out: inout ByteBuffer) { appendPolygonPart(part, hasZ: hasZ, to: &out) }
        func keyword(_ k: StaticString, _ out: inout ByteBuffer) {
            out.append(k)
            out.append(tag)
            out.append(UInt8(ascii: " "))
        }

        switch geometry {
        case .point(let p):
            writePoint(p.coordinate, to: &out)
        case .multipoint(let m):
            if m.coordinates.isEmpty { return out.append("MULTIPOINT EMPTY" as StaticString) }
            keyword("MULTIPOINT", &out)
            out.append(UInt8(ascii: "("))
            for (i, c) in m.coordinates.enumerated() {
                out.append(i > 0 ? ", (" as StaticString : "(")
                coordinate(c, &out)
                out.append(UInt8(ascii: ")"))
            }
            out.append(UInt8(ascii: ")"))
        case .polyline(let l):
            switch l.parts.count {
            case 0: out.append("LINESTRING EMPTY" as StaticString)
            case 1:
                keyword("LINESTRING", &out)
                sequence(l.parts[0], &out)
            default:
                keyword("MULTILINESTRING", &out)
                out.append(UInt8(ascii: "("))
                for (i, part) in l.parts.enumerated() {
                    if i > 0 { out.append(", " as StaticString) }
                    sequence(part, &out)
                }
                out.append(UInt8(ascii: ")"))
            }
        case .polygon(let p):
            switch p.parts.count {
            case 0: out.append("POLYGON EMPTY" as StaticString)
            case 1:
                keyword("POLYGON", &out)
                polygon(p.parts[0], &out)
            default:
                keyword("MULTIPOLYGON", &out)
                out.append(UInt8(ascii: "("))
                for (i, part) in p.parts.enumerated() {
                    if i > 0 { out.append(", " as StaticString) }
                    polygon(part, &out)
                }
                out.append(UInt8(ascii: ")"))
            }
        case .envelope(let e):
            write(.polygon(e.polygon), to: &out)
        }
    }

    /// Appends a point's well-known text (`POINT (x y)`, `POINT Z (x y z)` with a height), as `write(_:to:)`
    /// writes a `Point` — for points held as coordinates.
    /// - Parameters:
    ///   - c: The point's coordinate.
    ///   - out: The output.
    public static func writePoint(_ c: Coordinate, to out: inout ByteBuffer) {
        out.append(c.z == nil ? "POINT (" as StaticString : "POINT Z (")
        writeCoordinate(c, hasZ: c.z != nil, to: &out)
        out.append(UInt8(ascii: ")"))
    }

    private static func writeCoordinate(_ c: Coordinate, hasZ: Bool, to out: inout ByteBuffer) {
        out.appendNumber(c.x)
        out.append(UInt8(ascii: " "))
        out.appendNumber(c.y)
        if hasZ {
            out.append(UInt8(ascii: " "))
            if let z = c.z { out.appendNumber(z) }
        }
    }

    private static func writeSequence(_ cs: [Coordinate], hasZ: Bool, to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "("))
        for (i, c) in cs.enumerated() {
            if i > 0 { out.append(", " as StaticString) }
            writeCoordinate(c, hasZ: hasZ, to: &out)
        }
        out.append(UInt8(ascii: ")"))
        out.flushIfFull()  // a streaming output drains between rings, even within one huge geometry
    }

    /// Appends one polygon part as WKT writes it inside `POLYGON`/`MULTIPOLYGON`: `((x y, …), (x y, …))`, the
    /// shell and then the holes, each closed (the reader refuses an open ring), for writing a multipolygon part by
    /// part.
    /// - Parameters:
    ///   - part: The part.
    ///   - hasZ: Whether to write a third number per vertex (true only when every vertex has one).
    ///   - out: The output.
    public static func appendPolygonPart(_ part: Polygon.Part, hasZ: Bool = false, to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "("))
        for (i, ring) in part.rings.enumerated() {
            if i > 0 { out.append(", " as StaticString) }
            writeSequence(Polygon.closed(ring), hasZ: hasZ, to: &out)
        }
        out.append(UInt8(ascii: ")"))
    }

    /// Appends one ring of a polygon part as `appendPolygonPart(_:hasZ:to:)` writes it (`(x y, x y, …)`), for
    /// writing a part's rings from several places: a part is `(` + its rings joined by ", " + `)`.
    /// - Parameters:
    ///   - ring: The ring.
    ///   - hasZ: Whether to write a third number per vertex (true only when every vertex has one).
    ///   - out: The output.
    public static func appendRing(_ ring: [Coordinate], hasZ: Bool = false, to out: inout ByteBuffer) {
        writeSequence(ring, hasZ: hasZ, to: &out)
    }

    /// The shortest decimal text that reads back as exactly `value` (Swift's round-trip formatting, without a
    /// trailing `.0`): `1`, `-0.5`, `1e-07`, `1.7976931348623157e+308`.
    static func number(_ value: Double) -> String {
        var out = ByteBuffer(capacity: ShortestDecimal.maximumLength)
        out.appendNumber(value)
        return out.string
    }
}

// MARK: - Reader

extension WKT {
    struct Token {
        enum Kind: CustomStringConvertible {
            case word(String)
            case number(Double)
            case open, close, comma, end
            case invalid(String)

            var description: String {
                switch self {
                case .word(let w): "'\(w)'"
                case .number(let n): "number \(WKT.number(n))"
                case .open: "'('"
                case .close: "')'"
                case .comma: "','"
                case .end: "end of text"
                case .invalid(let s): "'\(s)'"
                }
            }
        }
        let kind: Kind
        /// Byte offset of the token's first byte in the UTF-8 text.
        let offset: Int
    }

    /// A recursive-descent reader over the UTF-8 bytes, with one token of look-ahead. Use it within the lifetime of
    /// the bytes.
    struct Parser {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var position = 0
        private var peeked: Token?

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        // MARK: Tokens

        mutating func next() -> Token {
            if let t = peeked {
                peeked = nil
                return t
            }
            return scan()
        }

        mutating func peek() -> Token {
            if let t = peeked { return t }
            let t = scan()
            peeked = t
            return t
        }

        private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

        private mutating func scan() -> Token {
            while position < bytes.count, Parser.isSpace(bytes[position]) { position += 1 }
            let start = position
            guard position < bytes.count else { return Token(kind: .end, offset: start) }
            let b = bytes[position]
            switch b {
            case UInt8(ascii: "("):
                position += 1
                return Token(kind: .open, offset: start)
            case UInt8(ascii: ")"):
                position += 1
                return Token(kind: .close, offset: start)
            case UInt8(ascii: ","):
                position += 1
                return Token(kind: .comma, offset: start)
            default:
                break
            }
            if Parser.isLetter(b) {
                while position < bytes.count, Parser.isLetter(bytes[position]) { position += 1 }
                return Token(kind: .word(String(decoding: bytes[start..<position], as: UTF8.self)), offset: start)
            }
            if Parser.isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") {
                return Token(kind: scanNumber(from: start), offset: start)
            }
            // Anything else: one Unicode scalar, reported as is.
            position += 1
            while position < bytes.count, bytes[position] & 0xC0 == 0x80 { position += 1 }
            return Token(kind: .invalid(String(decoding: bytes[start..<position], as: UTF8.self)), offset: start)
        }

        /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`, strictly (no hex, no `inf`).
        private mutating func scanNumber(from start: Int) -> Token.Kind {
            func digits() -> Int {
                let s = position
                while position < bytes.count, Parser.isDigit(bytes[position]) { position += 1 }
                return position - s
            }
            if bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") { position += 1 }
            var mantissa = digits()
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                mantissa += digits()
            }
            var valid = mantissa > 0
            if valid, position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
                    position += 1
                }
                valid = digits() > 0
            }
            // A number glued to letters or more signs/dots (`1.2.3`, `12abc`) is one bad token.
            while position < bytes.count, Parser.isLetter(bytes[position]) || Parser.isDigit(bytes[position])
                || bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: "-")
                || bytes[position] == UInt8(ascii: "+")
            {
                position += 1
                valid = false
            }
            // Read from the bytes (no String per number; the same correctly rounded double); the rare number it
            // refuses (over 400 bytes, or beyond the double range) goes through Double(String) as before.
            if valid, let value = DecimalText.parse(bytes, start, position) {
                return .number(value)
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard valid, let value = Double(text) else { return .invalid(text) }
            return .number(value)
        }

        // MARK: Errors

        /// A `FormatError` at a token: 1-based line, and 1-based column counted in characters within that line.
        func error(_ message: String, at token: Token) -> FormatError {
            var line = 1
            var lineStart = 0
            let end = min(token.offset, bytes.count)
            for i in 0..<end where bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
            return FormatError(format: "WKT", message: message, line: line, column: column)
        }

        private mutating func expect(_ what: String, _ matches: (Token.Kind) -> Bool) throws(FormatError) -> Token {
            let t = next()
            guard matches(t.kind) else { throw error("expected \(what), found \(t.kind)", at: t) }
            return t
        }

        private mutating func open() throws(FormatError) {
            _ = try expect("'('") { if case .open = $0 { true } else { false } }
        }

        /// After a list element: `true` at ',' (another element follows), `false` at ')'.
        private mutating func commaOrClose() throws(FormatError) -> Bool {
            let t = next()
            switch t.kind {
            case .comma: return true
            case .close: return false
            default: throw error("expected ',' or ')', found \(t.kind)", at: t)
            }
        }

        // MARK: Grammar

        enum Dimension { case xy, xyz, unknown }

        mutating func geometry(_ sr: SpatialReference) throws(FormatError) -> Geometry {
            let t = next()
            guard case .word(let rawWord) = t.kind else {
                throw error("expected a geometry type such as POINT or POLYGON, found \(t.kind)", at: t)
            }
            var word = rawWord.uppercased()
            var dimension = Dimension.unknown
            // `POINTZ`, `POINTM`, `POINTZM` glued forms.
            for (suffix, dim) in [("ZM", Dimension?.none), ("Z", .xyz), ("M", nil)] where word.hasSuffix(suffix) {
                let base = String(word.dropLast(suffix.count))
                guard WKT.Parser.types.contains(base) else { continue }
                guard let dim else { throw error("M coordinates are not supported (\(rawWord))", at: t) }
                word = base
                dimension = dim
                break
            }
            if word == "GEOMETRYCOLLECTION" {
                throw error("GEOMETRYCOLLECTION is not supported: Meridian geometries are points, multipoints, "
                            + "polylines or polygons; give the members one by one", at: t)
            }
            guard WKT.Parser.types.contains(word) else {
                throw error("unknown geometry type '\(rawWord)'", at: t)
            }
            // A separate `Z`, `M` or `ZM` tag.
            if dimension == .unknown, case .word(let tagWord) = peek().kind {
                let tag = peek()
                switch tagWord.uppercased() {
                case "Z":
                    _ = next()
                    dimension = .xyz
                case "M", "ZM":
                    throw error("M coordinates are not supported (\(word) \(tagWord))", at: tag)
                default:
                    break
                }
            }
            if case .word(let w) = peek().kind, w.uppercased() == "EMPTY" {
                _ = next()
                switch word {
                case "POINT", "MULTIPOINT": return .multipoint(Multipoint([], spatialReference: sr))
                case "LINESTRING", "LINEARRING", "MULTILINESTRING": return .polyline(Polyline(parts: [], spatialReference: sr))
                default: return .polygon(Polygon(parts: [], spatialReference: sr))
                }
            }
            switch word {
            case "POINT":
                try open()
                let c = try coordinate(&dimension)
                _ = try expect("')'") { if case .close = $0 { true } else { false } }
                return .point(Point(c, spatialReference: sr))
            case "MULTIPOINT":
                try open()
                var cs: [Coordinate] = []
                repeat {
                    if skipEmptyMember() { continue }
                    if case .open = peek().kind {
                        _ = next()
                        cs.append(try coordinate(&dimension))
                        _ = try expect("')'") { if case .close = $0 { true } else { false } }
                    } else {
                        cs.append(try coordinate(&dimension))
                    }
                } while try commaOrClose()
                return .multipoint(Multipoint(cs, spatialReference: sr))
            case "LINESTRING":
                return .polyline(Polyline(parts: [try path(&dimension)], spatialReference: sr))
            case "LINEARRING":
                return .polyline(Polyline(parts: [try ring(&dimension)], spatialReference: sr))
            case "MULTILINESTRING":
                try open()
                var parts: [[Coordinate]] = []
                repeat {
                    if skipEmptyMember() { continue }
                    parts.append(try path(&dimension))
                } while try commaOrClose()
                return .polyline(Polyline(parts: parts, spatialReference: sr))
            case "POLYGON":
                let part = try polygonPart(&dimension)
                return .polygon(Polygon(parts: part.map { [$0] } ?? [], spatialReference: sr))
            default:  // MULTIPOLYGON
                try open()
                var parts: [Polygon.Part] = []
                repeat {
                    if skipEmptyMember() { continue }
                    if let part = try polygonPart(&dimension) { parts.append(part) }
                } while try commaOrClose()
                return .polygon(Polygon(parts: parts, spatialReference: sr))
            }
        }

        static let types: Set<String> = [
            "POINT", "MULTIPOINT", "LINESTRING", "LINEARRING", "MULTILINESTRING", "POLYGON", "MULTIPOLYGON",
            "GEOMETRYCOLLECTION",
        ]

        /// Consumes an `EMPTY` member, if that is what comes next.
        private mutating func skipEmptyMember() -> Bool {
            guard case .word(let w) = peek().kind, w.uppercased() == "EMPTY" else { return false }
            _ = next()
            return true
        }

        /// `x y` or `x y z`; the first vertex fixes the dimension unless a `Z` tag did. Every number must be finite.
        private mutating func coordinate(_ dimension: inout Dimension) throws(FormatError) -> Coordinate {
            let x = try finiteNumber("x")
            let y = try finiteNumber("y")
            var z: Double?
            switch (dimension, peek().kind) {
            case (.xy, _):
                break
            case (.unknown, .number), (.unknown, .word), (.xyz, _):
                let t = next()
                switch t.kind {
                case .number(let v) where v.isFinite: z = v
                case .number: throw error("the z coordinate is out of range", at: t)
                default:
                    throw error(dimension == .xyz ? "expected a z coordinate, found \(t.kind)"
                                                  : "expected a z coordinate, ',' or ')', found \(t.kind)", at: t)
                }
                if dimension == .unknown { dimension = .xyz }
            case (.unknown, _):
                dimension = .xy
            }
            if case .number = peek().kind {
                throw error("too many numbers in a coordinate (M coordinates are not supported)", at: peek())
            }
            return Coordinate(x: x, y: y, z: z)
        }

        private mutating func finiteNumber(_ axis: String) throws(FormatError) -> Double {
            let t = next()
            guard case .number(let v) = t.kind else { throw error("expected the \(axis) coordinate, found \(t.kind)", at: t) }
            guard v.isFinite else { throw error("the \(axis) coordinate is out of range", at: t) }
            return v
        }

        /// `( c, c, … )` with at least `minimum` vertices; returns them and the opening token.
        private mutating func sequence(_ dimension: inout Dimension) throws(FormatError) -> ([Coordinate], Token) {
            let start = try expect("'('") { if case .open = $0 { true } else { false } }
            var cs: [Coordinate] = []
            repeat { cs.append(try coordinate(&dimension)) } while try commaOrClose()
            return (cs, start)
        }

        private mutating func path(_ dimension: inout Dimension) throws(FormatError) -> [Coordinate] {
            let (cs, start) = try sequence(&dimension)
            guard cs.count >= 2 else { throw error("a line needs at least 2 vertices, found \(cs.count)", at: start) }
            return cs
        }

        private mutating func ring(_ dimension: inout Dimension) throws(FormatError) -> [Coordinate] {
            let (cs, start) = try sequence(&dimension)
            guard cs.count >= 3 else { throw error("a ring needs at least 3 vertices (2 distinct and the closing one), found \(cs.count)", at: start) }
            guard let first = cs.first, let last = cs.last, first.x == last.x, first.y == last.y else {
                throw error("the ring is not closed (its last vertex differs from its first)", at: start)
            }
            return cs
        }

        /// `( shell, hole, … )`; `nil` when the shell is `EMPTY` (and then there must be no holes).
        private mutating func polygonPart(_ dimension: inout Dimension) throws(FormatError) -> Polygon.Part? {
            try open()
            var rings: [[Coordinate]] = []
            var emptyShell: Token?
            repeat {
                let start = peek()
                if skipEmptyMember() {
                    if rings.isEmpty && emptyShell == nil { emptyShell = start }
                    continue
                }
                if let emptyShell {
                    throw error("a polygon whose shell is EMPTY cannot have holes", at: emptyShell)
                }
                rings.append(try ring(&dimension))
            } while try commaOrClose()
            guard let shell = rings.first else { return nil }
            return Polygon.Part(shell: shell, holes: Array(rings.dropFirst()))
        }
    }
}
