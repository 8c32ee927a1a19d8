import Foundation

/// A static R-tree over axis-aligned boxes in two or three dimensions, bulk-loaded with Sort-Tile-Recursive packing
/// (Leutenegger, Lopez & Edgington 1997) and stored flat: every slot (an item's box, then the nodes level by level,
/// the root last) is `2 · dimensions` doubles in `boxes` (all minima, then all maxima) and one `Int32` in `refs`
/// (an item slot: the item's index; a node slot: the slot of its first child; its children are the next up to
/// `nodeSize` slots of the level below). Immutable once built, so it is shared between threads freely.
///
/// Why not GEOS's `GEOSSTRtree`: its queries cross the C boundary once per call and once per hit (a callback), need
/// a GEOS geometry for every query envelope, and cannot index the 3-D unit vectors the geodesic filter uses; this
/// tree answers a query with a loop over two flat arrays (benchmarked against shapely's GEOS tree in the report of
/// the change that added it).
struct PackedRTree: Sendable {
    /// 2 (x, y) or 3 (unit vectors).
    let dimensions: Int
    /// Children per node (the last node of a level may have fewer).
    let nodeSize: Int
    /// How many items the tree holds.
    let count: Int
    private let boxes: [Double]
    private let refs: [Int32]
    /// The first slot of each level: level 0 holds the items, the last level the root.
    private let levelStarts: [Int]

    /// Packs boxes given flat (`2 · dimensions` doubles each: minima then maxima), item `i` at
    /// `boxes[i * 2 * dimensions ..< (i + 1) * 2 * dimensions]`.
    /// - Precondition: finite boxes with minima ≤ maxima, fewer than 2³¹ − 1 items (callers check).
    init(dimensions: Int, boxes itemBoxes: [Double], nodeSize: Int = 16) {
        precondition(dimensions == 2 || dimensions == 3)
        self.dimensions = dimensions
        self.nodeSize = nodeSize
        let stride = 2 * dimensions
        let n = itemBoxes.count / stride
        count = n
        var boxes: [Double] = []
        var refs: [Int32] = []
        var levelStarts: [Int] = []
        // Level 0: the items in STR order; each level above: the level below grouped by `nodeSize` after its own
        // STR ordering (a node keeps the slot of its first child, so nodes may be permuted freely).
        var levelBoxes = itemBoxes
        var levelRefs = (0..<n).map { Int32($0) }
        while true {
            let m = levelRefs.count
            let order = Self.strOrder(levelBoxes, count: m, dimensions: dimensions, nodeSize: nodeSize)
            let start = boxes.count / stride
            levelStarts.append(start)
            boxes.reserveCapacity(boxes.count + m * stride)
            for i in order {
                boxes.append(contentsOf: levelBoxes[(i * stride)..<((i + 1) * stride)])
                refs.append(levelRefs[i])
            }
            guard m > 1 else { break }
            var parentBoxes: [Double] = []
            var parentRefs: [Int32] = []
            var first = 0
            while first < m {
                let end = min(first + nodeSize, m)
                var box = Array(boxes[((start + first) * stride)..<((start + first + 1) * stride)])
                for child in (start + first + 1)..<(start + end) {
                    for d in 0..<dimensions {
                        box[d] = min(box[d], boxes[child * stride + d])
                        box[dimensions + d] = max(box[dimensions + d], boxes[child * stride + dimensions + d])
                    }
                }
                parentBoxes.append(contentsOf: box)
                parentRefs.append(Int32(start + first))
                first = end
            }
            levelBoxes = parentBoxes
            levelRefs = parentRefs
        }
        self.boxes = boxes
        self.refs = refs
        self.levelStarts = levelStarts
    }

