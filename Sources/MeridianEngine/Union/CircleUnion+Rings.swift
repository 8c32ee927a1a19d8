import MeridianCore

/// One closed ring of the union, with what the assembly needs.
struct UnionRing {
    /// Vertices, closed (first repeated at the end).
    var vertices: [Coordinate]
    /// Twice the signed area: positive for shells (counter-clockwise), negative for holes.
    var doubleArea: Double
    /// The polygon whose arc starts the ring (rings are made in the order of these polygons).
    var polygon: Int
}

extension CircleUnion {
    /// The closed ring of polygon i's vertices (`vertex(i, 0)` … `vertex(i, n)`, the same values), written in place:
    /// a union of many isolated circles is mostly these.
    func wholeRing(_ i: Int) -> [Coordinate] {
        let n = circle.count, x = cx[i], y = cy[i], radius = r[i]
        return circle.x.withUnsafeBufferPointer { ux in
            circle.y.withUnsafeBufferPointer { uy in
                [Coordinate](unsafeUninitializedCapacity: n + 1) { ring, count in
                    for k in 0..<n {
                        ring.initializeElement(at: k, to: Coordinate(x: x + radius * ux[k], y: y + radius * uy[k]))
                    }
                    ring.initializeElement(at: n, to: ring[0])
                    count = n + 1
                }
            }
        }
    }

    /// Links the arcs into closed rings through their shared crossings.
    func linkRings(_ arcs: ArcStore) throws(DegenerateConfiguration) -> [UnionRing] {
        let count = arcs.polygon.count
        // Arcs are stored polygon by polygon: firstArc[p]..<firstArc[p+1] are polygon p's.
        var firstArc = [Int32](repeating: 0, count: cx.count + 1)
        for a in 0..<count { firstArc[Int(arcs.polygon[a]) + 1] += 1 }
        for p in 0..<cx.count { firstArc[p + 1] += firstArc[p] }
        /// The arc that starts at the crossing `key` on polygon p.
        func arc(startingAt key: CrossKey, on p: Int) -> Int? {
            for a in Int(firstArc[p])..<Int(firstArc[p + 1]) where arcs.startKey[a] == key && arcs.s0[a] >= 0 {
                return a
            }
            return nil
        }
        let n = circle.count
        var visited = [Bool](repeating: false, count: count)
        var rings: [UnionRing] = []
        for first in 0..<count where !visited[first] {
            var ring: [Coordinate] = []
            if arcs.s0[first] < 0 {
                visited[first] = true
                let i = Int(arcs.polygon[first])
                ring = wholeRing(i)
                rings.append(UnionRing(vertices: ring, doubleArea: Self.doubleArea(ring), polygon: i))
                continue
            }
            var a = first
            repeat {
                guard !visited[a] else { throw DegenerateConfiguration(reason: "arcs form a figure eight") }
                visited[a] = true
                let i = Int(arcs.polygon[a])
                ring.append(Coordinate(x: arcs.x0[a], y: arcs.y0[a]))
                let s0 = arcs.s0[a]
                var s1 = arcs.s1[a]
                if s1 <= s0 { s1 += Double(n) }
                let firstVertex = Int(s0.rounded(.down)) + 1
                let lastVertex = Int(s1.rounded(.up)) - 1
                if firstVertex <= lastVertex {
                    for k in firstVertex...lastVertex {
                        let (x, y) = vertex(i, k)
                        ring.append(Coordinate(x: x, y: y))
                    }
                }
                // The next arc runs along the other polygon of the end crossing.
                let key = arcs.endKey[a]
                let low = Int(key.low >> 20), high = Int(key.high >> 20)
                guard let next = arc(startingAt: key, on: low == i ? high : low) else {
                    throw DegenerateConfiguration(reason: "an arc ends where no arc starts")
                }
                a = next
            } while a != first
            guard ring.count >= 3 else { throw DegenerateConfiguration(reason: "a ring of fewer than 3 vertices") }
            ring.append(ring[0])
            rings.append(UnionRing(vertices: ring, doubleArea: Self.doubleArea(ring), polygon: Int(arcs.polygon[first])))
        }
        return rings
    }

    /// Twice the signed area of a closed ring (shoelace, shifted to its first vertex for precision).
    static func doubleArea(_ ring: [Coordinate]) -> Double {
        guard ring.count > 3 else { return 0 }
        let x0 = ring[0].x, y0 = ring[0].y
        var sum = 0.0
        for k in 1..<(ring.count - 2) {
            sum += (ring[k].x - x0) * (ring[k + 1].y - y0) - (ring[k + 1].x - x0) * (ring[k].y - y0)
        }
        return sum
    }

