import MeridianCore

/// The fast path of `GeometryEngine.buffer(around:distances:shouldUnion:parameters:)` for unioned buffers of points:
/// builds the buffer polygons directly from GEOS's unit circle (`UnitCircle`) and unions them with `CircleUnion`,
/// falling back to GEOS's own union of the same polygons when `CircleUnion` meets a degenerate configuration.
enum PointBufferUnion {
    /// Centres and radii of the point buffers, or `nil` when the fast path does not apply (not all points or
    /// multipoints, non-round end caps, non-finite coordinates, non-positive distances).
    static func circles(_ geometries: [Geometry], distances: [Double], parameters: BufferParameters)
        -> (x: [Double], y: [Double], radius: [Double])?
    {
        guard parameters.endCapStyle == .round else { return nil }
        var xs: [Double] = [], ys: [Double] = [], rs: [Double] = []
        xs.reserveCapacity(geometries.count)
        ys.reserveCapacity(geometries.count)
        rs.reserveCapacity(geometries.count)
        for (i, g) in geometries.enumerated() {
            let d = distances.count == 1 ? distances[0] : distances[i]
            guard d > 0, d.isFinite else { return nil }
            switch g {
            case .point(let p):
                guard p.x.isFinite, p.y.isFinite else { return nil }
                xs.append(p.x)
                ys.append(p.y)
                rs.append(d)
            case .multipoint(let m):
                for c in m.coordinates {
                    guard c.x.isFinite, c.y.isFinite else { return nil }
                    xs.append(c.x)
                    ys.append(c.y)
                    rs.append(d)
                }
            default:
                return nil
            }
        }
        return (xs, ys, rs)
    }

    /// The fewest circles whose union is shared between threads by default. Below it the one-thread union is as
    /// fast or faster, both cores free: at 10,000 circles finding the clusters and merging the runs' parts cost
    /// about what the second thread saves (P1a: 0.044 s on two threads, 0.037 s on one; P1b 0.037 s against
    /// 0.046 s), and a second core that is busy makes sharing a loss (P1a 1.2 × one thread, load 2).
    static let defaultMinimumToShare = 32_768

    /// How the last call was computed (for tests and the benchmark's report).
    enum Method: Sendable, Equatable {
        /// `CircleUnion` produced the result.
        case circleUnion
        /// `CircleUnion` met a degenerate configuration; GEOS unioned the polygons.
        case geosFallback(reason: String)
    }

    /// The union of the point buffers as one polygon, and how it was computed.
    ///
    /// When `CircleUnion` meets a degenerate configuration, only the cluster holding it goes to GEOS: the circles
    /// are split into clusters that cannot touch (`CircleUnion.clusters()`), and runs of clusters are retried with
    /// `CircleUnion`, halving a run that fails until the failing clusters stand alone; GEOS unions those. One
    /// near-tangent pair among 100,000 circles then costs about two extra fast passes instead of GEOS's union of
    /// everything.
    ///
    /// With `threads` above 1 and at least `minimumToShare` circles, the clusters are unioned on that many threads
    /// (`union(clusters:of:parameters:in:minimumToShare:threads:)`): the same parts in the same order.
    static func union(
        x: [Double], y: [Double], radius: [Double], parameters: BufferParameters,
        in spatialReference: SpatialReference, threads: Int = Parallelism.threadCount,
        minimumToShare: Int = defaultMinimumToShare
    ) throws(EngineError) -> (Polygon, Method) {
        let circle = UnitCircle(segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
        let shares = threads > 1 && x.count >= minimumToShare
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: radius, threads: shares ? threads : 1)
        if shares, let shared = try? sharedUnion(problem, parameters: parameters,
                                                                                   in: spatialReference, threads: threads) {
            return (shared, .circleUnion)
        }
        do {
            let parts = try problem.run()
            return (Polygon(parts: parts, spatialReference: spatialReference), .circleUnion)
        } catch {
            let clusters = problem.clusters()
            var parts: [Polygon.Part] = []
            var degenerate: [(circles: Int, reason: String)] = []
            func solve(_ run: Slice<CircleClusters>, failure known: DegenerateConfiguration?) throws(EngineError) {
                let sub = run.count == clusters.count ? problem : problem.subproblem(run.circles)
                var failure = known
                if failure == nil {
                    do throws(DegenerateConfiguration) {
                        parts += try sub.run()
                        return
                    } catch {
                        failure = error
                    }
                }
                if run.count == 1 {
                    parts += try geosUnion(sub, in: spatialReference).parts
                    degenerate.append((sub.cx.count, failure?.reason ?? ""))
                    return
                }
                let middle = run.startIndex + run.count / 2
                try solve(run[run.startIndex..<middle], failure: nil)
                try solve(run[middle...], failure: nil)
            }
            try solve(clusters[...], failure: error)
            let circles = degenerate.reduce(0) { $0 + $1.circles }
            let reasons = Array(Set(degenerate.map { $0.reason })).sorted().joined(separator: "; ")
            let reason = "\(reasons): GEOS unioned \(degenerate.count) of \(clusters.count) clusters (\(circles) of \(problem.cx.count) circles)"
            return (Polygon(parts: parts, spatialReference: spatialReference), .geosFallback(reason: reason))
        }
    }

