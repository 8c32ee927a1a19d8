import Foundation
import MeridianCore

/// A spatial index over geometries on the ellipsoid, for geodesic proximity: which geometries lie within a geodesic
/// distance of a geometry, which are nearest. Every answer is decided by geodesic distances between the geometries
/// themselves — Karney's inverse problem (PROJ's `geod_inverse`) between points (or, when it decides the pair, the
/// chord formula for points less than a/64 apart, within 1 µm of Karney's), its minimum over a segment between
/// a point and an edge, 0 inside a polygon (see `GeometryEngine.geodeticNearPairs(from:to:distances:distanceUnit:)`
/// for the rules and their accuracy); the index only narrows down which pairs to measure, and it never drops a pair
/// that is within the distance, across the antimeridian and around the poles alike.
///
/// How it filters: a point is indexed by the unit normal of the ellipsoid at it (x toward 0°E on the equator, z
/// toward the north pole — the unit vector of its geodetic latitude and longitude, with no seam at ±180° and no
/// singularity at the poles), a line or polygon by a box of normals holding every point of it, its interior
/// included, in a 3-D R-tree bulk-loaded with Sort-Tile-Recursive packing (and, when every geometry is a point, a
/// uniform 3-D grid of the normals that searches from a point read instead: the same candidates in the search box,
/// fewer operations). A point within `s` meters of another has
/// its normal within chord `s · κ` of the other's, where κ is the ellipsoid's largest curvature (see
/// `chordBound(meters:curvature:)` for the proof), so the box of a query geometry widened by that chord on every
/// side meets the box of every answer.
///
/// Distances are meters on the ellipsoid of the geometries' spatial reference (its geographic base for a projected
/// one) unless a query gives another unit; a distance test is inclusive. A value type, immutable once built, safe
/// to share between threads.
public struct GeodeticSpatialIndex: Sendable {
    /// The spatial reference of the indexed geometries (`.unspecified` for an empty index, which matches any).
    public let spatialReference: SpatialReference
    /// Each geometry on the ellipsoid's own datum: a point, or the shape of anything else.
    let features: [GeodeticFeature]
    /// The unit normal of each point, x, y, z in turn (NaN for the other geometries).
    let normals: [Double]
    let geodesic: Geodesic
    /// The ellipsoid's largest curvature, 1/m.
    let curvature: Double
    let tree: PackedRTree
    /// Grids over the normals when every geometry is a point (nil otherwise): searches within a distance of a point
    /// read them instead of the tree.
    let pointGrids: PointGrids?
    /// The short-line formula that decides most point pairs of a search within a distance (nil for an ellipsoid
    /// it has not been measured on).
    let shortLines: ShortGeodesic?

    /// How many geometries the index holds.
    public var count: Int { features.count }

    /// Indexes geometries (points, multipoints, polylines, polygons, envelopes) for geodesic searches.
    /// - Parameter points: Geometries in one geographic or projected spatial reference; may be empty.
    /// - Throws: `.spatialReferenceMismatch`, `.spatialReferenceRequired` for unspecified coordinates, `.badGeometry`
    ///   for a geometry without vertices, a non-finite coordinate or a latitude beyond ±90° (named by its position:
    ///   "near feature 3"), `.projectionFailed`, `.limitExceeded` beyond 2³¹ − 2 geometries.
    public init(_ points: [some GeometryConvertible]) throws(EngineError) {
        let gs = points.map { $0.geometry }
        guard gs.count < Int(Int32.max) else {
            throw .limitExceeded("a spatial index holds at most \(Int32.max - 1) geometries, got \(gs.count)")
        }
        guard let sr = gs.first?.spatialReference else {
            spatialReference = .unspecified
            features = []
            normals = []
            geodesic = Geodesic(.wgs84)
            curvature = Self.largestCurvature(of: .wgs84)
            tree = PackedRTree(dimensions: 3, boxes: [])
            pointGrids = nil
            shortLines = ShortGeodesic(.wgs84)
            return
        }
        let frame = try GeodeticFrame(input: sr, output: nil)
        let kappa = Self.largestCurvature(of: frame.geodesic.ellipsoid)
        let features = try Self.computeFeatures(gs, in: frame, curvature: kappa, list: .nearFeatures)
        var normals: [Double] = []
        normals.reserveCapacity(3 * features.count)
        var boxes: [Double] = []
        boxes.reserveCapacity(6 * features.count)
        for f in features {
            if case .point(let c) = f {
                let n = UnitVector(c)
                normals.append(contentsOf: [n.x, n.y, n.z])
            } else {
                normals.append(contentsOf: [.nan, .nan, .nan])
            }
            boxes.append(contentsOf: f.box)
        }
        spatialReference = sr
        self.features = features
        self.normals = normals
        geodesic = frame.geodesic
        curvature = kappa
        tree = PackedRTree(dimensions: 3, boxes: boxes)
        pointGrids = normals.contains(where: { $0.isNaN }) ? nil : PointGrids(points: normals, dimensions: 3)
        shortLines = ShortGeodesic(frame.geodesic.ellipsoid)
    }

