import Foundation
import Meridian
import MeridianIO

/// The planar union of buffers around CSV points, read as bare points (no features): the area of use checked on a
/// second thread while the distances are checked and the points projected; a large union into WKT or GeoJSON
/// written a batch of clusters at a time (`BufferOutput.streamUnion`), any other made whole and then written.
struct PointUnion {
    /// The buffer's spatial reference, unit, distances and limits.
    let job: PlanarBufferJob
    /// Where to write.
    let output: OutputFile
    /// `meridian internal`: receives the projected centres and radii instead of the union (`BufferHooks.union`).
    var emit: ((BufferUnionInput) throws(CommandError) -> Void)?

    /// Buffers and unions the points.
    /// - Parameters:
    ///   - points: The points, in the input's spatial reference.
    ///   - input: The input they were read from (labels, `--distance-field` values).
    func run(_ points: [Coordinate], of input: FeatureInput, io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        let sr = job.sr
        progress?.begin("checking the area of use")
        // The area-of-use check (every point projected to WGS84) runs on a second thread while the distances are
        // checked and the union begins (first, on this thread, with --threads 1); its error still comes first, and
        // a streamed union stops at its next batch once the check has failed and leaves no output.
        let labels = input.labels
        let all = job.allowOutside ? [] : [Geometry.multipoint(Multipoint(points, spatialReference: input.spatialReference))]
        let areaCheck = BackgroundTask(inline: Parallelism.threadCount == 1) { () throws(CommandError) in
            guard !all.isEmpty else { return }
            try refuseOutsideAreaOfUse(all, of: sr, label: { _, vertex in labels[vertex] },
                                       override: "--allow-outside-area", verb: "buffer")
        }
        defer { try? areaCheck.wait() }
        var projected = points
        let distances: [Double]
        do throws(CommandError) {
            distances = try self.distances(of: input, count: points.count)
            progress?.begin("projecting \(points.count) points")
            do {
                _ = try GeometryEngine.project(&projected, from: input.spatialReference, into: sr)
            } catch {
                throw .failure(error.description(naming: { input.labels.label(ofVertex: $0) }))
            }
            if let emit {
                try areaCheck.wait()
                try emit(.circles(centres: projected, radii: distances, spatialReference: sr, features: input.count))
                return
            }
            if output.format.streamsUnion, projected.count > BufferOutput.unionBatchSize {
                try BufferOutput.streamUnion(of: projected, distances: distances, in: sr, parameters: job.parameters,
                                             labels: input.labels, to: output, io: io, progress: progress,
                                             stop: { areaCheck.hasFailed }, finish: { () throws(CommandError) in try areaCheck.wait() })
                return
            }
            if output.format.isFeatureTable, projected.count > BufferOutput.unionBatchSize {
                try BufferOutput.streamUnionTable(
                    of: projected, distances: distances, in: sr, parameters: job.parameters, labels: input.labels,
                    count: input.count, to: output, io: io, progress: progress, stop: { areaCheck.hasFailed },
                    finish: { () throws(CommandError) in try areaCheck.wait() })
                return
            }
        } catch {
            try areaCheck.wait()  // the check's error first, as when it ran before everything else
            throw error
        }
        try areaCheck.wait()
        // The projected points and radii are let go once the union is made, before it is written.
        let polygon = try union(of: consume projected, distances: consume distances, labels: input.labels,
                                progress: progress)
        try writeWhole(polygon, centres: points, of: input, io: io, progress: progress)
    }

    /// The radii in the buffer's unit, one for all or one per point, checked.
    private func distances(of input: FeatureInput, count: Int) throws(CommandError) -> [Double] {
        let distances: [Double]
        if let fixed = job.distance.fixed {
            distances = [fixed.value(in: job.srUnit)]
        } else {
            let unit = job.distance.fieldUnit ?? job.srUnit
            distances = (input.columnValues ?? []).map { unit.convert($0, to: job.srUnit) }
        }
        try refuseUnusableDistances(distances, count: count, isAreal: { _ in false },
                                    metersPerUnit: job.srUnit.metersPerUnit, label: { input.labels[$0] })
        return distances
    }

    /// The whole union, made at once.
    private func union(of points: [Coordinate], distances: [Double], labels: FeatureLabels, progress: ProgressLine?)
        throws(CommandError) -> Polygon
    {
        progress?.begin("union of \(ProgressLine.grouped(points.count)) buffers")
        do {
            return try GeometryEngine.unionOfBuffers(aroundPoints: points, distances: distances, in: job.sr,
                                                     parameters: job.parameters)
        } catch {
            throw .failure(error.description(naming: { labels.label(of: $0) }))
        }
    }

    /// Writes the whole union: WKT or GeoJSON as one polygon, a picture or KML with its centres.
    private func writeWhole(_ polygon: Polygon, centres points: [Coordinate], of input: FeatureInput, io: CommandIO,
                            progress: ProgressLine?) throws(CommandError) {
        if output.format.streamsUnion {
            try BufferOutput.writeUnion(polygon, count: input.count, to: output, io: io, progress: progress)
        } else if output.format.isFeatureTable {
            progress?.begin("writing")
            try BufferOutput.writeUnionTable(polygon, count: input.count, in: job.sr, to: output, io: io)
        } else {
            let centres = points.map { Geometry.point(Point($0, spatialReference: input.spatialReference)) }
            try BufferOutput.write(
                buffers: [polygon], inputs: try projectFeatures(centres, into: job.sr, labels: input.labels),
                areaOfUse: try? GeometryEngine.areaOfUsePolygon(of: job.sr), to: output, io: io)
        }
    }
}
