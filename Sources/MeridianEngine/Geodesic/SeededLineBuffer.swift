import Foundation
import MeridianCore

/// The fast first attempt at the geodesic buffer of one polyline, seeded the way users do it by hand —
/// an azimuthal equidistant frame centred on the line, GEOS's planar buffer there — and then made exact and checked;
/// `nil` whenever a check fails, and the caller then takes the exact path (`GeodeticBufferBuilder` and `finish`).
///
/// 1. The line's vertices are mapped to an exact ellipsoidal azimuthal equidistant frame centred on the middle of
///    its bounding box (x = s sin α, y = s cos α for the geodesic distance s and azimuth α from the centre), buffered
///    by GEOS with round joins and caps (chords sagging at most half the tolerance), and the ring simplified
///    (GEOS's topology-preserving simplification, 0.45 × the tolerance).
/// 2. Every vertex of that ring is placed on the true boundary of the element (a vertex circle or a segment's offset)
///    nearest to it in the frame: on a segment, `distance` m along the geodesic perpendicular to the segment from
///    the point at the same fraction of its length; on a vertex circle, `distance` m from the vertex towards the
///    frame vertex. Such a point lies exactly at `distance` from that element. It is kept when no element of the
///    line is nearer by more than 10 µm (`ElementCoverage`, exact distances nearest-first); otherwise it is moved
///    onto the true crossing with the covering element, or projected onto the true boundary, and checked again.
/// 3. Every edge is checked at five interior points: the smallest `distance − required` there must be within
///    0.8 × the tolerance (as `GeodeticBufferBuilder` accepts its chords; `ElementCoverage.isWithin`, which
///    decides most of them from conformal-sphere bounds of the distances, below and above, without a geodesic
///    problem; the candidates gathered once per edge, `ElementCoverage.neighbourhood`); an edge that fails gets
///    a new vertex, its midpoint placed as in step 2, and both halves are checked (at most 12 levels).
/// 4. The polygon must be valid for GEOS, and GEOS's planar buffer at the distance plus 2E plus the tolerance must
///    have no hole, E being the largest distance a vertex moved in step 2 plus the 1 % simplification (an estimate
///    of the frame's error, not a bound): a hole of the true buffer deeper than about 3E plus the tolerance has
///    points beyond that distance in the frame and would show there. Shallower holes that the seed does not show
///    are the limit of this check.
///
/// Only for lon/lat input and output on the same ellipsoid (the frame's identity), one part, distances up to
/// 1,000 km, and lines whose buffer stays clear of ±180° and within 80° of latitude.
enum SeededLineBuffer {
    /// The largest distance in meters the attempt takes on: the distance function to a point is then convex along
    /// geodesics over everything a buffer touches, so a segment's nearest point to a point beyond its end is the end.
    static let maximumDistance = 1_000_000.0

    /// Why an attempt gave no polygon.
    enum Refusal: Error, Equatable {
        /// Not a line the attempt takes on (see the type's comment), or a line much longer than its extent.
        case notApplicable
        /// GEOS's planar buffer is not one polygon without holes.
        case seedShape
        /// A vertex could not be placed on the true boundary.
        case placement
        /// An edge could not be brought within 0.8 × the tolerance.
        case edges
        /// The polygon is not valid for GEOS.
        case invalid
        /// The planar buffer at the distance plus the frame's error has a hole.
        case possibleHole
    }

    /// The buffer of `line` at `distance` m within `tolerance` m, or `nil` when the attempt does not apply or a
    /// check fails. Throws only for GEOS failures and the work budget.
    static func buffer(_ line: Polyline, distance d: Double, tolerance: Double, frame: GeodeticFrame,
                       context: GEOSContext) throws(EngineError) -> Polygon?
    {
        guard case .success(let polygon) = try attempt(line, distance: d, tolerance: tolerance, frame: frame,
                                                       context: context)
        else { return nil }
        return polygon
    }

