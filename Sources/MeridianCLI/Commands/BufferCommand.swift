import Foundation
import Meridian

/// `meridian buffer`: planar buffers around features in a projected spatial reference, like the seed sample.
public enum BufferCommand: Command {
    /// The subcommand name.
    public static let name = "buffer"
    /// One line for `meridian --help`.
    public static let summary = "buffer points, lines and polygons (planar in a projected SRS, or --geodesic)"
    /// The `--help` text.
    public static var help: String {
        """
        Usage: meridian buffer [INPUT] --srs SRS (--distance D | --distance-field NAME [--unit U])
                               [--union] [--segments N] [--in-srs SRS] [--allow-outside-area] [--max-vertices N]
                               [-o OUTPUT]

        Buffers every feature of INPUT in the projected spatial reference SRS (planar, in its unit), one buffer per
        feature or, with --union, one dissolved polygon.

        INPUT                 a path or - (stdin, the default): GeoJSON (WGS84 lon/lat, RFC 7946), CSV with a header
                              naming lon,lat (or longitude,latitude) or x,y columns plus any others, or WKT (one
                              geometry per line)
        --srs SRS             where the buffer is computed, e.g. EPSG:32038 (must be projected)
        --distance D          one distance for all features: a number with an optional unit, m km ft us-ft mi
                              us-mi nmi (a bare number is in the SRS unit, US survey feet for EPSG:32038)
        --distance-field NAME take each feature's distance from this property/column
        --unit U              the unit of --distance-field values (default: the SRS unit)
        --union               dissolve all buffers into one (multi-part) polygon
        --segments N          chords per quarter circle, 1-1000 (default 16: 64-gon circles, chord error
                              1 - cos(pi/64) = 0.12% of the radius)
        --in-srs SRS          spatial reference of CSV x,y / WKT input (default: --srs for x,y; WGS84 for lon,lat)
        --allow-outside-area  buffer features outside the SRS's area of use (refused by default: the planar buffer
                              is only meaningful inside it)
        --max-vertices N      without --union: refuse buffers estimated at more than N vertices in all (default
                              5,000,000, about 1 GB at the peak), checked before each batch is buffered
        -o, --output OUTPUT   .geojson (WGS84; the stdout default), .geojsons (a GeoJSON text sequence, one feature
                              per record), .wkt (in --srs, one geometry per line), .csv (the input's columns and a
                              wkt column in --srs), .svg (a picture with the area of use as a red dashed outline),
                              .kml or .kmz (styled like the sample)
        --quiet               no progress line (one is shown on a terminal when the command takes over a second)

        Without --union each output feature keeps its input feature's properties, and GeoJSON, .geojsons, .wkt and
        .csv are written as they are computed, a few thousand features at a time (memory does not grow with the
        input). With --union a large input is unioned and written a batch of separate clusters at a time. GeoJSON
        vertices go to WGS84 through interpolants checked against PROJ, within 1e-11 degrees (about 1 micrometre)
        of PROJ's own results, where the projection is one analytic step (EPSG:5070, UTM, ...).
        Example: meridian buffer cities.csv --srs EPSG:32038 --distance 10mi -o buffers.geojson

        \(geodesicHelp)
        """
    }

