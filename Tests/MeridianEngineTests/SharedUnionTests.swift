import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore
@testable import MeridianEngine

/// `PointBufferUnion.union(clusters:of:parameters:in:minimumToShare:threads:)` unions a batch of clusters on N
/// threads (N runs of clusters, merged by the circle that starts each shell): the result must be the polygon one
/// `CircleUnion` of all those clusters gives, the same parts in the same order, bit for bit, for every N and whatever
/// the threads' timing, and the same when a run meets a degenerate configuration (then the whole batch takes the
/// one-thread path). A whole problem (`union(x:y:radius:…threads:)`, P1's path) likewise.
@Suite struct SharedUnionTests {
    /// Circles of radius 5 to 15 spread so that each meets about one other (many clusters of all sizes, x-ranges
    /// interleaved); small circles inside bigger ones to their right, each pair a cluster of its own above the
    /// others (the cluster's first circle then starts no ring, so the parts' order is not the clusters' order); rings of 24 circles around a hole with an island
    /// inside; and exact duplicates.
    static func circles(_ count: Int, seed: UInt64) -> (x: [Double], y: [Double], r: [Double]) {
        var random = SplitMix64(seed: seed)
        let side = (Double(count) * Double.pi * 4 * 100).squareRoot()
        var x: [Double] = [], y: [Double] = [], r: [Double] = []
        for _ in 0..<count {
            x.append(side * random.unit())
            y.append(side * random.unit())
            r.append(5 + 10 * random.unit())
        }
        for k in 0..<(count / 20) {  // a small circle inside a big one, left of its centre, each pair on its own
            let cx = side * random.unit(), cy = side + 200 * Double(k + 1)
            x += [cx - 40, cx]
            y += [cy, cy]
            r += [3, 50]
        }
        for k in 0..<8 {  // rings with islands
            let cx = side * random.unit(), cy = side * random.unit()
            for j in 0..<24 {
                let a = Double(j) / 24 * 2 * Double.pi + 0.01 * Double(k)
                x.append(cx + 60 * cos(a))
                y.append(cy + 60 * sin(a))
                r.append(10)
            }
            x.append(cx + 1.3)
            y.append(cy - 0.7)
            r.append(10)
        }
        x += x.prefix(50)
        y += y.prefix(50)
        r += r.prefix(50)
        return (x, y, r)
    }

    /// The problem of `circles(count, seed)` with the default parameters' unit circle.
    static func problem(_ count: Int, seed: UInt64) -> CircleUnion {
        let (x, y, r) = circles(count, seed: seed)
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        return CircleUnion(circle: circle, x: x, y: y, radius: r)
    }

    /// The one-thread union of the given clusters (what the batched union did before the two halves).
    static func oneThread(_ clusters: Slice<CircleClusters>, of problem: CircleUnion) throws -> Polygon {
        let sub = problem.subproblem(clusters.flatMap { $0 })
        return try PointBufferUnion.union(x: sub.cx, y: sub.cy, radius: sub.r, parameters: .default, in: .webMercator).0
    }

    @Test func runsGiveTheOneThreadParts() throws {
        let problem = Self.problem(6_000, seed: 7)
        let clusters = problem.clusters()
        #expect(clusters.count > 1_000)
        // The whole problem, and batches as `unionOfBuffers` makes them (contiguous runs of clusters).
        for range in [clusters.indices, 0..<(clusters.count / 3), (clusters.count / 3)..<clusters.count] {
            let expected = try Self.oneThread(clusters[range], of: problem)
            #expect(expected.parts.count > 300 && expected.parts.contains { !$0.holes.isEmpty })
            for threads in [2, 3, 5] {
                let shared = try PointBufferUnion.union(clusters: clusters[range], of: problem, parameters: .default,
                                                        in: .webMercator, minimumToShare: 1, threads: threads).0
                // (A Boolean: Swift Testing would print both polygons to describe a difference.)
                let same = shared == expected
                #expect(same, "clusters \(range), \(threads) threads: other parts or another order")
            }
        }
    }

