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
        -o, --output OUTPUT   .geojson (WGS84; the stdout default), .wkt (in --srs), .svg (a picture with the area
                              of use as a red dashed outline), .kml or .kmz (styled like the sample)

        Without --union each output feature keeps its input feature's properties.
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

        let input = try FeatureInput.read(positionals.first, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: sr, io: io)
        guard !input.features.isEmpty else { throw .failure("the input has no features") }

        // Geometries in the buffer's spatial reference, refusing those outside its area of use.
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
        // The library answers a non-positive buffer of a point or line with an empty polygon; the tool treats it
        // as the user's mistake, as the geodesic buffer does.
        for (i, g) in geometries.enumerated() {
            let d = distances.count == 1 ? distances[0] : distances[i]
            let isAreal = if case .polygon = g { true } else if case .envelope = g { true } else { false }
            if !isAreal, !(d > 0) {
                throw .failure("\(input.labels[i]): a \(g.typeName.lowercased()) needs a positive distance, got \(d)")
            }
        }

        let buffers: [Polygon]
        do {
            buffers = try GeometryEngine.buffer(around: geometries, distances: distances, shouldUnion: union,
                                                parameters: parameters)
        } catch let error {
            throw .failure(relabel(error.description, "geometry", labels: input.labels))
        }

        try BufferOutput.write(
            buffers: buffers, inputs: geometries, features: input.features, union: union,
            areaOfUse: try? GeometryEngine.areaOfUsePolygon(of: sr), to: output, io: io)
    }
}

/// Projects geometries of one spatial reference in a single PROJ call; when a vertex cannot be projected, the error
/// names its feature.
func projectEach(_ geometries: [Geometry], into target: SpatialReference, labels: [String]) throws(CommandError)
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
