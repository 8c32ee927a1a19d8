import MeridianCore

/// A spatial index over geometries in one projected (or unspecified, planar) spatial reference: an R-tree of their
/// envelopes, bulk-loaded once with Sort-Tile-Recursive packing and never changed, like GEOS's and shapely's
/// `STRtree`. Build it once over the features you search many times (the "near features"), then ask which of them
/// meet an envelope, which lie within a distance of a geometry, or which are nearest to it. When every feature is a
/// point, a search within a distance of a point reads a uniform grid of the points instead of the tree (made once
/// enough searches have asked for that distance's scale, and kept): the same answer, a few times fewer operations.
///
/// Distances are planar, in the spatial reference's unit, measured between the geometries themselves (GEOS's
/// distance; two points: √(Δx² + Δy²), as GEOS computes it), never between envelopes or buffer polygons; z is
/// ignored. A distance test is inclusive: a feature exactly `distance` away is within it. Answers list features by
/// their position in the array the index was built from.
///
/// A value type, immutable once built, safe to share between threads. Polygons are checked for validity when a
/// query first measures a distance to them (`EngineError.invalidGeometry`: the distance to a self-intersecting
/// polygon's interior is not well defined).
public struct SpatialIndex: Sendable {
    /// The spatial reference of the indexed geometries (`.unspecified` for an empty index, which matches any).
    public let spatialReference: SpatialReference
    /// The indexed geometries, in the order given.
    public let geometries: [Geometry]
    let tree: PackedRTree
    /// x, y of each geometry that is a point (NaN, NaN for the others): the point-to-point distances of a search
    /// read these flat doubles instead of copying each `Geometry` (and its spatial reference) out of the array.
    let pointXY: [Double]
    /// Grids over the points when every geometry is a point (nil otherwise): searches within a distance of a point
    /// read them instead of the tree.
    let pointGrids: PointGrids?

    /// How many geometries the index holds.
    public var count: Int { geometries.count }

    /// Indexes geometries (points, multipoints, polylines, polygons, envelopes) by their envelopes.
    /// - Parameter geometries: Geometries in one projected or unspecified spatial reference; may be empty.
    /// - Throws: `.geographicCoordinatesRefused` for degree coordinates (use ``GeodeticSpatialIndex``),
    ///   `.spatialReferenceMismatch`, `.badGeometry` for a geometry without vertices or with a non-finite
    ///   coordinate (named by its position: "near feature 3"), `.limitExceeded` beyond 2³¹ − 2 geometries.
    public init(_ geometries: [some GeometryConvertible]) throws(EngineError) {
        let gs = geometries.map { $0.geometry }
        let sr = gs.first?.spatialReference ?? .unspecified
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar spatial index") }
        guard gs.count < Int(Int32.max) else {
            throw .limitExceeded("a spatial index holds at most \(Int32.max - 1) geometries, got \(gs.count)")
        }
        var boxes: [Double] = []
        boxes.reserveCapacity(4 * gs.count)
        var pointXY: [Double] = []
        pointXY.reserveCapacity(2 * gs.count)
        for (i, g) in gs.enumerated() {
            try GeometryEngine.requireSameSpatialReference(sr, g.spatialReference)
            // Four and two appends, not arrays of them: an array literal per geometry cost 570 instructions each.
            if case .point(let p) = g, p.x.isFinite, p.y.isFinite {
                boxes.append(p.x)
                boxes.append(p.y)
                boxes.append(p.x)
                boxes.append(p.y)
                pointXY.append(p.x)
                pointXY.append(p.y)
                continue
            }
            try GeometryEngine.checkProximityGeometry(g, at: EngineError.Location(.nearFeatures, geometry: i))
            let e = g.extent!
            boxes.append(e.xMin)
            boxes.append(e.yMin)
            boxes.append(e.xMax)
            boxes.append(e.yMax)
            pointXY.append(.nan)
            pointXY.append(.nan)
        }
        spatialReference = sr
        self.geometries = gs
        self.pointXY = pointXY
        pointGrids = pointXY.contains(where: { $0.isNaN }) ? nil : PointGrids(points: pointXY, dimensions: 2)
        tree = PackedRTree(dimensions: 2, boxes: boxes)
    }