    /// `buffer(_:distance:tolerance:frame:context:)` with the reason when it gives no polygon.
    /// `twoThreads`: the number of vertices of the line (building the elements beside the frame and the seed) and
    /// of the ring (placing vertices, checking edges) from which half the work runs on a second thread; the result
    /// is the same either way.
    static func attempt(_ line: Polyline, distance d: Double, tolerance: Double, frame: GeodeticFrame,
                        context: GEOSContext, twoThreads: Int = 64) throws(EngineError) -> Result<Polygon, Refusal>
    {
        guard frame.isIdentity, frame.geographicOutput, line.parts.count == 1, d > 0, d <= maximumDistance,
              tolerance > 0, tolerance <= d / 2
        else { return .failure(.notApplicable) }
        let geod = frame.geodesic
        var vertices: [Coordinate] = []
        for c in line.parts[0] {
            guard c.x.isFinite, c.y.isFinite, abs(c.y) <= 90 else { return .failure(.notApplicable) }
            let k = Coordinate(x: normalizedLongitude(c.x), y: c.y)
            // Repeated vertices (within 1e-9 m) are dropped. Coordinates 1e-7° apart or more are farther apart than
            // that wherever the line is taken on (below 80° of latitude, clear of ±180°: a path between two such
            // points either stays below 85°, ≥ a(1 − e²) · 1e-7° in latitude or N cos 85° · 1e-7° in longitude,
            // ≈ 1 mm, or climbs 5° of latitude), so only closer ones need the geodesic distance.
            if let last = vertices.last, abs(last.y - k.y) < 1e-7, abs(last.x - k.x) < 1e-7,
               geod.distance(last, k) <= 1e-9
            {
                continue
            }
            vertices.append(k)
        }
        guard vertices.count >= 2 else { return .failure(.notApplicable) }
        // Clear of ±180° and the poles, with room for the distance (a degree of latitude is at least 110.5 km).
        let latitudeMargin = d / 110_000 * 1.1
        let maxLatitude = vertices.map { abs($0.y) }.max()! + latitudeMargin
        guard maxLatitude < 80 else { return .failure(.notApplicable) }
        let longitudeMargin = latitudeMargin / cos(maxLatitude * .pi / 180)
        let minX = vertices.map { $0.x }.min()!, maxX = vertices.map { $0.x }.max()!
        let minY = vertices.map { $0.y }.min()!, maxY = vertices.map { $0.y }.max()!
        guard minX - longitudeMargin > -180, maxX + longitudeMargin < 180, maxX - minX < 90 else {
            return .failure(.notApplicable)
        }
        try WorkBudget.check()

        // The frame: exact azimuthal equidistant from the centre of the bounding box. The elements and their
        // coverage are built on this thread while another maps the line to the frame and seeds the ring there.
        let center = Coordinate(x: (minX + maxX) / 2, y: (minY + maxY) / 2)
        let n = vertices.count
        let outputSR = frame.outputSR, path = vertices
        let ((coverage, lines), seeded) = try WorkBudget.forkJoin(n >= twoThreads) { () throws(EngineError) in
            // The elements: vertex k is element k, segment i is element n + i.
            var elements = vertices.map { GeodeticElement(kind: .vertex($0), required: d) }
            elements.reserveCapacity(2 * n - 1)
            var lines: [Geodesic.Line] = []
            lines.reserveCapacity(n - 1)
            for i in 0..<(n - 1) {
                let l = geod.line(from: vertices[i], to: vertices[i + 1])
                lines.append(l)
                elements.append(GeodeticElement(kind: .segment(start: vertices[i], end: vertices[i + 1], line: l),
                                                required: d))
            }
            let group = ElementGroup(elements: elements, isInward: false, contains: nil, tolerance: tolerance)
            return (ElementCoverage(groups: [group], geodesic: geod, reach: 2 * tolerance + 1, upperBounds: true),
                    lines)
        } background: { () throws(EngineError) in
            // GEOS's context is not shared between threads: the seed has its own.
            try seed(path, center: center, distance: d, tolerance: tolerance, geodesic: geod,
                     outputSpatialReference: outputSR, context: try GEOSContext())
        }
        let points: [(x: Double, y: Double)], seedLine: [(x: Double, y: Double)], shell: [Coordinate]
        switch seeded {
        case .failure(let refusal): return .failure(refusal)
        case .success(let s): (points, seedLine, shell) = s
        }

        // A grid over the planar segments (cells of half the distance) for the nearest element of each ring vertex.
        let steps = Steps(geod: geod, center: center, d: d, tolerance: tolerance, vertices: vertices, lines: lines,
                          grid: SegmentGrid(points, cell: d / 2), coverage: coverage)

        // Step 2: every vertex placed on the true boundary and checked; the two halves of the ring on two threads.
        let seeds = Array(shell.dropLast())
        let halves = try halved(seeds.count, twoThreads: twoThreads) { (r: Range<Int>) throws(EngineError) in
            try steps.placed(seeds[r])
        }
        guard let first = halves.0, let second = halves.1 else { return .failure(.placement) }
        var ring = first.ring
        for q in second.ring where ring.last?.point != q.point { ring.append(q) }
        let largestMove = max(first.largestMove, second.largestMove)
        while ring.count > 1, ring.first!.point == ring.last!.point { ring.removeLast() }
        guard ring.count >= 3 else { return .failure(.placement) }

        // Step 3: edges within 0.8 × the tolerance, split where not; the edges from each half of the ring on two
        // threads, each with half the budget of splits.
        let placedRing = ring, budget = (4 * ring.count + 1000) / 2
        let edges = try halved(ring.count, twoThreads: twoThreads) { (r: Range<Int>) throws(EngineError) in
            try steps.checked(placedRing, edges: r, budget: budget)
        }
        guard let before = edges.0, let after = edges.1 else { return .failure(.edges) }
        let checked = before + after
        let result = Polygon(parts: [GEOSContext.oriented(Polygon.Part(shell: Polygon.closed(checked), holes: []))],
                             spatialReference: frame.outputSR)

        // Step 4: valid, and no hole the seed could have missed.
        guard try GeometryEngine.invalidityReason(result) == nil else { return .failure(.invalid) }
        let wider = try planarBuffer(seedLine, distance: d + 2 * (largestMove + 0.01 * d) + tolerance,
                                     quarterSegments: 8, context: context)
        guard try holeFree(wider, context: context) else { return .failure(.possibleHole) }
        return .success(result)
    }

