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
        --max-vertices N      without --union: refuse, before any work, buffers estimated at more than N vertices
                              in all (default 5,000,000, about 1 GB of memory at the peak); raise it knowingly
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
        let maxVerticesText = try arguments.option("--max-vertices")
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
        let maxVertices = try maxVerticesText.map { (t: String) throws(CommandError) -> Int in
            guard let n = Int(t), n > 0 else { throw .usage("--max-vertices expects a positive whole number, got '\(t)'") }
            return n
        }
        let inSRS = try inSRSText.map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        try BufferOutput.check(output)

        let input = try FeatureInput.read(positionals.first, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: sr, io: io)

        // Geometries in the buffer's spatial reference, refusing those outside its area of use.
        var inputs: [Geometry] = []
        var distances: [Double] = []
        for (i, feature) in input.features.enumerated() {
            inputs.append(try bufferable(feature, label: input.labels[i]))
            if let d = try distance.fieldDistance(of: feature, label: input.labels[i], in: srUnit) { distances.append(d) }
        }
        if !allowOutside {
            try refuseOutsideAreaOfUse(inputs, of: sr, labels: input.labels, override: "--allow-outside-area",
                                       verb: "buffer")
        }
        let estimate = estimatedBufferVertices(inputs, segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
        let limit = maxVertices ?? defaultMaxVertices
        guard union || estimate <= limit else {
            throw .failure("the buffers would have about \(estimate) vertices (\(input.features.count) features, --segments \(parameters.segmentsPerQuarterCircle)), more than the limit of \(limit); use fewer --segments or --union, or raise --max-vertices")
        }
        // Polygons checked in the input's own coordinates, so that the place GEOS names is where the user looks.
        for (i, g) in inputs.enumerated() {
            if case .polygon = g, let reason = try engine({ () throws(EngineError) in try GeometryEngine.invalidityReason(g) }) {
                throw .failure("\(input.labels[i]): invalid polygon: \(reason) (GeometryEngine.makeValid can repair it)")
            }
        }
        let geometries = try projectEach(inputs, into: sr, labels: input.labels)
        if let fixed = distance.fixed { distances = [fixed.value(in: srUnit)] }
        try refuseTinyDistances(distances, geometries: geometries, metersPerUnit: srUnit.metersPerUnit,
                                labels: input.labels)

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

/// The geodesic buffer's distance rule applied to planar buffers too (one rule for both): |distance| at least 1 µm,
/// zero included for polygons (nothing to buffer by; for points and lines the engine refuses any distance ≤ 0).
/// - Parameters:
///   - distances: One distance for all, or one per geometry, in the spatial reference's unit.
///   - geometries: The geometries to buffer.
///   - metersPerUnit: Meters per unit of the distances (0.3048006096 for US survey feet).
///   - labels: The features' labels, by index.
/// - Throws: `CommandError.failure` naming the first feature whose distance is too small.
func refuseTinyDistances(
    _ distances: [Double], geometries: [Geometry], metersPerUnit: Double, labels: [String]
) throws(CommandError) {
    for (i, g) in geometries.enumerated() {
        let d = distances.count == 1 ? distances[0] : distances[i]
        var isPolygon = false
        if case .polygon = g { isPolygon = true }
        if case .envelope = g { isPolygon = true }
        guard d.isFinite, d != 0 || isPolygon, abs(d) * metersPerUnit < 1e-6 else { continue }
        throw .failure(String(format: "invalid distance: %@: |%.10g| (%.3g m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)",
                              labels[i], d, abs(d) * metersPerUnit))
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
///   - labels: The features' labels, by index.
///   - override: The flag that skips the check, named in the message.
///   - verb: What the command does, e.g. "buffer" or "project".
/// - Throws: `CommandError.failure` naming the first feature outside.
func refuseOutsideAreaOfUse(
    _ geometries: [Geometry], of sr: SpatialReference, labels: [String], override: String, verb: String
) throws(CommandError) {
    guard let area = sr.areaOfUse,
          let outside = try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideAreaOfUse(geometries, of: sr) })
    else { return }
    throw .failure(String(format: "%@ at longitude %.6f, latitude %.6f is outside the area of use of %@ (W %g, S %g, E %g, N %g); use %@ to %@ it anyway",
                          labels[outside.geometryIndex], outside.longitude, outside.latitude, sr.name,
                          area.west, area.south, area.east, area.north, override, verb))
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
