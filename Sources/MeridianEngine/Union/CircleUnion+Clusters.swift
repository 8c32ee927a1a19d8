import MeridianCore

extension CircleUnion {
    /// The circles grouped into clusters that cannot touch one another: the connected components of the relation
    /// "centres closer than (rᵢ + rⱼ)·(1 + 10⁻⁹)". Each polygon lies within its circle (to the 10⁻¹² margin of its
    /// rounded vertices), so polygons of different clusters are disjoint with a gap, and the union of all circles is
    /// the disjoint union of the clusters' unions. Clusters are listed by their lowest circle index, each sorted.
    func clusters() -> CircleClusters {
        clusters(maximumPairs: nil) ?? CircleClusters()
    }

    /// `clusters()`, or nil as soon as more than `maximumPairs` pairs of circles have been looked at: the pairs
    /// grow with how many circles each one reaches (a hundred thousand 5-mile circles reach thousands each: seconds
    /// of pairs), so a caller that wants the clusters only to share the work between threads gives up on them there.
    func clusters(maximumPairs: Int?) -> CircleClusters? {
        let n = cx.count
        guard n > 0 else { return CircleClusters() }
        var sets = UnionFind(count: n)
        let grid = CircleGrid(x: cx, y: cy, radius: r)
        let limit = maximumPairs ?? Int.max
        var pairs = 0
        for i in 0..<n {
            let (ix, iy) = grid.cell(cx[i], cy[i])
            for ring in 0...grid.reach(for: r[i]) {
                grid.forEachInRing(ix, iy, ring) { j in
                    pairs &+= 1
                    guard j > i else { return }
                    let dx = cx[j] - cx[i], dy = cy[j] - cy[i]
                    let reachSum = (r[i] + r[j]) * (1 + 1e-9)
                    guard dx * dx + dy * dy < reachSum * reachSum else { return }
                    sets.union(j, i)
                }
            }
            if pairs > limit { return nil }
        }
        // Clusters numbered by their lowest circle; then each cluster's start (a counting sort by cluster), and the
        // circles placed in increasing order.
        var number = [Int32](repeating: -1, count: n)  // cluster of each set's root, -1 before its first circle
        var clusterOf = [Int32](repeating: 0, count: n)
        var sizes: [Int] = []
        for i in 0..<n {
            let top = sets.find(i)
            if number[top] < 0 {
                number[top] = Int32(sizes.count)
                sizes.append(0)
            }
            clusterOf[i] = number[top]
            sizes[Int(number[top])] += 1
        }
        var starts = [Int](repeating: 0, count: sizes.count + 1)
        for k in sizes.indices { starts[k + 1] = starts[k] + sizes[k] }
        var next = starts
        var members = [Int](repeating: 0, count: n)
        for i in 0..<n {
            let k = Int(clusterOf[i])
            members[next[k]] = i
            next[k] += 1
        }
        return CircleClusters(members: members, starts: starts)
    }

    /// The sub-problem of the given circles (indices into this problem).
    func subproblem(_ members: some Collection<Int>) -> CircleUnion {
        CircleUnion(circle: circle, x: members.map { cx[$0] }, y: members.map { cy[$0] }, radius: members.map { r[$0] })
    }
}

extension CircleUnion {
    /// Merges the parts of sub-problems made of disjoint sets of whole clusters (`runOrdered()` of each) into the
    /// order the union of all these clusters in one problem gives: by the circle that starts each shell, in the
    /// circles' order (`precedes`). The shells' circles of different clusters differ, so the order is total.
    static func mergeInOrder(_ runs: [(CircleUnion, (parts: [Polygon.Part], shellPolygons: [Int]))])
        -> [Polygon.Part]
    {
        // Each part's key, its shell circle (centre and radius), and the parts, taken out of the runs once: reading
        // them through the tuples in the loop copied each run's problem (a dozen arrays retained and released) for
        // every part, a third of the time of a shared union of 100,000 isolated circles.
        let keys = runs.map { run in run.1.shellPolygons.map { (x: run.0.cx[$0], y: run.0.cy[$0], r: run.0.r[$0]) } }
        let parts = runs.map { $0.1.parts }
        var merged: [Polygon.Part] = []
        merged.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        var next = [Int](repeating: 0, count: runs.count)
        while true {
            // The run whose next part's shell circle comes first (a linear scan: there are few runs).
            var best = -1
            for k in keys.indices where next[k] < keys[k].count {
                guard best >= 0 else { best = k; continue }
                let a = keys[k][next[k]], b = keys[best][next[best]]
                if precedes(a.x, a.y, a.r, b.x, b.y, b.r) { best = k }
            }
            guard best >= 0 else { break }
            merged.append(parts[best][next[best]])
            next[best] += 1
        }
        return merged
    }
}