    /// The line's vertices in the frame centred at `center` (x = s sin α, y = s cos α), the line there simplified by
    /// 1 % of the distance (as GEOS's buffer simplifies its input itself; noisy lines otherwise cost it hundreds of
    /// milliseconds), and the shell of GEOS's planar buffer of that (chords sagging at most half the tolerance)
    /// simplified by 0.45 × the tolerance; a refusal when the line is much longer than its extent or the buffer is
    /// not one polygon without holes.
    private static func seed(_ vertices: [Coordinate], center: Coordinate, distance d: Double, tolerance: Double,
                             geodesic geod: Geodesic, outputSpatialReference: SpatialReference, context: GEOSContext)
        throws(EngineError) -> Result<(points: [(x: Double, y: Double)], seedLine: [(x: Double, y: Double)],
                                       shell: [Coordinate]), Refusal>
    {
        let points = vertices.map { p -> (x: Double, y: Double) in
            let inv = geod.inverse(center, p)
            let a = inv.azimuth1 * .pi / 180
            return (inv.distance * sin(a), inv.distance * cos(a))
        }
        let seedLine = try simplifiedLine(points, tolerance: 0.01 * d, context: context)
        // A line much longer than its extent (a dense zigzag) makes GEOS's noding of the offset curves slow
        // (seconds): left to the exact path.
        let length = zip(seedLine, seedLine.dropFirst()).reduce(0.0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
        let extent = hypot(seedLine.map { $0.x }.max()! - seedLine.map { $0.x }.min()!,
                           seedLine.map { $0.y }.max()! - seedLine.map { $0.y }.min()!)
        guard length <= 4 * (extent + 2 * d) else { return .failure(.notApplicable) }
        let quarterSegments = min(256, max(8, Int((Double.pi / 4 / acos(1 - 0.5 * tolerance / d)).rounded(.up))))
        let planarLine = try planarBuffer(seedLine, distance: d, quarterSegments: quarterSegments, context: context)
        let simplified = try planarLine.topologyPreservingSimplified(0.45 * tolerance)
        let polygon = try context.polygon(simplified, in: outputSpatialReference)
        guard polygon.parts.count == 1, polygon.parts[0].holes.isEmpty, polygon.parts[0].shell.count >= 4 else {
            return .failure(.seedShape)
        }
        return .success((points, seedLine, polygon.parts[0].shell))
    }

    /// Runs `body` over the two halves of `0..<count`, the second on another thread (`ForkJoin`, under the calling
    /// thread's work budget) when `count` reaches `threshold`, else both on the calling thread in order.
    private static func halved<T: Sendable>(
        _ count: Int, twoThreads threshold: Int, _ body: @escaping @Sendable (Range<Int>) throws(EngineError) -> T
    ) throws(EngineError) -> (T, T) {
        let half = count / 2
        return try WorkBudget.forkJoin(count >= threshold) { () throws(EngineError) in
            try body(0..<half)
        } background: {
            () throws(EngineError) in try body(half..<count)
        }
    }

    /// Steps 2 and 3 of the attempt, for any part of the ring, on any thread: everything they read is fixed
    /// before them. `@unchecked Sendable`: `ElementCoverage` is not `Sendable` only for an inward group's
    /// containment test, which this coverage (one outward group, no test) has not; the rest are values, and PROJ's
    /// geodesic routines are pure functions of their arguments.
    private struct Steps: @unchecked Sendable {
        let geod: Geodesic
        /// The frame's centre.
        let center: Coordinate
        /// The distance and the tolerance, meters.
        let d: Double, tolerance: Double
        let vertices: [Coordinate]
        let lines: [Geodesic.Line]
        let grid: SegmentGrid
        let coverage: ElementCoverage

        /// The frame coordinates of a lon/lat point.
        func planar(_ p: Coordinate) -> (x: Double, y: Double) {
            let inv = geod.inverse(center, p)
            let a = inv.azimuth1 * .pi / 180
            return (inv.distance * sin(a), inv.distance * cos(a))
        }

        /// The lon/lat point of frame coordinates.
        func geographic(_ x: Double, _ y: Double) -> Coordinate {
            geod.move(center, azimuth: atan2(x, y) * 180 / .pi, distance: (x * x + y * y).squareRoot())
        }

        /// The point of the true boundary for the frame point (x, y) whose lon/lat is `ll`.
        func place(_ x: Double, _ y: Double, _ ll: Coordinate) -> BoundaryVertex? {
            let n = vertices.count
            // Ring points lie about d from the line: the cells within 1.1 d first (the nearest segment is the same
            // when one lies within that radius: the cells searched hold every segment that comes that close).
            guard let (element, fraction, left) = grid.nearest(x, y, radius: 1.1 * d)
                ?? grid.nearest(x, y, radius: 2 * d)
            else { return nil }
            let q: Coordinate
            var along: Double?
            if element < n {
                let az = geod.inverse(vertices[element], ll).azimuth1
                q = geod.move(vertices[element], azimuth: az, distance: d)
            } else {
                let l = lines[element - n]
                along = fraction * l.length
                let base = l.position(along!)
                q = geod.move(base.coordinate, azimuth: base.azimuth + (left ? -90 : 90), distance: d)
            }
            return onBoundary(q, element: element, along: along, coverage: coverage)
        }

        /// Step 2 for some of the seed ring's vertices (frame coordinates): the placed vertices, consecutive
        /// repeats dropped, and the largest distance a vertex moved; `nil` when one cannot be placed.
        func placed(_ seeds: ArraySlice<Coordinate>) throws(EngineError)
            -> (ring: [BoundaryVertex], largestMove: Double)?
        {
            try WorkBudget.produce(vertices: seeds.count, by: "the geodesic buffer")
            var ring: [BoundaryVertex] = []
            ring.reserveCapacity(seeds.count)
            var largestMove = 0.0
            for (k, v) in seeds.enumerated() {
                if k % 1024 == 0 { try WorkBudget.check() }
                let ll0 = geographic(v.x, v.y)
                guard let q = place(v.x, v.y, ll0) else { return nil }
                largestMove = max(largestMove, geod.distance(ll0, q.point))
                if let last = ring.last, last.point == q.point { continue }
                ring.append(q)
            }
            return (ring, largestMove)
        }

        /// Step 3 for the edges from `ring[i]` to the next vertex (cyclically), i in `edges`: the vertices after
        /// each start up to its edge's end, splits included; `nil` when an edge cannot be brought within 0.8 × the
        /// tolerance with at most `budget` splits.
        func checked(_ ring: [BoundaryVertex], edges: Range<Int>, budget: Int) throws(EngineError) -> [Coordinate]? {
            var out: [Coordinate] = []
            out.reserveCapacity(edges.count)
            var budget = budget
            for (k, i) in edges.enumerated() {
                if k % 256 == 0 { try WorkBudget.check() }
                guard split(ring[i], ring[(i + 1) % ring.count], depth: 0, budget: &budget, coverage: coverage,
                            accept: 0.8 * tolerance, place: { m in let p = planar(m); return place(p.x, p.y, m) },
                            into: &out)
                else { return nil }
            }
            return out
        }
    }

    /// A vertex on the true boundary and the element whose boundary it lies on (for a crossing, one of the two).
    typealias BoundaryVertex = (point: Coordinate, element: Int)

    /// `q`, which lies on the boundary of `element` (at `along` m along it for a segment, if known), when no
    /// element is nearer by more than 10 µm; else the true crossing of the two boundaries near it, or its
    /// projection onto the true boundary, when that one passes the same check; `nil` otherwise.
    static func onBoundary(_ q: Coordinate, element: Int, along: Double? = nil, coverage: ElementCoverage)
        -> BoundaryVertex?
    {
        if coverage.isWithin(q, output: q, band: 1e-5, hint: element, guess: along) { return (q, element) }
        guard let r = coverage.nearest(q, output: q) else { return nil }
        if r.excess < 0, r.index != element, let x = coverage.crossing(of: element, r.index, from: q),
           coverage.isWithin(x, output: x, band: 1e-5, hint: element)
        {
            return (x, element)
        }
        if let p = coverage.projection(q, output: q), let r = coverage.nearest(p, output: p), abs(r.excess) <= 1e-5 {
            return (p, r.index)
        }
        return nil
    }

    /// Appends to `out` the vertices after `a` up to `b`: `b` when the edge's five interior sixths are within
    /// `accept` m of the true boundary (`ElementCoverage.isWithin`, starting from the element of the nearer end),
    /// else (at most 12 levels deep, while `budget` lasts) the point of the true boundary that `place` gives for its
    /// midpoint between the two halves, each checked the same way. `false` when that fails.
    private static func split(_ a: BoundaryVertex, _ b: BoundaryVertex, depth: Int, budget: inout Int,
                              coverage: ElementCoverage, accept: Double, place: (Coordinate) -> BoundaryVertex?,
                              into out: inout [Coordinate]) -> Bool
    {
        var fits = true
        // The middle first: where an edge fails, it usually fails there. The candidates are gathered once for the
        // five points.
        let points = (1...5).map { k in
            let t = Double(k) / 6
            return Coordinate(x: a.point.x + t * (b.point.x - a.point.x), y: a.point.y + t * (b.point.y - a.point.y))
        }
        let neighbourhood = coverage.neighbourhood(of: points, slack: accept)
        for k in [3, 1, 2, 4, 5] {
            let p = points[k - 1]
            guard coverage.isWithin(p, output: p, band: accept, hint: k <= 3 ? a.element : b.element,
                                    among: neighbourhood)
            else {
                fits = false
                break
            }
        }
        if fits { out.append(b.point); return true }
        budget -= 1
        let mid = Coordinate(x: (a.point.x + b.point.x) / 2, y: (a.point.y + b.point.y) / 2)
        guard depth < 12, budget > 0, let m = place(mid), m.point != a.point, m.point != b.point
        else { return false }
        return split(a, m, depth: depth + 1, budget: &budget, coverage: coverage, accept: accept, place: place,
                     into: &out)
            && split(m, b, depth: depth + 1, budget: &budget, coverage: coverage, accept: accept, place: place,
                     into: &out)
    }

    /// The line through `points` simplified by Douglas–Peucker within `tolerance` (GEOS).
    private static func simplifiedLine(_ points: [(x: Double, y: Double)], tolerance: Double,
                                       context: GEOSContext) throws(EngineError) -> [(x: Double, y: Double)]
    {
        let line = try context.lineString(points.map { Coordinate(x: $0.x, y: $0.y) })
        let cs = try context.lineCoordinates(try line.simplified(tolerance), "simplify")
        return cs.count >= 2 ? cs.map { ($0.x, $0.y) } : points
    }

    /// GEOS's planar buffer (round joins and caps) of the line through `points`.
    private static func planarBuffer(_ points: [(x: Double, y: Double)], distance: Double, quarterSegments: Int,
                                     context: GEOSContext) throws(EngineError) -> GEOSGeometryRef
    {
        let line = try context.lineString(points.map { Coordinate(x: $0.x, y: $0.y) })
        return try line.roundBuffer(distance, quarterSegments: quarterSegments)
    }

    /// Whether a GEOS polygon or multipolygon is one polygon without holes.
    private static func holeFree(_ ref: GEOSGeometryRef, context: GEOSContext) throws(EngineError) -> Bool {
        let polygon = try context.polygon(ref, in: .wgs84)
        return polygon.parts.count == 1 && polygon.parts[0].holes.isEmpty
    }
}

/// The segments of a planar polyline in a uniform grid, for the element nearest to a point.
private struct SegmentGrid {
    private let points: [(x: Double, y: Double)]
    private let cell: Double
    private let minX: Double, minY: Double
    private let columns: Int, rows: Int
    private var cells: [[Int32]]

