import Foundation

/// GeoJSON (RFC 7946) reading and writing.
///
/// Type mapping, both ways: Point ↔ `Point`, MultiPoint ↔ `Multipoint`, LineString ↔ one-part `Polyline`,
/// MultiLineString ↔ `Polyline` with any other number of parts, Polygon ↔ one-part `Polygon` (first ring the shell,
/// the others holes), MultiPolygon ↔ `Polygon` with any other number of parts. An `Envelope` is written as a Polygon.
/// GeometryCollection is not supported (reading one is an error).
///
/// Reading: coordinates are WGS84 longitude, latitude[, altitude in meters], and every geometry read has spatial
/// reference `.wgs84`; a fourth and later number in a position is ignored, and a geometry whose positions mix 2 and 3
/// numbers loses all its heights (the one rule of `Coordinate`). A FeatureCollection must have a "features" array
/// (RFC 7946 §3.3). "bbox", "crs" and other foreign members are ignored. A geometry with an empty "coordinates"
/// array reads as a `nil` geometry (RFC 7946 §3.1 allows this).
/// Rings must have at least 4 positions and end where they start; either orientation is accepted.
/// Errors are `FormatError`s (format "GeoJSON") with the 1-based line and column (in Unicode scalars) and, inside a
/// FeatureCollection, the 0-based feature index. Reading is a single linear pass over the bytes.
///
/// Writing: a compact or indented UTF-8 document with object keys sorted by Unicode code point, so equal inputs give
/// byte-identical output. Coordinates are written as they are, whatever the geometry's spatial reference (project
/// to WGS84 first: RFC 7946 allows no other). Polygon rings are closed if they are not, and oriented per RFC 7946
/// §3.1.6 (shells counter-clockwise, holes clockwise, by their planar signed area in longitude/latitude).
/// Numbers use the shortest text that reads back to the same double; integral values below 10^16 in magnitude are
/// written without a fraction, −0 as 0, and NaN/±infinity as `null` (which no GeoJSON reader accepts in a position).
public enum GeoJSON {
    /// Reads features from a FeatureCollection, a single Feature, or a bare geometry (which becomes one feature
    /// without properties).
    /// - Parameter data: A UTF-8 GeoJSON document (a leading byte-order mark is allowed).
    /// - Returns: The features in document order.
    /// - Throws: `FormatError` with line/column (and feature index when inside a FeatureCollection).
    public static func decodeFeatures(_ data: Data) throws(FormatError) -> [Feature] {
        try decodeFeaturesWithLines(data).features
    }

