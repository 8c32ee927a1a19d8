/// Clusters of circles (indices into one `CircleUnion`'s circles) stored flat: every cluster's circles one after
/// another in a single array, and where each cluster starts. A run of consecutive clusters is then one contiguous
/// slice of circles, and 100,000 one-circle clusters are two arrays, not 100,000.
///
/// Made by `CircleUnion.clusters()`: clusters listed by their lowest circle, each cluster's circles increasing.
struct CircleClusters: RandomAccessCollection, Equatable {
    /// Every cluster's circles, cluster after cluster.
    let members: [Int]
    /// Cluster k is `members[starts[k]..<starts[k + 1]]`; one more entry than there are clusters.
    let starts: [Int]

    /// No clusters.
    init() {
        members = []
        starts = [0]
    }

    /// Clusters from their circles and where each starts (`starts` begins at 0 and ends at `members.count`).
    init(members: [Int], starts: [Int]) {
        precondition(starts.first == 0 && starts.last == members.count, "cluster starts must span the members")
        self.members = members
        self.starts = starts
    }

    /// The first cluster's position (0).
    var startIndex: Int { 0 }
    /// One past the last cluster.
    var endIndex: Int { starts.count - 1 }

    /// The circles of cluster `k`.
    subscript(k: Int) -> ArraySlice<Int> { members[starts[k]..<starts[k + 1]] }

    /// The circles of the consecutive clusters `range`, in order: one slice of `members`, nothing copied.
    func circles(of range: Range<Int>) -> ArraySlice<Int> {
        members[starts[range.lowerBound]..<starts[range.upperBound]]
    }
}

extension Slice where Base == CircleClusters {
    /// The circles of these clusters, in order (one slice of the clusters' `members`).
    var circles: ArraySlice<Int> { base.circles(of: startIndex..<endIndex) }

    /// How many circles these clusters hold.
    var circleCount: Int { base.starts[endIndex] - base.starts[startIndex] }
}