    /// Buffers the input (planar, or geodesic with `--geodesic`) and writes the output file or GeoJSON to stdout.
    /// - Throws: `CommandError.usage` for bad options, `.failure` for unreadable input or an unwritable output.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        try run(&arguments, io: io, hooks: BufferHooks())
    }

    /// `run(_:io:)` with the work after the checks replaced by `hooks` (for `InternalCommand`).
    static func run(_ arguments: inout Arguments, io: CommandIO, hooks: BufferHooks) throws(CommandError) {
        if arguments.flag("--geodesic") {
            try runGeodesic(&arguments, io: io, hooks: hooks)
            return
        }
        if try arguments.option("--max-deviation") != nil { throw .usage("--max-deviation applies to --geodesic buffers") }
        let srsText = try arguments.option("--srs")
        var distance = try DistanceOptions(&arguments)
        let union = arguments.flag("--union")
        let segmentsText = try arguments.option("--segments")
        let inSRSText = try arguments.option("--in-srs")
        let allowOutside = arguments.flag("--allow-outside-area")
        let maxVerticesText = try arguments.option("--max-vertices")
        let output = OutputFile(try arguments.option("--output", "-o"))
        let positionals = try arguments.finish(maximumPositionals: hooks.plan == nil ? 1 : .max)

        guard let srsText else { throw .usage("missing --srs (the projected spatial reference to buffer in, e.g. EPSG:32038)") }
        let sr = try parseSpatialReference(srsText)
        guard sr.isProjected, let srUnit = sr.unit else {
            throw .usage("--srs \(srsText) is \(sr.kind.rawValue); a planar buffer needs a projected spatial reference (its unit would be degrees). Use a projected one, e.g. a UTM zone, or --geodesic for a buffer on the ellipsoid")
        }
        try distance.validate()
        var parameters = BufferParameters.default
        if let segmentsText {
            guard let n = Int(segmentsText), (1...1000).contains(n) else {
                throw .usage("--segments expects a whole number from 1 to 1000, got '\(segmentsText)'")
            }
            parameters.segmentsPerQuarterCircle = n
        }
        let maxVertices = try maxVerticesText.map { (t: String) throws(CommandError) -> Int in
            guard let n = Int(t), n > 0 else { throw .usage("--max-vertices expects a positive whole number, got '\(t)'") }
            return n
        }
        let inSRS = try inSRSText.map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        try BufferOutput.check(output)
        if union, ["geojsons", "csv"].contains(output.format) {
            throw .usage("--union writes one polygon: use .geojson, .wkt, .svg, .kml or .kmz, not .\(output.format)")
        }
        if let plan = hooks.plan {
            try plan(BufferPlan(geodesic: false, union: union, output: output, spatialReference: sr,
                                parameters: parameters, maxDeviation: nil,
                                maxVertices: maxVertices ?? defaultMaxVertices, inputs: positionals))
            return
        }

        let job = Job(sr: sr, srUnit: srUnit, distance: distance, parameters: parameters, allowOutside: allowOutside,
                      maxVertices: hooks.vertices != nil ? .max : maxVertices ?? defaultMaxVertices)
        let progress = io.progress(name)
        defer { progress?.finish() }
        if !union, BufferOutput.streamedFormats.contains(output.format) {
            try streamBuffers(positionals.first, inSRS: inSRS, job: job, output: output, io: io, progress: progress,
                              vertices: hooks.vertices)
            return
        }
        // A union needs only the centres and radii: CSV input is then read as points, without features.
        let csvOptions = FeatureInput.CSVOptions(pointsOnly: union, numericColumn: union ? distance.field : nil)
        let input = try FeatureInput.read(positionals.first, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: sr, io: io, csv: csvOptions, progress: progress)
        hooks.read?(input.count)
        if var points = input.points {
            progress?.begin("checking the area of use")
            // The area-of-use check (every point projected to WGS84) runs on a second thread while the distances are
            // checked and the union begins; its error still comes first, and a streamed union stops at its next
            // batch once the check has failed and leaves no output.
            let labels = input.labels
            let all = allowOutside ? [] : [Geometry.multipoint(Multipoint(points, spatialReference: input.spatialReference))]
            let areaCheck = BackgroundTask { () throws(CommandError) in
                guard !all.isEmpty else { return }
                try refuseOutsideAreaOfUse(all, of: sr, label: { _, vertex in labels[vertex] },
                                           override: "--allow-outside-area", verb: "buffer")
            }
            defer { try? areaCheck.wait() }
            var distances: [Double]
            do throws(CommandError) {
                if let fixed = distance.fixed {
                    distances = [fixed.value(in: srUnit)]
                } else {
                    let unit = distance.fieldUnit ?? srUnit
                    distances = (input.columnValues ?? []).map { unit.convert($0, to: srUnit) }
                }
                try refuseUnusableDistances(distances, count: points.count, isAreal: { _ in false },
                                            metersPerUnit: srUnit.metersPerUnit, label: { input.labels[$0] })
                progress?.begin("projecting \(points.count) points")
                do {
                    _ = try GeometryEngine.project(&points, from: input.spatialReference, into: sr)
                } catch {
                    throw .failure(relabel(error.description, "vertex", labels: input.labels))
                }
                if let emit = hooks.union {
                    try areaCheck.wait()
                    try emit(.circles(centres: points, radii: distances, spatialReference: sr, features: input.count))
                    return
                }
                if ["", "geojson", "json", "wkt"].contains(output.format), points.count > BufferOutput.unionBatchSize {
                    try BufferOutput.streamUnion(of: points, distances: distances, in: sr, parameters: parameters,
                                                 labels: input.labels, to: output, io: io, progress: progress,
                                                 stop: { areaCheck.hasFailed }, finish: { () throws(CommandError) in try areaCheck.wait() })
                    return
                }
            } catch {
                try areaCheck.wait()  // the check's error first, as when it ran before everything else
                throw error
            }
            try areaCheck.wait()
            let polygon: Polygon
            progress?.begin("union of \(ProgressLine.grouped(points.count)) buffers")
            do {
                polygon = try GeometryEngine.unionOfBuffers(aroundPoints: points, distances: distances, in: sr,
                                                            parameters: parameters)
            } catch {
                throw .failure(relabel(error.description, "geometry", labels: input.labels))
            }
            points = []
            distances = []
            if ["", "geojson", "json", "wkt"].contains(output.format) {
                try BufferOutput.writeUnion(polygon, count: input.count, to: output, io: io, progress: progress)
            } else {
                let centres = input.points!.map { Geometry.point(Point($0, spatialReference: input.spatialReference)) }
                try BufferOutput.write(
                    buffers: [polygon], inputs: try projectEach(centres, into: sr, labels: input.labels),
                    features: [], union: true, areaOfUse: try? GeometryEngine.areaOfUsePolygon(of: sr), to: output,
                    io: io)
            }
            return
        }

        var vertices = 0
        if union, let emit = hooks.union {
            let (geometries, distances) = try job.checked(input, union: true, verticesSoFar: &vertices)
            try emit(BufferUnionInput(geometries, distances: distances, labels: input.labels))
            return
        }
        let (buffers, geometries) = try job.buffers(of: input, union: union, verticesSoFar: &vertices)
        hooks.vertices?(vertices, input.count)
        try BufferOutput.write(
            buffers: buffers, inputs: geometries, features: input.features, union: union,
            areaOfUse: try? GeometryEngine.areaOfUsePolygon(of: sr), to: output, io: io)
    }

    /// What buffering a feature takes, once the options are checked.
    struct Job {
        let sr: SpatialReference
        let srUnit: LinearUnit
        let distance: DistanceOptions
        let parameters: BufferParameters
        let allowOutside: Bool
        /// `--max-vertices`: the most output vertices (estimated before buffering) without --union.
        let maxVertices: Int

        /// The buffers of the input's features (or their union) and the features' geometries in `sr`, refusing
        /// features without geometry, outside the area of use, invalid polygons, unusable distances and, without
        /// union, more than `maxVertices` estimated vertices counting those already written (`verticesSoFar`).
        func buffers(of input: FeatureInput, union: Bool, verticesSoFar: inout Int) throws(CommandError)
            -> ([Polygon], [Geometry])
        {
            let (geometries, distances) = try checked(input, union: union, verticesSoFar: &verticesSoFar)
            do {
                let buffers = try GeometryEngine.buffer(around: geometries, distances: distances, shouldUnion: union,
                                                        parameters: parameters)
                return (buffers, geometries)
            } catch let error {
                throw .failure(relabel(error.description, "geometry", labels: input.labels))
            }
        }

        /// The input's geometries projected to `sr` and their distances in its unit (one for all, or one per
        /// geometry), with every check `buffers(of:union:verticesSoFar:)` makes before it buffers.
        func checked(_ input: FeatureInput, union: Bool, verticesSoFar: inout Int) throws(CommandError)
            -> (geometries: [Geometry], distances: [Double])
        {
            var inputs: [Geometry] = []
            var distances: [Double] = []
            for (i, feature) in input.features.enumerated() {
                inputs.append(try bufferable(feature, label: input.labels[i]))
                if let d = try distance.fieldDistance(of: feature, label: input.labels[i], in: srUnit) { distances.append(d) }
            }
            if !allowOutside {
                try refuseOutsideAreaOfUse(inputs, of: sr, label: { geometry, _ in input.labels[geometry] },
                                           override: "--allow-outside-area", verb: "buffer")
            }
            if !union {
                let estimate = estimatedBufferVertices(inputs, segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
                let (total, overflow) = verticesSoFar.addingReportingOverflow(estimate)
                verticesSoFar = overflow ? Int.max : total
                guard verticesSoFar <= maxVertices else {
                    throw .failure(vertexLimitMessage(vertices: verticesSoFar, features: input.labels.first + input.count,
                                                      segments: parameters.segmentsPerQuarterCircle, limit: maxVertices))
                }
            }
            // Polygons checked in the input's own coordinates, so that the place GEOS names is where the user looks.
            for (i, g) in inputs.enumerated() {
                if case .polygon = g, let reason = try engine({ () throws(EngineError) in try GeometryEngine.invalidityReason(g) }) {
                    throw .failure("\(input.labels[i]): invalid polygon: \(reason) (GeometryEngine.makeValid can repair it)")
                }
            }
            let geometries = try projectEach(inputs, into: sr, labels: input.labels)
            if let fixed = distance.fixed { distances = [fixed.value(in: srUnit)] }
            try refuseUnusableDistances(distances, count: geometries.count, isAreal: { geometries[$0].isAreal },
                                        metersPerUnit: srUnit.metersPerUnit, label: { input.labels[$0] })
            return (geometries, distances)
        }
    }

    /// Buffers without --union into a format written a feature at a time (GeoJSON, GeoJSON text sequence, WKT, CSV):
    /// the input is read, buffered and written a batch of features at a time, so memory holds one batch.
    static func streamBuffers(
        _ path: String?, inSRS: SpatialReference?, job: Job, output: OutputFile, io: CommandIO,
        progress: ProgressLine?, vertices estimate: ((Int, Int) -> Void)? = nil
    ) throws(CommandError) {
        let format = output.format
        let geoJSON = ["", "geojson", "json", "geojsons"].contains(format)
        let projection = geoJSON ? try engine { () throws(EngineError) in
            try InterpolatedProjection(from: job.sr, to: .wgs84)
        } : nil
        try output.stream(io: io) { out throws(CommandError) in
            var first = true
            var csvHeader = false
            var vertices = 0
            if format == "" || format == "geojson" || format == "json" { GeoJSON.beginFeatureCollection(to: &out) }
            let input = try FeatureInput.read(
                path, inputSpatialReference: inSRS, defaultXYSpatialReference: job.sr, io: io,
                csv: FeatureInput.CSVOptions(keepTable: format == "csv", batchSize: FeatureEncoding.batchSize),
                progress: progress
            ) { batch throws(CommandError) in
                let (buffers, _) = try job.buffers(of: batch, union: false, verticesSoFar: &vertices)
                switch format {
                case "wkt":
                    FeatureEncoding.writeWKT(buffers.map(\.geometry), to: &out)
                case "csv":
                    if !csvHeader {
                        CSV.appendRecord((batch.table?.header ?? ["feature"]) + ["wkt"], to: &out)
                        csvHeader = true
                    }
                    for (i, b) in buffers.enumerated() {
                        var wkt = ByteBuffer(capacity: 64 + 40 * b.vertexCount)
                        WKT.write(b.geometry, to: &wkt)
                        let fields = batch.table?.rows[i] ?? [String(batch.labels.first + i)]
                        CSV.appendRecord(fields + [wkt.string], to: &out)
                    }
                default:
                    // To WGS84 through the interpolants where they apply (as a union's GeoJSON), ring by ring.
                    var polygons = buffers
                    if let projection {
                        for k in polygons.indices {
                            do throws(EngineError) {
                                try projection.project(&polygons[k])
                            } catch {
                                throw .failure("\(batch.labels[k]): buffer: \(error.description)")
                            }
                        }
                    }
                    let features = zip(batch.features, polygons).map {
                        Feature(geometry: .polygon($1), properties: $0.properties, id: $0.id)
                    }
                    for f in try FeatureEncoding.wgs84(features[...]) {
                        if format == "geojsons" {
                            GeoJSON.appendSequenceRecord(f, to: &out)
                        } else {
                            GeoJSON.appendFeature(f, first: first, to: &out)
                            first = false
                        }
                    }
                }
            }
            if format == "" || format == "geojson" || format == "json" {
                GeoJSON.endFeatureCollection(to: &out)
                out.append(UInt8(ascii: "\n"))
            }
            estimate?(vertices, input.count)
        }
    }
}

