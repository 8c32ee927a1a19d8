import Foundation
import Meridian
import MeridianIO

/// A planar buffer once the options are checked: chooses the pipeline for the output and the input, and runs it.
///
/// - Without `--union`, into a per-feature format (`OutputFormat.isStreamable`): `StreamedBuffers`, a batch of
///   features at a time.
/// - With `--union` and CSV input: `PointUnion`, the input read as bare points.
/// - Otherwise (a union of features, or a picture or KML document): every feature read, buffered at once and
///   written by `BufferOutput.write`.
struct PlanarBuffers {
    /// The buffer's spatial reference, unit, distances and limits.
    let job: PlanarBufferJob
    /// The input and its `--in-srs`.
    let input: InputOptions
    /// `--union`.
    let union: Bool
    /// Where to write.
    let output: OutputFile
    /// `meridian internal`'s ways in (none for the command).
    var hooks = BufferHooks()

    /// Buffers the input into the output.
    func run(io: CommandIO) throws(CommandError) {
        let progress = io.progress(BufferCommand.name)
        defer { progress?.finish() }
        if !union, output.format.isStreamable {
            try StreamedBuffers(job: job, output: output, vertices: hooks.vertices).run(input, io: io,
                                                                                         progress: progress)
            return
        }
        // A union needs only the centres and radii: CSV input is then read as points, without features.
        let csvOptions = FeatureInput.CSVOptions(pointsOnly: union, numericColumn: union ? job.distance.field : nil,
                                                 featureTablePoints: union)
        let features = try FeatureInput.read(input.path, layer: input.layer, inputSpatialReference: input.spatialReference,
                                             defaultXYSpatialReference: job.sr, io: io, csv: csvOptions, progress: progress)
        hooks.read?(features.count)
        if let points = features.points {
            try PointUnion(job: job, output: output, emit: hooks.union).run(points, of: features, io: io,
                                                                            progress: progress)
            return
        }
        if union, let emit = hooks.union {
            let (geometries, distances) = try job.checked(features, union: true)
            try emit(BufferUnionInput(geometries, distances: distances, labels: features.labels))
            return
        }
        let (buffers, geometries) = try job.buffers(of: features, union: union)
        hooks.vertices?(job.estimatedVertices(geometries), features.count)
        try BufferOutput.write(buffers: buffers, inputs: geometries,
                               areaOfUse: try? GeometryEngine.areaOfUsePolygon(of: job.sr), to: output, io: io)
    }
}

/// Planar buffers without `--union` into a format written a feature at a time (GeoJSON, GeoJSON text sequence,
/// WKT, CSV): the input is read, buffered and written a batch of features at a time, so memory holds one batch.
struct StreamedBuffers {
    /// The buffer's spatial reference, unit, distances and limits.
    let job: PlanarBufferJob
    /// Where to write: a per-feature format.
    let output: OutputFile
    /// Receives the estimated vertex count of all the buffers and the feature count (`BufferHooks.vertices`).
    var vertices: ((_ vertices: Int, _ features: Int) -> Void)?

    /// Reads, buffers and writes batch by batch.
    func run(_ input: InputOptions, io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        if output.format.isFeatureTable {
            try runIntoTable(input, io: io, progress: progress)
            return
        }
        var writer = try FeatureStreamWriter(format: output.format, buffersIn: job.sr)
        var vertices = 0
        try output.stream(io: io) { out throws(CommandError) in
            writer.begin(&out)
            let read = try FeatureInput.read(
                input.path, layer: input.layer, inputSpatialReference: input.spatialReference,
                defaultXYSpatialReference: job.sr, io: io,
                csv: FeatureInput.CSVOptions(keepTable: output.format.keepsInputColumns, batchSize: FeatureEncoding.batchSize),
                progress: progress
            ) { batch throws(CommandError) in
                let (buffers, geometries) = try job.buffers(of: batch, union: false)
                vertices = Self.sum(vertices, job.estimatedVertices(geometries))
                try writer.write(buffers, of: batch, to: &out)
            }
            writer.end(&out)
            self.vertices?(vertices, read.count)
        }
    }

    /// Reads, buffers and writes batch by batch into a feature table: each buffer keeps its feature's attributes,
    /// with their types when the input is a feature table too.
    private func runIntoTable(_ input: InputOptions, io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        var table = FeatureTableOutput(output, spatialReference: job.sr, geometryType: .polygon)
        var vertices = 0
        let read = try FeatureInput.read(
            input.path, layer: input.layer, inputSpatialReference: input.spatialReference,
            defaultXYSpatialReference: job.sr, io: io, csv: FeatureInput.CSVOptions(batchSize: FeatureEncoding.batchSize),
            progress: progress
        ) { batch throws(CommandError) in
            let (buffers, geometries) = try job.buffers(of: batch, union: false)
            vertices = Self.sum(vertices, job.estimatedVertices(geometries))
            let features = zip(batch.features, buffers).map {
                Feature(geometry: .polygon($1), properties: $0.properties, id: $0.id)
            }
            try table.add(features, fields: batch.fields, io: io)
        }
        try table.finish(io: io)
        self.vertices?(vertices, read.count)
    }

    /// `a + b`, or `Int.max` when it overflows.
    static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : total
    }
}