    /// The geometries whose boxes of normals meet the filter's box around the query geometry for `distance`: a
    /// superset of the geometries within `distance` (what ``query(withinDistance:of:distanceUnit:)`` then decides
    /// by measuring).
    /// - Parameters:
    ///   - distance: The geodesic search distance in `distanceUnit`, finite and ≥ 0.
    ///   - geometry: The query geometry (a point, line or polygon), in the index's spatial reference.
    ///   - distanceUnit: The unit of `distance` (default meters).
    /// - Returns: Indices of the geometries, ascending.
    /// - Throws: `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`, `.projectionFailed`.
    public func candidates(withinDistance distance: Double, of geometry: some GeometryConvertible,
                           distanceUnit: LinearUnit = .meters) throws(EngineError) -> [Int]
    {
        _ = try GeometryEngine.proximityDistances([distance], count: 1)
        guard count > 0 else { return [] }
        let q = try queryFeatures([geometry.geometry], list: nil)[0]
        var found: [Int] = []
        forEachCandidate(q, meters: distanceUnit.convert(distance, to: .meters)) { found.append($0) }
        return found.sorted()
    }

    /// The geometries within a geodesic distance of a geometry (geodesic distance between the two ≤ `distance`,
    /// boundary inclusive), with their distances — PostGIS's `ST_DWithin` on geography, ArcGIS Pro's
    /// `WITHIN_A_DISTANCE_GEODESIC`.
    /// - Parameters:
    ///   - distance: The geodesic search distance in `distanceUnit`, finite and ≥ 0.
    ///   - geometry: The query geometry (a point, line or polygon), in the index's spatial reference.
    ///   - distanceUnit: The unit of `distance` and of the distances returned (default meters).
    /// - Returns: The geometries found, nearest first (equal distances by index).
    /// - Throws: `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`, `.projectionFailed`.
    public func query(withinDistance distance: Double, of geometry: some GeometryConvertible,
                      distanceUnit: LinearUnit = .meters) throws(EngineError) -> [NearFeature]
    {
        _ = try GeometryEngine.proximityDistances([distance], count: 1)
        guard count > 0 else { return [] }
        let q = try queryFeatures([geometry.geometry], list: nil)[0]
        return within(distanceUnit.convert(distance, to: .meters), of: q).map {
            NearFeature(index: $0.index, distance: LinearUnit.meters.convert($0.distance, to: distanceUnit))
        }
    }

    /// The `k` geometries geodesically nearest to a geometry, optionally no farther than `maxDistance` (ties broken
    /// by index, as ``SpatialIndex/nearest(to:k:maxDistance:)``).
    /// - Parameters:
    ///   - geometry: The query geometry (a point, line or polygon), in the index's spatial reference.
    ///   - k: How many geometries to return, ≥ 1.
    ///   - maxDistance: The largest geodesic distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the distances returned (default meters).
    /// - Returns: Up to `k` geometries, nearest first.
    /// - Throws: `.invalidArgument` for `k` < 1, `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`,
    ///   `.projectionFailed`.
    public func nearest(to geometry: some GeometryConvertible, k: Int = 1, maxDistance: Double? = nil,
                        distanceUnit: LinearUnit = .meters) throws(EngineError) -> [NearFeature]
    {
        try GeometryEngine.checkNearest(k: k, maxDistance: maxDistance)
        guard count > 0 else { return [] }
        let q = try queryFeatures([geometry.geometry], list: nil)[0]
        let limit = maxDistance.map { distanceUnit.convert($0, to: .meters) } ?? .infinity
        return nearest(to: q, k: k, maxMeters: limit).map {
            NearFeature(index: $0.index, distance: LinearUnit.meters.convert($0.distance, to: distanceUnit))
        }
    }

    // MARK: The filter

