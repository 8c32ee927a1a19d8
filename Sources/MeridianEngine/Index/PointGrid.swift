import Foundation

/// A uniform grid over the points of a spatial index, for searches within a distance of a point: planar points
/// (x, y) or the unit normals of points on the ellipsoid (x, y, z, for the geodesic filter). The cells a search box
/// covers along x are consecutive, so a search reads one run of points per row of cells (per row and layer in three
/// dimensions) instead of walking the R-tree: for N1's 10k turbines and a 2 km search, ~250 instructions a query
/// against the tree's ~1,000. Cells are cubes (squares) of side `cell`; cell (layer, row, column) holds slots
/// `starts[(layer · rows + row) · columns + column] ..< starts[… + 1]` of `coordinates` (the points' coordinates,
/// `dimensions` each, grouped by cell) and `items` (their positions in the index).
///
/// Why a search finds every point the tree finds: a point the search keeps lies inside the search box (the box the
/// tree searches holds every point within the distance), and a point's column `⌊(x − minimum x) / cell⌋`, clamped,
/// is a non-decreasing function of x under IEEE rounding (subtraction and division by a positive number are
/// monotone), so it lies between the columns of the box's two sides; rows and layers likewise. The grid only
/// chooses which points to measure; the measurement and the inclusive test are the ones the tree's search makes.
struct PointGrid: Sendable {
    /// 2 (x, y) or 3 (x, y, z).
    let dimensions: Int
    /// The points' smallest coordinates: the grid's lower corner (z is 0 in two dimensions).
    let origin: (x: Double, y: Double, z: Double)
    /// The side of a cell, in the coordinates' unit (> 0, finite).
    let cell: Double
    let columns: Int
    let rows: Int
    /// 1 in two dimensions.
    let layers: Int
    /// The first slot of each cell, and the end of the last (`layers · rows · columns + 1` entries).
    let starts: [Int32]
    /// The coordinates of the point in each slot, `dimensions` each.
    let coordinates: [Double]
    /// The index position of the point in each slot (ascending within a cell).
    let items: [Int32]