    /// A bound on squared distances beyond which a distance is surely more than `distance`: a point whose computed
    /// Δx² + Δy² exceeds it has √ rounded above `distance`, so it is left out without the square root; the rest are
    /// decided by the rounded √ itself. distance² rounded, widened by 2⁻⁴⁰ (the roundings of the square and of √
    /// are within 2⁻⁵² each); infinity — no shortcut — where distance² leaves the normal range.
    @inline(__always)
    static func squaredReach(_ distance: Double) -> Double {
        let squared = distance * distance
        guard squared >= 0x1p-1000, squared.isFinite else { return .infinity }
        return squared * (1 + 0x1p-40)
    }

    /// The geometries whose envelopes meet an envelope (touching counts), in ascending index order — candidates,
    /// as GEOS's `STRtree` query returns: a geometry's envelope may meet the envelope while the geometry does not.
    /// - Parameter envelope: An envelope in the index's spatial reference.
    /// - Returns: Indices into ``geometries``, ascending.
    /// - Throws: `.spatialReferenceMismatch`, `.badGeometry` for a non-finite or inverted envelope.
    public func query(intersecting envelope: Envelope) throws(EngineError) -> [Int] {
        try requireOwnSpatialReference(envelope.spatialReference)
        let box = [envelope.xMin, envelope.yMin, envelope.xMax, envelope.yMax]
        guard box.allSatisfy({ $0.isFinite }), envelope.xMin <= envelope.xMax, envelope.yMin <= envelope.yMax else {
            throw .badGeometry(.malformed("the query envelope \(envelope) is not finite with minima ≤ maxima"))
        }
        var found: [Int] = []
        try tree.search(box) { i throws(EngineError) in
            found.append(i)
            return true
        }
        return found.sorted()
    }

    /// The geometries whose envelopes lie within `distance` of the geometry's envelope: a superset of those within
    /// `distance` of the geometry (what ``query(withinDistance:of:)`` then measures exactly).
    /// - Parameters:
    ///   - distance: The search distance in the spatial reference's unit, finite and ≥ 0.
    ///   - geometry: The query geometry, in the index's spatial reference.
    /// - Returns: Indices into ``geometries``, ascending.
    /// - Throws: `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry` for an empty or non-finite geometry.
    public func candidates(withinDistance distance: Double, of geometry: some GeometryConvertible)
        throws(EngineError) -> [Int]
    {
        let g = try checkedQuery(geometry.geometry)
        _ = try GeometryEngine.proximityDistances([distance], count: 1)
        var found: [Int] = []
        try tree.search(Self.searchBox(g.extent!, distance)) { i throws(EngineError) in
            found.append(i)
            return true
        }
        return found.sorted()
    }

    /// The geometries within `distance` of a geometry (planar distance ≤ `distance`, boundary inclusive), with their
    /// distances — shapely's `STRtree.query(geometry, predicate="dwithin", distance=…)`, PostGIS's `ST_DWithin`.
    /// - Parameters:
    ///   - distance: The search distance in the spatial reference's unit, finite and ≥ 0 (0: the geometries
    ///     meeting the query geometry).
    ///   - geometry: The query geometry, in the index's spatial reference.
    /// - Returns: The features found, nearest first (equal distances by index).
    /// - Throws: `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`, `.invalidGeometry` for an invalid
    ///   polygon, `.geos`.
    public func query(withinDistance distance: Double, of geometry: some GeometryConvertible)
        throws(EngineError) -> [NearFeature]
    {
        let g = try checkedQuery(geometry.geometry)
        _ = try GeometryEngine.proximityDistances([distance], count: 1)
        let measure = try PlanarDistances(self)
        return try within(distance, of: g, measure.query(g), measure)
    }