    /// The ellipsoid's largest curvature 1/R, R the smallest radius of curvature anywhere on it: the meridional
    /// radius M(φ) = a(1 − e²)/(1 − e² sin²φ)^{3/2} and the prime-vertical radius N(φ) = a/(1 − e² sin²φ)^{1/2}
    /// take their extremes at the equator and the poles, so R = min(a(1 − e²), a, a/√(1 − e²)) — b²/a for the
    /// Earth's oblate ellipsoids (6 335 439 m for WGS 84), a for a sphere.
    static func largestCurvature(of e: Ellipsoid) -> Double {
        let a = e.semiMajorAxis, e2 = e.flattening * (2 - e.flattening)
        return 1 / min(a * (1 - e2), a, a / (1 - e2).squareRoot())
    }

    /// The largest chord between the unit normals of two points at most `meters` apart on an ellipsoid of
    /// largest curvature `curvature`, padded for rounding.
    ///
    /// Proof that it is conservative: let γ be the shortest geodesic between the points, of length s, and n(t) the
    /// unit normal along it at arc length t. By the Weingarten equation dn/dt = −S(γ′), S the shape operator, whose
    /// norm is the largest principal curvature at that point, at most κ = `curvature` everywhere; so the curve n(t)
    /// on the unit sphere has length at most κ·s. The great-circle angle between its ends is at most that length,
    /// and their chord, 2 sin(angle/2), at most the angle: chord ≤ κ·s, and never more than 2. Nothing depends on
    /// longitude or latitude, so ±180° and the poles need no special case. The pad (10⁻¹² relative and absolute, a
    /// few micrometres on the Earth) covers rounding of the unit vectors (≈ 10⁻¹⁶).
    static func chordBound(meters: Double, curvature: Double) -> Double {
        min(2, meters * curvature) * (1 + 1e-12) + 1e-12
    }

    /// Calls `body` with every geometry whose box of normals meets the query's box widened by the chord bound for
    /// `meters` (each once); for two points, the chord between their normals is tested as well.
    func forEachCandidate(_ q: GeodeticFeature, meters: Double, _ body: (Int) -> Void) {
        let r = Self.chordBound(meters: meters, curvature: curvature)
        let b = q.box
        let box = [b[0] - r, b[1] - r, b[2] - r, b[3] + r, b[4] + r, b[5] + r]
        let point: UnitVector? = if case .point(let c) = q { UnitVector(c) } else { nil }
        // The search reports no error (its body throws none); the chord test narrows the cube to the ball.
        try? tree.search(box) { i throws(EngineError) in
            if let n = point, !normals[3 * i].isNaN {
                let dx = normals[3 * i] - n.x, dy = normals[3 * i + 1] - n.y, dz = normals[3 * i + 2] - n.z
                if (dx * dx + dy * dy + dz * dz).squareRoot() <= r { body(i) }
            } else {
                body(i)
            }
            return true
        }
    }

    /// The geodesic distance in meters between query `q` and geometry `i`, when at most `limit` (otherwise some
    /// value above it).
    func distance(_ q: GeodeticFeature, _ i: Int, limit: Double) -> Double {
        GeodeticFeature.distance(q, features[i], geodesic: geodesic, curvature: curvature, limit: limit)
    }

    /// Puts in `scratch.found` the geometries within `meters` of `q` (compute lon/lat), meters, nearest first, then
    /// by index, with buffers kept between queries. Two points are measured by `ShortGeodesic` when it decides the
    /// pair (its distance farther than its `decisionMargin` from `meters`), by Karney's inverse otherwise.
    func within(_ meters: Double, of q: GeodeticFeature, scratch: inout SpatialIndex.SearchScratch) {
        let r = Self.chordBound(meters: meters, curvature: curvature)
        let point: UnitVector? = if case .point(let c) = q { UnitVector(c) } else { nil }
        // A point's box is its normal (no array for it); the box is the one `forEachCandidate` searches.
        var b = (point?.x ?? 0, point?.y ?? 0, point?.z ?? 0, point?.x ?? 0, point?.y ?? 0, point?.z ?? 0)
        if point == nil {
            let box = q.box
            b = (box[0], box[1], box[2], box[3], box[4], box[5])
        }
        // The features are read through a buffer: a search holding the array would retain it, from every thread
        // searching at once, for every query.
        features.withUnsafeBufferPointer { features in
            let search = point.map { n in
                PointSearch(q: q, normal: n, position: shortLines.map { $0.position(normalX: n.x, y: n.y, z: n.z) },
                            reach: r, meters: meters, features: features, geodesic: geodesic, curvature: curvature,
                            shortLines: shortLines)
            }
            if let search, scratch.grids.use(reach: r, of: pointGrids) {
                let n = search.normal
                scratch.searchGrid(lower: (n.x - r, n.y - r, n.z - r), upper: (n.x + r, n.y + r, n.z + r)) {
                    slot, m, i in search.measure(i, x: m[3 * slot], y: m[3 * slot + 1], z: m[3 * slot + 2])
                }
                return
            }
            scratch.candidates.removeAllKeepingCapacity()
            tree.search3D(lower: (b.0 - r, b.1 - r, b.2 - r), upper: (b.3 + r, b.4 + r, b.5 + r),
                          stack: &scratch.stack, into: &scratch.candidates)
            scratch.found.removeAllKeepingCapacity()
            for candidate in scratch.candidates {
                let i = Int(candidate)
                if let search, !normals[3 * i].isNaN {
                    if let s = search.measure(i, x: normals[3 * i], y: normals[3 * i + 1], z: normals[3 * i + 2]) {
                        scratch.found.append(NearFeature(index: i, distance: s))
                    }
                    continue
                }
                let s = distance(q, i, limit: meters)
                if s <= meters { scratch.found.append(NearFeature(index: i, distance: s)) }
            }
            if scratch.found.count > 1 { scratch.found.sort { ($0.distance, $0.index) < ($1.distance, $1.index) } }
        }
    }