    /// A grid of cells of `cell` or more (doubled until both the cells and the segments' entries in them number at
    /// most `SegmentGrid.entryLimit(segments:)`): a long diagonal line buffered by a short distance once asked for
    /// 5 × 10¹⁰ cells of half a metre (393 GB: the process aborted); queries stay correct with larger cells, only slower.
    init(_ points: [(x: Double, y: Double)], cell: Double) {
        self.points = points
        minX = points.map { $0.x }.min()!
        minY = points.map { $0.y }.min()!
        let maxX = points.map { $0.x }.max()!, maxY = points.map { $0.y }.max()!
        let limit = Self.entryLimit(segments: points.count - 1)
        var size = max(cell, 1e-9, max(maxX - minX, maxY - minY) / 1e9)
        while Self.gridCells(maxX - minX, maxY - minY, size) > limit || Self.entries(points, size, minX, minY) > limit {
            size *= 2
        }
        self.cell = size
        columns = Int(((maxX - minX) / size).rounded(.down)) + 1
        rows = Int(((maxY - minY) / size).rounded(.down)) + 1
        cells = Array(repeating: [], count: columns * rows)
        for i in 0..<(points.count - 1) {
            let a = points[i], b = points[i + 1]
            let c0 = column(min(a.x, b.x)), c1 = column(max(a.x, b.x))
            let r0 = row(min(a.y, b.y)), r1 = row(max(a.y, b.y))
            for r in r0...r1 { for c in c0...c1 { cells[r * columns + c].append(Int32(i)) } }
        }
    }

