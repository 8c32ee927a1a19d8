import Foundation
import Meridian
import MeridianIO

/// Writes the result of `meridian buffer` (planar or geodesic) in the format the output's extension names.
enum BufferOutput {
    /// Writes buffers made whole (a union, or a picture or document of every buffer): WKT (in the buffers' spatial
    /// reference), SVG (a picture with the area of use when given), KML/KMZ (styled like the sample: yellow 60%
    /// fill, green outline, red inputs), or GeoJSON for a union (one feature with a `count`). Buffers without
    /// `--union` in a per-feature format are written by `FeatureStreamWriter` instead.
    /// - Parameters:
    ///   - buffers: One polygon per input, or the union.
    ///   - inputs: The buffered geometries, in any spatial reference.
    ///   - areaOfUse: The planar spatial reference's area of use, drawn in the SVG.
    ///   - output: Where to write.
    ///   - io: The command's streams.
    static func write(
        buffers: [Polygon], inputs: [Geometry], areaOfUse: Polygon?, to output: OutputFile, io: CommandIO
    ) throws(CommandError) {
        switch output.format {
        case .wkt:
            try output.stream(io: io) { out throws(CommandError) in FeatureEncoding.writeWKT(buffers.map { $0.geometry }, to: &out) }
        case .svg:
            guard let sr = buffers.first?.spatialReference else { throw .failure("no buffers to draw") }
            var picture = SVGPicture()
            picture.buffers = buffers
            for g in inputs {
                let projected = try engine { () throws(EngineError) in try GeometryEngine.project(g, into: sr) }
                if case .point(let p) = projected { picture.points.append(p.coordinate) }
                if case .multipoint(let m) = projected { picture.points += m.coordinates }
            }
            picture.areaOfUse = areaOfUse
            picture.title = "Buffers in \(sr.name)"
            try output.stream(io: io) { out throws(CommandError) in picture.render(to: &out) }
        case .kml, .kmz:
            guard let path = output.path else { throw .usage("KML output needs a file name (-o out.kmz)") }
            do {
                let document = try KMLDocument.bufferDocument(inputs: inputs, buffers: buffers, name: "Buffers")
                try document.save(to: URL(fileURLWithPath: path), overwrite: true)
            } catch {
                throw .failure(error.description)
            }
        case .geoJSON:
            try writeUnion(buffers.first, count: inputs.count, to: output, io: io)
        case .table:
            guard let sr = buffers.first?.spatialReference else { throw .failure("no buffers to write") }
            try writeUnionTable(buffers.first, count: inputs.count, in: sr, to: output, io: io)
        case .geoJSONSequence, .csv, .text:
            throw .usage("\(output.format.name) is written a feature at a time, not as a union")
        }
    }

    /// Writes a union to a feature table (GeoPackage, shapefile, FlatGeobuf, PostGIS): one polygon feature with a
    /// `count` field, as GeoJSON's, in the buffers' spatial reference.
    static func writeUnionTable(_ union: Polygon?, count: Int, in sr: SpatialReference, to output: OutputFile,
                                io: CommandIO) throws(CommandError)
    {
        let feature = Feature(geometry: union.map { .polygon($0) }, properties: ["count": .number(Double(count))])
        try FeatureTableOutput.write([feature], to: output, spatialReference: sr, geometryType: .polygon,
                                     fields: [Field(name: "count", type: .int64)], io: io)
    }

    /// Circles unioned at once by `streamUnion` (clusters are not split): bounds the union's memory to about a
    /// batch's worth of polygons, whatever the input's size.
    static let unionBatchSize = 65_536

