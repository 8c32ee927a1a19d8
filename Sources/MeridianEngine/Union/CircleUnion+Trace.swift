import Foundation

/// Identifies a crossing of two polygon edges: the lower polygon index with its edge, then the higher one with its
/// edge. Both arcs that meet at the crossing compute the same key.
struct CrossKey: Hashable, Sendable {
    /// lower polygon << 20 | its edge.
    let low: UInt64
    /// higher polygon << 20 | its edge.
    let high: UInt64

    init(_ p: Int, _ e: Int, _ q: Int, _ f: Int) {
        low = UInt64(p) << 20 | UInt64(e)
        high = UInt64(q) << 20 | UInt64(f)
    }
}

/// The crossings found on one polygon's boundary and the covered parameter blocks, reused between polygons.
struct CrossingScratch {
    /// Crossing parameter s = edge + t along the polygon's boundary.
    var s: [Double] = []
    /// Crossing point.
    var x: [Double] = [], y: [Double] = []
    /// Crossing key.
    var key: [CrossKey] = []
    /// Covered blocks [start, end] ⊂ [0, n], sorted and disjoint, with the crossing index at each end (−1 at a cut
    /// through 0 / n).
    var blockStart: [Double] = [], blockEnd: [Double] = []
    var blockStartCrossing: [Int] = [], blockEndCrossing: [Int] = []
    /// Candidate neighbours of the current ring of cells.
    var candidates: [Int] = []

    mutating func reset() {
        s.removeAll(keepingCapacity: true)
        x.removeAll(keepingCapacity: true)
        y.removeAll(keepingCapacity: true)
        key.removeAll(keepingCapacity: true)
        blockStart.removeAll(keepingCapacity: true)
        blockEnd.removeAll(keepingCapacity: true)
        blockStartCrossing.removeAll(keepingCapacity: true)
        blockEndCrossing.removeAll(keepingCapacity: true)
    }

    mutating func addCrossing(s value: Double, x px: Double, y py: Double, key k: CrossKey) -> Int {
        s.append(value)
        x.append(px)
        y.append(py)
        key.append(k)
        return s.count - 1
    }

    /// Adds the covered block [a, b] (a < b, no wrap) with crossing references at its ends, merging overlaps.
    mutating func cover(_ a: Double, _ b: Double, startCrossing ca: Int, endCrossing cb: Int) {
        var start = a, end = b, sc = ca, ec = cb
        var insertAt = blockStart.count
        var k = 0
        while k < blockStart.count {
            if blockEnd[k] < start {
                k += 1
                continue
            }
            if blockStart[k] > end {
                insertAt = k
                break
            }
            // Overlapping or touching: absorb block k.
            if blockStart[k] < start {
                start = blockStart[k]
                sc = blockStartCrossing[k]
            }
            if blockEnd[k] > end {
                end = blockEnd[k]
                ec = blockEndCrossing[k]
            }
            blockStart.remove(at: k)
            blockEnd.remove(at: k)
            blockStartCrossing.remove(at: k)
            blockEndCrossing.remove(at: k)
            insertAt = k
        }
        if insertAt > blockStart.count { insertAt = blockStart.count }
        blockStart.insert(start, at: insertAt)
        blockEnd.insert(end, at: insertAt)
        blockStartCrossing.insert(sc, at: insertAt)
        blockEndCrossing.insert(ec, at: insertAt)
    }

    /// Whether [a, b] (a < b, no wrap) lies inside one block.
    func isCovered(_ a: Double, _ b: Double) -> Bool {
        for k in blockStart.indices where blockStart[k] <= a {
            if blockEnd[k] >= b { return true }
        }
        return false
    }

    /// Whether the whole boundary [0, n] is one block.
    func isFull(_ n: Double) -> Bool { blockStart.count == 1 && blockStart[0] <= 0 && blockEnd[0] >= n }
}