/// Why buffers are refused for `--max-vertices`.
/// - Parameters:
///   - vertices: The estimated vertex count so far.
///   - features: The features read so far.
///   - segments: `--segments`.
///   - limit: `--max-vertices`.
func vertexLimitMessage(vertices: Int, features: Int, segments: Int, limit: Int) -> String {
    "the buffers would have about \(vertices) vertices (\(features) features, --segments \(segments)), more than the limit of \(limit); use fewer --segments or --union, or raise --max-vertices"
}

/// The default of `--max-vertices`: 5 million output vertices (about 1 GB at the peak: the coordinates in GEOS, in
/// Meridian and as text).
let defaultMaxVertices = 5_000_000

/// An upper estimate of the vertices of planar buffers before any is built: a full circle (4 × segments + 1) per
/// point, and per line or polygon part twice its vertices plus a full circle (offset sides, end caps and joins).
/// - Parameters:
///   - geometries: The geometries to buffer.
///   - segmentsPerQuarterCircle: The chords per quarter circle, 1…1000.
/// - Returns: The estimate (saturating instead of overflowing).
func estimatedBufferVertices(_ geometries: [Geometry], segmentsPerQuarterCircle: Int) -> Int {
    let circle = 4 * segmentsPerQuarterCircle + 1
    var total = 0
    for g in geometries {
        let n: Int
        switch g {
        case .point: n = circle
        case .multipoint(let m): n = m.coordinates.count.multipliedReportingOverflow(by: circle).partialValue
        case .polyline(let l): n = 2 * g.coordinates.count + l.parts.count * circle
        case .polygon(let p): n = 2 * g.coordinates.count + p.parts.count * circle
        case .envelope: n = 8 + circle
        }
        total = total.addingReportingOverflow(n).overflow ? Int.max : total + n
    }
    return total
}