    /// Unions the buffers around points batch by batch (`GeometryEngine.unionOfBuffers(…batchSize:_:)`) and writes
    /// each batch's parts as soon as it is done, so the whole union is never held: WKT (`MULTIPOLYGON`, in the
    /// buffers' spatial reference) or GeoJSON (one feature, a `MultiPolygon` projected to WGS84 batch by batch, with
    /// a `count` property). For more than `unionBatchSize` points; the parts are the same as those of the whole
    /// union, in another order. Overlapped, the next batch is unioned on a second thread while this one is
    /// projected and written; the bytes written are the same either way.
    /// - Parameters:
    ///   - points: The centres, in `sr`.
    ///   - distances: One radius per point, or one for all, in `sr`'s unit.
    ///   - sr: The planar spatial reference.
    ///   - parameters: The buffer parameters.
    ///   - labels: How messages name the points.
    ///   - output: WKT or GeoJSON.
    ///   - io: The command's streams.
    ///   - progress: Where to show how many circles are done.
    ///   - batchSize: Circles per batch (`unionBatchSize`; smaller in tests).
    ///   - overlapped: Whether the next batch's union runs on a second thread while this one is written.
    ///   - stop: Asked before each batch is written: true ends the union (`finish` then says why).
    ///   - finish: Called once the last batch is written, or after a failure, before the output is completed: what
    ///     it throws (e.g. a check that ran alongside and failed) replaces the union's error and leaves no output.
    static func streamUnion(
        of points: [Coordinate], distances: [Double], in sr: SpatialReference, parameters: BufferParameters,
        labels: FeatureLabels, to output: OutputFile, io: CommandIO, progress: ProgressLine?,
        batchSize: Int = unionBatchSize, overlapped: Bool = true, stop: () -> Bool = { false },
        finish: () throws(CommandError) -> Void = {}
    ) throws(CommandError) {
        let wkt = output.format.writesInWorkingSpatialReference
        let projection = wkt ? nil : try engine { () throws(EngineError) in
            try InterpolatedProjection(from: sr, to: .wgs84)
        }
        try output.stream(io: io) { out throws(CommandError) in
            progress?.begin("union", unit: "buffers", total: points.count)
            if wkt {
                out.append("MULTIPOLYGON (" as StaticString)
            } else {
                out.append("{\"features\":[{\"geometry\":{\"coordinates\":[" as StaticString)
            }
            var first = true
            do throws(EngineError) {
                try GeometryEngine.unionOfBuffers(
                    aroundPoints: points, distances: distances, in: sr, parameters: parameters,
                    batchSize: batchSize, overlapped: overlapped
                ) { (batch: Polygon, done: Int) throws(EngineError) in
                    if stop() { throw .interrupted("stopped before writing a batch") }
                    try appendParts(of: batch, projection: projection, first: &first, to: &out)
                    progress?.update(done)
                }
            } catch {
                try finish()
                throw .failure(error.description(naming: { labels.label(of: $0) }))
            }
            try finish()
            if wkt {
                out.append(")\n" as StaticString)
            } else {
                out.append("],\"type\":\"MultiPolygon\"},\"properties\":{\"count\":" as StaticString)
                out.appendInteger(points.count)
                out.append("},\"type\":\"Feature\"}],\"type\":\"FeatureCollection\"}\n" as StaticString)
            }
        }
    }

    /// As `streamUnion`, into a feature table (GeoPackage, shapefile, FlatGeobuf, PostGIS): one polygon feature with
    /// a `count` field, each batch's parts handed to GDAL's geometry as soon as the batch is done
    /// (`FeatureTableOutput.writeUnion`), so the whole union is never held twice; its parts come in the order of the
    /// streamed WKT. `stop` and `finish` as in `streamUnion`; nothing is written when anything fails.
    static func streamUnionTable(
        of points: [Coordinate], distances: [Double], in sr: SpatialReference, parameters: BufferParameters,
        labels: FeatureLabels, count: Int, to output: OutputFile, io: CommandIO, progress: ProgressLine?,
        stop: () -> Bool, finish: () throws(CommandError) -> Void
    ) throws(CommandError) {
        var table = FeatureTableOutput(output, spatialReference: sr, geometryType: .polygon)
        try table.writeUnion(count: count, io: io) { add throws(CommandError) in
            progress?.begin("union", unit: "buffers", total: points.count)
            var failure: CommandError?
            do throws(EngineError) {
                try GeometryEngine.unionOfBuffers(
                    aroundPoints: points, distances: distances, in: sr, parameters: parameters,
                    batchSize: unionBatchSize, overlapped: true
                ) { (batch: Polygon, done: Int) throws(EngineError) in
                    if stop() { throw .interrupted("stopped before writing a batch") }
                    do throws(CommandError) {
                        try add(batch)
                    } catch {
                        failure = error
                        throw .interrupted("the table could not be written")
                    }
                    progress?.update(done)
                }
            } catch {
                try finish()
                throw failure ?? .failure(error.description(naming: { labels.label(of: $0) }))
            }
            try finish()
        }
    }

    /// Vertices in a chunk of a union batch's parts that `appendParts` hands to one of its threads (about 0.7 MB of
    /// text).
    static let chunkVertices = 32_768

    /// Chunks `appendParts` may have claimed (being made, or made and waiting to be written) per thread: with 2 on
    /// two threads, up to about 3 MB of text is held.
    static let chunkWindow = 2