    /// The most cells, and the most segment entries in cells, a grid may have: 16 per segment, at least 4,096.
    static func entryLimit(segments: Int) -> Double { Double(max(4096, 16 * segments)) }

    /// The cells of a grid of `size` over a `width` × `height` box.
    private static func gridCells(_ width: Double, _ height: Double, _ size: Double) -> Double {
        ((width / size).rounded(.down) + 1) * ((height / size).rounded(.down) + 1)
    }

    /// The entries segments would make in a grid of `size` (each goes into every cell of its bounding box).
    private static func entries(_ points: [(x: Double, y: Double)], _ size: Double, _ minX: Double, _ minY: Double)
        -> Double
    {
        var total = 0.0
        for i in 0..<(points.count - 1) {
            let a = points[i], b = points[i + 1]
            let columns = ((max(a.x, b.x) - minX) / size).rounded(.down) - ((min(a.x, b.x) - minX) / size).rounded(.down) + 1
            let rows = ((max(a.y, b.y) - minY) / size).rounded(.down) - ((min(a.y, b.y) - minY) / size).rounded(.down) + 1
            total += columns * rows
        }
        return total
    }

    private func column(_ x: Double) -> Int { min(columns - 1, max(0, Int(((x - minX) / cell).rounded(.down)))) }
    private func row(_ y: Double) -> Int { min(rows - 1, max(0, Int(((y - minY) / cell).rounded(.down)))) }

