import Foundation
import MeridianCore

/// Raised inside `CircleUnion` when a configuration is too close to degenerate (touching or collinear edges,
/// crossings at vertices, coincident crossing points, inconsistent ring links) to be decided safely in floating
/// point. The caller then unions the same polygons with GEOS, so the result is always right.
struct DegenerateConfiguration: Error, Sendable {
    /// What was too close to call.
    let reason: String
}

/// The union of many point buffers ("circles": regular n-gons inscribed in circles) without a general overlay.
///
/// The boundary of a union is the set of boundary points of its members that lie inside no other member. Point
/// buffers with GEOS's vertices are homothets of one convex polygon, so any two boundaries cross at most twice
/// (homothets of a convex body are pseudo-disks): the part of one boundary inside another is a single arc, found
/// by testing only the few edges near the two crossing points. The algorithm:
/// 1. Cull: a polygon whose boundary lies inside the inner disks of its neighbours contributes nothing. This is
///    decided with circles alone (two `acos` per neighbour, nearest neighbours first, stopping once covered), so in
///    heavy overlap nearly every polygon is skipped after a handful of neighbours.
/// 2. For every other polygon, intersect its boundary with each neighbour's (edges within analytic angular
///    windows only) and collect the covered arcs as parameter intervals; neighbours whose reach is already covered
///    are skipped. The uncovered arcs are pieces of the union's boundary, each starting and ending at a crossing.
/// 3. Link the arcs into rings through their crossings (each crossing point is computed once, from the same
///    operands, so both arcs that meet there share it bit for bit). Counter-clockwise rings are shells, clockwise
///    ones holes; each hole finds its shell by shooting a ray upward to the nearest ring (same part, by
///    construction) and following those links to a shell.
///
/// Every decision that floating-point rounding could flip is checked against an error bound; when one is too
/// close to call, `DegenerateConfiguration` is thrown and the caller falls back to GEOS.
struct CircleUnion {
    /// The polygon's unit vertices.
    let circle: UnitCircle
    /// Centres (x) of the distinct circles.
    let cx: [Double]
    /// Centres (y).
    let cy: [Double]
    /// Radii.
    let r: [Double]

    /// Relative margin applied to every radius bound (the polygon's rounded vertices stray by ~1e-16).
    static let radiusMargin = 1e-12
    /// Angular margin (radians) applied to analytic coverage windows.
    static let angleMargin = 1e-6
    /// Relative bound under which an orientation is considered too close to zero.
    static let orientationTolerance = 1e-11
    /// Smallest crossing parameter along an edge kept away from its ends.
    static let edgeEndTolerance = 1e-9

    /// Creates the problem from circles; exact duplicates (same centre and radius) are dropped.
    /// - Parameters:
    ///   - circle: The polygon's unit vertices.
    ///   - x: Centres (x).
    ///   - y: Centres (y).
    ///   - radius: Radii.
    ///   - threads: The most threads to sort on: with more than one (and at least `circlesPerThread` circles per
    ///     thread) the halves are sorted on two threads and merged; the circles come out the same.
    init(circle: UnitCircle, x: [Double], y: [Double], radius: [Double], threads: Int = 1) {
        self.circle = circle
        // The circles sorted as values (not indices compared through the three arrays: half the instructions), or
        // not at all when they come in order (a sub-problem of some of a problem's circles).
        typealias Circle = (x: Double, y: Double, r: Double)
        let n = x.count
        var circles = (0..<n).map { (x: x[$0], y: y[$0], r: radius[$0]) }
        let inOrder = circles.indices.dropFirst().allSatisfy { k in
            let (a, b) = (circles[k - 1], circles[k])
            return !Self.precedes(b.x, b.y, b.r, a.x, a.y, a.r)
        }
        // Sorted in two halves (on two threads when given them), merged as the duplicates are dropped below.
        var middle = n
        if !inOrder {
            let precedes = { (a: Circle, b: Circle) -> Bool in Self.precedes(a.x, a.y, a.r, b.x, b.y, b.r) }
            if threads > 1 && n >= 2 * Self.circlesPerThread {
                middle = n / 2
                let upper = Array(circles[middle...])
                circles.removeLast(n - middle)
                let sortedUpper = ForkJoin.run({ circles.sort(by: precedes) }, background: {
                    var half = upper
                    half.sort { a, b in Self.precedes(a.x, a.y, a.r, b.x, b.y, b.r) }
                    return half
                }).1
                circles += sortedUpper
            } else {
                circles.sort(by: precedes)
            }
        }
        var ux: [Double] = [], uy: [Double] = [], ur: [Double] = []
        ux.reserveCapacity(n)
        uy.reserveCapacity(n)
        ur.reserveCapacity(n)
        var a = 0, b = middle
        while a < middle || b < n {
            let c: Circle
            if b == n || (a < middle && !Self.precedes(circles[b].x, circles[b].y, circles[b].r,
                                                         circles[a].x, circles[a].y, circles[a].r)) {
                c = circles[a]
                a += 1
            } else {
                c = circles[b]
                b += 1
            }
            if let lx = ux.last, lx == c.x, uy.last! == c.y, ur.last! == c.r { continue }
            ux.append(c.x)
            uy.append(c.y)
            ur.append(c.r)
        }
        cx = ux
        cy = uy
        r = ur
    }