/// The distance rules of the tool, planar and geodesic alike: a point or line needs a positive distance (the
/// library answers any other with an empty polygon, which in a tool is the user's mistake), and a non-zero |distance|
/// must be at least 1 µm (zero is allowed for polygons: nothing to buffer by).
/// - Parameters:
///   - distances: One distance for all, or one per geometry, in the spatial reference's unit.
///   - count: The number of geometries.
///   - isAreal: Whether geometry `i` is a polygon or envelope.
///   - metersPerUnit: Meters per unit of the distances (0.3048006096 for US survey feet, 1 for geodesic meters).
///   - label: The label of feature `i`.
/// - Throws: `CommandError.failure` naming the first feature whose distance cannot be used.
func refuseUnusableDistances(
    _ distances: [Double], count: Int, isAreal: (Int) -> Bool, metersPerUnit: Double, label: (Int) -> String
) throws(CommandError) {
    for i in 0..<count {
        let d = distances.count == 1 ? distances[0] : distances[i]
        guard d.isFinite else { continue }
        if d <= 0, !isAreal(i) {
            throw .failure(String(format: "invalid distance: %@: %.10g; a point or line needs a positive distance",
                                  label(i), d))
        }
        if d != 0, abs(d) * metersPerUnit < 1e-6 {
            throw .failure(String(format: "invalid distance: %@: |%.10g| (%.3g m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)",
                                  label(i), d, abs(d) * metersPerUnit))
        }
    }
}

