import Foundation
import Meridian
import MeridianIO

/// `meridian buffer --geodesic` once the options are checked: buffers on the ellipsoid, written in WGS84
/// longitude/latitude.
struct GeodesicBuffers {
    /// The command's options.
    let command: BufferCommand
    /// Where to write.
    let output: OutputFile

    /// Reads the input, buffers every feature (or their union) and writes the output.
    /// - Throws: `CommandError.failure` for unreadable input, a feature that cannot be buffered (named), or an
    ///   unwritable output.
    func run(io: CommandIO) throws(CommandError) {
        let options = command.input
        let input = try FeatureInput.read(options.path, layer: options.layer, inputSpatialReference: options.spatialReference,
                                          defaultXYSpatialReference: options.spatialReference ?? .wgs84, io: io,
                                          csv: FeatureInput.CSVOptions(keepTable: output.format.keepsInputColumns))
        command.hooks.read?(input.count)
        var geometries: [Geometry] = []
        var distances: [Double] = []
        for (i, feature) in input.features.enumerated() {
            let label = input.labels[i]
            geometries.append(try bufferable(feature, label: label))
            if let d = try command.distance.fieldDistance(of: input, at: i, in: .meters) { distances.append(d) }
        }
        if let fixed = command.distance.fixed { distances = [fixed.value(in: .meters)] }
        try refuseInvalidPolygons(geometries, labels: input.labels)
        if command.union, let emit = command.hooks.union {
            try emit(.geometries(geometries, distances: distances, labels: input.labels))
            return
        }
        let buffers = try buffer(geometries, distances: distances, labels: input.labels)
        guard !command.union, output.format.isStreamable else {
            try BufferOutput.write(buffers: buffers, inputs: geometries, areaOfUse: nil, to: output, io: io)
            return
        }
        if output.format.isFeatureTable {
            let features = zip(input.features, buffers).map {
                Feature(geometry: .polygon($1), properties: $0.properties, id: $0.id)
            }
            try FeatureTableOutput.write(features, to: output, spatialReference: .wgs84, geometryType: .polygon,
                                         fields: input.fields, io: io)
            return
        }
        var writer = try FeatureStreamWriter(format: output.format, buffersIn: .wgs84)
        try output.stream(io: io) { out throws(CommandError) in
            writer.begin(&out)
            try writer.write(buffers, of: input, to: &out)
            writer.end(&out)
        }
    }

    /// The geodesic buffers (or their union) in WGS84; when one fails, the error names the first feature that fails
    /// alone.
    private func buffer(_ geometries: [Geometry], distances: [Double], labels: FeatureLabels) throws(CommandError)
        -> [Polygon]
    {
        let maxDeviation = command.maxDeviation?.value(in: .meters)
        // The engine needs one spatial reference; mixed inputs (not produced by the readers) are projected to the first.
        let sr = geometries[0].spatialReference
        do {
            let same = try geometries.map { g throws(EngineError) in
                g.spatialReference == sr ? g : try GeometryEngine.project(g, into: sr)
            }
            // One geometry per call when each has its own maxDeviation default; the engine handles that per geometry.
            return try GeometryEngine.geodeticBuffer(
                around: same, distances: distances, distanceUnit: .meters, maxDeviation: maxDeviation, curveType: .geodesic,
                shouldUnion: command.union, outputSpatialReference: .wgs84)
        } catch {
            if case .invalidGeometry = error, geometries.count > 1 {
                for (i, g) in geometries.enumerated() {
                    do {
                        _ = try GeometryEngine.geodeticBuffer(
                            around: [g], distances: [distances.count == 1 ? distances[0] : distances[i]], distanceUnit: .meters,
                            maxDeviation: maxDeviation, curveType: .geodesic, shouldUnion: false,
                            outputSpatialReference: .wgs84)
                    } catch {
                        throw .failure("\(labels[i]): \(error.description)")
                    }
                }
            }
            throw .failure(describe(error, naming: { labels.label(of: $0) }))
        }
    }
}
