/// A uniform grid over circle centres (counting-sorted into cells), for finding the circles that can meet a given
/// one, nearest cells first.
struct CircleGrid {
    /// Cell side.
    let side: Double
    /// The grid's lower-left corner.
    let originX: Double, originY: Double
    /// Cells across and down.
    let columns: Int, rows: Int
    /// The largest radius, which bounds how far a neighbour's centre can be.
    let maximumRadius: Double
    /// cellStart[c]..<cellStart[c+1] index `items` for cell c.
    private let cellStart: [Int32]
    /// Circle indices, grouped by cell.
    private let items: [Int32]

    /// Builds the grid. The cell side follows the density (about four centres per cell), but is never below
    /// 1/32 of the largest radius, so a search reaches at most ~64 cells out.
    init(x: [Double], y: [Double], radius: [Double]) {
        let n = x.count
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var rMax = 0.0
        for i in 0..<n {
            minX = min(minX, x[i]); maxX = max(maxX, x[i])
            minY = min(minY, y[i]); maxY = max(maxY, y[i])
            rMax = max(rMax, radius[i])
        }
        let width = max(maxX - minX, 0), height = max(maxY - minY, 0)
        let area = max(width * height, 0)
        var side = 2 * (area / Double(max(n, 1))).squareRoot()
        side = max(side, rMax / 32, max(width, height) / 4096, 1e-9 * max(abs(minX), abs(minY), 1))
        if !(side.isFinite && side > 0) { side = 1 }
        self.side = side
        originX = minX
        originY = minY
        columns = Int(width / side) + 1
        rows = Int(height / side) + 1
        maximumRadius = rMax
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        var cellOf = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let c = min(Int((x[i] - minX) / side), columns - 1) + min(Int((y[i] - minY) / side), rows - 1) * columns
            cellOf[i] = Int32(c)
            counts[c + 1] += 1
        }
        for c in 0..<(columns * rows) { counts[c + 1] += counts[c] }
        var fill = counts
        var list = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let c = Int(cellOf[i])
            list[Int(fill[c])] = Int32(i)
            fill[c] += 1
        }
        cellStart = counts
        items = list
    }

    /// The cell of a point (clamped to the grid).
    @inline(__always)
    func cell(_ x: Double, _ y: Double) -> (Int, Int) {
        (max(0, min(Int((x - originX) / side), columns - 1)), max(0, min(Int((y - originY) / side), rows - 1)))
    }

    /// How many rings of cells around a circle of radius `radius` can hold circles that meet it.
    func reach(for radius: Double) -> Int {
        let k = ((radius + maximumRadius) * (1 + 1e-9) / side).rounded(.up)
        return Int(min(k, Double(max(columns, rows))))
    }

    /// How many circles a search around each of the given circles visits in all: for circle i, every circle in the
    /// cells within `reach(for: radius[i])` rings of its cell (what `forEachInRing` calls for rings 0 through that
    /// reach, itself included), summed over i. Counted from the cells' sizes with a summed-area table, without
    /// visiting any circle: O(circles + cells).
    func visits(x: [Double], y: [Double], radius: [Double]) -> Int {
        // table[(row)·(columns + 1) + column]: the circles in the cells left of `column` and below `row`.
        let width = columns + 1
        var table = [Int](repeating: 0, count: width * (rows + 1))
        for row in 0..<rows {
            var inRow = 0
            for column in 0..<columns {
                let c = column + row * columns
                inRow += Int(cellStart[c + 1] - cellStart[c])
                table[(row + 1) * width + column + 1] = table[row * width + column + 1] + inRow
            }
        }
        var total = 0
        for i in x.indices {
            let (ix, iy) = cell(x[i], y[i])
            let k = reach(for: radius[i])
            let x0 = max(ix - k, 0), x1 = min(ix + k, columns - 1) + 1
            let y0 = max(iy - k, 0), y1 = min(iy + k, rows - 1) + 1
            total += table[y1 * width + x1] - table[y0 * width + x1] - table[y1 * width + x0] + table[y0 * width + x0]
        }
        return total
    }

    /// Calls `body` with every circle whose cell is exactly `ring` cells (Chebyshev distance) from (ix, iy).
    @inline(__always)
    func forEachInRing(_ ix: Int, _ iy: Int, _ ring: Int, _ body: (Int) -> Void) {
        cellStart.withUnsafeBufferPointer { start in
            items.withUnsafeBufferPointer { list in
                func visit(_ cx: Int, _ cy: Int) {
                    guard cx >= 0, cx < columns, cy >= 0, cy < rows else { return }
                    let c = cx + cy * columns
                    var k = Int(start[c])
                    let end = Int(start[c + 1])
                    while k < end {
                        body(Int(list[k]))
                        k += 1
                    }
                }
                if ring == 0 {
                    visit(ix, iy)
                    return
                }
                let y0 = iy - ring, y1 = iy + ring
                for cxx in max(ix - ring, 0)...min(ix + ring, columns - 1) {
                    visit(cxx, y0)
                    visit(cxx, y1)
                }
                for cyy in max(y0 + 1, 0)...min(y1 - 1, rows - 1) {
                    visit(ix - ring, cyy)
                    visit(ix + ring, cyy)
                }
            }
        }
    }

    /// Calls `body` with each circle that comes after circle `i` (in cell (ix, iy), `i`'s own) within `reach` cells
    /// (Chebyshev distance), in the cells' row-major order: the circles of `i`'s cell with a higher index, those of
    /// the cells to its right in its row, and those of the next `reach` rows from `reach` columns left to `reach`
    /// right. Of two circles whose cells lie within `reach` of each other's, exactly one is visited from the other
    /// (from the one in the earlier cell; in one cell, from the lower index), so a search for pairs looks at each
    /// pair once instead of twice. A row's cells are consecutive in the grid's list, so each row is one loop.
    @inline(__always)
    func forEachLater(than i: Int, _ ix: Int, _ iy: Int, reach: Int, _ body: (Int) -> Void) {
        cellStart.withUnsafeBufferPointer { start in
            items.withUnsafeBufferPointer { list in
                func visitRow(_ x0: Int, _ x1: Int, _ cy: Int) {
                    let a = max(x0, 0), b = min(x1, columns - 1)
                    guard a <= b else { return }
                    var k = Int(start[a + cy * columns])
                    let end = Int(start[b + cy * columns + 1])
                    while k < end {
                        body(Int(list[k]))
                        k += 1
                    }
                }
                let own = ix + iy * columns
                for k in Int(start[own])..<Int(start[own + 1]) where Int(list[k]) > i { body(Int(list[k])) }
                visitRow(ix + 1, ix + reach, iy)
                let lastRow = min(iy + reach, rows - 1)
                if lastRow > iy {
                    for cy in (iy + 1)...lastRow { visitRow(ix - reach, ix + reach, cy) }
                }
            }
        }
    }
}
