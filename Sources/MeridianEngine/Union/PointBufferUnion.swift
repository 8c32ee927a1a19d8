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
    static func union(
        x: [Double], y: [Double], radius: [Double], parameters: BufferParameters,
        in spatialReference: SpatialReference
    ) throws(EngineError) -> (Polygon, Method) {
        let circle = UnitCircle(segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: radius)
        do {
            let parts = try problem.run()
            return (Polygon(parts: parts, spatialReference: spatialReference), .circleUnion)
        } catch {
            let clusters = problem.clusters()
            var parts: [Polygon.Part] = []
            var degenerate: [(circles: Int, reason: String)] = []
            func solve(_ run: ArraySlice<[Int]>, failure known: DegenerateConfiguration?) throws(EngineError) {
                let sub = run.count == clusters.count ? problem : problem.subproblem(run.flatMap { $0 })
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
            let reasons = Array(Set(degenerate.map(\.reason))).sorted().joined(separator: "; ")
            let reason = "\(reasons): GEOS unioned \(degenerate.count) of \(clusters.count) clusters (\(circles) of \(problem.cx.count) circles)"
            return (Polygon(parts: parts, spatialReference: spatialReference), .geosFallback(reason: reason))
        }
    }

    /// The union of some of a problem's clusters (`CircleUnion.clusters()`), computed on two threads: the clusters
    /// are split into two runs of about equal numbers of circles, each unioned by `CircleUnion` on its own thread,
    /// and the parts merged in the order one `CircleUnion` of all these clusters gives (`CircleUnion.mergeInOrder`).
    /// The result is the same polygon, parts in the same order, as `union(x:y:radius:parameters:in:)` of those
    /// clusters' circles, which is what runs when there are too few circles to share, and when either half meets a
    /// degenerate configuration (its fallback to GEOS then handles the whole set, as it would have).
    /// - Parameters:
    ///   - clusters: Whole clusters of `problem` (indices into its circles), in `clusters()`'s order.
    ///   - problem: The problem the clusters index.
    ///   - parameters: The buffer parameters `problem`'s circle was made with (chords per quarter circle).
    ///   - spatialReference: The circles' spatial reference.
    ///   - minimumToShare: The fewest circles worth a second thread (fewer run on this thread).
    static func union(
        clusters: ArraySlice<[Int]>, of problem: CircleUnion, parameters: BufferParameters,
        in spatialReference: SpatialReference, minimumToShare: Int = 8192
    ) throws(EngineError) -> Polygon {
        let circles = clusters.reduce(0) { $0 + $1.count }
        guard circles >= minimumToShare, clusters.count >= 2 else {
            return try oneThread(clusters, of: problem, parameters: parameters, in: spatialReference)
        }
        let split = splitIndex(clusters, circles: circles)
        typealias Half = Result<(CircleUnion, (parts: [Polygon.Part], shellPolygons: [Int])), DegenerateConfiguration>
        @Sendable func half(_ run: ArraySlice<[Int]>) -> Half {
            let sub = problem.subproblem(run.flatMap { $0 })
            do throws(DegenerateConfiguration) { return .success((sub, try sub.runOrdered())) } catch {
                return .failure(error)
            }
        }
        let (first, second) = ForkJoin.run({ half(clusters[..<split]) }, background: { half(clusters[split...]) })
        guard case .success(let (a, partsA)) = first, case .success(let (b, partsB)) = second else {
            return try oneThread(clusters, of: problem, parameters: parameters, in: spatialReference)
        }
        return Polygon(parts: CircleUnion.mergeInOrder(a, partsA, b, partsB), spatialReference: spatialReference)
    }

    /// Where `union(clusters:of:parameters:in:minimumToShare:)` splits clusters (two or more, `circles` circles in
    /// all): the first run, up to the index returned, holds at least half the circles, and the second run at least
    /// one cluster.
    static func splitIndex(_ clusters: ArraySlice<[Int]>, circles: Int) -> Int {
        var split = clusters.startIndex, first = 0
        while split < clusters.endIndex - 1 && 2 * first < circles {
            first += clusters[split].count
            split += 1
        }
        return split
    }

    /// The union of some of a problem's clusters on this thread: `union(x:y:radius:parameters:in:)` of their circles.
    private static func oneThread(
        _ clusters: ArraySlice<[Int]>, of problem: CircleUnion, parameters: BufferParameters,
        in spatialReference: SpatialReference
    ) throws(EngineError) -> Polygon {
        let sub = problem.subproblem(clusters.flatMap { $0 })
        return try union(x: sub.cx, y: sub.cy, radius: sub.r, parameters: parameters, in: spatialReference).0
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