    /// Reads the features of a FeatureCollection one at a time without holding them (or the single feature of a
    /// Feature or bare geometry): `body` gets each feature, the 1-based line where its object starts, and its byte
    /// offset (the document before it has been read; a caller reading a mapped file may give those pages back).
    /// The checks and errors are `decodeFeatures(_:)`'s.
    /// - Parameters:
    ///   - data: A UTF-8 GeoJSON document.
    ///   - body: Receives each feature in document order; what it throws ends the reading and is rethrown.
    /// - Throws: `FormatError` (with line, column and feature index), or what `body` throws.
    public static func forEachFeature(_ data: Data, _ body: (Feature, _ line: Int, _ offset: Int) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in try forEachFeature(data, escaping: body) }
    }

    /// `forEachFeature(_:_:)` with `body` allowed to be stored in the reader for the reading's duration.
    private static func forEachFeature(_ data: Data, escaping body: @escaping (Feature, Int, Int) throws -> Void) throws {
        var thrown: (any Error)?
        let result: Result<Document, FormatError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var reader = GeoJSONReader(bytes)
            var line = 1, counted = 0
            reader.onFeature = { (feature, offset) throws(JSONFailure) in
                while counted < offset {  // lines counted incrementally, as TextPosition counts them
                    let b = bytes[counted]
                    if b == ASCII.lineFeed || (b == ASCII.carriageReturn && (counted + 1 >= bytes.count || bytes[counted + 1] != ASCII.lineFeed)) {
                        line += 1
                    }
                    counted += 1
                }
                do { try body(feature, line, offset) } catch {
                    thrown = error
                    throw JSONFailure("stopped by the caller", at: offset)
                }
            }
            do throws(JSONFailure) {
                return .success(try reader.readDocument())
            } catch {
                return .failure(error.formatError("GeoJSON", in: bytes))
            }
        }
        if let thrown { throw thrown }
        switch try result.get() {
        case .features: return
        case .feature(let f): try body(f, 1, 0)
        case .geometry(let g, _): try body(Feature(geometry: g), 1, 0)
        }
    }

    /// Reads features as `decodeFeatures(_:)` does, with the 1-based line where each feature's object starts (for
    /// messages that name a feature's place; 1 for a single Feature or a bare geometry at the top).
    /// - Parameter data: A UTF-8 GeoJSON document.
    /// - Returns: The features in document order, and their lines.
    /// - Throws: `FormatError` with line/column (and feature index when inside a FeatureCollection).
    public static func decodeFeaturesWithLines(_ data: Data) throws(FormatError) -> (features: [Feature], lines: [Int]) {
        let (document, offsets) = try read(data)
        switch document {
        case .features(let f):
            return (f, data.withUnsafeBytes { TextPosition.lines(ofOffsets: offsets, in: $0.bindMemory(to: UInt8.self)) })
        case .feature(let f): return ([f], [1])
        case .geometry(let g, _): return ([Feature(geometry: g)], [1])
        }
    }

    /// Reads one geometry from a bare geometry object, or from a Feature whose geometry is not null.
    /// - Parameter data: A UTF-8 GeoJSON document.
    /// - Returns: The geometry, in `.wgs84`.
    /// - Throws: `FormatError`, also for a FeatureCollection, a null geometry or empty coordinates.
    public static func decodeGeometry(_ data: Data) throws(FormatError) -> Geometry {
        let document = try read(data).document
        switch document {
        case .geometry(let g?, _): return g
        case .feature(let f):
            if let g = f.geometry { return g }
            throw FormatError(format: "GeoJSON", message: "the feature's geometry is null or empty", feature: 0)
        case .geometry(nil, let place):
            throw FormatError(
                format: "GeoJSON", message: "the geometry is empty (its \"coordinates\" array is empty)",
                line: place.line, column: place.column)
        case .features:
            throw FormatError(
                format: "GeoJSON", message: "expected a geometry, found a FeatureCollection (use decodeFeatures)",
                line: 1, column: 1)
        }
    }

    /// Writes features as a FeatureCollection (keys sorted; see the type's documentation for numbers and rings).
    /// - Parameters:
    ///   - features: The features; geometries should be in WGS84 longitude/latitude.
    ///   - pretty: Indent with two spaces, one member per line (positions stay on one line each geometry).
    /// - Returns: UTF-8 JSON text without a trailing newline.
    public static func encode(_ features: [Feature], pretty: Bool = false) -> Data {
        // About 40 bytes per position and 160 per feature, so the buffer rarely has to grow.
        let positions = features.reduce(0) { $0 + ($1.geometry.map(positionCount) ?? 0) }
        var w = JSONWriter(pretty: pretty, capacity: 64 + features.count * 160 + positions * 40)
        w.beginObject()
        var first = true
        w.key("features", first: &first)
        w.beginArray()
        var firstFeature = true
        for feature in features {
            w.element(first: &firstFeature, multiline: true)
            writeFeature(feature, to: &w)
        }
        w.endArray(empty: features.isEmpty, multiline: true)
        w.key("type", first: &first)
        w.writeString("FeatureCollection")
        w.endObject(empty: false)
        return w.finish().data()
    }

    /// Starts a compact FeatureCollection in a buffer (which may stream): `{"features":[`. Follow with
    /// `appendFeature(_:first:to:)` for each feature and `endFeatureCollection(to:)`.
    /// - Parameter out: The output.
    public static func beginFeatureCollection(to out: inout ByteBuffer) {
        out.append("{\"features\":[" as StaticString)
    }

    /// Appends one feature of a collection begun with `beginFeatureCollection(to:)` (compact, keys sorted), then
    /// lets a streaming buffer drain.
    /// - Parameters:
    ///   - feature: The feature; its geometry should be in WGS84 longitude/latitude.
    ///   - first: Whether it is the collection's first feature (no comma before it).
    ///   - out: The output.
    public static func appendFeature(_ feature: Feature, first: Bool, to out: inout ByteBuffer) {
        if !first { out.append(ASCII.comma) }
        var w = JSONWriter(pretty: false, into: out)
        writeFeature(feature, to: &w)
        out = w.finish()
        out.flushIfFull()
    }

    /// Ends a collection begun with `beginFeatureCollection(to:)`: `],"type":"FeatureCollection"}`.
    /// - Parameter out: The output.
    public static func endFeatureCollection(to out: inout ByteBuffer) {
        out.append("],\"type\":\"FeatureCollection\"}" as StaticString)
    }

    /// Appends one feature as a record of a GeoJSON text sequence (RFC 8142, `.geojsons`): the record separator
    /// 0x1E, the compact feature, a line feed; then lets a streaming buffer drain.
    /// - Parameters:
    ///   - feature: The feature; its geometry should be in WGS84 longitude/latitude.
    ///   - out: The output.
    public static func appendSequenceRecord(_ feature: Feature, to out: inout ByteBuffer) {
        out.append(0x1E)
        var w = JSONWriter(pretty: false, into: out)
        writeFeature(feature, to: &w)
        out = w.finish()
        out.append(ASCII.lineFeed)
        out.flushIfFull()
    }

    /// Appends one polygon part's "coordinates" value as a Polygon has it (the rings closed, the shell
    /// counter-clockwise, the holes clockwise), for writing a MultiPolygon part by part.
    /// - Parameters:
    ///   - part: The part, in WGS84 longitude/latitude.
    ///   - out: The output.
    public static func appendPolygonPart(_ part: Polygon.Part, to out: inout ByteBuffer) {
        appendPolygonPart(part, to: &out) { ring, write in Polygon.closed(ring).withUnsafeBufferPointer(write) }
    }

    /// `appendPolygonPart(_:to:)` of a part whose rings are first transformed one at a time (e.g. projected to
    /// WGS84 into a buffer the caller reuses, so that no copy of the part is made): `transform` gets each ring, the
    /// shell first, and hands `write` the ring to write, closed (`Polygon.close(_:)`), before it returns.
    /// - Parameters:
    ///   - part: The part, in any spatial reference.
    ///   - out: The output.
    ///   - transform: Gets a ring and calls `write` once with its transformed, closed vertices in WGS84
    ///     longitude/latitude.
    /// - Throws: What `transform` throws (the output then holds part of the part).
    public static func appendPolygonPart<E: Error>(
        _ part: Polygon.Part, to out: inout ByteBuffer,
        transformingRings transform: ([Coordinate], (UnsafeBufferPointer<Coordinate>) -> Void) throws(E) -> Void
    ) throws(E) {
        out.append(ASCII.leftBracket)
        for r in 0...part.holes.count {
            if r > 0 { out.append(ASCII.comma) }
            try transform(r == 0 ? part.shell : part.holes[r - 1]) {
                appendPolygonRing(closed: $0, isShell: r == 0, to: &out)
            }
            out.flushIfFull()  // a streaming output drains between rings, even within one huge geometry
        }
        out.append(ASCII.rightBracket)
    }

    /// Appends one ring of a polygon part as a Polygon's "coordinates" hold it (closed; counter-clockwise for a
    /// shell, clockwise for a hole), for writing a part's rings from several places: a part is `[` + its rings
    /// joined by commas + `]`, as `appendPolygonPart(_:to:)` writes it.
    /// - Parameters:
    ///   - ring: The ring, in WGS84 longitude/latitude.
    ///   - isShell: Whether it is the part's shell.
    ///   - out: The output.
    public static func appendPolygonRing(_ ring: [Coordinate], isShell: Bool, to out: inout ByteBuffer) {
        Polygon.closed(ring).withUnsafeBufferPointer { appendPolygonRing(closed: $0, isShell: isShell, to: &out) }
    }

    /// `appendPolygonRing(_:isShell:to:)` of a closed ring in memory the caller owns: the positions written
    /// straight to the output, backwards when the ring turns the wrong way (as `oriented(_:counterClockwise:)`
    /// turns it), the same bytes as a compact `JSONWriter` writes.
    /// - Parameters:
    ///   - ring: The ring, closed, in WGS84 longitude/latitude.
    ///   - isShell: Whether it is the part's shell.
    ///   - out: The output.
    public static func appendPolygonRing(closed ring: UnsafeBufferPointer<Coordinate>, isShell: Bool,
                                         to out: inout ByteBuffer) {
        let area = Polygon.signedArea(ring)
        let backwards = area != 0 && (area > 0) != isShell
        out.append(ASCII.leftBracket)
        for k in ring.indices {
            if k > 0 { out.append(ASCII.comma) }
            let c = ring[backwards ? ring.count - 1 - k : k]
            out.append(ASCII.leftBracket)
            JSONWriter.appendNumber(c.x, to: &out)
            out.append(ASCII.comma)
            JSONWriter.appendNumber(c.y, to: &out)
            if let z = c.z {
                out.append(ASCII.comma)
                JSONWriter.appendNumber(z, to: &out)
            }
            out.append(ASCII.rightBracket)
        }
        out.append(ASCII.rightBracket)
    }

    /// Writes one geometry object (compact, keys sorted).
    /// - Parameter geometry: A geometry, expected in WGS84 longitude/latitude.
    /// - Returns: UTF-8 JSON text.
    public static func encode(_ geometry: Geometry) -> Data {
        var w = JSONWriter(pretty: false, capacity: 64 + positionCount(geometry) * 40)
        writeGeometry(geometry, to: &w)
        return w.finish().data()
    }

    // MARK: - Reading

    /// What a document holds.
    private enum Document {
        case features([Feature])
        case feature(Feature)
        /// A bare geometry (nil when empty) and where its object starts.
        case geometry(Geometry?, (line: Int, column: Int))
    }

    /// The document, and the byte offset of each feature of a FeatureCollection.
    private static func read(_ data: Data) throws(FormatError) -> (document: Document, featureOffsets: [Int]) {
        let result: Result<(Document, [Int]), FormatError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var reader = GeoJSONReader(bytes)
            do throws(JSONFailure) {
                let document = try reader.readDocument()
                return .success((document, reader.featureOffsets))
            } catch {
                return .failure(error.formatError("GeoJSON", in: bytes))
            }
        }
        return try result.get()
    }

    /// Reads GeoJSON objects straight from the bytes into Meridian values, without an intermediate JSON tree
    /// (properties excepted).
    private struct GeoJSONReader {
        var scanner: JSONScanner

        // Scratch space for one "coordinates" value, reused from geometry to geometry: the positions in document
        // order, and for each nesting level above the positions the element count and byte offset of every array.
        var flat: [Coordinate] = []
        /// Whether the current "coordinates" mix positions with and without a height.
        var mixedHeights = false
        var counts: [[Int]] = []
        var offsets: [[Int]] = []
        /// The nesting level (0 = the "coordinates" array itself) at which positions were found.
        var positionLevel: Int?
        /// The deepest level at which an array of arrays (or an empty array) was found.
        var maxContainerLevel = -1
        /// The byte offset of each feature object of the FeatureCollection read (none when `onFeature` takes them).
        var featureOffsets: [Int] = []
        /// When set, each feature of a FeatureCollection goes here (with its byte offset) instead of being kept.
        var onFeature: ((Feature, Int) throws(JSONFailure) -> Void)?

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            scanner = JSONScanner(bytes)
        }

        /// The parts of a Feature read so far.
        struct FeatureParts {
            var geometry: Geometry?
            var properties: [String: JSONValue] = [:]
            var id: JSONValue?
        }

        /// A geometry object's "type" and "coordinates" read so far.
        struct GeometryParts {
            var hasCoordinates = false
            var coordinatesOffset = 0
        }

        enum Kind {
            case featureCollection, feature, geometry
        }

        static func kind(of type: String, at offset: Int) throws(JSONFailure) -> Kind {
            switch type {
            case "FeatureCollection": return .featureCollection
            case "Feature": return .feature
            case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon": return .geometry
            case "GeometryCollection": throw JSONFailure("GeometryCollection is not supported", at: offset)
            default: throw JSONFailure("unknown GeoJSON type \"\(type)\"", at: offset)
            }
        }

        // MARK: Document

        mutating func readDocument() throws(JSONFailure) -> Document {
            try scanner.skipBOMAndWhitespace()
            guard let b = scanner.peek() else { throw JSONFailure("empty input (no GeoJSON object)", at: 0) }
            guard b == ASCII.leftBrace else { throw scanner.unexpected("a GeoJSON object ('{')") }
            let objectStart = scanner.position
            try scanner.beginObject()
            var type: (name: String, offset: Int, kind: Kind)?
            // Members read before "type" is known are skipped (syntax-checked) and read again afterwards.
            var deferred: [(key: String, offset: Int)] = []
            var features: [Feature] = []
            var feature = FeatureParts()
            var geometry = GeometryParts()
            var first = true
            var hasFeatures = false
            while let member = try scanner.nextKey(first: &first) {
                if member.key == "features" { hasFeatures = true }
                switch member.key {
                case "type":
                    let t = try readType()
                    type = (t.name, t.offset, try GeoJSONReader.kind(of: t.name, at: t.offset))
                case "features", "geometry", "properties", "id", "coordinates":
                    if let type {
                        try readTopLevelMember(
                            member.key, kind: type.kind, features: &features, feature: &feature, geometry: &geometry)
                    } else {
                        deferred.append((member.key, scanner.position))
                        try scanner.skipValue()
                    }
                default:
                    try scanner.skipValue()
                }
            }
            try scanner.expectEnd()
            guard let type else { throw JSONFailure("the GeoJSON object has no \"type\" member", at: objectStart) }
            let end = scanner.position
            for member in deferred {
                scanner.position = member.offset
                scanner.depth = 1
                try readTopLevelMember(
                    member.key, kind: type.kind, features: &features, feature: &feature, geometry: &geometry)
            }
            scanner.position = end
            scanner.depth = 0
            switch type.kind {
            case .featureCollection:
                guard hasFeatures else {
                    throw JSONFailure("the FeatureCollection has no \"features\" member", at: objectStart)
                }
                return .features(features)
            case .feature:
                return .feature(Feature(geometry: feature.geometry, properties: feature.properties, id: feature.id))
            case .geometry:
                let g = try buildGeometry(
                    type: type.name, typeOffset: type.offset, parts: geometry, objectStart: objectStart)
                return .geometry(g, TextPosition.lineAndColumn(ofOffset: objectStart, in: scanner.bytes))
            }
        }

        /// Reads a member of the top-level object whose type is known; members foreign to that type are skipped.
        private mutating func readTopLevelMember(
            _ key: String, kind: Kind, features: inout [Feature], feature: inout FeatureParts,
            geometry: inout GeometryParts
        ) throws(JSONFailure) {
            switch (kind, key) {
            case (.featureCollection, "features"):
                features = try readFeatures()
            case (.feature, "geometry"), (.feature, "properties"), (.feature, "id"):
                do {
                    try readFeatureMember(key, into: &feature)
                } catch {
                    throw JSONFailure(error.message, at: error.offset, feature: 0)
                }
            case (.geometry, "coordinates"):
                geometry.coordinatesOffset = scanner.position
                try readCoordinates()
                geometry.hasCoordinates = true
            default:
                try scanner.skipValue()
            }
        }

        /// Reads a "type" member's string value and its offset.
        private mutating func readType() throws(JSONFailure) -> (name: String, offset: Int) {
            let offset = scanner.position
            guard scanner.peek() == ASCII.quote else {
                throw JSONFailure("\"type\" must be a string", at: scanner.position)
            }
            return (try scanner.parseString(), offset)
        }

        // MARK: Features

        private mutating func readFeatures() throws(JSONFailure) -> [Feature] {
            guard scanner.peek() == ASCII.leftBracket else {
                throw JSONFailure("\"features\" must be an array", at: scanner.position)
            }
            try scanner.beginArray()
            var features: [Feature] = []
            var first = true
            var index = 0
            featureOffsets = []
            while try scanner.nextElement(first: &first) {
                let offset = scanner.position
                if let onFeature {
                    let feature: Feature
                    do { feature = try readFeature() } catch {
                        throw JSONFailure(error.message, at: error.offset, feature: error.feature ?? index)
                    }
                    try onFeature(feature, offset)
                    index += 1
                    continue
                }
                featureOffsets.append(offset)
                do {
                    features.append(try readFeature())
                } catch {
                    throw JSONFailure(error.message, at: error.offset, feature: error.feature ?? index)
                }
                index += 1
            }
            return features
        }

        private mutating func readFeature() throws(JSONFailure) -> Feature {
            let objectStart = scanner.position
            guard scanner.peek() == ASCII.leftBrace else {
                throw JSONFailure("a feature must be an object", at: scanner.position)
            }
            try scanner.beginObject()
            var type: (name: String, offset: Int)?
            var parts = FeatureParts()
            var first = true
            while let member = try scanner.nextKey(first: &first) {
                switch member.key {
                case "type": type = try readType()
                case "geometry", "properties", "id": try readFeatureMember(member.key, into: &parts)
                default: try scanner.skipValue()
                }
            }
            guard let type else { throw JSONFailure("the feature has no \"type\" member", at: objectStart) }
            guard type.name == "Feature" else {
                throw JSONFailure("expected a \"Feature\", found type \"\(type.name)\"", at: type.offset)
            }
            return Feature(geometry: parts.geometry, properties: parts.properties, id: parts.id)
        }

        private mutating func readFeatureMember(_ key: String, into parts: inout FeatureParts) throws(JSONFailure) {
            let offset = scanner.position
            let b = scanner.peek()
            switch key {
            case "geometry":
                if b == ASCII.lowerN {
                    try scanner.skipValue()
                    parts.geometry = nil
                } else if b == ASCII.leftBrace {
                    parts.geometry = try readGeometryObject()
                } else {
                    throw JSONFailure("\"geometry\" must be an object or null", at: offset)
                }
            case "properties":
                switch try scanner.parseValue() {
                case .object(let o): parts.properties = o
                case .null: parts.properties = [:]
                default: throw JSONFailure("\"properties\" must be an object or null", at: offset)
                }
            default:  // "id"
                switch try scanner.parseValue() {
                case .null: parts.id = nil
                case let v where v.stringValue != nil || v.doubleValue != nil: parts.id = v
                default: throw JSONFailure("\"id\" must be a string or a number", at: offset)
                }
            }
        }

        // MARK: Geometries

        private mutating func readGeometryObject() throws(JSONFailure) -> Geometry? {
            let objectStart = scanner.position
            try scanner.beginObject()
            var type: (name: String, offset: Int)?
            var parts = GeometryParts()
            var first = true
            while let member = try scanner.nextKey(first: &first) {
                switch member.key {
                case "type":
                    type = try readType()
                case "coordinates":
                    parts.coordinatesOffset = scanner.position
                    try readCoordinates()
                    parts.hasCoordinates = true
                default:
                    try scanner.skipValue()
                }
            }
            guard let type else { throw JSONFailure("the geometry has no \"type\" member", at: objectStart) }
            guard try GeoJSONReader.kind(of: type.name, at: type.offset) == .geometry else {
                throw JSONFailure("expected a geometry type, found \"\(type.name)\"", at: type.offset)
            }
            return try buildGeometry(type: type.name, typeOffset: type.offset, parts: parts, objectStart: objectStart)
        }

        /// Reads a "coordinates" value into the scratch space, checking that its nesting is consistent.
        private mutating func readCoordinates() throws(JSONFailure) {
            flat.removeAll(keepingCapacity: true)
            for level in counts.indices {
                counts[level].removeAll(keepingCapacity: true)
                offsets[level].removeAll(keepingCapacity: true)
            }
            positionLevel = nil
            maxContainerLevel = -1
            guard scanner.peek() == ASCII.leftBracket else {
                throw JSONFailure("\"coordinates\" must be an array", at: scanner.position)
            }
            mixedHeights = false
            try readCoordinateArray(level: 0)
            // One rule for mixed dimensions (see `Coordinate`): a geometry has heights only when all its positions do.
            if mixedHeights {
                for i in flat.indices { flat[i].z = nil }
            }
        }

        private mutating func readCoordinateArray(level: Int) throws(JSONFailure) {
            let start = scanner.position
            try scanner.beginArray()
            var first = true
            guard try scanner.nextElement(first: &first) else {
                try noteContainer(level: level, count: 0, offset: start)
                return
            }
            if scanner.bytes[scanner.position] == ASCII.leftBracket {
                var count = 0
                repeat {
                    guard scanner.peek() == ASCII.leftBracket else {
                        throw JSONFailure(
                            "coordinates are nested inconsistently (expected '[' here)", at: scanner.position)
                    }
                    try readCoordinateArray(level: level + 1)
                    count += 1
                } while try scanner.nextElement(first: &first)
                try noteContainer(level: level, count: count, offset: start)
                return
            }
            // A position.
            if let p = positionLevel {
                guard p == level else {
                    throw JSONFailure(
                        "coordinates are nested inconsistently (a position at the wrong depth)", at: start)
                }
            } else {
                guard level > maxContainerLevel else {
                    throw JSONFailure(
                        "coordinates are nested inconsistently (a position at the wrong depth)", at: start)
                }
                positionLevel = level
            }
            var values = 0
            var x = 0.0
            var y = 0.0
            var z: Double?
            repeat {
                let b = scanner.bytes[scanner.position]
                guard b == ASCII.minus || b &- ASCII.zero < 10 else {
                    if b == ASCII.upperN || b == ASCII.upperI {
                        throw JSONFailure("NaN and Infinity are not valid JSON numbers", at: scanner.position)
                    }
                    throw scanner.unexpected("a number in a position")
                }
                let v = try scanner.parseNumber()
                switch values {
                case 0: x = v
                case 1: y = v
                case 2: z = v
                default: break
                }
                values += 1
            } while try scanner.nextElement(first: &first)
            guard values >= 2 else {
                throw JSONFailure(
                    "a position needs at least 2 numbers (longitude, latitude), found \(values)", at: start)
            }
            if let previous = flat.last, (previous.z == nil) != (z == nil) { mixedHeights = true }
            flat.append(Coordinate(x: x, y: y, z: z))
        }

        private mutating func noteContainer(level: Int, count: Int, offset: Int) throws(JSONFailure) {
            if let p = positionLevel, level >= p {
                throw JSONFailure(
                    level == p
                        ? "a position needs at least 2 numbers (longitude, latitude), found 0"
                        : "coordinates are nested inconsistently", at: offset)
            }
            maxContainerLevel = max(maxContainerLevel, level)
            while counts.count <= level {
                counts.append([])
                offsets.append([])
            }
            counts[level].append(count)
            offsets[level].append(offset)
        }

        /// The arrays of positions at `level`, cut out of `flat` in order.
        private func positionLists(level: Int) -> [[Coordinate]] {
            guard level < counts.count else { return [] }
            var lists: [[Coordinate]] = []
            lists.reserveCapacity(counts[level].count)
            var k = 0
            for c in counts[level] {
                lists.append(Array(flat[k..<k + c]))
                k += c
            }
            return lists
        }

        private func checkRing(_ ring: [Coordinate], offset: Int) throws(JSONFailure) {
            guard ring.count >= 4 else {
                throw JSONFailure("a linear ring needs at least 4 positions, found \(ring.count)", at: offset)
            }
            guard ring[0] == ring[ring.count - 1] else {
                throw JSONFailure(
                    "a linear ring must end where it starts (its first and last positions differ)",
                    at: offset)
            }
        }

        /// Builds the geometry from the scratch space; `nil` for empty coordinates.
        private func buildGeometry(type: String, typeOffset: Int, parts: GeometryParts, objectStart: Int)
            throws(JSONFailure) -> Geometry?
        {
            let depth: Int
            let shape: String
            switch type {
            case "Point": (depth, shape) = (0, "a position")
            case "MultiPoint", "LineString": (depth, shape) = (1, "an array of positions")
            case "MultiLineString": (depth, shape) = (2, "an array of arrays of positions")
            case "Polygon": (depth, shape) = (2, "an array of linear rings (arrays of positions)")
            default: (depth, shape) = (3, "an array of polygons (arrays of linear rings)")
            }
            guard parts.hasCoordinates else {
                throw JSONFailure("the \(type) has no \"coordinates\" member", at: objectStart)
            }
            let at = parts.coordinatesOffset
            if let p = positionLevel {
                guard p == depth else { throw JSONFailure("\(type) \"coordinates\" must be \(shape)", at: at) }
            } else {
                if counts.first == [0] { return nil }  // "coordinates": []
                guard maxContainerLevel < depth else {
                    throw JSONFailure("\(type) \"coordinates\" must be \(shape)", at: at)
                }
            }
            switch type {
            case "Point":
                return .point(Point(flat[0], spatialReference: .wgs84))
            case "MultiPoint":
                return .multipoint(Multipoint(flat, spatialReference: .wgs84))
            case "LineString":
                guard flat.count >= 2 else {
                    throw JSONFailure("a LineString needs at least 2 positions, found \(flat.count)", at: at)
                }
                return .polyline(Polyline(flat, spatialReference: .wgs84))
            case "MultiLineString":
                let lines = positionLists(level: 1)
                for (i, line) in lines.enumerated() where line.count < 2 {
                    throw JSONFailure(
                        "a LineString needs at least 2 positions, found \(line.count)",
                        at: offsets[1][i])
                }
                return .polyline(Polyline(parts: lines, spatialReference: .wgs84))
            case "Polygon":
                let rings = positionLists(level: 1)
                for (i, ring) in rings.enumerated() { try checkRing(ring, offset: offsets[1][i]) }
                return .polygon(
                    Polygon(
                        parts: [Polygon.Part(shell: rings[0], holes: Array(rings.dropFirst()))],
                        spatialReference: .wgs84))
            default:  // MultiPolygon
                let rings = positionLists(level: 2)
                for (i, ring) in rings.enumerated() { try checkRing(ring, offset: offsets[2][i]) }
                var polygonParts: [Polygon.Part] = []
                var k = 0
                for (i, ringCount) in counts[1].enumerated() {
                    guard ringCount > 0 else {
                        throw JSONFailure("a polygon needs at least one linear ring", at: offsets[1][i])
                    }
                    polygonParts.append(Polygon.Part(shell: rings[k], holes: Array(rings[k + 1..<k + ringCount])))
                    k += ringCount
                }
                return .polygon(Polygon(parts: polygonParts, spatialReference: .wgs84))
            }
        }
    }

    // MARK: - Writing

    /// The number of positions a geometry has, without building them.
    private static func positionCount(_ geometry: Geometry) -> Int {
        switch geometry {
        case .point: 1
        case .multipoint(let m): m.coordinates.count
        case .polyline(let l): l.parts.reduce(0) { $0 + $1.count }
        case .polygon(let p): p.vertexCount
        case .envelope: 5
        }
    }

    private static func writeFeature(_ feature: Feature, to w: inout JSONWriter) {
        w.beginObject()
        var first = true
        w.key("geometry", first: &first)
        if let g = feature.geometry { writeGeometry(g, to: &w) } else { w.writeNull() }
        if let id = feature.id {
            w.key("id", first: &first)
            w.write(id)
        }
        w.key("properties", first: &first)
        w.writeObject(feature.properties)
        w.key("type", first: &first)
        w.writeString("Feature")
        w.endObject(empty: false)
    }

    private static func writeGeometry(_ geometry: Geometry, to w: inout JSONWriter) {
        w.beginObject()
        var first = true
        w.key("coordinates", first: &first)
        let type: StaticString
        switch geometry {
        case .point(let p):
            type = "Point"
            writePosition(p.coordinate, to: &w)
        case .multipoint(let m):
            type = "MultiPoint"
            writePositions(m.coordinates, to: &w)
        case .polyline(let l):
            if l.parts.count == 1 {
                type = "LineString"
                writePositions(l.parts[0], to: &w)
            } else {
                type = "MultiLineString"
                writeList(l.parts, to: &w) { w, part in writePositions(part, to: &w) }
            }
        case .polygon(let p):
            if p.parts.count == 1 {
                type = "Polygon"
                writeRings(p.parts[0], to: &w)
            } else {
                type = "MultiPolygon"
                writeList(p.parts, to: &w) { w, part in writeRings(part, to: &w) }
            }
        case .envelope(let e):
            type = "Polygon"
            writeRings(e.polygon.parts[0], to: &w)
        }
        w.key("type", first: &first)
        w.bytes.append(ASCII.quote)
        w.append(type)
        w.bytes.append(ASCII.quote)
        w.endObject(empty: false)
    }

    private static func writeList<T>(_ items: [T], to w: inout JSONWriter, _ each: (inout JSONWriter, T) -> Void) {
        w.beginArray()
        var first = true
        for item in items {
            w.element(first: &first, multiline: false)
            each(&w, item)
        }
        w.endArray(empty: items.isEmpty, multiline: false)
    }

    private static func writePosition(_ c: Coordinate, to w: inout JSONWriter) {
        w.beginArray()
        var first = true
        w.element(first: &first, multiline: false)
        w.writeNumber(c.x)
        w.element(first: &first, multiline: false)
        w.writeNumber(c.y)
        if let z = c.z {
            w.element(first: &first, multiline: false)
            w.writeNumber(z)
        }
        w.endArray(empty: false, multiline: false)
    }

    private static func writePositions(_ coordinates: [Coordinate], to w: inout JSONWriter) {
        writeList(coordinates, to: &w) { w, c in writePosition(c, to: &w) }
    }

    /// Writes a polygon part's rings closed, the shell counter-clockwise and the holes clockwise.
    private static func writeRings(_ part: Polygon.Part, to w: inout JSONWriter) {
        let rings =
            [oriented(part.shell, counterClockwise: true)]
            + part.holes.map { oriented($0, counterClockwise: false) }
        writeList(rings, to: &w) { w, ring in
            writePositions(ring, to: &w)
            w.bytes.flushIfFull()  // a streaming output drains between rings, even within one huge geometry
        }
    }

    /// The ring closed and, unless its area is zero, in the requested orientation.
    static func oriented(_ ring: [Coordinate], counterClockwise: Bool) -> [Coordinate] {
        let closed = Polygon.closed(ring)
        let area = Polygon.signedArea(closed)
        if area == 0 || (area > 0) == counterClockwise { return closed }
        return closed.reversed()
    }
}
