import Foundation

/// A uniform grid over the points of a planar spatial index, for searches within a distance of a point: the cells a
/// search box covers in one row are consecutive, so a search reads one run of points per row instead of walking the
/// R-tree (for N1's 10k turbines and a 2 km search, about 4× fewer operations than the tree's ~150 box tests a
/// query). Cells are squares of `cell` units; cell (row, column) holds slots `starts[row · columns + column] ..<
/// starts[row · columns + column + 1]` of `xy` (the points' x, y, grouped by cell) and `items` (their positions in
/// the index).
///
/// Why it finds every point the tree finds: a point within the distance lies inside the search box (the box is
/// the one the tree searches), and a point's column `⌊(x − minX) / cell⌋`, clamped, is a non-decreasing function of
/// x under IEEE rounding (subtraction and division by a positive number are monotone), so it lies between the
/// columns of the box's two sides; rows likewise. The grid only chooses which points to measure; the measurement
/// and the inclusive test are the ones the tree's search makes.
struct PointGrid: Sendable {
    /// The smallest x and y of the points: the grid's lower left corner.
    let minX: Double
    let minY: Double
    /// The side of a cell, in the coordinates' unit (> 0, finite).
    let cell: Double
    let columns: Int
    let rows: Int
    /// The first slot of each cell, and the end of the last (`rows · columns + 1` entries).
    let starts: [Int32]
    /// x, y of the point in each slot.
    let xy: [Double]
    /// The index position of the point in each slot (ascending within a cell).
    let items: [Int32]