    /// Grids points given flat (`dimensions` coordinates each, all finite) in cells of side `cell`; `lower` and
    /// `upper` are the points' smallest and largest coordinates (`dimensions` each).
    /// - Precondition: `cell` finite and > 0, and the extent divided by it at most `PointGrids`' `maximumCells`.
    init(points: [Double], dimensions: Int, lower: [Double], upper: [Double], cell: Double) {
        self.dimensions = dimensions
        origin = (lower[0], lower[1], dimensions == 3 ? lower[2] : 0)
        self.cell = cell
        let counts = (0..<3).map { d in d < dimensions ? Int(((upper[d] - lower[d]) / cell).rounded(.down)) + 1 : 1 }
        (columns, rows, layers) = (counts[0], counts[1], counts[2])
        let n = points.count / dimensions
        // A counting sort by cell: the count of each cell, its first slot, then each point into the next free slot
        // of its cell (in index order, so a cell lists its points ascending).
        var cellOf = [Int32](repeating: 0, count: n)
        var starts = [Int32](repeating: 0, count: layers * rows * columns + 1)
        let (origin, columns, rows, layers) = (origin, columns, rows, layers)
        for i in 0..<n {
            let p = i * dimensions
            let z = dimensions == 3 ? Self.place(points[p + 2], from: origin.z, cell: cell, count: layers) : 0
            let c = (z * rows + Self.place(points[p + 1], from: origin.y, cell: cell, count: rows)) * columns
                + Self.place(points[p], from: origin.x, cell: cell, count: columns)
            cellOf[i] = Int32(c)
            starts[c + 1] += 1
        }
        for c in 0..<(starts.count - 1) { starts[c + 1] += starts[c] }
        var next = starts
        var coordinates = [Double](repeating: 0, count: points.count)
        var items = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let c = Int(cellOf[i])
            let slot = Int(next[c])
            next[c] += 1
            for d in 0..<dimensions { coordinates[slot * dimensions + d] = points[i * dimensions + d] }
            items[slot] = Int32(i)
        }
        self.starts = starts
        self.coordinates = coordinates
        self.items = items
    }

    /// The position of cell (layer, row, column) in `starts`.
    @inline(__always)
    func cellIndex(_ layer: Int, _ row: Int, _ column: Int) -> Int { (layer * rows + row) * columns + column }

    /// The column of x, clamped to the grid (a NaN lands in column 0).
    @inline(__always)
    func column(_ x: Double) -> Int { Self.place(x, from: origin.x, cell: cell, count: columns) }

    /// The row of y, clamped to the grid.
    @inline(__always)
    func row(_ y: Double) -> Int { Self.place(y, from: origin.y, cell: cell, count: rows) }

    /// The layer of z, clamped to the grid (always 0 in two dimensions).
    @inline(__always)
    func layer(_ z: Double) -> Int { Self.place(z, from: origin.z, cell: cell, count: layers) }

    /// ⌊(v − origin) / cell⌋ clamped to 0 ..< count (a NaN or −∞ gives 0, +∞ gives count − 1): the same function
    /// for the points and the search boxes, monotone in v. Below 0 the answer is 0 whatever the rounding, and from 0
    /// up truncation is the floor, so the quotient is truncated (`Int(_:)`) rather than rounded down first (a call
    /// to libm's `floor` per coordinate).
    @inline(__always)
    static func place(_ v: Double, from origin: Double, cell: Double, count: Int) -> Int {
        let c = (v - origin) / cell
        return c >= 0 ? (c < Double(count) ? Int(c) : count - 1) : 0
    }

    /// Calls `body` with the slots of every run of cells the box `lower` … `upper` covers (a superset of the points
    /// inside the box), with the grid's coordinates and items; z is ignored in two dimensions.
    @inline(__always)
    func forEachRun(lower: (x: Double, y: Double, z: Double), upper: (x: Double, y: Double, z: Double),
                    _ body: (Range<Int>, UnsafeBufferPointer<Double>, UnsafeBufferPointer<Int32>) -> Void) {
        let c0 = column(lower.x), c1 = column(upper.x)
        let r0 = row(lower.y), r1 = row(upper.y)
        var l = dimensions == 3 ? layer(lower.z) : 0
        let lastLayer = dimensions == 3 ? layer(upper.z) : 0
        starts.withUnsafeBufferPointer { starts in
            coordinates.withUnsafeBufferPointer { coordinates in
                items.withUnsafeBufferPointer { items in
                    while l <= lastLayer {
                        var r = r0
                        while r <= r1 {
                            let first = Int(starts[cellIndex(l, r, c0)]), end = Int(starts[cellIndex(l, r, c1) + 1])
                            if first < end { body(first..<end, coordinates, items) }
                            r += 1
                        }
                        l += 1
                    }
                }
            }
        }
    }
}

extension PointGrid {
    /// Puts in `found` the `k` points nearest to (`x`, `y`) within `maxDistance` (√(Δx² + Δy²), as the planar index
    /// measures two points), nearest first, then by index — what the R-tree's best-first search answers: rings of
    /// cells around the query's cell, ever wider, until the `k`-th distance is below the least distance any cell
    /// beyond the rings can hold (their distance from the query, lowered by `slack` for the rounding of cell
    /// numbers) or the rings hold every cell.
    /// - Precondition: `dimensions == 2`, `k` ≥ 1.
    func nearest(x: Double, y: Double, k: Int, maxDistance: Double, slack: Double, into found: inout [NearFeature]) {
        found.removeAllKeepingCapacity()
        let cx = column(x), cy = row(y)
        // The least distance from the query to a cell outside the square of rings 0 … r, side by side (a side
        // with no cells beyond it bounds nothing).
        func beyond(_ r: Int) -> Double {
            var bound = Double.infinity
            if cx - r > 0 { bound = min(bound, x - (origin.x + Double(cx - r) * cell)) }
            if cx + r < columns - 1 { bound = min(bound, origin.x + Double(cx + r + 1) * cell - x) }
            if cy - r > 0 { bound = min(bound, y - (origin.y + Double(cy - r) * cell)) }
            if cy + r < rows - 1 { bound = min(bound, origin.y + Double(cy + r + 1) * cell - y) }
            return max(0, bound - slack)
        }
        let last = max(cx, columns - 1 - cx, cy, rows - 1 - cy)
        starts.withUnsafeBufferPointer { starts in
            coordinates.withUnsafeBufferPointer { xy in
                items.withUnsafeBufferPointer { items in
                    func take(_ row: Int, _ c0: Int, _ c1: Int) {
                        guard row >= 0, row < rows else { return }
                        let lo = max(c0, 0), hi = min(c1, columns - 1)
                        guard lo <= hi else { return }
                        for slot in Int(starts[cellIndex(0, row, lo)])..<Int(starts[cellIndex(0, row, hi) + 1]) {
                            let dx = x - xy[2 * slot], dy = y - xy[2 * slot + 1]
                            let d = (dx * dx + dy * dy).squareRoot()
                            guard d <= maxDistance else { continue }
                            let f = NearFeature(index: Int(items[slot]), distance: d)
                            if found.count == k {
                                guard (d, f.index) < (found[k - 1].distance, found[k - 1].index) else { continue }
                                found.removeLast()
                            }
                            var at = found.count
                            while at > 0, (d, f.index) < (found[at - 1].distance, found[at - 1].index) { at -= 1 }
                            found.insert(f, at: at)
                        }
                    }
                    var r = 0
                    let everything = items.count
                    while true {
                        if r == 0 {
                            take(cy, cx, cx)
                        } else {
                            take(cy - r, cx - r, cx + r)
                            take(cy + r, cx - r, cx + r)
                            // The ring's two sides between them, the rows off the grid left out.
                            for row in stride(from: max(cy - r + 1, 0), to: min(cy + r, rows), by: 1) {
                                take(row, cx - r, cx - r)
                                take(row, cx + r, cx + r)
                            }
                        }
                        let bound = beyond(r)
                        if r >= last || bound > maxDistance || found.count == everything
                            || (found.count == k && found[k - 1].distance < bound) {
                            break
                        }
                        r += 1
                    }
                }
            }
        }
    }
}

