import Foundation
import Meridian
import MeridianIO

/// The union steps of `meridian internal`: a cell of a planar union of point buffers (`tile`), the text of parts
/// stitched from cells (`format`), and the union of one group of clusters (`group`). Their text is a fragment of
/// the output `meridian buffer --union` writes: polygon parts separated by commas (GeoJSON coordinate arrays in
/// WGS84, or WKT polygon texts in the planar spatial reference), for `meridian-dask` to put between the header and
/// the footer of the file.
extension InternalCommand {
    /// `tile`: the share of the cell `tile` ([minX, minY, maxX, maxY], `null` for an infinite bound) of the union of
    /// the circles in the file `circles` (`GeometryEngine.unionTileShare`), the circles `queried` (indices) asking
    /// for their local part. Writes `out`.text (the final parts), `out`.pieces (the chains, kind 0), `out`.holes
    /// (each hole the cell owns of a part it does not: its local part, its text's length and its text, a ring of
    /// the output) and `out`.parts (the local part of each queried circle). Result: counts, and `fallback` (why
    /// GEOS computed some of it).
    static func tile(_ job: Job) throws(CommandError) -> [String: JSONValue] {
        let plan = try job.plan()
        guard let sr = plan.spatialReference else { throw .usage("a union in cells is planar") }
        let out = try job.string("out")
        var circles = BinaryRecords.Reader(try readFile(job.string("circles")), name: "circles")
        let xyr = try circles.doubles(try circleCount(job))
        let n = xyr.count / 3
        let x = (0..<n).map { xyr[3 * $0] }, y = (0..<n).map { xyr[3 * $0 + 1] }, r = (0..<n).map { xyr[3 * $0 + 2] }
        var queriedFile = BinaryRecords.Reader(try readFile(job.string("queried")), name: "queried")
        var queried: [Int] = []
        while !queriedFile.atEnd {
            let i = try queriedFile.integer()
            guard (0..<n).contains(i) else { throw .failure("queried: circle \(i) of \(n)") }
            queried.append(i)
        }
        let tile = UnionTile(
            minX: try job.number("tile", 0, nullValue: -.infinity), minY: try job.number("tile", 1, nullValue: -.infinity),
            maxX: try job.number("tile", 2, nullValue: .infinity), maxY: try job.number("tile", 3, nullValue: .infinity))
        let share = try engine { () throws(EngineError) in
            try GeometryEngine.unionTileShare(x: x, y: y, radius: r, queried: queried, tile: tile,
                                              parameters: plan.parameters, in: sr)
        }
        try writeParts(share.parts, in: sr, format: plan.output.format, sequence: job.sequence, to: out + ".text")
        var pieces = Data()
        for (chain, part) in zip(share.chains, share.chainParts) {
            BinaryRecords.append(0, part, to: &pieces)
            BinaryRecords.append(ring: chain, to: &pieces)
        }
        try write(pieces, to: out + ".pieces")
        let projection = try wgs84(from: sr, unless: plan.output.format.writesInWorkingSpatialReference)
        try OutputFile(path: out + ".holes", format: .text).stream(io: .discarding) { holes throws(CommandError) in
            for (hole, part) in zip(share.holes, share.holeParts) {
                let text = try ringText(hole, isShell: false, projection)
                BinaryRecords.append(part, text.count, to: &holes)
                text.withUnsafeBytes { holes.append($0) }
                holes.flushIfFull()
            }
        }
        var parts = Data()
        for p in share.circleParts { BinaryRecords.append(p, to: &parts) }
        try write(parts, to: out + ".parts")
        return [
            "parts": .number(Double(share.parts.count)),
            "holes": .number(Double(share.parts.reduce(0) { $0 + $1.holes.count })),
            "chains": .number(Double(share.chains.count)), "openHoles": .number(Double(share.holes.count)),
            "fallback": share.geosFallbackReason.map { .string($0) } ?? .null,
        ]
    }

    /// `format`: the text of each part in the file `parts` (in the planar spatial reference) into `out`, each as its
    /// length and its text (`meridian-dask` adds the holes the cells wrote before the part's closing bracket).
    static func format(_ job: Job) throws(CommandError) -> [String: JSONValue] {
        let plan = try job.plan()
        guard let sr = plan.spatialReference else { throw .usage("stitched parts are planar") }
        var reader = BinaryRecords.Reader(try readFile(job.string("parts")), name: "parts")
        var parts: [Polygon.Part] = []
        let count = try reader.count(atMost: Int(Int32.max))
        for _ in 0..<count {
            let rings = try reader.count(atMost: Int(Int32.max))
            guard rings > 0 else { throw .failure("parts: a part without a shell") }
            let shell = try reader.ring()
            var holes: [[Coordinate]] = []
            for _ in 1..<rings { holes.append(try reader.ring()) }
            parts.append(Polygon.Part(shell: shell, holes: holes))
        }
        let wkt = plan.output.format.writesInWorkingSpatialReference
        let projection = try wgs84(from: sr, unless: wkt)
        var texts = Data()
        for part in parts {
            var body = Data(wkt ? "(".utf8 : "[".utf8) + (try ringText(part.shell, isShell: true, projection))
            for hole in part.holes {
                body += Data((wkt ? ", " : ",").utf8) + (try ringText(hole, isShell: false, projection))
            }
            body += Data((wkt ? ")" : "]").utf8)
            BinaryRecords.append(body.count, to: &texts)
            texts += body
        }
        try write(texts, to: job.string("out"))
        return ["parts": .number(Double(parts.count))]
    }