/// The uncovered boundary arcs of all polygons: pieces of the union's boundary.
struct ArcStore {
    /// The polygon each arc runs along.
    var polygon: [Int32] = []
    /// Parameters of the arc's start and end on that polygon's boundary; start −1 marks a whole polygon.
    var s0: [Double] = [], s1: [Double] = []
    /// The start crossing point.
    var x0: [Double] = [], y0: [Double] = []
    /// Keys of the start and end crossings.
    var startKey: [CrossKey] = [], endKey: [CrossKey] = []

    /// Appends another store's arcs after these.
    mutating func append(contentsOf other: ArcStore) {
        polygon += other.polygon
        s0 += other.s0
        s1 += other.s1
        x0 += other.x0
        y0 += other.y0
        startKey += other.startKey
        endKey += other.endKey
    }

    /// Appends a whole polygon's ring (no crossings).
    mutating func appendWhole(polygon i: Int) {
        append(polygon: i, s0: -1, s1: -1, x: 0, y: 0, start: CrossKey(i, 0, i, 0), end: CrossKey(i, 0, i, 0))
    }

    mutating func append(
        polygon i: Int, s0 a: Double, s1 b: Double, x: Double, y: Double, start: CrossKey, end: CrossKey
    ) {
        polygon.append(Int32(i))
        s0.append(a)
        s1.append(b)
        x0.append(x)
        y0.append(y)
        startKey.append(start)
        endKey.append(end)
    }
}

extension CircleUnion {
    /// The edges of a polygon whose angular sectors meet the window [a, b] (radians), each once.
    func windowEdges(_ a: Double, _ b: Double, into edges: inout [Int]) {
        edges.removeAll(keepingCapacity: true)
        guard b >= a else { return }
        let n = circle.count
        let first = Int((a / circle.step).rounded(.down)), last = Int((b / circle.step).rounded(.down))
        if last - first + 1 >= n {
            edges.append(contentsOf: 0..<n)
            return
        }
        for k in first...last { edges.append(((k % n) + n) % n) }
    }