/// The point grids of a spatial index whose geometries are all points, one per cell size searches ask for, made
/// once `searchesBeforeGrid` searches have asked for it (they use the R-tree until then) and kept; at most
/// `maximumGrids` (searches needing another keep to the tree). Cell sides are powers of two at or above the search
/// reach (so a search box covers at most 3 cells along each axis), and no smaller than what keeps a grid within
/// `maximumCells` cells. Safe to share between threads.
///
/// Why wait: making a grid of n points (a counting sort) costs about what n/20 searches save by reading it instead
/// of the tree (~250 instructions a search against ~1,000 for N1's turbines), so a few searches of a large index
/// (N2: 10k turbines' radii over 1M premises) are faster, and smaller, without one.
final class PointGrids: @unchecked Sendable {
    /// The most grids kept: each holds a copy of the points.
    static let maximumGrids = 4
    /// How many searches through the tree a search run counts before it tells the grids (`grid(key:searches:)`).
    static let searchReport = 64

    /// 2 or 3.
    let dimensions: Int
    private let points: [Double]
    /// The points' smallest and largest coordinates.
    private let lower: [Double], upper: [Double]
    /// The exponents of the smallest cell side allowed (one that gives at most `maximumCells` cells) and of the
    /// largest worth having (one cell over everything).
    private let smallestExponent: Int, largestExponent: Int
    private let lock = NSLock()
    private var grids: [Int: PointGrid] = [:]
    /// The searches reported for each key that has no grid yet.
    private var searches: [Int: Int] = [:]

    /// How many searches with one key are made through the tree before its grid is made: 1/16 of the points (set
    /// to 0 to make every grid at once, before the index is shared).
    var searchesBeforeGrid: Int

    /// The most cells a grid has: 64 a point, at least 4,096 and at most 2²² (a 16 MiB table of cells).
    let maximumCells: Int

    /// The grids of points given flat (`dimensions` coordinates each, all finite), or nil for no points or an
    /// extent too large to divide (beyond the range of doubles).
    init?(points: [Double], dimensions: Int) {
        let n = points.count / dimensions
        guard n > 0 else { return nil }
        var lower = Array(points[0..<dimensions]), upper = lower
        for i in 0..<n {
            for d in 0..<dimensions {
                lower[d] = min(lower[d], points[i * dimensions + d])
                upper[d] = max(upper[d], points[i * dimensions + d])
            }
        }
        let extents = (0..<dimensions).map { upper[$0] - lower[$0] }
        guard extents.allSatisfy({ $0.isFinite }) else { return nil }
        maximumCells = min(max(4096, 64 * n), 1 << 22)
        // The smallest power of two s with Π (⌊extent / s⌋ + 1) ≤ maximumCells: from one giving maximumCells cells
        // along the longest side, doubled until the product fits (at most log₂ maximumCells times).
        let longest = max(extents.max() ?? 0, .leastNormalMagnitude)
        func cells(_ exponent: Int) -> Double {
            extents.reduce(1) { $0 * (($1 / exp2(Double(exponent))).rounded(.down) + 1) }
        }
        var exponent = Int(log2(max(longest / Double(maximumCells), .leastNormalMagnitude)).rounded(.down))
        while cells(exponent) > Double(maximumCells) { exponent += 1 }
        smallestExponent = exponent
        largestExponent = max(exponent, Int(log2(longest).rounded(.up)))
        self.dimensions = dimensions
        self.points = points
        self.lower = lower
        self.upper = upper
        searchesBeforeGrid = n / 16
        // Twice the spacing of evenly spread points: cells of a few points each, for nearest searches.
        let thinnest = longest / Double(maximumCells)  // (a side of no extent counts as this)
        let volume = extents.reduce(1) { $0 * max($1, thinnest) }
        nearestReach = 2 * pow(volume / Double(n), 1 / Double(dimensions))
    }