    /// A search from a point within a distance, and how it measures an indexed point: the filter's chord test
    /// between their normals, then `ShortGeodesic` when it decides the pair, else Karney's inverse. One for the
    /// grid's search and the tree's.
    private struct PointSearch {
        /// The query point, its unit normal and its Earth-centred position (nil without a short-line formula).
        let q: GeodeticFeature
        let normal: UnitVector
        let position: ShortGeodesic.Position?
        /// The chord bound of `meters` between normals, and the distance searched, meters.
        let reach: Double
        let meters: Double
        /// The index's features, valid for the search.
        let features: UnsafeBufferPointer<GeodeticFeature>
        let geodesic: Geodesic
        let curvature: Double
        let shortLines: ShortGeodesic?

        /// The distance in meters to indexed point `i`, of unit normal (`x`, `y`, `z`), when within `meters`; nil
        /// otherwise.
        @inline(__always)
        func measure(_ i: Int, x: Double, y: Double, z: Double) -> Double? {
            let dx = x - normal.x, dy = y - normal.y, dz = z - normal.z
            guard (dx * dx + dy * dy + dz * dz).squareRoot() <= reach else { return nil }
            if let position, let s = shortLines?.decide(from: position, toNormalX: x, y: y, z: z, limit: meters) {
                return s.isFinite ? s : nil
            }
            let s = GeodeticFeature.distance(q, features[i], geodesic: geodesic, curvature: curvature, limit: meters)
            return s <= meters ? s : nil
        }
    }

    /// The geometries within `meters` of `q` (compute lon/lat), meters, nearest first, then by index.
    func within(_ meters: Double, of q: GeodeticFeature) -> [NearFeature] {
        var scratch = SpatialIndex.SearchScratch()
        within(meters, of: q, scratch: &scratch)
        return scratch.found
    }

    /// The `k` geometries nearest to `q` (compute lon/lat) within `maxMeters`; meters, nearest first, then by
    /// index. A box's lower bound is its 3-D distance from the query's box divided by κ (the chord bound read
    /// backwards: s ≥ chord/κ ≥ distance between the boxes/κ), lowered by the pad.
    func nearest(to q: GeodeticFeature, k: Int, maxMeters: Double) -> [NearFeature] {
        let n = q.box
        let found = try? tree.nearest(k: k, maxDistance: maxMeters, lowerBound: { b in
            let s = b.startIndex
            let dx = max(0, b[s] - n[3], n[0] - b[s + 3])
            let dy = max(0, b[s + 1] - n[4], n[1] - b[s + 4])
            let dz = max(0, b[s + 2] - n[5], n[2] - b[s + 5])
            return max(0, ((dx * dx + dy * dy + dz * dz).squareRoot() - 1e-12) / curvature)
        }, exact: { i throws(EngineError) in distance(q, i, limit: maxMeters) })
        return (found ?? []).map { NearFeature(index: $0.index, distance: $0.distance) }
    }

    // MARK: Coordinates

    /// Query geometries on the ellipsoid, checked against the index's spatial reference.
    func queryFeatures(_ gs: [Geometry], list: EngineError.Location.List?) throws(EngineError) -> [GeodeticFeature] {
        for g in gs { try GeometryEngine.requireSameSpatialReference(spatialReference, g.spatialReference) }
        return try Self.computeFeatures(gs, in: GeodeticFrame(input: spatialReference, output: nil),
                                        curvature: curvature, list: list)
    }