/// A feature's geometry for a buffer, planar or geodesic: one rule for both, a null or empty geometry is refused.
/// - Parameters:
///   - feature: The input feature.
///   - label: How messages name it, e.g. "feature 3 (line 5)".
/// - Throws: `CommandError.failure` naming the feature.
func bufferable(_ feature: Feature, label: String) throws(CommandError) -> Geometry {
    guard let geometry = feature.geometry else { throw .failure("\(label) has no geometry") }
    guard !geometry.coordinates.isEmpty else { throw .failure("\(label) has an empty geometry (nothing to buffer)") }
    return geometry
}

/// Refuses geometries with a vertex outside a spatial reference's area of use (the one check,
/// `GeometryEngine.firstVertexOutsideAreaOfUse`), naming the feature and the vertex in degrees.
/// - Parameters:
///   - geometries: The input geometries, in any one spatial reference.
///   - sr: The spatial reference whose area of use applies (none known: all accepted).
///   - label: The label of the feature with vertex `vertex` of geometry `geometry` (a multipoint may hold many
///     features' points).
///   - override: The flag that skips the check, named in the message.
///   - verb: What the command does, e.g. "buffer" or "project".
/// - Throws: `CommandError.failure` naming the first feature outside.
func refuseOutsideAreaOfUse(
    _ geometries: [Geometry], of sr: SpatialReference, label: (_ geometry: Int, _ vertex: Int) -> String,
    override: String, verb: String
) throws(CommandError) {
    guard let area = sr.areaOfUse,
          let outside = try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideAreaOfUse(geometries, of: sr) })
    else { return }
    throw .failure(String(format: "%@ at longitude %.6f, latitude %.6f is outside the area of use of %@ (W %g, S %g, E %g, N %g); use %@ to %@ it anyway",
                          label(outside.geometryIndex, outside.vertexIndex), outside.longitude, outside.latitude,
                          sr.name, area.west, area.south, area.east, area.north, override, verb))
}

/// Projects geometries of one spatial reference in a single PROJ call; when a vertex cannot be projected, the error
/// names its feature.
func projectEach(_ geometries: [Geometry], into target: SpatialReference, labels: FeatureLabels) throws(CommandError)
    -> [Geometry]
{
    do {
        return try GeometryEngine.project(geometries, into: target)
    } catch {
        for (i, g) in geometries.enumerated() {
            do { _ = try GeometryEngine.project(g, into: target) } catch { throw .failure("\(labels[i]): \(error.description)") }
        }
        throw .failure(error.description)
    }
}