    /// Groups the rings into parts: every hole joins the shell around it. Also returns, for each part, the polygon
    /// that starts its shell: the parts come in increasing order of these polygons (see `runOrdered()`).
    func assemble(_ rings: inout [UnionRing]) throws(DegenerateConfiguration)
        -> (parts: [Polygon.Part], shellPolygons: [Int])
    {
        var shells: [Int] = [], holes: [Int] = []
        for k in rings.indices {
            if rings[k].doubleArea > 0 {
                shells.append(k)
            } else if rings[k].doubleArea < 0 {
                holes.append(k)
            } else {
                throw DegenerateConfiguration(reason: "a ring of zero area")
            }
        }
        var owner = UnionFind(count: rings.count)
        if !holes.isEmpty {
            if shells.count == 1 {
                for h in holes { owner.union(h, shells[0]) }
            } else {
                let tops = holes.map { (h: Int) -> Coordinate in
                    let vs = rings[h].vertices
                    var top = 0
                    for k in vs.indices where vs[k].y > vs[top].y { top = k }
                    return vs[top]
                }
                let index = RingEdgeIndex(rings, only: Self.ringsAroundPoints(rings, tops, excluding: holes))
                for (h, top) in zip(holes, tops) {
                    // The ring just above the hole's top vertex bounds the same part (shell or sibling hole).
                    guard let above = index.firstRingAbove(top.x, top.y, excluding: h) else {
                        throw DegenerateConfiguration(reason: "a hole outside every shell")
                    }
                    owner.union(h, above)
                }
            }
        }
        var partOfRoot = [Int32](repeating: -1, count: rings.count)  // the part of each set's root ring, -1 for none
        var parts: [Polygon.Part] = []
        parts.reserveCapacity(shells.count)
        let shellPolygons = shells.map { rings[$0].polygon }
        for s in shells {
            let root = owner.find(s)
            guard partOfRoot[root] < 0 else { throw DegenerateConfiguration(reason: "two shells joined by holes") }
            partOfRoot[root] = Int32(parts.count)
            parts.append(Polygon.Part(shell: rings[s].vertices, holes: []))
        }
        for h in holes {
            let p = Int(partOfRoot[owner.find(h)])
            guard p >= 0 else { throw DegenerateConfiguration(reason: "a hole without a shell") }
            parts[p].holes.append(rings[h].vertices)
        }
        return (parts, shellPolygons)
    }
}

extension CircleUnion {
    /// Which rings may matter to the upward rays from the holes' top vertices: those whose bounding box (closed)
    /// holds one of the points, other than the hole the point is on. Shooting a ray among these rings alone lands
    /// on a ring of the same part as among all rings: a ring whose box misses the point cannot enclose it, nor
    /// anything on the ray that encloses a ring whose box holds it, so the first ring of the subset is reached
    /// from inside the same rings as the point itself (the part's shell or one of its holes). Most rings of a
    /// large union (isolated circles, small clusters) then stay out of the index.
    /// - Parameters:
    ///   - rings: All rings.
    ///   - points: The holes' top vertices.
    ///   - holes: The ring each point lies on (ring `holes[k]` is not selected for point `k`).
    /// - Returns: Whether ring k is selected, by ring index.
    static func ringsAroundPoints(_ rings: [UnionRing], _ points: [Coordinate], excluding holes: [Int]) -> [Bool] {
        // The points sorted by x; each ring's box scans those within its x-range.
        let order = points.indices.sorted { points[$0].x < points[$1].x }
        let xs = order.map { points[$0].x }
        var selected = [Bool](repeating: false, count: rings.count)
        for (ri, ring) in rings.enumerated() {
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            for c in ring.vertices {
                minX = min(minX, c.x); maxX = max(maxX, c.x)
                minY = min(minY, c.y); maxY = max(maxY, c.y)
            }
            // First point with x >= minX.
            var lo = 0, hi = xs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if xs[mid] < minX { lo = mid + 1 } else { hi = mid }
            }
            var k = lo
            while k < xs.count && xs[k] <= maxX {
                let p = order[k]
                if holes[p] != ri, points[p].y >= minY, points[p].y <= maxY {
                    selected[ri] = true
                    break
                }
                k += 1
            }
        }
        return selected
    }
}