    /// `group`: the union of the buffers of the geometries in the file `geometries` (WKB in `srs`, distances,
    /// labels), planar or geodesic as the arguments say, as `meridian buffer --union` computes it; its parts' text
    /// into `out`. Engine messages name the features by their labels.
    static func group(_ job: Job) throws(CommandError) -> [String: JSONValue] {
        let plan = try job.plan()
        let text = try job.string("srs")
        let sr: SpatialReference
        do throws(EngineError) { sr = try SpatialReference(parsing: text) } catch { throw .usage(error.description) }
        var reader = BinaryRecords.Reader(try readFile(job.string("geometries")), name: "geometries")
        var geometries: [Geometry] = [], distances: [Double] = [], labels: [String] = []
        while !reader.atEnd {
            let wkb = try reader.data(try reader.count(atMost: Int(Int32.max)))
            do throws(FormatError) { geometries.append(try WKB.decode(wkb, spatialReference: sr)) } catch {
                throw .failure("geometries: \(error.description)")
            }
            distances += try reader.doubles(1)
            labels.append(String(decoding: try reader.data(try reader.count(atMost: 1 << 20)), as: UTF8.self))
        }
        let union: Polygon
        do {
            if plan.geodesic {
                union = try GeometryEngine.geodeticBuffer(
                    around: geometries, distances: distances, distanceUnit: .meters, maxDeviation: plan.maxDeviation,
                    curveType: .geodesic, shouldUnion: true, outputSpatialReference: .wgs84)[0]
            } else {
                union = try GeometryEngine.buffer(around: geometries, distances: distances, shouldUnion: true,
                                                  parameters: plan.parameters)[0]
            }
        } catch {
            throw .failure(error.description(naming: { location in
                location.geometry.flatMap { labels.indices.contains($0) ? labels[$0] : nil }
            }))
        }
        try writeParts(union.parts, in: union.spatialReference, format: plan.output.format, sequence: job.sequence,
                       to: job.string("out"))
        return ["parts": .number(Double(union.parts.count)),
                "holes": .number(Double(union.parts.reduce(0) { $0 + $1.holes.count }))]
    }

    /// Writes parts as a fragment of a union's output: WKT polygon texts (in `sr`) separated by ", " for .wkt,
    /// else GeoJSON polygon coordinate arrays (projected to WGS84 as `BufferOutput.streamUnion` projects them)
    /// separated by commas; or, with `sequence` (a partitioned output), a GeoJSON text sequence of one Polygon
    /// feature per part.
    private static func writeParts(_ parts: [Polygon.Part], in sr: SpatialReference, format: OutputFormat,
                                   sequence: Bool, to path: String) throws(CommandError)
    {
        let projection = format.writesInWorkingSpatialReference && !sequence ? nil : try engine { () throws(EngineError) in
            try InterpolatedProjection(from: sr, to: .wgs84)
        }
        try OutputFile(path: path, format: .text).stream(io: .discarding) { out throws(CommandError) in
            var first = true
            try engine { () throws(EngineError) in
                guard sequence else {
                    try BufferOutput.appendParts(of: Polygon(parts: parts, spatialReference: sr),
                                                 projection: projection, first: &first, to: &out)
                    return
                }
                for part in parts {
                    var alone = true
                    out.append(0x1E)
                    out.append("{\"geometry\":{\"coordinates\":" as StaticString)
                    try BufferOutput.appendParts(of: Polygon(parts: [part], spatialReference: sr),
                                                 projection: projection, first: &alone, to: &out)
                    out.append(",\"type\":\"Polygon\"},\"properties\":{},\"type\":\"Feature\"}\n" as StaticString)
                    out.flushIfFull()
                }
            }
        }
    }

    /// The projection of a union's GeoJSON output to WGS84 (as `BufferOutput.streamUnion` makes it), or nil for
    /// WKT (`wkt`).
    private static func wgs84(from sr: SpatialReference, unless wkt: Bool) throws(CommandError)
        -> InterpolatedProjection?
    {
        wkt ? nil : try engine { () throws(EngineError) in try InterpolatedProjection(from: sr, to: .wgs84) }
    }

    /// One ring of a union's output: WKT (in the ring's planar spatial reference) without `projection`, else
    /// GeoJSON projected to WGS84 as `BufferOutput.appendParts` projects a part, closed and oriented as a shell or
    /// a hole.
    private static func ringText(_ ring: [Coordinate], isShell: Bool, _ projection: InterpolatedProjection?)
        throws(CommandError) -> Data
    {
        var out = ByteBuffer(capacity: 64 + 40 * ring.count)
        guard let projection else {
            WKT.appendRing(Polygon.closed(ring), to: &out)
            return out.data()
        }
        var polygon = Polygon(parts: [Polygon.Part(shell: ring, holes: [])], spatialReference: projection.source)
        try engine { () throws(EngineError) in try projection.project(&polygon) }
        GeoJSON.appendPolygonRing(polygon.parts[0].shell, isShell: isShell, to: &out)
        return out.data()
    }

    /// The number of doubles in the job's circles file (three per circle).
    private static func circleCount(_ job: Job) throws(CommandError) -> Int {
        let path = try job.string("circles")
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size % 24 == 0 else { throw .failure("\(path): not a whole number of circles") }
        return size / 8
    }

    /// A whole file.
    private static func readFile(_ path: String) throws(CommandError) -> Data {
        try CommandIO.discarding.read(path)
    }
}