    /// The reach a nearest search asks its grid for (`key(reach:)`): twice the spacing of as many points spread
    /// evenly over the extent.
    let nearestReach: Double

    /// How many grids are kept.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return grids.count
    }

    /// The key of the grid for a search reaching `reach` from its point: the exponent of its cell side, the power
    /// of two at or above `reach` (a search box then covers at most 3 cells along each axis), within the sides
    /// allowed.
    func key(reach: Double) -> Int {
        let exponent = log2(reach).rounded(.up)
        guard exponent >= Double(smallestExponent) else { return smallestExponent }  // a NaN too
        return exponent <= Double(largestExponent) ? Int(exponent) : largestExponent
    }

    /// The grid of key `key` (`key(reach:)`): kept, or made now when the searches reported for the key reach
    /// `searchesBeforeGrid` and fewer than `maximumGrids` are kept; nil otherwise.
    /// - Parameters:
    ///   - key: The key of the searches' reach.
    ///   - done: Searches with that key made through the tree and not reported yet (0 or more).
    func grid(key: Int, searches done: Int) -> PointGrid? {
        lock.lock()
        defer { lock.unlock() }
        if let grid = grids[key] { return grid }
        let asked = searches[key, default: 0] + done
        searches[key] = asked
        guard asked >= searchesBeforeGrid, grids.count < Self.maximumGrids else { return nil }
        let grid = PointGrid(points: points, dimensions: dimensions, lower: lower, upper: upper,
                             cell: exp2(Double(key)))
        grids[key] = grid
        return grid
    }
}

/// Which grid of `PointGrids` a run of searches (one `SpatialIndex.SearchScratch`) reads, for the search distances it
/// meets: a key's grid is asked for when the run first meets the key, then after every `PointGrids.searchReport`
/// searches made through the tree, so that `PointGrids` makes it once enough searches have asked for it; the last
/// distance's choice is kept, so a run of one distance asks nothing more per search.
struct PointGridChoice {
    /// The keys met (`PointGrids.key(reach:)`), their grids (nil: none yet, or none to have) and the searches made
    /// through the tree with each since the grids were last asked.
    private var keys: [(key: Int, grid: PointGrid?, treeSearches: Int)] = []
    /// The grid of the last search distance, that distance, and the position of its key in `keys`.
    private(set) var grid: PointGrid? {
        didSet { hasGrid = grid != nil }
    }
    /// Whether `grid` is set: what every search asks, without comparing the optional grid (which copied it).
    private var hasGrid = false
    private var reach = -1.0
    private var slot = 0

    /// Whether a search within `reach` of a point reads a grid of `grids` (then `grid`): never when `grids` is nil
    /// (an index not of points alone). Given as the index holds it, so that a search retains nothing.
    @inline(__always)
    mutating func use(reach: Double, of grids: PointGrids?) -> Bool {
        if reach != self.reach {
            guard let grids else { return false }
            let key = grids.key(reach: reach)
            if let known = keys.firstIndex(where: { $0.key == key }) {
                slot = known
            } else {
                slot = keys.count
                keys.append((key, grids.grid(key: key, searches: 0), 0))
            }
            self.reach = reach
            grid = keys[slot].grid
        }
        guard !hasGrid else { return true }
        guard let grids else { return false }
        keys[slot].treeSearches += 1
        if keys[slot].treeSearches >= PointGrids.searchReport {
            grid = grids.grid(key: keys[slot].key, searches: keys[slot].treeSearches)
            keys[slot].grid = grid
            keys[slot].treeSearches = 0
        }
        return hasGrid
    }
}