    /// Finds the uncovered arcs of polygon i's boundary and appends them to `arcs`.
    func traceBoundary(of i: Int, grid: CircleGrid, crossings: inout CrossingScratch, arcs: inout ArcStore)
        throws(DegenerateConfiguration)
    {
        let n = circle.count
        let nd = Double(n)
        let xi = cx[i], yi = cy[i], ri = r[i]
        let loI = innerRadius(i) * (1 - Self.radiusMargin), hiI = ri * (1 + Self.radiusMargin)
        crossings.reset()
        var edgesI: [Int] = [], edgesJ: [Int] = []
        let reach = grid.reach(for: ri)
        let (ix, iy) = grid.cell(xi, yi)
        for ring in 0...reach {
            crossings.candidates.removeAll(keepingCapacity: true)
            grid.forEachInRing(ix, iy, ring) { crossings.candidates.append($0) }
            for j in crossings.candidates where j != i {
                let dx = cx[j] - xi, dy = cy[j] - yi
                let d2 = dx * dx + dy * dy
                let loJ = innerRadius(j) * (1 - Self.radiusMargin), hiJ = r[j] * (1 + Self.radiusMargin)
                if d2 >= (hiI + hiJ) * (hiI + hiJ) { continue }
                let d = d2.squareRoot()
                if d + hiI < loJ { return }  // inside j's inner disk: covered
                if d + hiJ < loI { continue }  // j inside i's inner disk: covers nothing of i's boundary
                if d2 == 0 {
                    // Concentric: the smaller one is strictly inside the larger (their vertices share rays).
                    guard abs(r[j] - ri) > 1e-9 * ri else {
                        throw DegenerateConfiguration(reason: "nearly equal concentric circles")
                    }
                    if r[j] > ri { return }
                    continue
                }
                let phi = atan2(dy, dx)
                // Windows on i: where i's band reaches j's outer circle but is not wholly inside j's inner one.
                let reachI = Self.reachCosine(lo: loI, hi: hiI, d: d, rho: hiJ)
                if reachI >= 1 { continue }
                let betaI = acos(max(reachI, -1)) + Self.angleMargin
                // Skip j when everything it could touch on i is already covered.
                if isAlreadyCovered(phi - betaI, phi + betaI, crossings) { continue }
                let insideI = Self.insideCosine(lo: loI, hi: hiI, d: d, rho: loJ)
                let gammaI = insideI >= 1 ? 0 : max(acos(max(insideI, -1)) - Self.angleMargin, 0)
                let reachJ = Self.reachCosine(lo: loJ, hi: hiJ, d: d, rho: hiI)
                let betaJ = reachJ >= 1 ? 0 : acos(max(reachJ, -1)) + Self.angleMargin
                let insideJ = Self.insideCosine(lo: loJ, hi: hiJ, d: d, rho: loI)
                let gammaJ = insideJ >= 1 ? 0 : max(acos(max(insideJ, -1)) - Self.angleMargin, 0)
                // A crossing left of the line from i to j lies in i's window [φ+γ, φ+β] and, seen from j (looking
                // back at φ+π), in j's window [φ+π−β, φ+π−γ]; a crossing on the right in the mirrored pair.
                var entry = -1, exit = -1, found = 0
                var firstKey = CrossKey(0, 0, 0, 0), secondKey = firstKey
                for side in 0..<2 {
                    if side == 0 {
                        windowEdges(phi + gammaI, phi + betaI, into: &edgesI)
                        windowEdges(phi + Double.pi - betaJ, phi + Double.pi - gammaJ, into: &edgesJ)
                    } else {
                        windowEdges(phi - betaI, phi - gammaI, into: &edgesI)
                        windowEdges(phi + Double.pi + gammaJ, phi + Double.pi + betaJ, into: &edgesJ)
                    }
                    for e in edgesI {
                        for f in edgesJ {
                            guard let c = try cross(i, e, j, f) else { continue }
                            // Edges near the line from i to j sit in both windows: count each crossing once.
                            if (found >= 1 && c.key == firstKey) || (found == 2 && c.key == secondKey) { continue }
                            found += 1
                            if found > 2 { throw DegenerateConfiguration(reason: "more than two crossings") }
                            if found == 1 { firstKey = c.key } else { secondKey = c.key }
                            let index = crossings.addCrossing(s: Double(e) + c.t, x: c.x, y: c.y, key: c.key)
                            if c.enters { entry = index } else { exit = index }
                        }
                    }
                }
                if found == 0 {
                    // Disjoint, or one inside the other.
                    let (vx, vy) = vertex(i, 0)
                    if try isInside(vx, vy, polygon: j) { return }
                    continue
                }
                guard found == 2, entry >= 0, exit >= 0 else {
                    throw DegenerateConfiguration(reason: "unpaired crossings")
                }
                let a = crossings.s[entry], b = crossings.s[exit]
                if a < b {
                    crossings.cover(a, b, startCrossing: entry, endCrossing: exit)
                } else {
                    crossings.cover(a, nd, startCrossing: entry, endCrossing: -1)
                    crossings.cover(0, b, startCrossing: -1, endCrossing: exit)
                }
                if crossings.isFull(nd) { return }
            }
        }
        try emitArcs(of: i, crossings, into: &arcs)
    }

    /// Whether the angular window [a, b] (as boundary parameters, one edge of margin) is inside the covered blocks.
    private func isAlreadyCovered(_ a: Double, _ b: Double, _ crossings: CrossingScratch) -> Bool {
        guard !crossings.blockStart.isEmpty else { return false }
        let nd = Double(circle.count)
        var lo = a / circle.step - 1, hi = b / circle.step + 1
        if hi - lo >= nd { return false }
        let shift = (lo / nd).rounded(.down) * nd
        lo -= shift
        hi -= shift
        if hi <= nd { return crossings.isCovered(lo, hi) }
        return crossings.isCovered(lo, nd) && crossings.isCovered(0, hi - nd)
    }

    /// Turns the gaps between covered blocks into arcs.
    private func emitArcs(of i: Int, _ c: CrossingScratch, into arcs: inout ArcStore) throws(DegenerateConfiguration) {
        let m = c.blockStart.count
        if m == 0 {
            arcs.appendWhole(polygon: i)
            return
        }
        for k in 0..<m {
            let from = c.blockEndCrossing[k]
            if from < 0 { continue }  // ends at the cut n: continues in the block starting at 0
            let to = c.blockStartCrossing[(k + 1) % m]
            guard to >= 0 else { throw DegenerateConfiguration(reason: "gap without an entry crossing") }
            arcs.append(
                polygon: i, s0: c.s[from], s1: c.s[to], x: c.x[from], y: c.y[from], start: c.key[from],
                end: c.key[to])
        }
    }