    /// The STR order of `count` boxes: slabs along the first axis, each tiled recursively along the next; slab
    /// sizes are multiples of `nodeSize`, so consecutive groups of `nodeSize` never straddle two slabs.
    private static func strOrder(_ boxes: [Double], count: Int, dimensions: Int, nodeSize: Int) -> [Int] {
        var order = Array(0..<count)
        let stride = 2 * dimensions
        func tile(_ range: Range<Int>, axis: Int) {
            // Centres doubled (min + max); ties broken by position, so the packing is deterministic. Keys are
            // gathered first: a sort of (key, position) pairs is several times faster than one reading boxes.
            var keyed = order[range].map { (boxes[$0 * stride + axis] + boxes[$0 * stride + dimensions + axis], $0) }
            keyed.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            for (offset, entry) in keyed.enumerated() { order[range.lowerBound + offset] = entry.1 }
            guard axis + 1 < dimensions, range.count > nodeSize else { return }
            let nodes = (range.count + nodeSize - 1) / nodeSize
            let slabs = Int(pow(Double(nodes), 1 / Double(dimensions - axis)).rounded(.up))
            let slab = nodeSize * ((nodes + slabs - 1) / slabs)
            var lower = range.lowerBound
            while lower < range.upperBound {
                let upper = min(lower + slab, range.upperBound)
                tile(lower..<upper, axis: axis + 1)
                lower = upper
            }
        }
        tile(0..<count, axis: 0)
        return order
    }

    /// The children of the node in `slot` at `level` (≥ 1): slots of level − 1.
    private func children(of slot: Int, level: Int) -> Range<Int> {
        let first = Int(refs[slot])
        return first..<min(first + nodeSize, levelStarts[level])
    }

    /// Whether the box in `slot` meets the query box `q` (minima then maxima; touching counts).
    private func intersects(_ slot: Int, _ q: [Double]) -> Bool {
        let base = slot * 2 * dimensions
        for d in 0..<dimensions where boxes[base + d] > q[dimensions + d] || boxes[base + dimensions + d] < q[d] {
            return false
        }
        return true
    }

    /// Calls `body` with every item whose box meets the query box `query` (minima then maxima, boundary inclusive),
    /// in tree order (not sorted); `body` returns `false` to stop.
    func search(_ query: [Double], _ body: (Int) throws(EngineError) -> Bool) throws(EngineError) {
        guard count > 0, query.count == 2 * dimensions else { return }
        let root = levelStarts.count - 1
        var stack: [(slot: Int, level: Int)] = [(levelStarts[root], root)]
        while let (slot, level) = stack.popLast() {
            guard intersects(slot, query) else { continue }
            if level == 0 {
                guard try body(Int(refs[slot])) else { return }
            } else {
                for child in children(of: slot, level: level) { stack.append((child, level - 1)) }
            }
        }
    }

    /// Appends to `found` every item whose box meets the 2-D query box (boundary inclusive), in tree order (not
    /// sorted): `search` for a two-dimensional tree without a query array, a closure or a stack made per query.
    /// `stack` is scratch space kept by the caller between queries (its contents are replaced).
    /// - Precondition: `dimensions == 2`.
    func search2D(minX: Double, minY: Double, maxX: Double, maxY: Double, stack: inout [Int], into found: inout [Int32]) {
        precondition(dimensions == 2)
        walk(stack: &stack, into: &found) { b, slot in
            let base = 4 * slot
            return !(b[base] > maxX || b[base + 2] < minX || b[base + 1] > maxY || b[base + 3] < minY)
        }
    }

    /// `search2D` for a three-dimensional tree (the geodesic filter's unit vectors): appends to `found` every item
    /// whose box meets the query box `lower`…`upper` (boundary inclusive), in tree order.
    /// - Precondition: `dimensions == 3`.
    func search3D(lower: (Double, Double, Double), upper: (Double, Double, Double), stack: inout [Int],
                  into found: inout [Int32]) {
        precondition(dimensions == 3)
        walk(stack: &stack, into: &found) { b, slot in
            let base = 6 * slot
            return !(b[base] > upper.0 || b[base + 3] < lower.0 || b[base + 1] > upper.1
                     || b[base + 4] < lower.1 || b[base + 2] > upper.2 || b[base + 5] < lower.2)
        }
    }