    /// The geometries on their datum's ellipsoid, longitude/latitude (one batch through PROJ for a projected
    /// spatial reference). An error names a geometry by its position in `list`, or as "the query geometry" when
    /// `list` is nil.
    static func computeFeatures(_ gs: [Geometry], in frame: GeodeticFrame, curvature: Double,
                                list: EngineError.Location.List?)
        throws(EngineError) -> [GeodeticFeature]
    {
        let sr = gs.first?.spatialReference ?? frame.outputSR
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(gs.count)
        // The geometries are read in place, a point by its coordinate (no array of one coordinate made for it): a
        // loop over the array would copy each geometry and retain the spatial reference they share.
        try gs.withUnsafeBufferPointer { (all) throws(EngineError) in
            for i in all.indices {
                try GeometryEngine.requireSameSpatialReference(sr, of: all[i])
                if let c = all[i].pointCoordinate, c.x.isFinite, c.y.isFinite {
                    coordinates.append(Coordinate(x: c.x, y: c.y))
                    continue
                }
                try GeometryEngine.checkProximityGeometry(all[i], at: list.map { EngineError.Location($0, geometry: i) })
                coordinates.append(contentsOf: all[i].coordinates.map { Coordinate(x: $0.x, y: $0.y) })
            }
        }
        let converted = try frame.toCompute(coordinates)
        var features: [GeodeticFeature] = []
        features.reserveCapacity(gs.count)
        var next = 0
        try gs.withUnsafeBufferPointer { (all) throws(EngineError) in
            for i in all.indices {
                let isPoint = all[i].pointCoordinate != nil
                let n = isPoint ? 1 : all[i].coordinates.count
                for c in converted[next..<(next + n)] where !(c.x.isFinite && c.y >= -90 && c.y <= 90) {
                    throw GeometryEngine.proximityError(
                        .badGeometry(.malformed("is at latitude \(c.y), longitude \(c.x); latitudes lie in [-90, 90]")),
                        at: list.map { EngineError.Location($0, geometry: i) })
                }
                features.append(isPoint ? .point(converted[next])
                                : GeodeticFeature(all[i], computeCoordinates: Array(converted[next..<(next + n)]),
                                                  geodesic: frame.geodesic, curvature: curvature))
                next += n
            }
        }
        return features
    }
}

/// One geometry on the ellipsoid, in compute longitude/latitude: a point as its coordinate (the commonest case,
/// measured by one inverse problem), anything else as its shape.
enum GeodeticFeature: Sendable {
    case point(Coordinate)
    case shape(GeodeticShape)

    /// A geometry from its coordinates in compute longitude/latitude (`Geometry.coordinates`' order).
    init(_ g: Geometry, computeCoordinates c: [Coordinate], geodesic: Geodesic, curvature: Double) {
        var rest = c[...]
        func take(_ n: Int) -> [Coordinate] {
            defer { rest = rest.dropFirst(n) }
            return Array(rest.prefix(n))
        }
        switch g {
        case .point:
            self = .point(c[0])
            return
        case .multipoint:
            self = .shape(GeodeticShape(points: c, paths: [], rings: [], geodesic: geodesic, curvature: curvature))
        case .polyline(let l):
            let paths = l.parts.map { take($0.count) }
            self = .shape(GeodeticShape(points: [], paths: paths, rings: [], geodesic: geodesic, curvature: curvature))
        case .polygon(let p):
            let rings = p.rings.map { take($0.count) }
            self = .shape(GeodeticShape(points: [], paths: [], rings: rings, geodesic: geodesic, curvature: curvature))
        case .envelope:
            self = .shape(GeodeticShape(points: [], paths: [], rings: [c], geodesic: geodesic, curvature: curvature))
        }
    }

    /// The box of normals holding every point of the geometry (minima then maxima).
    var box: [Double] {
        switch self {
        case .point(let c):
            let n = UnitVector(c)
            return [n.x, n.y, n.z, n.x, n.y, n.z]
        case .shape(let s): return s.box
        }
    }

    /// The geodesic distance in meters between two geometries, when at most `limit` (otherwise some value above it).
    static func distance(_ a: GeodeticFeature, _ b: GeodeticFeature, geodesic: Geodesic, curvature: Double,
                         limit: Double) -> Double {
        switch (a, b) {
        case (.point(let p), .point(let q)): geodesic.distance(p, q)
        case (.point(let p), .shape(let s)), (.shape(let s), .point(let p)):
            s.distance(toPoint: p, geodesic: geodesic, curvature: curvature, limit: limit)
        case (.shape(let s), .shape(let t)): s.distance(to: t, geodesic: geodesic, curvature: curvature, limit: limit)
        }
    }
}
