import Foundation
import MeridianCore

/// A cell of a partition of the plane into rectangles, for a union of point buffers computed cell by cell (the tasks
/// of `meridian-dask`): it owns the points with `minX ≤ x < maxX` and `minY ≤ y < maxY`. Bounds may be infinite, so
/// that the cells on the outside of a partition own everything beyond it. Cells of one partition own every point of
/// the plane exactly once, and because ownership is decided by comparisons with the same bounds, two tasks always
/// agree on the owner of a vertex.
public struct UnionTile: Sendable, Hashable {
    /// The owned x range, `minX ..< maxX`.
    public let minX: Double, maxX: Double
    /// The owned y range, `minY ..< maxY`.
    public let minY: Double, maxY: Double

    /// A cell.
    /// - Parameters:
    ///   - minX: The smallest x it owns, in the coordinates' unit (−infinity for no bound).
    ///   - minY: The smallest y it owns (−infinity for no bound).
    ///   - maxX: The x it owns up to, not included; more than `minX` (+infinity for no bound).
    ///   - maxY: The y it owns up to, not included; more than `minY` (+infinity for no bound).
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Whether the cell owns the point (x, y).
    /// - Parameters:
    ///   - x: The point's x, in the cell's coordinates (any finite value).
    ///   - y: The point's y (any finite value).
    @inline(__always)
    public func owns(_ x: Double, _ y: Double) -> Bool { x >= minX && x < maxX && y >= minY && y < maxY }

    /// Whether the cell owns a vertex.
    @inline(__always)
    public func owns(_ c: Coordinate) -> Bool { owns(c.x, c.y) }
}

/// One cell's share of a union of point buffers computed cell by cell
/// (`GeometryEngine.unionTileShare(x:y:radius:queried:tile:parameters:in:)`): what the cell owns of the union's
/// boundary, and how its pieces are glued to the other cells' pieces.
///
/// Every edge of the union's rings (a segment between two consecutive vertices) is owned by the cell that owns its
/// first vertex. A cell reports its edges as they are in the union of all circles, vertex for vertex:
/// - `parts`: the parts whose shell it owns entirely (their holes, inside the shell, are then owned too): final;
/// - `chains`: maximal runs of owned edges of the other rings, each from its first owned vertex to the first vertex it
///   does not own (included): the chain that continues a ring starts at that vertex, in the cell owning it, with the
///   same coordinates bit for bit, so rings are rebuilt by matching a chain's last vertex with another's first;
/// - `holes`: the rings it owns entirely that are holes of a part it does not own entirely.
///
/// Chains and holes name the local part they belong to (an index of the cell's own union of the circles that can
/// reach it). The local parts of different cells are glued through the circles they share: `circleParts` names the
/// local part holding the centre of each queried circle. Two circles whose buffers overlap both reach some cell,
/// where they lie in one local part, so the local parts joined through shared circles are exactly the union's parts.
public struct UnionTileShare: Sendable {
    /// Parts whose shell the cell owns entirely (shells counter-clockwise, holes clockwise, rings closed).
    public var parts: [Polygon.Part] = []
    /// Runs of owned edges of rings the cell does not own entirely (in the ring's direction: shells
    /// counter-clockwise, holes clockwise): from the first owned vertex to the first vertex not owned.
    public var chains: [[Coordinate]] = []
    /// The local part of each chain.
    public var chainParts: [Int] = []
    /// Holes owned entirely whose part's shell is not (clockwise, closed).
    public var holes: [[Coordinate]] = []
    /// The local part of each hole.
    public var holeParts: [Int] = []
    /// For each queried circle, the local part holding its centre.
    public var circleParts: [Int] = []
    /// `nil` when Meridian's circle union computed the cell's union; otherwise why GEOS computed some of it.
    public var geosFallbackReason: String?

    /// An empty share.
    public init() {}
}

extension GeometryEngine {
    /// How far beyond a cell the circles that reach the cell's union edges must reach, as a multiple of the largest
    /// radius: an edge of the union lies along an edge of one circle's polygon, so it is at most one chord
    /// (2·r·sin(π/n) for n vertices) long, and an owned edge ends within that distance of the cell. A little more
    /// than the chord, so that rounding of the circles' bounding boxes cannot drop a circle that matters.
    /// - Parameter parameters: The buffer parameters (chords per quarter circle).
    /// - Returns: The margin per unit of the largest radius.
    public static func unionTileMarginPerRadius(parameters: BufferParameters = .default) -> Double {
        let n = Double(4 * parameters.segmentsPerQuarterCircle)
        return 2 * sin(Double.pi / n) * (1 + 1e-6) + 1e-9
    }