/// A grid of ring edges for shooting vertical rays: which ring is hit first above a point.
struct RingEdgeIndex {
    private let originX: Double, originY: Double, side: Double
    private let columns: Int, rows: Int
    private let start: [Int32]
    /// Edges (indices into the arrays below), grouped by cell.
    private let edgeOf: [Int32]
    /// Edge endpoints and ring.
    private let ax: [Double], ay: [Double], bx: [Double], by: [Double]
    private let ringOf: [Int32]

    /// Indexes the edges of the selected rings (`only[k]`: ring k); rays meet only those.
    init(_ rings: [UnionRing], only: [Bool]) {
        // Flatten the edges first: plain arrays keep the loops below free of closures and captured state.
        var total = 0
        for (ri, ring) in rings.enumerated() where only[ri] { total += ring.vertices.count - 1 }
        var ex0 = [Double](), ey0 = [Double](), ex1 = [Double](), ey1 = [Double](), er = [Int32]()
        ex0.reserveCapacity(total)
        ey0.reserveCapacity(total)
        ex1.reserveCapacity(total)
        ey1.reserveCapacity(total)
        er.reserveCapacity(total)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (ri, ring) in rings.enumerated() where only[ri] {
            let v = ring.vertices
            for k in 0..<(v.count - 1) {
                let a = v[k], b = v[k + 1]
                ex0.append(a.x)
                ey0.append(a.y)
                ex1.append(b.x)
                ey1.append(b.y)
                er.append(Int32(ri))
                minX = min(minX, a.x); maxX = max(maxX, a.x)
                minY = min(minY, a.y); maxY = max(maxY, a.y)
            }
        }
        if total == 0 { (minX, minY, maxX, maxY) = (0, 0, 0, 0) }  // nothing selected: one empty cell, no ring hit
        let width = maxX - minX, height = maxY - minY
        // About 8 edges per cell.
        var side = ((width * height) / Double(max(total / 8, 1))).squareRoot()
        side = max(side, max(width, height) / 2048, 1e-9)
        let columns = Int(width / side) + 1, rows = Int(height / side) + 1
        originX = minX
        originY = minY
        self.side = side
        self.columns = columns
        self.rows = rows
        let cells = columns * rows
        // Each edge goes into every cell its bounding box meets (almost always one or two).
        @inline(__always) func cellBox(_ e: Int) -> (Int, Int, Int, Int) {
            let lx = min(ex0[e], ex1[e]), hx = max(ex0[e], ex1[e]), ly = min(ey0[e], ey1[e]), hy = max(ey0[e], ey1[e])
            return (
                min(Int((lx - minX) / side), columns - 1), min(Int((hx - minX) / side), columns - 1),
                min(Int((ly - minY) / side), rows - 1), min(Int((hy - minY) / side), rows - 1)
            )
        }
        var counts = [Int32](repeating: 0, count: cells + 1)
        for e in 0..<total {
            let (a, b, c, d) = cellBox(e)
            for row in c...d { for col in a...b { counts[col + row * columns + 1] += 1 } }
        }
        for c in 0..<cells { counts[c + 1] += counts[c] }
        var fill = counts
        var edgeOf = [Int32](repeating: 0, count: Int(counts[cells]))
        for e in 0..<total {
            let (a, b, c, d) = cellBox(e)
            for row in c...d {
                for col in a...b {
                    let cell = col + row * columns
                    edgeOf[Int(fill[cell])] = Int32(e)
                    fill[cell] += 1
                }
            }
        }
        start = counts
        self.edgeOf = edgeOf
        ax = ex0
        ay = ey0
        bx = ex1
        by = ey1
        ringOf = er
    }

    /// The ring (other than `excluding`) whose boundary a vertical ray upward from (x, y) meets first.
    func firstRingAbove(_ x: Double, _ y: Double, excluding: Int) -> Int? {
        let col = min(max(Int((x - originX) / side), 0), columns - 1)
        var row = min(max(Int((y - originY) / side), 0), rows - 1)
        var best = Double.infinity, bestRing: Int?
        while row < rows {
            let c = col + row * columns
            for slot in Int(start[c])..<Int(start[c + 1]) {
                let k = Int(edgeOf[slot])
                let ri = Int(ringOf[k])
                if ri == excluding { continue }
                let (lx, hx) = ax[k] < bx[k] ? (ax[k], bx[k]) : (bx[k], ax[k])
                guard x >= lx, x < hx else { continue }
                let yy = ay[k] + (x - ax[k]) / (bx[k] - ax[k]) * (by[k] - ay[k])
                if yy > y && yy < best {
                    best = yy
                    bestRing = ri
                }
            }
            if bestRing != nil && best <= originY + Double(row + 1) * side { break }
            row += 1
        }
        return bestRing
    }
}