    /// The order of the circles (by centre x, then y, then radius): `cx`, `cy` and `r` are sorted by it.
    @inline(__always)
    static func precedes(_ x0: Double, _ y0: Double, _ r0: Double, _ x1: Double, _ y1: Double, _ r1: Double) -> Bool {
        if x0 != x1 { return x0 < x1 }
        if y0 != y1 { return y0 < y1 }
        return r0 < r1
    }

    /// The union as polygon parts (counter-clockwise shells, clockwise holes, rings closed).
    func run() throws(DegenerateConfiguration) -> [Polygon.Part] { try runOrdered().parts }

    /// The union as polygon parts (as `run()`), with the circle (an index into `cx`, `cy`, `r`) whose arc starts each
    /// part's shell: the parts come in increasing order of these circles. The parts of clusters that cannot touch
    /// (`clusters()`) do not depend on the other clusters, so the union of a set of clusters is the unions of two
    /// subsets merged by these circles' order (`mergeInOrder`).
    ///
    /// With `threads` above 1 the circles' boundary arcs (each circle's against its neighbours: the classification
    /// and tracing, a third of the work on a large cluster) are found in runs of circles on that many threads and
    /// put together in the circles' order: the same arcs, so the same parts, as on one thread.
    func runOrdered(threads: Int = 1) throws(DegenerateConfiguration) -> (parts: [Polygon.Part], shellPolygons: [Int]) {
        let grid = CircleGrid(x: cx, y: cy, radius: r)
        let n = cx.count
        let runs = threads > 1 ? min(4 * threads, n / Self.circlesPerRun) : 1
        var arcs: ArcStore
        if runs <= 1 {
            arcs = try traceArcs(0..<n, grid: grid)
        } else {
            let shared = SharedTrace(problem: self, grid: grid)
            let pieces = ForkJoin.map(count: runs, threads: threads) { (k: Int) -> Result<ArcStore, DegenerateConfiguration> in
                Result { () throws(DegenerateConfiguration) in
                    try shared.problem.traceArcs((n * k / runs)..<(n * (k + 1) / runs), grid: shared.grid)
                }
            }
            arcs = ArcStore()
            for piece in pieces { arcs.append(contentsOf: try piece.get()) }  // the first run's error first
        }
        var rings = try linkRings(arcs)
        return try assemble(&rings)
    }

    /// The fewest circles worth a thread of their own in the sort of `init(circle:x:y:radius:threads:)` and in the
    /// pair search of `clusters(maximumPairs:threads:)` (about a millisecond of work).
    static let circlesPerThread = 16_384

    /// The fewest circles `runOrdered(threads:)` hands to a thread at once.
    static let circlesPerRun = 2048

    /// The boundary arcs of the circles `range`, in order.
    private func traceArcs(_ range: Range<Int>, grid: CircleGrid) throws(DegenerateConfiguration) -> ArcStore {
        var arcs = ArcStore()
        var cover = CoverageScratch()
        var crossings = CrossingScratch()
        for i in range {
            switch classify(i, grid: grid, scratch: &cover) {
            case .culled: continue
            case .isolated: arcs.appendWhole(polygon: i)
            case .overlapped: try traceBoundary(of: i, grid: grid, crossings: &crossings, arcs: &arcs)
            }
        }
        return arcs
    }

    // MARK: Geometry helpers

    /// Vertex k of polygon i (k taken modulo n).
    @inline(__always)
    func vertex(_ i: Int, _ k: Int) -> (Double, Double) {
        let m = k % circle.count
        return (cx[i] + r[i] * circle.x[m], cy[i] + r[i] * circle.y[m])
    }

    /// The inner radius (edge midpoints) of polygon i.
    @inline(__always)
    func innerRadius(_ i: Int) -> Double { r[i] * circle.innerRatio }

    /// min over R in [lo, hi] of (R² + d² − ρ²) / (2Rd): the cosine bound for the band [lo, hi] to reach the disk ρ.
    @inline(__always)
    static func reachCosine(lo: Double, hi: Double, d: Double, rho: Double) -> Double {
        func g(_ radius: Double) -> Double { (radius * radius + d * d - rho * rho) / (2 * radius * d) }
        var m = min(g(lo), g(hi))
        if d > rho {
            let star = (d * d - rho * rho).squareRoot()
            if star > lo && star < hi { m = min(m, g(star)) }
        }
        return m
    }

