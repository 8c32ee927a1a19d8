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
                               [--union] [--segments N] [--in-srs SRS] [--allow-outside-area] [-o OUTPUT]

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
        -o, --output OUTPUT   .geojson (WGS84; the stdout default), .geojsons (a GeoJSON text sequence, one feature
                              per record), .wkt (in --srs, one geometry per line), .csv (the input's columns and a
                              wkt column in --srs), .svg (a picture with the area of use as a red dashed outline),
                              .kml or .kmz (styled like the sample)
        --quiet               no progress line (one is shown on a terminal when the command takes over a second)

        Without --union each output feature keeps its input feature's properties, and GeoJSON, .geojsons, .wkt and
        .csv are written as they are computed, a few thousand features at a time (memory does not grow with the
        input). With --union a large input is unioned and written a batch of separate clusters at a time.
        Example: meridian buffer cities.csv --srs EPSG:32038 --distance 10mi -o buffers.geojson

        \(geodesicHelp)
        """
    }

    /// Buffers the input (planar, or geodesic with `--geodesic`) and writes the output file or GeoJSON to stdout.
    /// - Throws: `CommandError.usage` for bad options, `.failure` for unreadable input or an unwritable output.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        if arguments.flag("--geodesic") {
            try runGeodesic(&arguments, io: io)
            return
        }
        if try arguments.option("--max-deviation") != nil { throw .usage("--max-deviation applies to --geodesic buffers") }
        let srsText = try arguments.option("--srs")
        var distance = try DistanceOptions(&arguments)
        let union = arguments.flag("--union")
        let segmentsText = try arguments.option("--segments")
        let inSRSText = try arguments.option("--in-srs")
        let allowOutside = arguments.flag("--allow-outside-area")
        let output = OutputFile(try arguments.option("--output", "-o"))
        let positionals = try arguments.finish(maximumPositionals: 1)

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
        let inSRS = try inSRSText.map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        try BufferOutput.check(output)

        let progress = io.progress(name)
        defer { progress?.finish() }
        if !union, BufferOutput.streamedFormats.contains(output.format) {
            try streamBuffers(
                positionals.first, inSRS: inSRS,
                job: Job(sr: sr, srUnit: srUnit, distance: distance, parameters: parameters, allowOutside: allowOutside),
                output: output, io: io, progress: progress)
            return
        }
        if union, ["geojsons", "csv"].contains(output.format) {
            throw .usage("--union writes one polygon: use .geojson, .wkt, .svg, .kml or .kmz, not .\(output.format)")
        }
        // A union needs only the centres and radii: CSV input is then read as points, without features.
        let csvOptions = FeatureInput.CSVOptions(pointsOnly: union, numericColumn: union ? distance.field : nil)
        let input = try FeatureInput.read(positionals.first, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: sr, io: io, csv: csvOptions, progress: progress)
        guard input.count > 0 else { throw .failure("the input has no features") }
        if var points = input.points {
            progress?.begin("checking the area of use")
            try checkAreaOfUse(points: points, of: input, in: sr, allowOutside: allowOutside)
            var distances: [Double]
            if let fixed = distance.fixed {
                distances = [fixed.value(in: srUnit)]
            } else {
                let unit = distance.fieldUnit ?? srUnit
                distances = (input.columnValues ?? []).map { unit.convert($0, to: srUnit) }
            }
            progress?.begin("projecting \(points.count) points")
            do {
                _ = try GeometryEngine.project(&points, from: input.spatialReference, into: sr)
            } catch {
                throw .failure(relabel(error.description, "vertex", labels: input.labels))
            }
            if ["", "geojson", "json", "wkt"].contains(output.format), points.count > BufferOutput.unionBatchSize {
                try BufferOutput.streamUnion(of: points, distances: distances, in: sr, parameters: parameters,
                                             labels: input.labels, to: output, io: io, progress: progress)
                return
            }
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

        let job = Job(sr: sr, srUnit: srUnit, distance: distance, parameters: parameters, allowOutside: allowOutside)
        let (buffers, geometries) = try job.buffers(of: input, union: union)
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

        /// The buffers of the input's features (or their union) and the features' geometries in `sr`, refusing
        /// features without geometry or outside the area of use.
        func buffers(of input: FeatureInput, union: Bool) throws(CommandError) -> ([Polygon], [Geometry]) {
            var inputs: [Geometry] = []
            var distances: [Double] = []
            for (i, feature) in input.features.enumerated() {
                guard let geometry = feature.geometry else { throw .failure("\(input.labels[i]) has no geometry") }
                inputs.append(geometry)
                if let d = try distance.fieldDistance(of: feature, label: input.labels[i], in: srUnit) { distances.append(d) }
            }
            if !allowOutside, let area = sr.areaOfUse,
               let outside = try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideAreaOfUse(inputs, of: sr) }) {
                throw .failure(String(format: "%@ at longitude %.6f, latitude %.6f is outside the area of use of %@ (W %g, S %g, E %g, N %g); use --allow-outside-area to buffer it anyway",
                                      input.labels[outside.geometryIndex], outside.longitude, outside.latitude, sr.name,
                                      area.west, area.south, area.east, area.north))
            }
            let geometries = try projectEach(inputs, into: sr, labels: input.labels)
            if let fixed = distance.fixed { distances = [fixed.value(in: srUnit)] }
            do {
                let buffers = try GeometryEngine.buffer(around: geometries, distances: distances, shouldUnion: union,
                                                        parameters: parameters)
                return (buffers, geometries)
            } catch let error {
                throw .failure(relabel(error.description, "geometry", labels: input.labels))
            }
        }
    }

    /// Buffers without --union into a format written a feature at a time (GeoJSON, GeoJSON text sequence, WKT, CSV):
    /// the input is read, buffered and written a batch of features at a time, so memory holds one batch.
    static func streamBuffers(
        _ path: String?, inSRS: SpatialReference?, job: Job, output: OutputFile, io: CommandIO,
        progress: ProgressLine?
    ) throws(CommandError) {
        let format = output.format
        try output.stream(io: io) { out throws(CommandError) in
            var first = true
            var csvHeader = false
            if format == "" || format == "geojson" || format == "json" { GeoJSON.beginFeatureCollection(to: &out) }
            let input = try FeatureInput.read(
                path, inputSpatialReference: inSRS, defaultXYSpatialReference: job.sr, io: io,
                csv: FeatureInput.CSVOptions(keepTable: format == "csv", batchSize: FeatureEncoding.batchSize),
                progress: progress
            ) { batch throws(CommandError) in
                let (buffers, _) = try job.buffers(of: batch, union: false)
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
                    let features = zip(batch.features, buffers).map {
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
            guard input.count > 0 else { throw .failure("the input has no features") }
            if format == "" || format == "geojson" || format == "json" {
                GeoJSON.endFeatureCollection(to: &out)
                out.append(UInt8(ascii: "\n"))
            }
        }
    }
}

/// Refuses points outside the area of use of `sr` (unless allowed), naming the first such feature: all points are
/// checked in one PROJ call, the feature is found point by point only when one is outside.
func checkAreaOfUse(points: [Coordinate], of input: FeatureInput, in sr: SpatialReference, allowOutside: Bool)
    throws(CommandError)
{
    guard !allowOutside, let area = sr.areaOfUse else { return }
    let all = [Geometry.multipoint(Multipoint(points, spatialReference: input.spatialReference))]
    guard try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideAreaOfUse(all, of: sr) }) != nil
    else { return }
    let each = points.map { Geometry.point(Point($0, spatialReference: input.spatialReference)) }
    guard let outside = try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideAreaOfUse(each, of: sr) })
    else { return }
    throw .failure(String(format: "%@ at longitude %.6f, latitude %.6f is outside the area of use of %@ (W %g, S %g, E %g, N %g); use --allow-outside-area to buffer it anyway",
                          input.labels[outside.geometryIndex], outside.longitude, outside.latitude, sr.name,
                          area.west, area.south, area.east, area.north))
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