    /// The `k` geometries nearest to a geometry, optionally no farther than `maxDistance` — shapely's
    /// `STRtree.query_nearest`, GEOS's `STRtree_nearest`, ArcGIS Pro's Near with a search radius.
    ///
    /// Ties are broken by index: of several features equally far, the lower indices come first, and when the
    /// `k`-th place is tied only the lowest indices are kept (exactly `k` results whenever `k` features are in
    /// reach).
    /// - Parameters:
    ///   - geometry: The query geometry, in the index's spatial reference.
    ///   - k: How many features to return, ≥ 1.
    ///   - maxDistance: The largest distance to look at (inclusive), in the spatial reference's unit; `nil` for no
    ///     limit.
    /// - Returns: Up to `k` features, nearest first (fewer when the index holds fewer within `maxDistance`).
    /// - Throws: `.invalidArgument` for `k` < 1, `.invalidDistance` for a negative or non-finite `maxDistance`,
    ///   `.spatialReferenceMismatch`, `.badGeometry`, `.invalidGeometry`, `.geos`.
    public func nearest(to geometry: some GeometryConvertible, k: Int = 1, maxDistance: Double? = nil)
        throws(EngineError) -> [NearFeature]
    {
        let g = try checkedQuery(geometry.geometry)
        try GeometryEngine.checkNearest(k: k, maxDistance: maxDistance)
        let measure = try PlanarDistances(self)
        return try nearest(to: g, measure.query(g), measure, k: k, maxDistance: maxDistance ?? .infinity)
    }

    // MARK: Shared with GeometryEngine's near tables

    /// The features within `distance` of `g` (already checked), measured by `measure`; nearest first, then by index.
    func within(_ distance: Double, of g: Geometry, _ q: PlanarDistances.Query, _ measure: PlanarDistances)
        throws(EngineError) -> [NearFeature]
    {
        var scratch = SearchScratch()
        try within(distance, of: g, q, measure, scratch: &scratch)
        return scratch.found
    }

    /// Buffers of a run of searches, kept between queries so that a query makes no array of its own.
    struct SearchScratch {
        /// The tree search's stack.
        var stack: [Int] = []
        /// The items whose boxes meet the search box.
        var candidates: [Int32] = []
        /// The answer of the last query.
        var found: [NearFeature] = []
        /// Which point grid the run's searches from points read.
        var grids = PointGridChoice()

        /// Puts in `found` the points of the chosen grid (`grids`) in the box `lower` … `upper` that `measure`
        /// keeps — given a point's slot, the grid's coordinates and the point's index, its distance, or nil to leave
        /// it out — nearest first, then by index.
        @inline(__always)
        mutating func searchGrid(lower: (x: Double, y: Double, z: Double), upper: (x: Double, y: Double, z: Double),
                                 _ measure: (Int, UnsafeBufferPointer<Double>, Int) -> Double?) {
            found.removeAllKeepingCapacity()
            var found = self.found  // (the grid is read while the answer grows)
            self.found = []
            grids.grid?.forEachRun(lower: lower, upper: upper) { slots, coordinates, items in
                for slot in slots {
                    if let d = measure(slot, coordinates, Int(items[slot])) {
                        found.append(NearFeature(index: Int(items[slot]), distance: d))
                    }
                }
            }
            if found.count > 1 { found.sort { ($0.distance, $0.index) < ($1.distance, $1.index) } }
            self.found = found
        }
    }

    /// Puts in `scratch.found` the features within `distance` of `g` (already checked), measured by `measure`;
    /// nearest first, then by index.
    func within(_ distance: Double, of g: Geometry, _ q: PlanarDistances.Query, _ measure: PlanarDistances,
                scratch: inout SearchScratch) throws(EngineError)
    {
        // A point's envelope is the point itself: no coordinate array for it.
        var e = (xMin: 0.0, yMin: 0.0, xMax: 0.0, yMax: 0.0)
        if case .point(let c) = q {
            e = (c.x, c.y, c.x, c.y)
        } else if let extent = g.extent {
            e = (extent.xMin, extent.yMin, extent.xMax, extent.yMax)
        }
        try within(distance, of: q, bounds: e, measure, scratch: &scratch)
    }