    /// max over R in {lo, hi} of (R² + d² − ρ²) / (2Rd): the cosine bound for the whole band [lo, hi] to lie inside
    /// the disk ρ (both ends inside; a disk is convex).
    @inline(__always)
    static func insideCosine(lo: Double, hi: Double, d: Double, rho: Double) -> Double {
        max((lo * lo + d * d - rho * rho) / (2 * lo * d), (hi * hi + d * d - rho * rho) / (2 * hi * d))
    }

    // MARK: Phase 1: culling with circles

    /// What phase 1 found about one polygon.
    enum Classification {
        /// Its boundary lies inside the union of its neighbours' inner disks: it contributes nothing.
        case culled
        /// No other circle reaches it: its whole ring is a shell of the union.
        case isolated
        /// Its boundary must be traced.
        case overlapped
    }

    /// Classifies polygon i (see `Classification`). Neighbours are visited nearest cells first and the search stops
    /// once the boundary is covered.
    func classify(_ i: Int, grid: CircleGrid, scratch: inout CoverageScratch) -> Classification {
        let xi = cx[i], yi = cy[i], ri = r[i]
        let lo = innerRadius(i) * (1 - Self.radiusMargin), hi = ri * (1 + Self.radiusMargin)
        scratch.reset()
        let reach = grid.reach(for: ri)
        let (ix, iy) = grid.cell(xi, yi)
        var touched = false
        for ring in 0...reach {
            var culled = false
            grid.forEachInRing(ix, iy, ring) { j in
                if j == i || culled { return }
                let dx = cx[j] - xi, dy = cy[j] - yi
                let d2 = dx * dx + dy * dy
                let reachSum = (ri + r[j]) * (1 + Self.radiusMargin)
                if d2 >= reachSum * reachSum { return }
                touched = true
                let rho = innerRadius(j) * (1 - Self.radiusMargin)
                if d2 == 0 {
                    if rho > hi { culled = true }
                    return
                }
                let d = d2.squareRoot()
                if d + hi < rho { culled = true; return }
                let m = Self.insideCosine(lo: lo, hi: hi, d: d, rho: rho)
                if m >= 1 { return }
                let w = acos(max(m, -1)) - Self.angleMargin
                if w <= 0 { return }
                scratch.add(center: atan2(dy, dx), halfWidth: w)
            }
            if culled || scratch.isFull() { return .culled }
        }
        return touched ? .overlapped : .isolated
    }
}

/// Angular intervals (radians) that cover part of a circle, for the culling test, kept merged and sorted.
struct CoverageScratch {
    private var starts: [Double] = []
    private var ends: [Double] = []

    /// Forgets all intervals.
    mutating func reset() {
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// Adds the interval [center − halfWidth, center + halfWidth].
    mutating func add(center: Double, halfWidth: Double) {
        let full = 2 * Double.pi
        if halfWidth >= Double.pi {
            insert(0, full)
            return
        }
        var a = center - halfWidth
        if a < 0 { a += full }
        if a >= full { a -= full }
        let b = a + 2 * halfWidth
        if b <= full {
            insert(a, b)
        } else {
            insert(a, full)
            insert(0, b - full)
        }
    }

    /// Inserts [a, b] into the sorted, disjoint list, merging what it overlaps.
    private mutating func insert(_ a: Double, _ b: Double) {
        var lo = a, hi = b
        var k = 0
        while k < starts.count && ends[k] < lo { k += 1 }
        let first = k
        while k < starts.count && starts[k] <= hi {
            lo = min(lo, starts[k])
            hi = max(hi, ends[k])
            k += 1
        }
        if k > first {
            starts.replaceSubrange(first..<k, with: CollectionOfOne(lo))
            ends.replaceSubrange(first..<k, with: CollectionOfOne(hi))
        } else {
            starts.insert(lo, at: first)
            ends.insert(hi, at: first)
        }
    }

    /// Whether the intervals cover the whole circle [0, 2π].
    func isFull() -> Bool { starts.count == 1 && starts[0] <= 0 && ends[0] >= 2 * Double.pi }

    /// Whether any interval was added.
    var isEmpty: Bool { starts.isEmpty }
}

/// What the threads of `CircleUnion.runOrdered(threads:)` and `clusters(maximumPairs:threads:)` share, read only: the
/// problem and its grid.
struct SharedTrace: @unchecked Sendable {
    let problem: CircleUnion
    let grid: CircleGrid
}
