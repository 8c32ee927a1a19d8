import MeridianCore

// MARK: - Unions of point buffers given as coordinates

extension GeometryEngine {
    /// The union of round buffers around points given only as coordinates, for callers that hold the centres and
    /// radii rather than a geometry per point (a million points as `Geometry` values cost several times the memory).
    /// The result is the same polygon `buffer(around:distances:shouldUnion: true, parameters:)` gives for the same
    /// points: `CircleUnion`'s fast path, GEOS for degenerate clusters, or GEOS's buffers and union for non-round end
    /// caps or non-finite centres.
    /// - Parameters:
    ///   - centres: The points, in `spatialReference` (a projected one).
    ///   - distances: One radius per point, or one for all, in the spatial reference's unit; positive and finite.
    ///   - spatialReference: The centres' spatial reference.
    ///   - parameters: Chords per quarter circle (1…1000) and end cap.
    /// - Throws: `EngineError` for a geographic spatial reference, a distance count mismatch, or an invalid distance
    ///   (naming "geometry i").
    public static func unionOfBuffers(
        aroundPoints centres: [Coordinate], distances: [Double], in spatialReference: SpatialReference,
        parameters: BufferParameters = .default
    ) throws(EngineError) -> Polygon {
        var parts: [Polygon.Part] = []
        try unionOfBuffers(aroundPoints: centres, distances: distances, in: spatialReference, parameters: parameters,
                           batchSize: .max, overlapped: true) { (p: Polygon, _: Int) throws(EngineError) in
            parts += p.parts
        }
        return Polygon(parts: parts, spatialReference: spatialReference)
    }

    /// The union of round buffers around points, handed over a batch of parts at a time so that the whole union is
    /// never held: the circles are grouped into clusters that cannot touch (`CircleUnion.clusters()`), the clusters
    /// into batches of about `batchSize` circles, and each batch is unioned on its own (the same computation as
    /// `unionOfBuffers(aroundPoints:distances:in:parameters:)`, whose parts are the batches' parts together; with
    /// `batchSize` at least the number of points there is one batch and the parts come in the same order).
    /// - Parameters:
    ///   - centres: The points, in `spatialReference` (a projected one).
    ///   - distances: One radius per point, or one for all, in the spatial reference's unit; positive and finite.
    ///   - spatialReference: The centres' spatial reference.
    ///   - parameters: Chords per quarter circle (1…1000) and end cap.
    ///   - batchSize: About how many circles to union at once (1 or more; clusters are not split).
    ///   - overlapped: Whether to use `Parallelism.threadCount` threads: the next batch is then unioned on a
    ///     background thread while `body` handles this one (at most two batches are held), and each batch of 32,768
    ///     circles or more (`PointBufferUnion.defaultMinimumToShare`) by several threads
    ///     (`PointBufferUnion.union(clusters:of:parameters:in:minimumToShare:threads:)`): all of them for the first
    ///     batch, `unionThreads(whileBodyRuns:)` for the others, as `body` is expected to use the rest (writing a
    ///     batch costs about twice its union, and a union shared by threads costs more CPU in all). `body` gets the
    ///     same batches, the same parts in the same order, either way and whatever the threads' timing, always on the
    ///     calling thread; false (the default) does everything on the calling thread.
    ///   - body: Receives each batch's parts as a polygon, and how many circles are done so far.
    /// - Throws: `EngineError` as `unionOfBuffers(aroundPoints:distances:in:parameters:)`, or what `body` throws
    ///   (then no further batch is unioned).
    public static func unionOfBuffers(
        aroundPoints centres: [Coordinate], distances: [Double], in spatialReference: SpatialReference,
        parameters: BufferParameters = .default, batchSize: Int, overlapped: Bool = false,
        _ body: (Polygon, Int) throws(EngineError) -> Void
    ) throws(EngineError) {
        let sr = spatialReference
        guard !centres.isEmpty else { return }
        guard distances.count == centres.count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: centres.count, distances: distances.count)
        }
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
        guard (1...1000).contains(parameters.segmentsPerQuarterCircle) else {
            throw .invalidDistance("segments per quarter circle must be in 1…1000, got \(parameters.segmentsPerQuarterCircle)")
        }
        let metersPerUnit = sr.unit?.metersPerUnit ?? 1
        for (i, d) in distances.enumerated() { try validate(distance: d, index: i, metersPerUnit: metersPerUnit) }
        guard parameters.endCapStyle == .round, centres.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            let points = centres.map { Point($0, spatialReference: sr) }
            try body(try buffer(around: points, distances: distances, shouldUnion: true, parameters: parameters)[0],
                     centres.count)
            return
        }
        let radius = distances.count == 1 ? Array(repeating: distances[0], count: centres.count) : distances
        let x = centres.map { $0.x }, y = centres.map { $0.y }
        let threads = overlapped ? Parallelism.threadCount : 1
        guard centres.count > batchSize else {
            try body(try PointBufferUnion.union(x: x, y: y, radius: radius, parameters: parameters, in: sr,
                                                threads: threads).0, centres.count)
            return
        }
        let circle = UnitCircle(segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: radius, threads: threads)  // clusters index its own arrays
        let clusters = problem.clusters(threads: threads)
        // Batch b is clusters[ends[b - 1]..<ends[b]] (from 0 for the first): whole clusters, at least batchSize
        // circles except the last batch.
        var ends: [Int] = []
        var done: [Int] = []
        var circles = 0
        for (k, cluster) in clusters.enumerated() {
            circles += cluster.count
            guard circles >= batchSize || k == clusters.count - 1 else { continue }
            ends.append(k + 1)
            // Exact duplicates were dropped by CircleUnion: the last batch completes the count.
            done.append(k == clusters.count - 1 ? centres.count : min((done.last ?? 0) + circles, centres.count))
            circles = 0
        }
        let overlappedThreads = unionThreads(whileBodyRuns: threads)
        try LookaheadPipeline.run(count: ends.count, ahead: threads > 1 ? 1 : 0) { [ends] (b: Int) throws(EngineError) in
            // The first batch has nothing to overlap with; the others run beside `body`.
            try PointBufferUnion.union(clusters: clusters[(b == 0 ? 0 : ends[b - 1])..<ends[b]], of: problem,
                                       parameters: parameters, in: sr,
                                       threads: b == 0 ? threads : overlappedThreads).0
        } consume: { (union: Polygon, b: Int) throws(EngineError) in
            try body(union, done[b])
        }
    }

    /// The threads a batch's union gets in the batched `unionOfBuffers` while `body` handles the batch before it: a
    /// third of `threads` (at least one), about the union's share of the work when `body` writes the batch as text
    /// (profiled for P5 in EPSG:32038, 1 M points: the union 25–31 % of the CPU of union and writing, WKT or GeoJSON
    /// out), so that neither side waits on the other and no CPU goes to sharing a union that another job could have used: on 2 threads, one union thread
    /// beside a writer of 2 threads (3 threads on 2 cores).
    /// - Parameter threads: The threads of the whole job (`Parallelism.threadCount`).
    static func unionThreads(whileBodyRuns threads: Int) -> Int {
        max(1, threads / 3)
    }
}