    /// The tree walk of `search2D` and `search3D`: appends every item whose box `meets` (given the boxes and a
    /// slot) in tree order. Always inlined, so that each search's box test is inlined into its own loop.
    @inline(__always)
    private func walk(stack: inout [Int], into found: inout [Int32],
                      meets: (UnsafeBufferPointer<Double>, Int) -> Bool) {
        guard count > 0 else { return }
        let root = levelStarts.count - 1
        let nodeSize = nodeSize
        stack.removeAllKeepingCapacity()
        // A stack entry: slot · 64 + level (levels are few: 16 children a node).
        stack.append(levelStarts[root] << 6 | root)
        boxes.withUnsafeBufferPointer { b in
            refs.withUnsafeBufferPointer { r in
                levelStarts.withUnsafeBufferPointer { starts in
                    guard meets(b, starts[root]) else { return }
                    guard root > 0 else {
                        found.append(r[starts[root]])  // one item: the root is the item
                        return
                    }
                    while let entry = stack.popLast() {
                        let slot = entry >> 6, level = entry & 63
                        let first = Int(r[slot])
                        let end = min(first + nodeSize, starts[level])
                        if level == 1 {
                            // Items last to first: the order `search` visits them in (its stack pops the last
                            // child first), so that the first failing measurement is the same one.
                            for child in (first..<end).reversed() where meets(b, child) { found.append(r[child]) }
                        } else {
                            for child in first..<end where meets(b, child) { stack.append(child << 6 | (level - 1)) }
                        }
                    }
                }
            }
        }
    }

    /// The items ordered by a distance, best first (a best-first search, Hjaltason & Samet 1999): `lowerBound` of a
    /// box (minima then maxima) must not exceed `exact` of any item inside it. Items farther than `maxDistance`
    /// are never visited, nor, once `k` items have been measured, anything farther than the `k`-th smallest of
    /// their distances (it cannot be among the `k` nearest or tied with the last of them). Stops after the `k`-th
    /// nearest and every item tied with it; the answer is sorted by distance, then item index, and cut to `k`.
    func nearest(k: Int, maxDistance: Double, lowerBound: (ArraySlice<Double>) -> Double,
                 exact: (Int) throws(EngineError) -> Double) throws(EngineError) -> [(index: Int, distance: Double)] {
        guard count > 0, k > 0 else { return [] }
        var heap = MinHeap()
        // The k smallest distances measured so far, as a max-heap (keys negated); `bound` is the largest of them
        // once there are k, `maxDistance` before.
        var measured = MinHeap()
        var bound = maxDistance
        let root = levelStarts.count - 1
        let stride = 2 * dimensions
        func push(_ slot: Int, level: Int) {
            let key = lowerBound(boxes[(slot * stride)..<((slot + 1) * stride)])
            if key <= bound { heap.push(.init(key: key, slot: slot, level: level)) }
        }
        push(levelStarts[root], level: root)
        var found: [(index: Int, distance: Double)] = []
        while let top = heap.pop() {
            if found.count >= k, top.key > found[k - 1].distance { break }
            switch top.level {
            case -1:
                // An item with its exact distance: no entry left can come closer.
                found.append((Int(refs[top.slot]), top.key))
            case 0:
                let d = try exact(Int(refs[top.slot]))
                if d <= bound {
                    heap.push(.init(key: d, slot: top.slot, level: -1))
                    measured.push(.init(key: -d, slot: top.slot, level: 0))
                    if measured.count > k { _ = measured.pop() }
                    if measured.count == k, let largest = measured.first { bound = min(bound, -largest.key) }
                }
            default:
                for child in children(of: top.slot, level: top.level) { push(child, level: top.level - 1) }
            }
        }
        found.sort { ($0.distance, $0.index) < ($1.distance, $1.index) }
        return Array(found.prefix(k))
    }
}

/// A binary min-heap of search entries by key (slot as tie-break, so the search is deterministic).
private struct MinHeap {
    struct Entry {
        var key: Double
        var slot: Int
        /// The tree level of `slot`; −1 for an item whose key is its exact distance.
        var level: Int
        static func < (a: Entry, b: Entry) -> Bool { (a.key, a.level, a.slot) < (b.key, b.level, b.slot) }
    }

    private var entries: [Entry] = []

    /// How many entries it holds.
    var count: Int { entries.count }

    /// The smallest entry, left in place.
    var first: Entry? { entries.first }

    mutating func push(_ e: Entry) {
        entries.append(e)
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard entries[i] < entries[parent] else { break }
            entries.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var i = 0
        while true {
            let (l, r) = (2 * i + 1, 2 * i + 2)
            var smallest = i
            if l < entries.count, entries[l] < entries[smallest] { smallest = l }
            if r < entries.count, entries[r] < entries[smallest] { smallest = r }
            guard smallest != i else { return first }
            entries.swapAt(i, smallest)
            i = smallest
        }
    }
}
