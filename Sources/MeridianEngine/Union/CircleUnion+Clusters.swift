import MeridianCore

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
        var index = [Int32](repeating: -1, count: n)  // cluster of each set's root, -1 before its first member
        var result: [[Int]] = []
        for i in 0..<n {
            let top = sets.find(i)
            if index[top] >= 0 {
                result[Int(index[top])].append(i)
            } else {
                index[top] = Int32(result.count)
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

extension CircleUnion {
    /// Merges the parts of two sub-problems made of disjoint sets of whole clusters (`runOrdered()` of each) into the
    /// order the union of both sets of clusters in one problem gives: by the circle that starts each shell, in the
    /// circles' order (`precedes`). The shells' circles of different clusters differ, so the order is total.
    static func mergeInOrder(
        _ a: CircleUnion, _ partsA: (parts: [Polygon.Part], shellPolygons: [Int]),
        _ b: CircleUnion, _ partsB: (parts: [Polygon.Part], shellPolygons: [Int])
    ) -> [Polygon.Part] {
        var merged: [Polygon.Part] = []
        merged.reserveCapacity(partsA.parts.count + partsB.parts.count)
        var i = 0, j = 0
        while i < partsA.parts.count || j < partsB.parts.count {
            let takeA: Bool
            if j == partsB.parts.count {
                takeA = true
            } else if i == partsA.parts.count {
                takeA = false
            } else {
                let p = partsA.shellPolygons[i], q = partsB.shellPolygons[j]
                takeA = precedes(a.cx[p], a.cy[p], a.r[p], b.cx[q], b.cy[q], b.r[q])
            }
            if takeA {
                merged.append(partsA.parts[i])
                i += 1
            } else {
                merged.append(partsB.parts[j])
                j += 1
            }
        }
        return merged
    }
}