    /// The union of some of a problem's clusters (`CircleUnion.clusters()`), computed on up to `threads` threads:
    /// the clusters are split into runs of about equal numbers of circles (`splitRuns`, `runsPerThread` per thread,
    /// each taken by the next free thread), each unioned by `CircleUnion` on its own, and the parts merged in the order one `CircleUnion` of all these clusters gives
    /// (`CircleUnion.mergeInOrder`); or, when one cluster holds most circles, their arcs traced on the threads. The result is the same polygon, parts in the same order, as
    /// `union(x:y:radius:parameters:in:)` of those clusters' circles, which is what runs when there are too few
    /// circles to share, and when any run meets a degenerate configuration (its fallback to GEOS then handles the
    /// whole set, as it would have); so is how it was computed.
    /// - Parameters:
    ///   - clusters: Whole clusters of `problem` (indices into its circles), in `clusters()`'s order.
    ///   - problem: The problem the clusters index.
    ///   - parameters: The buffer parameters `problem`'s circle was made with (chords per quarter circle).
    ///   - spatialReference: The circles' spatial reference.
    ///   - minimumToShare: The fewest circles worth sharing (fewer run on this thread).
    ///   - threads: The most threads to use (`Parallelism.threadCount` by default).
    static func union(
        clusters: Slice<CircleClusters>, of problem: CircleUnion, parameters: BufferParameters,
        in spatialReference: SpatialReference, minimumToShare: Int = defaultMinimumToShare,
        threads: Int = Parallelism.threadCount
    ) throws(EngineError) -> (Polygon, Method) {
        let circles = clusters.circleCount
        guard circles >= minimumToShare, threads > 1,
              let parts = sharedParts(clusters, circles: circles, of: problem, whole: false, threads: threads)
        else {
            return try oneThread(clusters, of: problem, parameters: parameters, in: spatialReference)
        }
        return (Polygon(parts: parts, spatialReference: spatialReference), .circleUnion)
    }

    /// The parts of the union of some of a problem's clusters (of all its clusters: `whole`) on `threads` threads:
    /// runs of clusters, or, when one cluster holds more than half of the circles (a large connected union, where
    /// runs of clusters cannot balance), one problem whose circles' arcs are traced on the threads
    /// (`CircleUnion.runOrdered(threads:)`); nil on a degenerate configuration.
    private static func sharedParts(_ clusters: Slice<CircleClusters>, circles: Int, of problem: CircleUnion, whole: Bool,
                                    threads: Int) -> [Polygon.Part]? {
        if 2 * (clusters.lazy.map({ $0.count }).max() ?? 0) > circles {
            let sub = whole ? problem : problem.subproblem(clusters.circles)
            return try? sub.runOrdered(threads: threads).parts
        }
        let runs = splitRuns(clusters, circles: circles, count: runsPerThread * threads)
        return unionRuns(runs.count, threads: threads) { k in problem.subproblem(clusters.base.circles(of: runs[k])) }
            .map(CircleUnion.mergeInOrder)
    }

    /// Runs of clusters per thread in `sharedParts`: equal numbers of circles are not equal work (a run of circles
    /// that overlap more is traced longer), so with one run per thread the threads finished up to a third of the
    /// union apart (P1c, 2 threads); with four each, a thread that finishes early takes another run.
    static let runsPerThread = 4

    /// Where `union(clusters:of:parameters:in:minimumToShare:threads:)` splits clusters (`circles` circles in all):
    /// at most `count` consecutive runs of whole clusters, none empty, run k ending once the circles so far reach
    /// (k + 1)/`count` of all (the last run takes the rest). Fixed by the clusters alone, so the work is cut the same
    /// way whatever the threads do.
    static func splitRuns(_ clusters: Slice<CircleClusters>, circles: Int, count: Int) -> [Range<Int>] {
        guard count > 1, clusters.count > 1 else { return clusters.isEmpty ? [] : [clusters.indices] }
        var runs: [Range<Int>] = []
        var start = clusters.startIndex, sum = 0
        for k in clusters.indices {
            sum += clusters[k].count
            if k == clusters.endIndex - 1 || (runs.count < count - 1 && sum * count >= circles * (runs.count + 1)) {
                runs.append(start..<(k + 1))
                start = k + 1
            }
        }
        return runs
    }