    /// One cell's share of the union of round buffers around points (see `UnionTileShare`).
    ///
    /// The circles given must be every circle of the whole problem whose box (centre ± radius) meets the cell grown
    /// by `unionTileMarginPerRadius(parameters:)` times the largest radius of the whole problem: the union of those
    /// circles then equals the whole union inside the grown cell, where every owned edge lies, and every vertex
    /// there is computed from the same two circle edges in every cell (`CircleUnion` computes a crossing from its
    /// operands in the order of the circles' coordinates, the same in any subset).
    /// - Parameters:
    ///   - x: Centres (x), in `spatialReference` (projected).
    ///   - y: Centres (y).
    ///   - radius: One radius per circle, positive and finite, in the spatial reference's unit.
    ///   - queried: Circles (indices) whose local part `circleParts` reports: those that also reach other cells.
    ///   - tile: The cell.
    ///   - parameters: Chords per quarter circle and round end caps, as for the whole union.
    ///   - spatialReference: The circles' spatial reference.
    /// - Returns: The cell's share.
    /// - Throws: `EngineError.invalidDistance` for unusable radii or counts; `.geos` when GEOS fails.
    public static func unionTileShare(
        x: [Double], y: [Double], radius: [Double], queried: [Int], tile: UnionTile,
        parameters: BufferParameters = .default, in spatialReference: SpatialReference
    ) throws(EngineError) -> UnionTileShare {
        guard x.count == y.count, x.count == radius.count else {
            throw .distanceCountMismatch(geometries: x.count, distances: radius.count)
        }
        guard (1...1000).contains(parameters.segmentsPerQuarterCircle), parameters.endCapStyle == .round else {
            throw .invalidDistance("a cell of a union needs round caps and 1…1000 segments per quarter circle")
        }
        for i in x.indices where !(x[i].isFinite && y[i].isFinite && radius[i].isFinite && radius[i] > 0) {
            throw EngineError.invalidDistance("a cell of a union needs finite centres and positive radii")
                .at(EngineError.Location(geometry: i))
        }
        var share = UnionTileShare()
        guard !x.isEmpty else { return share }
        // The cell's clusters on the threads (Parallelism.threadCount) when there are enough circles (`PointBufferUnion.union(clusters:…)`):
        // the same polygon as one thread gives.
        let circle = UnitCircle(segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: radius)
        let (polygon, method) = try PointBufferUnion.union(
            clusters: problem.clusters()[...], of: problem, parameters: parameters, in: spatialReference)
        let parts = polygon.parts.map(GEOSContext.oriented)
        let rings = TileRings(parts)
        share.circleParts = try rings.parts(holding: queried.map { Coordinate(x: x[$0], y: y[$0]) })
        rings.split(by: tile, into: &share, parts: parts)
        if case .geosFallback(let reason) = method {
            // GEOS computed some crossings its own way: the ends of chains, which other cells must match bit for
            // bit, are recomputed as CircleUnion computes them (other vertices need not match anything).
            share.geosFallbackReason = reason
            let grid = CircleGrid(x: problem.cx, y: problem.cy, radius: problem.r)
            for c in share.chains.indices {
                share.chains[c][0] = problem.canonicalVertex(share.chains[c][0], grid: grid)
                let last = share.chains[c].count - 1
                share.chains[c][last] = problem.canonicalVertex(share.chains[c][last], grid: grid)
            }
        }
        return share
    }
}

/// The rings of a cell's union, with the part of each, for `unionTileShare`.
struct TileRings {
    /// Every ring, closed, as `UnionRing`s (`polygon` holds the part index).
    let rings: [UnionRing]
    /// Whether ring k is a part's shell.
    let isShell: [Bool]

    init(_ parts: [Polygon.Part]) {
        var rings: [UnionRing] = []
        var isShell: [Bool] = []
        for (p, part) in parts.enumerated() {
            for (k, ring) in part.rings.enumerated() {
                let closed = Polygon.closed(ring)
                rings.append(UnionRing(vertices: closed, doubleArea: CircleUnion.doubleArea(closed), polygon: p))
                isShell.append(k == 0)
            }
        }
        self.rings = rings
        self.isShell = isShell
    }

    /// The part holding each point (points strictly inside the union, such as circle centres): the part of the first
    /// ring a vertical ray upward from the point meets, which bounds the component of the union the point is in.
    func parts(holding points: [Coordinate]) throws(EngineError) -> [Int] {
        guard !points.isEmpty else { return [] }
        let none = [Int](repeating: -1, count: points.count)
        let index = RingEdgeIndex(rings, only: CircleUnion.ringsAroundPoints(rings, points, excluding: none))
        var result: [Int] = []
        result.reserveCapacity(points.count)
        for p in points {
            guard let ring = index.firstRingAbove(p.x, p.y, excluding: -1) else {
                throw .invalidGeometry(reason: "a circle centre outside the union of its cell (\(p.x), \(p.y))")
            }
            result.append(rings[ring].polygon)
        }
        return result
    }

