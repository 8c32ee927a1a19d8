/// Disjoint sets over the integers 0..<count, merged by `union` (union–find with path halving).
struct UnionFind {
    private var parent: [Int]

    /// `count` sets of one element each.
    init(count: Int) { parent = Array(0..<count) }

    /// The representative of the set holding `a`.
    mutating func find(_ a: Int) -> Int {
        var a = a
        while parent[a] != a {
            parent[a] = parent[parent[a]]
            a = parent[a]
        }
        return a
    }

    /// Merges the sets holding `a` and `b` (`b`'s representative becomes the merged set's).
    /// - Returns: Whether they were separate sets.
    @discardableResult
    mutating func union(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (find(a), find(b))
        guard x != y else { return false }
        parent[x] = y
        return true
    }
}