    /// The union of a whole problem on several threads, or nil when a run of its clusters meets a degenerate
    /// configuration (the caller then takes the one-thread path, with its GEOS fallback).
    private static func sharedUnion(_ problem: CircleUnion, parameters: BufferParameters,
                                    in spatialReference: SpatialReference, threads: Int) throws(EngineError) -> Polygon? {
        // Circles that a vertical line can split into runs of about equal size need no clusters (P1e's 100,000
        // isolated circles: one pass instead of their pairs).
        if let runs = problem.separatedRuns(count: threads) {
            guard let solved = unionRuns(runs.count, threads: threads, { k in problem.subproblem(runs[k]) }) else {
                return nil
            }
            return Polygon(parts: CircleUnion.mergeInOrder(solved), spatialReference: spatialReference)
        }
        // Sharing by clusters needs the clusters. Where finding them would look at more than 64 pairs per circle
        // (circles that each reach thousands of others, as P1d's: seconds of pairs), the overlap is dense: one
        // large cluster or a few, whose arcs are traced on the threads without knowing the clusters.
        guard let clusters = problem.clusters(maximumPairs: 64 * problem.cx.count, threads: threads) else {
            guard let parts = try? problem.runOrdered(threads: threads).parts else { return nil }
            return Polygon(parts: parts, spatialReference: spatialReference)
        }
        guard let parts = sharedParts(clusters[...], circles: problem.cx.count, of: problem, whole: true,
                                      threads: threads) else { return nil }
        return Polygon(parts: parts, spatialReference: spatialReference)
    }

    /// Sub-problems `subproblem(0)`, `subproblem(1)`, … (`count` of them, made of disjoint sets of whole clusters)
    /// unioned on up to `threads` threads, in order; nil when any meets a degenerate configuration.
    private static func unionRuns(_ count: Int, threads: Int, _ subproblem: @escaping @Sendable (Int) -> CircleUnion)
        -> [(CircleUnion, (parts: [Polygon.Part], shellPolygons: [Int]))]?
    {
        typealias Run = Result<(CircleUnion, (parts: [Polygon.Part], shellPolygons: [Int])), DegenerateConfiguration>
        let results = ForkJoin.map(count: count, threads: threads) { (k: Int) -> Run in
            let sub = subproblem(k)
            do throws(DegenerateConfiguration) { return .success((sub, try sub.runOrdered())) } catch {
                return .failure(error)
            }
        }
        var solved: [(CircleUnion, (parts: [Polygon.Part], shellPolygons: [Int]))] = []
        for result in results {
            guard case .success(let run) = result else { return nil }
            solved.append(run)
        }
        return solved
    }

    /// The union of some of a problem's clusters on this thread: `union(x:y:radius:parameters:in:)` of their circles.
    private static func oneThread(
        _ clusters: Slice<CircleClusters>, of problem: CircleUnion, parameters: BufferParameters,
        in spatialReference: SpatialReference
    ) throws(EngineError) -> (Polygon, Method) {
        let sub = problem.subproblem(clusters.circles)
        return try union(x: sub.cx, y: sub.cy, radius: sub.r, parameters: parameters, in: spatialReference,
                         threads: 1)
    }

    /// GEOS's unary union of the (deduplicated) circle polygons.
    static func geosUnion(_ problem: CircleUnion, in spatialReference: SpatialReference) throws(EngineError) -> Polygon
    {
        let context = try GEOSContext()
        let unioned = try context.unaryUnion(of: try circlePolygons(problem, context: context))
        return try context.polygon(unioned, in: spatialReference)
    }

    /// The circles as GEOS polygons, built from their vertices (no GEOS buffer call).
    static func circlePolygons(_ problem: CircleUnion, context: GEOSContext) throws(EngineError) -> [GEOSGeometryRef] {
        let n = problem.circle.count
        var buffer = [Double](repeating: 0, count: 2 * (n + 1))
        var result: [GEOSGeometryRef] = []
        result.reserveCapacity(problem.cx.count)
        for i in problem.cx.indices {
            for k in 0...n {
                let (x, y) = problem.vertex(i, k)
                buffer[2 * k] = x
                buffer[2 * k + 1] = y
            }
            result.append(try context.polygon(closedShell: buffer, "create circle polygon"))
        }
        return result
    }
}