    /// `within(_:of:_:_:scratch:)` given the query's envelope (`bounds`; a point's is the point) instead of the
    /// geometry, so that a loop over points copies none of them.
    func within(_ distance: Double, of q: PlanarDistances.Query,
                bounds e: (xMin: Double, yMin: Double, xMax: Double, yMax: Double), _ measure: PlanarDistances,
                scratch: inout SearchScratch) throws(EngineError)
    {
        let box = Self.searchBox(e.xMin, e.yMin, e.xMax, e.yMax, distance)
        if case .point(let c) = q, scratch.grids.use(reach: distance, of: pointGrids) {
            // The distance of two points as `PlanarDistances` measures it; a point whose squared distance is beyond
            // `SpatialIndex.squaredReach` is left out without its square root (most of the grid's cells lie outside
            // the circle).
            let reach = Self.squaredReach(distance)
            scratch.searchGrid(lower: (box.minX, box.minY, 0), upper: (box.maxX, box.maxY, 0)) { slot, xy, _ in
                let dx = c.x - xy[2 * slot], dy = c.y - xy[2 * slot + 1]
                let squared = dx * dx + dy * dy
                guard squared <= reach else { return nil }
                let d = squared.squareRoot()
                return d <= distance ? d : nil
            }
            return
        }
        scratch.candidates.removeAllKeepingCapacity()
        tree.search2D(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY, stack: &scratch.stack,
                      into: &scratch.candidates)
        scratch.found.removeAllKeepingCapacity()
        for i in scratch.candidates {
            let d = try measure.distance(q, Int(i))
            if d <= distance { scratch.found.append(NearFeature(index: Int(i), distance: d)) }
        }
        if scratch.found.count > 1 { scratch.found.sort { ($0.distance, $0.index) < ($1.distance, $1.index) } }
    }

    /// The `k` features nearest to `g` (already checked) within `maxDistance`; nearest first, then by index.
    func nearest(to g: Geometry, _ q: PlanarDistances.Query, _ measure: PlanarDistances, k: Int, maxDistance: Double)
        throws(EngineError) -> [NearFeature]
    {
        var scratch = SearchScratch()
        return try nearest(to: g, q, measure, k: k, maxDistance: maxDistance, scratch: &scratch)
    }

    /// `nearest(to:_:_:k:maxDistance:)` with buffers kept between queries: from a point, in an index of points, it
    /// reads a grid of the points (`PointGrid.nearest`), once enough searches have asked for one.
    func nearest(to g: Geometry, _ q: PlanarDistances.Query, _ measure: PlanarDistances, k: Int, maxDistance: Double,
                 scratch: inout SearchScratch) throws(EngineError) -> [NearFeature]
    {
        if case .point(let c) = q, let reach = pointGrids?.nearestReach, scratch.grids.use(reach: reach, of: pointGrids),
           let grid = scratch.grids.grid {
            let magnitude = max(abs(c.x), abs(c.y), abs(grid.origin.x), abs(grid.origin.y))
                + Double(max(grid.columns, grid.rows)) * grid.cell
            grid.nearest(x: c.x, y: c.y, k: k, maxDistance: maxDistance, slack: magnitude * 1e-12, into: &scratch.found)
            return scratch.found
        }
        let e = g.extent!
        // A box's distance from the query envelope bounds every distance to a geometry inside it from below; it is
        // lowered by a few units in the last place of the coordinates so that rounding cannot lift it above an
        // exact distance (which would end the search before an equally near feature).
        let slack = Self.magnitude(e) * 1e-12
        let found = try tree.nearest(k: k, maxDistance: maxDistance, lowerBound: { b in
            let dx = max(0, b[b.startIndex] - e.xMax, e.xMin - b[b.startIndex + 2])
            let dy = max(0, b[b.startIndex + 1] - e.yMax, e.yMin - b[b.startIndex + 3])
            return max(0, (dx * dx + dy * dy).squareRoot() - slack)
        }, exact: { i throws(EngineError) in try measure.distance(q, i) })
        return found.map { NearFeature(index: $0.index, distance: $0.distance) }
    }

    /// A query geometry checked against the index: same spatial reference, vertices, finite coordinates.
    func checkedQuery(_ g: Geometry) throws(EngineError) -> Geometry {
        try requireOwnSpatialReference(g.spatialReference)
        guard !g.spatialReference.isGeographic else {
            throw .geographicCoordinatesRefused(operation: "a planar proximity search")
        }
        try GeometryEngine.checkProximityGeometry(g, at: nil)
        return g
    }

    /// Refuses a spatial reference other than the index's (an empty index takes any).
    func requireOwnSpatialReference(_ sr: SpatialReference) throws(EngineError) {
        if count > 0 { try GeometryEngine.requireSameSpatialReference(spatialReference, sr) }
    }