    /// Sorts the rings by what `tile` owns of them into `share`: parts whose shell it owns entirely, holes owned
    /// entirely of other parts, and chains of owned edges.
    func split(by tile: UnionTile, into share: inout UnionTileShare, parts: [Polygon.Part]) {
        var complete = [Bool](repeating: false, count: rings.count)
        var finalPart = [Bool](repeating: false, count: parts.count)
        for (k, ring) in rings.enumerated() {
            let open = ring.vertices.dropLast()
            complete[k] = open.allSatisfy(tile.owns)
            if complete[k] && isShell[k] { finalPart[ring.polygon] = true }
        }
        for (p, part) in parts.enumerated() where finalPart[p] { share.parts.append(part) }
        for (k, ring) in rings.enumerated() where !finalPart[ring.polygon] {
            if complete[k] {
                share.holes.append(ring.vertices)
                share.holeParts.append(ring.polygon)
                continue
            }
            for chain in Self.chains(of: ring.vertices, ownedBy: tile) {
                share.chains.append(chain)
                share.chainParts.append(ring.polygon)
            }
        }
    }

    /// The maximal runs of owned edges of a closed ring that the tile owns in part: each from an owned vertex whose
    /// predecessor is not owned, through the following owned vertices, to the first vertex not owned (included).
    static func chains(of closed: [Coordinate], ownedBy tile: UnionTile) -> [[Coordinate]] {
        let n = closed.count - 1  // distinct vertices
        guard n > 0 else { return [] }
        let owned = closed.prefix(n).map(tile.owns)
        var result: [[Coordinate]] = []
        for start in 0..<n where owned[start] && !owned[(start + n - 1) % n] {
            var chain = [closed[start]]
            var k = (start + 1) % n
            while owned[k] {
                chain.append(closed[k])
                k = (k + 1) % n
            }
            chain.append(closed[k])
            result.append(chain)
        }
        return result
    }
}

extension CircleUnion {
    /// A vertex of a union computed by GEOS, as `CircleUnion` computes it: a vertex of one circle's polygon is kept;
    /// a point where exactly two circles' edges cross is recomputed by `cross` (from the same operands in the same
    /// order in any subset of the circles); anything else (three circles through one point, a crossing too close to
    /// call) is kept as GEOS gave it.
    func canonicalVertex(_ v: Coordinate, grid: CircleGrid) -> Coordinate {
        var found: [(circle: Int, edge: Int)] = []
        let (ix, iy) = grid.cell(v.x, v.y)
        var original = false
        for ring in 0...grid.reach(for: 0) {
            grid.forEachInRing(ix, iy, ring) { i in
                guard !original, let edge = self.edge(of: i, through: v, original: &original) else { return }
                found.append((i, edge))
            }
        }
        guard !original, found.count == 2,
              let c = try? cross(found[0].circle, found[0].edge, found[1].circle, found[1].edge)
        else { return v }
        return Coordinate(x: c.x, y: c.y)
    }

    /// The edge of circle i's polygon that passes within rounding of `v` (`original` set when `v` is one of its
    /// vertices), or nil.
    private func edge(of i: Int, through v: Coordinate, original: inout Bool) -> Int? {
        let dx = v.x - cx[i], dy = v.y - cy[i]
        let d = (dx * dx + dy * dy).squareRoot()
        let tolerance = 1e-9 * r[i]
        guard d <= r[i] + tolerance, d >= innerRadius(i) - tolerance else { return nil }
        var angle = atan2(dy, dx)
        if angle < 0 { angle += 2 * Double.pi }
        let n = circle.count
        let k = Int((angle / circle.step).rounded(.down))
        for e in [k - 1, k, k + 1] {
            let e = ((e % n) + n) % n
            let (ax, ay) = vertex(i, e), (bx, by) = vertex(i, e + 1)
            if (ax == v.x && ay == v.y) || (bx == v.x && by == v.y) {
                original = true
                return nil
            }
            let ex = bx - ax, ey = by - ay
            let length = (ex * ex + ey * ey).squareRoot()
            let t = ((v.x - ax) * ex + (v.y - ay) * ey) / (length * length)
            let off = abs((v.x - ax) * ey - (v.y - ay) * ex) / length
            if t > 0, t < 1, off <= tolerance { return e }
        }
        return nil
    }
}