    /// A whole problem on 1, 2 and 3 threads: the parts `CircleUnion.run()` gives, in its order.
    @Test func wholeProblemOnSeveralThreads() throws {
        let (x, y, r) = Self.circles(6_000, seed: 7)
        let expected = try Self.problem(6_000, seed: 7).run()
        for threads in [1, 2, 3] {
            let (polygon, method) = try PointBufferUnion.union(x: x, y: y, radius: r, parameters: .default,
                                                               in: .webMercator, threads: threads, minimumToShare: 1)
            let same = polygon.parts == expected
            #expect(same && method == .circleUnion, "\(threads) threads")
        }
    }

    /// The clusters are the components of "centres closer than (rᵢ + rⱼ)·(1 + 10⁻⁹)", found here independently by a
    /// sweep over the circles sorted by x that tests every pair whose x-distance is below rᵢ + the largest radius:
    /// the same partition on one thread and on three (two ranges of pairs at this size), for random circles of many
    /// radii (clusters of all sizes), and for pairs of equal circles exactly 2r apart, or farther by half or twice
    /// the relation's 10⁻⁹ margin (touching by it or not), so that a pair missed from either side splits a cluster.
    @Test func clustersAreTheComponentsOfTheTouchingRelation() {
        var random = SplitMix64(seed: 29)
        let count = 40_000, side = (Double(count) * Double.pi * 4 * 100).squareRoot()  // as `circles`: ~1 neighbour each
        var x: [Double] = [], y: [Double] = [], r: [Double] = []
        for _ in 0..<count {
            x.append(side * random.unit())
            y.append(side * random.unit())
            r.append(5 + 10 * random.unit())
        }
        for k in 0..<2_000 {  // pairs of equal circles, exactly 2r apart, just inside or just outside the margin
            let cx = 50 * Double(k % 100), cy = side + 100 + 50 * Double(k / 100)
            let gap = 2 * 7.5 * (1 + [0, 5e-10, 2e-9][k % 3])
            let a = 2 * Double.pi * random.unit()
            x += [cx, cx + gap * cos(a)]
            y += [cy, cy + gap * sin(a)]
            r += [7.5, 7.5]
        }
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: r)
        let n = problem.cx.count, rMax = problem.r.max()!
        // Reference: union-find over the sweep's pairs (the circles are sorted by x in `problem`).
        var parent = Array(0..<n)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]  // path halving: chains stay short
                i = parent[i]
            }
            return i
        }
        for i in 0..<n {
            var j = i + 1
            while j < n && problem.cx[j] - problem.cx[i] <= (problem.r[i] + rMax) * 1.000001 {
                let dx = problem.cx[j] - problem.cx[i], dy = problem.cy[j] - problem.cy[i]
                let reach = (problem.r[i] + problem.r[j]) * (1 + 1e-9)
                if dx * dx + dy * dy < reach * reach { parent[root(j)] = root(i) }
                j += 1
            }
        }
        // Each circle's cluster named by its lowest circle, both ways.
        var lowest = [Int](repeating: n, count: n)
        for i in 0..<n { lowest[root(i)] = min(lowest[root(i)], i) }
        let expected = (0..<n).map { lowest[root($0)] }
        #expect(Set(expected).count > 1_000)
        for threads in [1, 3] {
            let clusters = problem.clusters(threads: threads)
            var found = [Int](repeating: -1, count: n)
            for k in clusters.indices {
                let members = clusters[k], first = members.min()!
                for i in members { found[i] = first }
            }
            #expect(found == expected, "\(threads) threads")
        }
    }

    /// Finding the clusters stops at its pair limit, and below it gives the same clusters: a whole problem whose
    /// circles each reach most others (P1d's 5-mile circles: seconds of pairs before the limit) takes the
    /// one-thread path, with the same parts.
    @Test func clustersStopAtTheirPairLimit() throws {
        var random = SplitMix64(seed: 11)
        let n = 2_000
        var x: [Double] = [], y: [Double] = []
        for _ in 0..<n {
            x.append(100 * random.unit())
            y.append(100 * random.unit())
        }
        let r = [Double](repeating: 40, count: n)
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        let dense = CircleUnion(circle: circle, x: x, y: y, radius: r)
        #expect(dense.clusters(maximumPairs: 64 * n) == nil)
        #expect(dense.clusters(maximumPairs: nil)?.count == 1)
        let sparse = Self.problem(6_000, seed: 7)
        #expect(sparse.clusters(maximumPairs: 6_000 * 6_000) == sparse.clusters())
        let expected = try dense.run()
        let (polygon, method) = try PointBufferUnion.union(x: x, y: y, radius: r, parameters: .default,
                                                           in: .webMercator, threads: 3, minimumToShare: 1)
        let same = polygon.parts == expected
        #expect(same && method == .circleUnion)
    }

    /// The grid's count of the circles a search visits (`CircleGrid.visits`, from its cells' sizes) equals the calls
    /// `forEachInRing` makes over rings 0 through each circle's reach, summed over the circles: for sparse circles
    /// of many radii and for dense ones whose squares of cells are cut by the grid's edges.
    @Test func theGridCountsTheVisitsOfASearch() {
        var random = SplitMix64(seed: 23)
        var x: [Double] = [], y: [Double] = []
        for _ in 0..<2_000 {
            x.append(100 * random.unit())
            y.append(100 * random.unit())
        }
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        let dense = CircleUnion(circle: circle, x: x, y: y, radius: x.indices.map { 5 + Double($0 % 7) * 5 })
        for problem in [Self.problem(3_000, seed: 3), dense] {
            let grid = CircleGrid(x: problem.cx, y: problem.cy, radius: problem.r)
            var calls = 0
            for i in problem.cx.indices {
                let (ix, iy) = grid.cell(problem.cx[i], problem.cy[i])
                for ring in 0...grid.reach(for: problem.r[i]) { grid.forEachInRing(ix, iy, ring) { _ in calls += 1 } }
            }
            #expect(calls > 10 * problem.cx.count)
            #expect(grid.visits(x: problem.cx, y: problem.cy, radius: problem.r) == calls)
        }
    }

    /// One cluster holding most circles (20,000 circles meeting five others each on average: one connected union
    /// with thousands of holes): its arcs traced on 1, 2 and 3 threads give the parts `CircleUnion.run()` gives, in
    /// its order, for the whole problem and for a batch of its clusters.
    @Test func aLargeConnectedClusterOnSeveralThreads() throws {
        var random = SplitMix64(seed: 41)
        let count = 20_000
        let side = (Double(count) * Double.pi * 4 * 100 / 5).squareRoot()
        let x = (0..<count).map { _ in side * random.unit() }, y = (0..<count).map { _ in side * random.unit() }
        let r = [Double](repeating: 10, count: count)
        let problem = CircleUnion(circle: UnitCircle(segmentsPerQuarterCircle: 16), x: x, y: y, radius: r)
        let clusters = problem.clusters()
        #expect(2 * (clusters.map(\.count).max() ?? 0) > problem.cx.count, "no cluster holds most circles")
        let expected = try problem.run()
        #expect(expected.contains { $0.holes.count > 100 })
        for threads in [1, 2, 3] {
            // The traced arcs themselves (a wrong order would fail here, where the union falls back to one thread).
            let traced = try problem.runOrdered(threads: threads).parts == expected
            #expect(traced, "\(threads) threads, CircleUnion.runOrdered")
            let (whole, method) = try PointBufferUnion.union(x: x, y: y, radius: r, parameters: .default,
                                                             in: .webMercator, threads: threads, minimumToShare: 1)
            let same = whole.parts == expected && method == .circleUnion
            #expect(same, "\(threads) threads, the whole problem")
            let batch = try PointBufferUnion.union(clusters: clusters[...], of: problem, parameters: .default,
                                                   in: .webMercator, minimumToShare: 1, threads: threads).0
            let sameBatch = batch == (try Self.oneThread(clusters[...], of: problem))
            #expect(sameBatch, "\(threads) threads, a batch")
        }
    }

    /// The runs cover the clusters once, in order, none empty, at most the count asked, about equal in circles.
    @Test func splitRunsCoverTheClusters() {
        let lists: [[Int]] = (0..<50).map { k in Array(0..<(1 + (k * 7) % 11)) }
        let clusters = CircleClusters(members: lists.flatMap { $0 },
                                      starts: lists.reduce(into: [0]) { starts, list in starts.append(starts.last! + list.count) })
        let circles = lists.reduce(0) { $0 + $1.count }
        for count in [1, 2, 3, 4, 49, 50, 80] {
            let runs = PointBufferUnion.splitRuns(clusters[...], circles: circles, count: count)
            #expect(runs.first?.lowerBound == 0 && runs.last?.upperBound == clusters.count)
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(runs.allSatisfy { !$0.isEmpty } && runs.count <= count)
            let sizes = runs.map { clusters[$0].reduce(0) { $0 + $1.count } }
            #expect(sizes.max()! <= circles / min(count, clusters.count) + 11, "\(count) runs: \(sizes)")
        }
    }

    /// The clusters are the connected components of "centres closer than the sum of the radii", listed by their
    /// lowest circle, each increasing: checked against components found by comparing every pair of circles.
    @Test func clustersAreTheComponentsOfEveryPair() {
        let problem = Self.problem(2_000, seed: 5)
        let n = problem.cx.count
        var component = Array(0..<n)  // the lowest circle reachable so far, relaxed until nothing changes
        var changed = true
        while changed {
            changed = false
            for i in 0..<n {
                for j in (i + 1)..<n {
                    let dx = problem.cx[j] - problem.cx[i], dy = problem.cy[j] - problem.cy[i]
                    let reach = (problem.r[i] + problem.r[j]) * (1 + 1e-9)
                    guard dx * dx + dy * dy < reach * reach, component[i] != component[j] else { continue }
                    let low = min(component[i], component[j])
                    component[i] = low
                    component[j] = low
                    changed = true
                }
            }
        }
        var expected: [Int: [Int]] = [:]
        for i in 0..<n { expected[component[i], default: []].append(i) }
        let lists = expected.keys.sorted().map { expected[$0]! }
        let clusters = problem.clusters()
        #expect(lists.count > 100 && lists.contains { $0.count > 5 })
        let same = clusters.map { Array($0) } == lists
        #expect(same)
        #expect(clusters.count == lists.count && clusters.members.count == n)
        #expect(clusters[1..<4].circles.elementsEqual(lists[1..<4].joined()) && clusters[1..<4].circleCount == lists[1..<4].reduce(0) { $0 + $1.count })
    }

    /// On several threads the circles are sorted in two halves and merged, and the pairs of each range of circles
    /// are looked at on a thread of their own (`CircleUnion.circlesPerThread` circles or more per thread): the
    /// problem's circles (sorted, duplicates dropped) and its clusters are the same as on one thread, which
    /// `clustersAreTheComponentsOfEveryPair` checks against every pair. 40,000 circles of radius 5 to 15 in random
    /// order, each meeting about one other, with 400 exact duplicates; and the same circles already in order
    /// (nothing sorted).
    @Test func clustersAndSortOnSeveralThreadsAreTheOneThreadOnes() {
        var random = SplitMix64(seed: 23)
        let side = (40_000 * Double.pi * 4 * 100).squareRoot()
        var x: [Double] = [], y: [Double] = [], r: [Double] = []
        for _ in 0..<40_000 {
            x.append(side * random.unit())
            y.append(side * random.unit())
            r.append(5 + 10 * random.unit())
        }
        x += x.suffix(400)
        y += y.suffix(400)
        r += r.suffix(400)
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        let one = CircleUnion(circle: circle, x: x, y: y, radius: r)
        let expected = one.clusters()
        #expect(x.count >= 2 * CircleUnion.circlesPerThread && one.cx.count < x.count && expected.count > 1_000)
        for threads in [2, 3, 4] {
            let shared = CircleUnion(circle: circle, x: x, y: y, radius: r, threads: threads)
            #expect(shared.cx == one.cx && shared.cy == one.cy && shared.r == one.r, "threads \(threads)")
            let clusters = shared.clusters(threads: threads)
            let same = clusters.members == expected.members && clusters.starts == expected.starts
            #expect(same, "threads \(threads)")
            let limited = shared.clusters(maximumPairs: 1 << 40, threads: threads)
            let sameLimited = limited?.members == expected.members && limited?.starts == expected.starts
            #expect(sameLimited, "threads \(threads)")
        }
        let inOrder = CircleUnion(circle: circle, x: one.cx, y: one.cy, radius: one.r, threads: 2)
        #expect(inOrder.cx == one.cx && inOrder.cy == one.cy && inOrder.r == one.r)
    }

    /// Runs of circles split by vertical lines clear of every circle (`CircleUnion.separatedRuns(count:)`): each run
    /// holds whole clusters and at most 1.5 × its share, and the union on 2, 3 and 4 threads, which takes them, gives
    /// the parts `CircleUnion.run()` gives, in its order. Circles along a strip, most apart, some in overlapping
    /// pairs, and wide circles that cover a hundred others where the runs would end (a split must not pass through them).
    @Test func separatedRunsHoldWholeClusters() throws {
        var random = SplitMix64(seed: 17)
        var x: [Double] = [], y: [Double] = [], r: [Double] = []
        for k in 0..<6_000 {
            // The wide ones where the runs' ends would fall (twelfths of the strip: halves, thirds and quarters).
            let wide = k % 500 == 0 && k > 0
            x.append(wide ? 1e6 * Double(k / 500) / 12 : 1e6 * random.unit())
            y.append(100 * random.unit())
            r.append(wide ? 20_000 : 5 + 10 * random.unit())
            if k % 10 == 0 {
                x.append(x.last! + 12)
                y.append(y.last!)
                r.append(8)
            }
        }
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: r)
        let n = problem.cx.count
        let clusters = problem.clusters()
        #expect(clusters.contains { $0.count > 100 } && clusters.contains { $0.count == 2 })
        for count in [2, 3, 4] {
            let runs = try #require(problem.separatedRuns(count: count), "\(count) runs")
            #expect(runs.count == count && runs.first?.lowerBound == 0 && runs.last?.upperBound == n)
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(runs.allSatisfy { Double($0.count) <= 1.5 * Double(n) / Double(count) })
            var runOf = [Int](repeating: -1, count: n)
            for (k, run) in runs.enumerated() { for i in run { runOf[i] = k } }
            let whole = clusters.allSatisfy { cluster in cluster.allSatisfy { runOf[$0] == runOf[cluster.first!] } }
            #expect(whole, "\(count) runs: a cluster split between runs")
        }
        let expected = try problem.run()
        for threads in [2, 3, 4] {
            let (polygon, method) = try PointBufferUnion.union(x: x, y: y, radius: r, parameters: .default,
                                                               in: .webMercator, threads: threads, minimumToShare: 1)
            let same = polygon.parts == expected && method == .circleUnion
            #expect(same, "\(threads) threads")
        }
        // Circles that cover their strip everywhere leave no clear split.
        #expect(Self.problem(6_000, seed: 7).separatedRuns(count: 2) == nil)
    }

    @Test func theMergeInterleavesTheHalves() throws {
        // Guards the test above: the halves' parts, one after the other, are not in the one-thread order, so only a
        // merge by the shells' circles passes it.
        let problem = Self.problem(6_000, seed: 7)
        let clusters = problem.clusters()
        let split = PointBufferUnion.splitRuns(clusters[...], circles: problem.cx.count, count: 2)[0].upperBound
        #expect(split > 100 && split < clusters.count - 100)
        let a = try Self.oneThread(clusters[..<split], of: problem), b = try Self.oneThread(clusters[split...], of: problem)
        let whole = try Self.oneThread(clusters[...], of: problem)
        #expect(Set(a.parts + b.parts) == Set(whole.parts))
        let concatenated = a.parts + b.parts == whole.parts
        #expect(!concatenated)
    }

    @Test func aDegenerateHalfTakesTheOneThreadPath() throws {
        var (x, y, r) = Self.circles(2_000, seed: 11)
        // Two circles sharing a vertex exactly (centres 2r apart on an axis), at the far right: in the second half.
        x += [1e6, 1e6 + 20]
        y += [0, 0]
        r += [10, 10]
        let circle = UnitCircle(segmentsPerQuarterCircle: BufferParameters.default.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: r)
        let clusters = problem.clusters()
        let sub = problem.subproblem(clusters.flatMap { $0 })
        let (expected, method) = try PointBufferUnion.union(x: sub.cx, y: sub.cy, radius: sub.r, parameters: .default,
                                                            in: .webMercator)
        guard case .geosFallback = method else {
            Issue.record("the tangent pair did not need GEOS")
            return
        }
        let shared = try PointBufferUnion.union(clusters: clusters[...], of: problem, parameters: .default,
                                                in: .webMercator, minimumToShare: 1, threads: 3).0
        let same = shared == expected
        #expect(same)
    }
}