    /// Appends a union batch's parts in order: WKT polygon texts (in the batch's spatial reference) or GeoJSON
    /// polygon coordinate arrays (projected to WGS84 here, a ring at a time into one buffer per chunk by
    /// `RingProjector`, and written from it), each but the output's first preceded by a comma (", " in WKT). The parts
    /// go in chunks of about `chunkVertices` vertices, each projected and formatted by whichever of `threads` threads
    /// is free (`OrderedWorkSharing`, at most `chunkWindow` chunks per thread ahead), this one writing every chunk in
    /// order as soon as it is ready, so the writing does not hold up the projection and the bytes are the same as one
    /// thread's, whatever the timing.
    /// - Parameters:
    ///   - batch: The batch's parts.
    ///   - projection: From the batch's spatial reference to WGS84 for GeoJSON; nil for WKT.
    ///   - first: Whether nothing has been written yet (no comma before the first part); false afterwards.
    ///   - out: The output.
    ///   - threads: The most threads to use (`Parallelism.threadCount`; 1 does everything on this thread).
    /// - Throws: `EngineError.projectionFailed` (GeoJSON).
    static func appendParts(of batch: Polygon, projection: InterpolatedProjection?, first: inout Bool,
                            to out: inout ByteBuffer, threads: Int = Parallelism.threadCount) throws(EngineError)
    {
        let parts = batch.parts, sr = batch.spatialReference
        var ends = [0]  // chunk c is parts[bounds[c]..<bounds[c + 1]]
        var vertices = 0
        for (i, part) in parts.enumerated() {
            vertices += part.shell.count + part.holes.reduce(0) { $0 + $1.count }
            if vertices >= chunkVertices || i == parts.count - 1 {
                ends.append(i + 1)
                vertices = 0
            }
        }
        let bounds = ends, chunks = ends.count - 1
        @Sendable func format(_ c: Int, leadingComma: Bool, to o: inout ByteBuffer) throws(EngineError) {
            guard let projection else {
                for (i, part) in parts[bounds[c]..<bounds[c + 1]].enumerated() {
                    if leadingComma || i > 0 { o.append(", " as StaticString) }
                    WKT.appendPolygonPart(part, to: &o)
                }
                return
            }
            guard sr == projection.source else { throw .spatialReferenceMismatch(projection.source, sr) }
            // Each ring projected into one reused buffer and written from there: no copy of the chunk's parts.
            var rings = RingProjector(projection)
            for (i, part) in parts[bounds[c]..<bounds[c + 1]].enumerated() {
                if leadingComma || i > 0 { o.append(UInt8(ascii: ",")) }
                try GeoJSON.appendPolygonPart(part, to: &o) { (ring, write) throws(EngineError) in
                    try rings.withProjected(ring, write)
                }
            }
        }
        // Each chunk's text is made by whichever thread is free; this one writes them in order.
        let commaBeforeFirst = !first
        try OrderedWorkSharing.run(count: chunks, window: chunkWindow * threads, helpers: threads - 1) {
            (c: Int) throws(EngineError) -> Data in
            var text = ByteBuffer(capacity: 24 * chunkVertices)
            try format(c, leadingComma: c > 0 || commaBeforeFirst, to: &text)
            return text.data()  // no copy
        } consume: { (text: Data, _: Int) throws(EngineError) in
            text.withUnsafeBytes { out.append($0) }
            first = false
            out.flushIfFull()
        }
    }

    /// Writes the union of `count` buffers as WKT (in its spatial reference) or as GeoJSON (one feature with a
    /// `count` property). For GeoJSON the polygon is projected to WGS84 in place (`InterpolatedProjection`), ring by
    /// ring, so no second copy of a large union is made.
    /// - Parameters:
    ///   - union: The unioned polygon (nil writes a feature without geometry).
    ///   - count: How many buffers it unites.
    ///   - output: Where to write: WKT, or GeoJSON.
    ///   - io: The command's streams.
    ///   - progress: Where to show the phases.
    static func writeUnion(_ union: consuming Polygon?, count: Int, to output: OutputFile, io: CommandIO,
                           progress: ProgressLine? = nil) throws(CommandError)
    {
        if output.format.writesInWorkingSpatialReference {
            guard let union else { return }
            try output.stream(io: io, progress: progress) { out throws(CommandError) in FeatureEncoding.writeWKT([union.geometry], to: &out) }
            return
        }
        var geometry: Geometry?
        if var polygon = union {
            progress?.begin("projecting the union to WGS84")
            try engine { () throws(EngineError) in
                try InterpolatedProjection(from: polygon.spatialReference, to: .wgs84).project(&polygon)
            }
            geometry = .polygon(polygon)
        }
        let feature = Feature(geometry: geometry, properties: ["count": .number(Double(count))])
        try output.stream(io: io, progress: progress) { out throws(CommandError) in
            GeoJSON.beginFeatureCollection(to: &out)
            GeoJSON.appendFeature(feature, first: true, to: &out)
            GeoJSON.endFeatureCollection(to: &out)
            out.append(UInt8(ascii: "\n"))
        }
    }
}
