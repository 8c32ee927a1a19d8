import Foundation
import Meridian

/// `meridian buffer --geodesic`: buffers on the ellipsoid, in WGS84 longitude/latitude output.
extension BufferCommand {
    static let geodesicHelp = """
        Usage: meridian buffer --geodesic [INPUT] (--distance D | --distance-field NAME [--unit U])
                               [--max-deviation D] [--union] [--in-srs SRS] [-o OUTPUT]

        Geodesic buffers: every output vertex at the requested distance on the ellipsoid of the input's datum
        (within 1 mm), every edge (straight in longitude/latitude) within --max-deviation of the true curve. Works
        anywhere: buffers crossing ±180° are split there (RFC 7946), buffers containing a pole contain it. No --srs:
        the area-of-use rule does not apply. Output is WGS84 longitude/latitude.

        --distance D          a number with an optional unit (m km ft us-ft mi us-mi nmi; a bare number is meters);
                              > 0 for points and lines, non-zero for polygons (negative shrinks), |D| at least 1 µm
                              and at most 19,984 km for points and 9,000 km for lines and polygons
        --distance-field NAME each feature's distance from this property/column, in --unit (default m)
        --max-deviation D     the largest distance between the true buffer boundary and the polygon's edges (default
                              0.2% of each distance), a number with an optional unit (bare: meters)
        --union               dissolve all buffers into one polygon (also across ±180° and the poles)
        --in-srs SRS          spatial reference of CSV x,y / WKT input (default WGS84)
        -o, --output OUTPUT   .geojson (the stdout default) or .wkt, both WGS84 longitude/latitude
        Example: meridian buffer --geodesic ports.geojson --distance 200nmi --union -o zones.geojson
        """

    static func runGeodesic(_ arguments: inout Arguments, io: CommandIO, hooks: BufferHooks = BufferHooks())
        throws(CommandError)
    {
        var distance = try DistanceOptions(&arguments)
        let deviationText = try arguments.option("--max-deviation")
        let union = arguments.flag("--union")
        let inSRSText = try arguments.option("--in-srs")
        if try arguments.option("--srs") != nil {
            throw .usage("--srs does not apply to --geodesic buffers (they are computed on the ellipsoid); use --in-srs for the input's coordinates")
        }
        if try arguments.option("--segments") != nil { throw .usage("--segments does not apply to --geodesic buffers; use --max-deviation") }
        _ = arguments.flag("--allow-outside-area")
        let output = OutputFile(try arguments.option("--output", "-o"))
        let positionals = try arguments.finish(maximumPositionals: hooks.plan == nil ? 1 : .max)

        try distance.validate()
        var maxDeviation: Double?
        if let deviationText {
            let d = try Distance(parsing: deviationText)
            guard d.value > 0 else { throw .usage("--max-deviation must be positive, got '\(deviationText)'") }
            maxDeviation = d.value(in: .meters)
        }
        try BufferOutput.check(output)
        let inSRS = try inSRSText.map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        if let plan = hooks.plan {
            try plan(BufferPlan(geodesic: true, union: union, output: output, spatialReference: nil,
                                parameters: .default, maxDeviation: maxDeviation, maxVertices: defaultMaxVertices,
                                inputs: positionals))
            return
        }
        let input = try FeatureInput.read(positionals.first, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: inSRS ?? .wgs84, io: io)
        hooks.read?(input.count)

        var geometries: [Geometry] = []
        var distances: [Double] = []
        for (i, feature) in input.features.enumerated() {
            let label = input.labels[i]
            geometries.append(try bufferable(feature, label: label))
            if let d = try distance.fieldDistance(of: feature, label: label, in: .meters) { distances.append(d) }
        }
        if let fixed = distance.fixed { distances = [fixed.value(in: .meters)] }
        if union, let emit = hooks.union {
            try emit(.geometries(geometries, distances: distances, labels: input.labels))
            return
        }
        // The engine needs one spatial reference; mixed inputs (not produced by the readers) are projected to the first.
        let sr = geometries[0].spatialReference
        let buffers: [Polygon]
        do {
            let same = try geometries.map { g throws(EngineError) in
                g.spatialReference == sr ? g : try GeometryEngine.project(g, into: sr)
            }
            // One geometry per call when each has its own maxDeviation default; the engine handles that per geometry.
            buffers = try GeometryEngine.geodeticBuffer(
                around: same, distances: distances, distanceUnit: .meters, maxDeviation: maxDeviation, curveType: .geodesic,
                shouldUnion: union, outputSpatialReference: .wgs84)
        } catch {
            if case .invalidGeometry = error, geometries.count > 1 {
                // Name the feature: the first one that fails alone.
                for (i, g) in geometries.enumerated() {
                    do {
                        _ = try GeometryEngine.geodeticBuffer(
                            around: [g], distances: [distances.count == 1 ? distances[0] : distances[i]], distanceUnit: .meters,
                            maxDeviation: maxDeviation, curveType: .geodesic, shouldUnion: false,
                            outputSpatialReference: .wgs84)
                    } catch {
                        throw .failure("\(input.labels[i]): \(error.description)")
                    }
                }
            }
            throw .failure(relabel(error.description, "geometry", labels: input.labels))
        }
        try BufferOutput.write(
            buffers: buffers, inputs: geometries, features: input.features, union: union, areaOfUse: nil,
            to: output, io: io)
    }
}
