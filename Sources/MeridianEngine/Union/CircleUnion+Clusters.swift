import MeridianCore

extension CircleUnion {
    /// The circles grouped into clusters that cannot touch one another: the connected components of the relation
    /// "centres closer than (rᵢ + rⱼ)·(1 + 10⁻⁹)". Each polygon lies within its circle (to the 10⁻¹² margin of its
    /// rounded vertices), so polygons of different clusters are disjoint with a gap, and the union of all circles is
    /// the disjoint union of the clusters' unions. Clusters are listed by their lowest circle index, each sorted.
    /// - Parameter threads: The most threads to look at the pairs on (the clusters are the same for every count).
    func clusters(threads: Int = 1) -> CircleClusters {
        clusters(maximumPairs: nil, threads: threads) ?? CircleClusters()
    }

    /// `clusters()`, or nil when finding them would look at more than `maximumPairs` pairs of circles: the pairs
    /// grow with how many circles each one reaches (a hundred thousand 5-mile circles reach thousands each: seconds
    /// of pairs), so a caller that wants the clusters only to share the work between threads gives up on them. The
    /// pairs are counted from the grid's cells before any is looked at (`CircleGrid.visits`).
    ///
    /// With `threads` above 1 (and at least `circlesPerThread` circles per thread) the circles are split into
    /// ranges whose pairs are looked at on the threads, each range's links kept as a spanning forest (at most one
    /// link per circle) and merged afterwards: the components, and so the clusters, are the same as on one thread.
    /// - Parameters:
    ///   - maximumPairs: The most pairs worth looking at (nil: no limit).
    ///   - threads: The most threads to use.
    func clusters(maximumPairs: Int?, threads: Int = 1) -> CircleClusters? {
        let n = cx.count
        guard n > 0 else { return CircleClusters() }
        let grid = CircleGrid(x: cx, y: cy, radius: r)
        if let maximumPairs, grid.visits(x: cx, y: cy, radius: r) > maximumPairs { return nil }
        var sets = UnionFind(count: n)
        let ranges = min(max(threads, 1), n / Self.circlesPerThread)
        if ranges <= 1 {
            forEachTouchingPair(0..<n, grid: grid) { j, i in sets.union(j, i) }
        } else {
            let shared = SharedTrace(problem: self, grid: grid)
            let forests = ForkJoin.map(count: ranges, threads: ranges) { (k: Int) -> [(Int32, Int32)] in
                var local = UnionFind(count: n)
                var links: [(Int32, Int32)] = []
                shared.problem.forEachTouchingPair((n * k / ranges)..<(n * (k + 1) / ranges), grid: shared.grid) { j, i in
                    if local.union(j, i) { links.append((Int32(j), Int32(i))) }
                }
                return links
            }
            for links in forests { for (j, i) in links { sets.union(Int(j), Int(i)) } }
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

    /// Calls `body(j, i)` (j > i) once for every pair of circles whose centres are closer than (rᵢ + rⱼ)·(1 + 10⁻⁹)
    /// (the relation whose components are the clusters) and that is found from a circle in `range`: each pair is
    /// found from the circle of the two in the earlier grid cell (`CircleGrid.forEachLater`), which reaches the
    /// other because its reach, (its radius + the largest)·(1 + 10⁻⁹), covers any circle it touches. Ranges that
    /// cover all circles between them find every pair once.
    private func forEachTouchingPair(_ range: Range<Int>, grid: CircleGrid, _ body: (Int, Int) -> Void) {
        for i in range {
            let (ix, iy) = grid.cell(cx[i], cy[i])
            grid.forEachLater(than: i, ix, iy, reach: grid.reach(for: r[i])) { j in
                let dx = cx[j] - cx[i], dy = cy[j] - cy[i]
                let reachSum = (r[i] + r[j]) * (1 + 1e-9)
                guard dx * dx + dy * dy < reachSum * reachSum else { return }
                body(max(i, j), min(i, j))
            }
        }
    }

    /// The sub-problem of the given circles (indices into this problem).
    func subproblem(_ members: some Collection<Int>) -> CircleUnion {
        CircleUnion(circle: circle, x: members.map { cx[$0] }, y: members.map { cy[$0] }, radius: members.map { r[$0] })
    }

    /// The sub-problem of the consecutive circles `range` (already in order, without duplicates: nothing sorted).
    func subproblem(_ range: Range<Int>) -> CircleUnion {
        CircleUnion(circle: circle, sortedX: Array(cx[range]), y: Array(cy[range]), radius: Array(r[range]))
    }

    /// Circles already in `precedes` order without exact duplicates, as `init(circle:x:y:radius:)` leaves them.
    private init(circle: UnitCircle, sortedX x: [Double], y: [Double], radius: [Double]) {
        self.circle = circle
        cx = x
        cy = y
        r = radius
    }

    /// Up to `count` runs of consecutive circles, about equal in size, such that no circle of one run can touch a
    /// circle of another: every split falls where a vertical line passes between the circles before it and those
    /// after it, clear of both by a margin (the circles are sorted by centre x). Each run is then a set of whole
    /// clusters (`clusters()`), found in one pass over the circles instead of by their pairs; nil when no such
    /// split keeps every run within 1.5 × its share (a large or dense overlap, where the clusters must be found).
    func separatedRuns(count: Int) -> [Range<Int>]? {
        let n = cx.count
        guard count > 1, n >= 2 * count else { return nil }
        // A split before circle k is clear when the circles before k end, to the right, short of where those from
        // k on begin, by a margin far above the clusters' 10⁻⁹ (and the rounding of the centres' magnitude).
        let margin = 1 + 1e-6
        var slack = 0.0
        for i in 0..<n { slack = max(slack, abs(cx[i])) }
        slack *= 1e-12
        var rightEnd = [Double](repeating: 0, count: n)  // max over i ≤ k of cx[i] + r[i]·margin
        var reach = -Double.infinity
        for i in 0..<n {
            reach = max(reach, cx[i] + r[i] * margin)
            rightEnd[i] = reach
        }
        var clear: [Int] = []  // the k (1..<n) with a clear split before circle k, increasing
        var leftStart = Double.infinity  // min over j ≥ k of cx[j] − r[j]·margin
        for k in stride(from: n - 1, through: 1, by: -1) {
            leftStart = min(leftStart, cx[k] - r[k] * margin)
            if rightEnd[k - 1] + slack < leftStart { clear.append(k) }
        }
        clear.reverse()
        guard !clear.isEmpty else { return nil }
        // The clear split nearest each share's end, increasing; runs of at most 1.5 shares.
        var splits: [Int] = [0]
        for part in 1..<count {
            let target = n * part / count
            var lo = 0, hi = clear.count  // first clear split ≥ target
            while lo < hi {
                let mid = (lo + hi) / 2
                if clear[mid] < target { lo = mid + 1 } else { hi = mid }
            }
            let candidates = [lo - 1, lo].filter { $0 >= 0 && $0 < clear.count && clear[$0] > splits.last! }
            guard let best = candidates.min(by: { abs(clear[$0] - target) < abs(clear[$1] - target) }) else { continue }
            splits.append(clear[best])
        }
        splits.append(n)
        let runs = zip(splits, splits.dropFirst()).map { $0..<$1 }
        let share = Double(n) / Double(count)
        guard runs.count > 1, runs.allSatisfy({ Double($0.count) <= 1.5 * share }) else { return nil }
        return runs
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
