import Foundation
import Meridian

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

    /// Buffers the input into the output.
    func run(io: CommandIO) throws(CommandError) {
        let progress = io.progress(BufferCommand.name)
        defer { progress?.finish() }
        if !union, output.format.isStreamable {
            try StreamedBuffers(job: job, output: output).run(input, io: io, progress: progress)
            return
        }
        // A union needs only the centres and radii: CSV input is then read as points, without features.
        let csvOptions = FeatureInput.CSVOptions(pointsOnly: union, numericColumn: union ? job.distance.field : nil)
        let features = try FeatureInput.read(input.path, inputSpatialReference: input.spatialReference,
                                             defaultXYSpatialReference: job.sr, io: io, csv: csvOptions, progress: progress)
        if let points = features.points {
            try PointUnion(job: job, output: output).run(points, of: features, io: io, progress: progress)
            return
        }
        let (buffers, geometries) = try job.buffers(of: features, union: union)
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

    /// Reads, buffers and writes batch by batch.
    func run(_ input: InputOptions, io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        var writer = try FeatureStreamWriter(format: output.format, buffersIn: job.sr)
        try output.stream(io: io) { out throws(CommandError) in
            writer.begin(&out)
            _ = try FeatureInput.read(
                input.path, inputSpatialReference: input.spatialReference, defaultXYSpatialReference: job.sr, io: io,
                csv: FeatureInput.CSVOptions(keepTable: output.format == .csv, batchSize: FeatureEncoding.batchSize),
                progress: progress
            ) { batch throws(CommandError) in
                let (buffers, _) = try job.buffers(of: batch, union: false)
                try writer.write(buffers, of: batch, to: &out)
            }
            writer.end(&out)
        }
    }
}
