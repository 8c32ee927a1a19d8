extension CircleUnion {
    /// The circles grouped into clusters that cannot touch one another: the connected components of the relation
    /// "centres closer than (rᵢ + rⱼ)·(1 + 10⁻⁹)". Each polygon lies within its circle (to the 10⁻¹² margin of its
    /// rounded vertices), so polygons of different clusters are disjoint with a gap, and the union of all circles is
    /// the disjoint union of the clusters' unions. Clusters are listed by their lowest circle index, each sorted.
    func clusters() -> [[Int]] {
        let n = cx.count
        guard n > 0 else { return [] }
        var sets = UnionFind(count: n)
        let grid = CircleGrid(x: cx, y: cy, radius: r)
        for i in 0..<n {
            let (ix, iy) = grid.cell(cx[i], cy[i])
            for ring in 0...grid.reach(for: r[i]) {
                grid.forEachInRing(ix, iy, ring) { j in
                    guard j > i else { return }
                    let dx = cx[j] - cx[i], dy = cy[j] - cy[i]
                    let reachSum = (r[i] + r[j]) * (1 + 1e-9)
                    guard dx * dx + dy * dy < reachSum * reachSum else { return }
                    sets.union(j, i)
                }
            }
        }
        var index: [Int: Int] = [:]
        var result: [[Int]] = []
        for i in 0..<n {
            let top = sets.find(i)
            if let k = index[top] {
                result[k].append(i)
            } else {
                index[top] = result.count
                result.append([i])
            }
        }
        return result
    }

    /// The sub-problem of the given circles (indices into this problem).
    func subproblem(_ members: [Int]) -> CircleUnion {
        CircleUnion(circle: circle, x: members.map { cx[$0] }, y: members.map { cy[$0] }, radius: members.map { r[$0] })
    }
}