    /// A crossing of edge e of polygon i with edge f of polygon j, computed from the canonical operand order (lower
    /// polygon first) so both polygons get the same point. `t` is the parameter along i's edge and `enters` whether
    /// i's boundary enters j there. Throws when the configuration is too close to call.
    @inline(__always)
    func cross(_ i: Int, _ e: Int, _ j: Int, _ f: Int) throws(DegenerateConfiguration)
        -> (t: Double, x: Double, y: Double, enters: Bool, key: CrossKey)?
    {
        let iLow = i < j
        let (p, pe, q, qf) = iLow ? (i, e, j, f) : (j, f, i, e)
        let (px, py) = vertex(p, pe), (qx, qy) = vertex(p, pe + 1)
        let (rx, ry) = vertex(q, qf), (sx, sy) = vertex(q, qf + 1)
        if max(px, qx) < min(rx, sx) || max(rx, sx) < min(px, qx) || max(py, qy) < min(ry, sy)
            || max(ry, sy) < min(py, qy)
        {
            return nil
        }
        let tol = Self.orientationTolerance
        @inline(__always) func side(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
            -> (Double, Int)
        {
            let l = (bx - ax) * (cy - ay), rr = (by - ay) * (cx - ax)
            let o = l - rr
            let bound = tol * (abs(l) + abs(rr))
            return (o, o > bound ? 1 : (o < -bound ? -1 : 0))
        }
        let (o1, s1) = side(rx, ry, sx, sy, px, py)
        let (o2, s2) = side(rx, ry, sx, sy, qx, qy)
        if s1 != 0 && s1 == s2 { return nil }
        let (o3, s3) = side(px, py, qx, qy, rx, ry)
        let (o4, s4) = side(px, py, qx, qy, sx, sy)
        if s3 != 0 && s3 == s4 { return nil }
        guard s1 != 0, s2 != 0, s3 != 0, s4 != 0 else {
            throw DegenerateConfiguration(reason: "edges touch or are collinear")
        }
        let t = o1 / (o1 - o2), u = o3 / (o3 - o4)
        let lowEnters = s1 < 0
        guard lowEnters == (s3 > 0) else { throw DegenerateConfiguration(reason: "inconsistent crossing") }
        let eps = Self.edgeEndTolerance
        guard t > eps, t < 1 - eps, u > eps, u < 1 - eps else {
            throw DegenerateConfiguration(reason: "crossing at a vertex")
        }
        let x = px + t * (qx - px), y = py + t * (qy - py)
        let n = circle.count
        let key = CrossKey(p, pe % n, q, qf % n)
        return iLow ? (t, x, y, lowEnters, key) : (u, x, y, !lowEnters, key)
    }

    /// Whether a point lies strictly inside polygon j (throws when it is too close to j's boundary to tell).
    func isInside(_ x: Double, _ y: Double, polygon j: Int) throws(DegenerateConfiguration) -> Bool {
        let dx = x - cx[j], dy = y - cy[j]
        let d2 = dx * dx + dy * dy
        let outer = r[j] * (1 + Self.radiusMargin), inner = innerRadius(j) * (1 - Self.radiusMargin)
        if d2 > outer * outer { return false }
        if d2 < inner * inner { return true }
        let n = circle.count
        for k in 0..<n {
            let (ax, ay) = vertex(j, k), (bx, by) = vertex(j, k + 1)
            let l = (bx - ax) * (y - ay), rr = (by - ay) * (x - ax)
            let o = l - rr
            let bound = Self.orientationTolerance * (abs(l) + abs(rr))
            if o < -bound { return false }
            if o <= bound { throw DegenerateConfiguration(reason: "a vertex on another polygon's edge") }
        }
        return true
    }
}