    /// The element of the line nearest to (x, y) among the segments within `radius` of it: vertex k as k, the
    /// interior of segment i as `points.count + i`, with the fraction of the segment's length at the foot and
    /// whether the point lies to the left of the segment; `nil` when no segment lies within `radius`.
    func nearest(_ x: Double, _ y: Double, radius: Double) -> (element: Int, fraction: Double, left: Bool)? {
        let n = points.count
        var best: (d2: Double, element: Int, fraction: Double, left: Bool)?
        let c0 = column(x - radius), c1 = column(x + radius), r0 = row(y - radius), r1 = row(y + radius)
        for r in r0...r1 {
            for c in c0...c1 {
                for s in cells[r * columns + c] {
                    let i = Int(s)
                    let a = points[i], b = points[i + 1]
                    let dx = b.x - a.x, dy = b.y - a.y
                    let len2 = dx * dx + dy * dy
                    var t = len2 > 0 ? ((x - a.x) * dx + (y - a.y) * dy) / len2 : 0
                    t = min(1, max(0, t))
                    let fx = a.x + t * dx - x, fy = a.y + t * dy - y
                    let d2 = fx * fx + fy * fy
                    guard best == nil || d2 < best!.d2 else { continue }
                    let element = t <= 0 ? i : t >= 1 ? i + 1 : n + i
                    best = (d2, element, t, dx * (y - a.y) - dy * (x - a.x) > 0)
                }
            }
        }
        guard let best, best.d2 <= radius * radius else { return nil }
        return (best.element, best.fraction, best.left)
    }
}