    /// `requireOwnSpatialReference(_:)` of a geometry, compared in place.
    func requireOwnSpatialReference(of g: Geometry) throws(EngineError) {
        if count > 0 { try GeometryEngine.requireSameSpatialReference(spatialReference, of: g) }
    }

    /// The search box of envelope `e` widened by `distance` (minima then maxima). It is widened further by 10⁻¹²
    /// of the coordinates' magnitude: without that, `x + distance` rounded down could fall short of a feature whose
    /// computed distance rounds to exactly `distance` (rounding of √(Δx² + Δy²) is a few units in the last place;
    /// the pad is thousands), and the inclusive test would never see it.
    static func searchBox(_ e: Envelope, _ distance: Double) -> [Double] {
        let b = searchBox(e.xMin, e.yMin, e.xMax, e.yMax, distance)
        return [b.minX, b.minY, b.maxX, b.maxY]
    }

    /// `searchBox(_:_:)` of the envelope `xMin`, `yMin`, `xMax`, `yMax`, without an array.
    @inline(__always)
    static func searchBox(_ xMin: Double, _ yMin: Double, _ xMax: Double, _ yMax: Double, _ distance: Double)
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)
    {
        let magnitude = max(abs(xMin), abs(xMax), abs(yMin), abs(yMax))
        let reach = distance + (magnitude + distance) * 1e-12
        return (xMin - reach, yMin - reach, xMax + reach, yMax + reach)
    }

    /// The largest absolute coordinate of an envelope.
    static func magnitude(_ e: Envelope) -> Double {
        max(abs(e.xMin), abs(e.xMax), abs(e.yMin), abs(e.yMax))
    }
}

/// Exact planar distances between query geometries and an index's geometries through GEOS: one context per call,
/// each indexed geometry made and prepared on first use (and checked for validity then). Two points are measured
/// directly, √(Δx² + Δy²), GEOS's own formula, without a GEOS geometry.
final class PlanarDistances {
    /// A query geometry made ready for many distances: a point as its coordinate, anything else prepared by GEOS.
    enum Query {
        case point(Coordinate)
        case geometry(GEOSPreparedGeometry)
    }

    private let context: GEOSContext
    private let geometries: [Geometry]
    private let pointXY: [Double]
    private var prepared: [Int: GEOSPreparedGeometry] = [:]

    init(_ index: SpatialIndex) throws(EngineError) {
        context = try GEOSContext()
        geometries = index.geometries
        pointXY = index.pointXY
    }

    /// The query form of `g` (a valid polygon, or `.invalidGeometry`).
    func query(_ g: Geometry) throws(EngineError) -> Query {
        if case .point(let p) = g { return .point(p.coordinate) }
        return .geometry(try prepare(g))
    }

    /// The planar distance from the query to indexed geometry `item`.
    func distance(_ q: Query, _ item: Int) throws(EngineError) -> Double {
        let (bx, by) = (pointXY[2 * item], pointXY[2 * item + 1])
        if case .point(let a) = q, !bx.isNaN {
            let dx = a.x - bx, dy = a.y - by
            return (dx * dx + dy * dy).squareRoot()
        }
        switch (q, geometries[item]) {
        case (.point(let a), .point(let b)):
            let dx = a.x - b.x, dy = a.y - b.y
            return (dx * dx + dy * dy).squareRoot()
        case (.point(let a), _):
            return try preparedItem(item).distance(to: a, "distance")
        case (.geometry(let p), .point(let b)):
            return try p.distance(to: b.coordinate, "distance")
        case (.geometry(let p), _):
            return try p.distance(to: preparedItem(item).geometry, "distance")
        }
    }

    private func preparedItem(_ item: Int) throws(EngineError) -> GEOSPreparedGeometry {
        if let p = prepared[item] { return p }
        let p = try prepare(geometries[item])
        prepared[item] = p
        return p
    }

    private func prepare(_ g: Geometry) throws(EngineError) -> GEOSPreparedGeometry {
        let ref = try context.make(g)
        try context.requireValid(ref, g)
        return try GEOSPreparedGeometry(ref, "prepare")
    }
}