    /// Grids points given flat (`x, y` of point `i` at `points[2i], points[2i + 1]`, all finite) in cells of side
    /// `cell`, the extent given by `bounds` (the points' smallest and largest x and y).
    /// - Precondition: `cell` finite and > 0, and the extent divided by it at most `PointGrids.maximumCells` cells.
    init(points: [Double], bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), cell: Double) {
        minX = bounds.minX
        minY = bounds.minY
        self.cell = cell
        columns = Int(((bounds.maxX - bounds.minX) / cell).rounded(.down)) + 1
        rows = Int(((bounds.maxY - bounds.minY) / cell).rounded(.down)) + 1
        let n = points.count / 2
        // A counting sort by cell: the count of each cell, its first slot, then each point into the next free slot
        // of its cell (in index order, so a cell lists its points ascending).
        var cellOf = [Int32](repeating: 0, count: n)
        var starts = [Int32](repeating: 0, count: rows * columns + 1)
        let (columns, rows) = (columns, rows)
        for i in 0..<n {
            let c = Self.place(points[2 * i + 1], from: bounds.minY, cell: cell, count: rows) * columns
                + Self.place(points[2 * i], from: bounds.minX, cell: cell, count: columns)
            cellOf[i] = Int32(c)
            starts[c + 1] += 1
        }
        for c in 0..<(rows * columns) { starts[c + 1] += starts[c] }
        var next = starts
        var xy = [Double](repeating: 0, count: 2 * n)
        var items = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let c = Int(cellOf[i])
            let slot = Int(next[c])
            next[c] += 1
            xy[2 * slot] = points[2 * i]
            xy[2 * slot + 1] = points[2 * i + 1]
            items[slot] = Int32(i)
        }
        self.starts = starts
        self.xy = xy
        self.items = items
    }

    /// The column of x, clamped to the grid (a NaN lands in column 0).
    @inline(__always)
    func column(_ x: Double) -> Int { Self.place(x, from: minX, cell: cell, count: columns) }

    /// The row of y, clamped to the grid.
    @inline(__always)
    func row(_ y: Double) -> Int { Self.place(y, from: minY, cell: cell, count: rows) }

    /// ⌊(v − origin) / cell⌋ clamped to 0 ..< count (a NaN or −∞ gives 0, +∞ gives count − 1): the same function
    /// for the points and the search boxes, monotone in v.
    @inline(__always)
    static func place(_ v: Double, from origin: Double, cell: Double, count: Int) -> Int {
        let c = ((v - origin) / cell).rounded(.down)
        return c >= 0 ? (c < Double(count) ? Int(c) : count - 1) : 0
    }

    /// Appends to `found` every point within `distance` of (`x`, `y`) (√(Δx² + Δy²) ≤ `distance`, as the index
    /// measures two points), with its distance, in no particular order; `box` is the search box of the query.
    func within(_ distance: Double, x: Double, y: Double,
                box: (minX: Double, minY: Double, maxX: Double, maxY: Double), into found: inout [NearFeature]) {
        let c0 = column(box.minX), c1 = column(box.maxX)
        starts.withUnsafeBufferPointer { starts in
            xy.withUnsafeBufferPointer { xy in
                items.withUnsafeBufferPointer { items in
                    var r = row(box.minY)
                    let lastRow = row(box.maxY)
                    while r <= lastRow {
                        var slot = Int(starts[r * columns + c0])
                        let end = Int(starts[r * columns + c1 + 1])
                        while slot < end {
                            let dx = x - xy[2 * slot], dy = y - xy[2 * slot + 1]
                            let d = (dx * dx + dy * dy).squareRoot()
                            if d <= distance { found.append(NearFeature(index: Int(items[slot]), distance: d)) }
                            slot += 1
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
/// reach (so a search box covers at most 3 × 3 cells), and no smaller than what keeps a grid within `maximumCells`
/// cells. Safe to share between threads.
///
/// Why wait: a grid costs about as much to make as 1/20 of its points' searches through the tree save (a counting
/// sort of the points, against ~1,000 instructions a tree search and ~250 a grid search for N1's turbines), so a
/// few searches of a large index (N2: 10k turbines' radii over 1M premises) are faster and smaller without one.
final class PointGrids: @unchecked Sendable {
    /// The most grids kept: each holds a copy of the points.
    static let maximumGrids = 4
    /// How many searches through the tree a search run counts before it tells the grids (`grid(key:searches:)`).
    static let searchReport = 64

    private let points: [Double]
    private let bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)
    /// The smallest cell side allowed: one that gives at most `maximumCells` cells.
    private let smallestCell: Double
    /// The largest cell side worth having: one cell over everything.
    private let largestCell: Double
    private let lock = NSLock()
    private var grids: [Int: PointGrid] = [:]
    /// The searches reported for each key that has no grid yet.
    private var searches: [Int: Int] = [:]

    /// How many searches with one key are made through the tree before its grid is made: 1/16 of the points (set
    /// to 0 to make every grid at once, before the index is shared).
    var searchesBeforeGrid: Int

    /// The most cells a grid has: 64 a point, at least 4,096 and at most 2²² (a 16 MiB table of cells).
    let maximumCells: Int

    /// The grids of points given flat (`x, y` each, all finite), or nil for no points or an extent too large to
    /// divide (beyond the range of doubles).
    init?(points: [Double]) {
        let n = points.count / 2
        guard n > 0 else { return nil }
        var b = (minX: points[0], minY: points[1], maxX: points[0], maxY: points[1])
        for i in 0..<n {
            b = (min(b.minX, points[2 * i]), min(b.minY, points[2 * i + 1]),
                 max(b.maxX, points[2 * i]), max(b.maxY, points[2 * i + 1]))
        }
        let width = b.maxX - b.minX, height = b.maxY - b.minY
        guard width.isFinite, height.isFinite else { return nil }
        maximumCells = min(max(4096, 64 * n), 1 << 22)
        // Cells of side s: (width / s + 1) · (height / s + 1) ≤ maximumCells when s ≥ both the side that fits the
        // area and the one that fits the longer side alone (each doubled for the +1s).
        let fitArea = (width * height / Double(maximumCells)).squareRoot()
        let fitSide = max(width, height) / Double(maximumCells / 4)
        smallestCell = max(2 * fitArea, 2 * fitSide, Double.leastNormalMagnitude)
        largestCell = max(width, height, smallestCell)
        self.points = points
        bounds = b
        searchesBeforeGrid = n / 16
    }

    /// How many grids are kept.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return grids.count
    }

    /// The key of the grid for a search reaching `reach` from its point: the exponent of its cell side, the power
    /// of two at or above `reach` (a search box then covers at most 3 × 3 cells).
    func key(reach: Double) -> Int {
        let side = min(max(reach, smallestCell), largestCell)
        return Int(log2(side).rounded(.up))
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
        let grid = PointGrid(points: points, bounds: bounds, cell: exp2(Double(key)))
        grids[key] = grid
        return grid
    }
}
