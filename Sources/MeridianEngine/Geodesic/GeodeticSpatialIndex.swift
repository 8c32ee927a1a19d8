import Foundation
import MeridianCore

/// A spatial index over points on the ellipsoid, for geodesic proximity: which points lie within a geodesic
/// distance of a point, which are nearest. Every answer is decided by Karney's inverse geodesic problem (PROJ's
/// `geod_inverse`, accurate to a few nanometres); the index only narrows down which pairs to solve, and it never
/// drops a pair that is within the distance, across the antimeridian and around the poles alike.
///
/// How it filters: each point is indexed by the unit normal of the ellipsoid at it (x toward 0°E on the equator,
/// z toward the north pole — the unit vector of its geodetic latitude and longitude, with no seam at ±180° and no
/// singularity at the poles), in a 3-D R-tree bulk-loaded with Sort-Tile-Recursive packing. A point within `s`
/// meters of a query point has its normal within chord `s · κ` of the query's, where κ is the ellipsoid's largest
/// curvature (see `chordBound(meters:curvature:)` for the proof), so the cube of that half-side around the query's
/// normal holds every answer.
///
/// This version indexes points only (geodesic distances from lines and polygons are not offered yet). Distances
/// are meters on the ellipsoid of the points' spatial reference (its geographic base for a projected one) unless a
/// query gives another unit; a distance test is inclusive. A value type, immutable once built, safe to share
/// between threads.
public struct GeodeticSpatialIndex: Sendable {
    /// The spatial reference of the indexed points (`.unspecified` for an empty index, which matches any).
    public let spatialReference: SpatialReference
    /// Longitude/latitude (degrees, x = longitude) of each point on the ellipsoid's own datum.
    let lonLat: [Coordinate]
    /// The unit normal of each point, x, y, z in turn.
    let normals: [Double]
    let geodesic: Geodesic
    /// The ellipsoid's largest curvature, 1/m.
    let curvature: Double
    let tree: PackedRTree

    /// How many points the index holds.
    public var count: Int { lonLat.count }

    /// Indexes points for geodesic searches.
    /// - Parameter points: Points in one geographic or projected spatial reference; may be empty.
    /// - Throws: `.invalidArgument` for a geometry other than a point (named by its position: "near feature 3"),
    ///   `.spatialReferenceMismatch`, `.spatialReferenceRequired` for unspecified coordinates, `.badGeometry` for a
    ///   non-finite coordinate or a latitude beyond ±90°, `.projectionFailed`, `.limitExceeded` beyond 2³¹ − 2 points.
    public init(_ points: [some GeometryConvertible]) throws(EngineError) {
        let gs = points.map { $0.geometry }
        guard gs.count < Int(Int32.max) else {
            throw .limitExceeded("a spatial index holds at most \(Int32.max - 1) points, got \(gs.count)")
        }
        guard let sr = gs.first?.spatialReference else {
            spatialReference = .unspecified
            lonLat = []
            normals = []
            geodesic = Geodesic(.wgs84)
            curvature = Self.largestCurvature(of: .wgs84)
            tree = PackedRTree(dimensions: 3, boxes: [])
            return
        }
        let frame = try GeodeticFrame(input: sr, output: nil)
        let coordinates = try Self.computeCoordinates(gs, in: frame, label: "near feature")
        var normals: [Double] = []
        normals.reserveCapacity(3 * coordinates.count)
        var boxes: [Double] = []
        boxes.reserveCapacity(6 * coordinates.count)
        for c in coordinates {
            let n = UnitVector(c)
            normals.append(contentsOf: [n.x, n.y, n.z])
            boxes.append(contentsOf: [n.x, n.y, n.z, n.x, n.y, n.z])
        }
        spatialReference = sr
        lonLat = coordinates
        self.normals = normals
        geodesic = frame.geodesic
        curvature = Self.largestCurvature(of: frame.geodesic.ellipsoid)
        tree = PackedRTree(dimensions: 3, boxes: boxes)
    }

    /// The points whose normals lie in the filter's cube around the query point's for `distance`: a superset of
    /// the points within `distance` (what ``query(withinDistance:of:distanceUnit:)`` then decides by Karney's inverse).
    /// - Parameters:
    ///   - distance: The geodesic search distance in `distanceUnit`, finite and ≥ 0.
    ///   - point: The query point, in the index's spatial reference.
    ///   - distanceUnit: The unit of `distance` (default meters).
    /// - Returns: Indices of the points, ascending.
    /// - Throws: `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`, `.projectionFailed`.
    public func candidates(withinDistance distance: Double, of point: Point, distanceUnit: LinearUnit = .meters)
        throws(EngineError) -> [Int]
    {
        _ = try GeometryEngine.proximityDistances([distance], count: 1)
        guard count > 0 else { return [] }
        let q = try queryCoordinates([point.geometry], label: "the query point")[0]
        var found: [Int] = []
        forEachCandidate(UnitVector(q), meters: distanceUnit.convert(distance, to: .meters)) { found.append($0) }
        return found.sorted()
    }

    /// The points within a geodesic distance of a point (Karney's inverse ≤ `distance`, boundary inclusive), with
    /// their distances — PostGIS's `ST_DWithin` on geography, ArcGIS Pro's `WITHIN_A_DISTANCE_GEODESIC`.
    /// - Parameters:
    ///   - distance: The geodesic search distance in `distanceUnit`, finite and ≥ 0.
    ///   - point: The query point, in the index's spatial reference.
    ///   - distanceUnit: The unit of `distance` and of the distances returned (default meters).
    /// - Returns: The points found, nearest first (equal distances by index).
    /// - Throws: `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`, `.projectionFailed`.
    public func query(withinDistance distance: Double, of point: Point, distanceUnit: LinearUnit = .meters)
        throws(EngineError) -> [NearFeature]
    {
        _ = try GeometryEngine.proximityDistances([distance], count: 1)
        guard count > 0 else { return [] }
        let q = try queryCoordinates([point.geometry], label: "the query point")[0]
        return within(distanceUnit.convert(distance, to: .meters), of: q).map {
            NearFeature(index: $0.index, distance: LinearUnit.meters.convert($0.distance, to: distanceUnit))
        }
    }

    /// The `k` points geodesically nearest to a point, optionally no farther than `maxDistance` (ties broken by
    /// index, as ``SpatialIndex/nearest(to:k:maxDistance:)``).
    /// - Parameters:
    ///   - point: The query point, in the index's spatial reference.
    ///   - k: How many points to return, ≥ 1.
    ///   - maxDistance: The largest geodesic distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the distances returned (default meters).
    /// - Returns: Up to `k` points, nearest first.
    /// - Throws: `.invalidArgument` for `k` < 1, `.invalidDistance`, `.spatialReferenceMismatch`, `.badGeometry`,
    ///   `.projectionFailed`.
    public func nearest(to point: Point, k: Int = 1, maxDistance: Double? = nil, distanceUnit: LinearUnit = .meters)
        throws(EngineError) -> [NearFeature]
    {
        try GeometryEngine.checkNearest(k: k, maxDistance: maxDistance)
        guard count > 0 else { return [] }
        let q = try queryCoordinates([point.geometry], label: "the query point")[0]
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

    /// Calls `body` with every point whose normal lies within the chord bound of `q` for `meters` (each once).
    func forEachCandidate(_ q: UnitVector, meters: Double, _ body: (Int) -> Void) {
        let r = Self.chordBound(meters: meters, curvature: curvature)
        let box = [q.x - r, q.y - r, q.z - r, q.x + r, q.y + r, q.z + r]
        // The search reports no error (its body throws none); the chord test narrows the cube to the ball.
        try? tree.search(box) { i throws(EngineError) in
            let dx = normals[3 * i] - q.x, dy = normals[3 * i + 1] - q.y, dz = normals[3 * i + 2] - q.z
            if (dx * dx + dy * dy + dz * dz).squareRoot() <= r { body(i) }
            return true
        }
    }

    /// The points within `meters` of `q` (compute lon/lat), meters, nearest first, then by index.
    func within(_ meters: Double, of q: Coordinate) -> [NearFeature] {
        var found: [NearFeature] = []
        forEachCandidate(UnitVector(q), meters: meters) { i in
            let s = geodesic.distance(q, lonLat[i])
            if s <= meters { found.append(NearFeature(index: i, distance: s)) }
        }
        found.sort { ($0.distance, $0.index) < ($1.distance, $1.index) }
        return found
    }

    /// The `k` points nearest to `q` (compute lon/lat) within `maxMeters`; meters, nearest first, then by index.
    /// A box's lower bound is its 3-D distance from the query's normal divided by κ (the chord bound read
    /// backwards: s ≥ chord/κ ≥ distance to the box/κ), lowered by the pad.
    func nearest(to q: Coordinate, k: Int, maxMeters: Double) -> [NearFeature] {
        let n = UnitVector(q)
        let found = try? tree.nearest(k: k, maxDistance: maxMeters, lowerBound: { b in
            let s = b.startIndex
            let dx = max(0, b[s] - n.x, n.x - b[s + 3])
            let dy = max(0, b[s + 1] - n.y, n.y - b[s + 4])
            let dz = max(0, b[s + 2] - n.z, n.z - b[s + 5])
            return max(0, ((dx * dx + dy * dy + dz * dz).squareRoot() - 1e-12) / curvature)
        }, exact: { i throws(EngineError) in geodesic.distance(q, lonLat[i]) })
        return (found ?? []).map { NearFeature(index: $0.index, distance: $0.distance) }
    }

    // MARK: Coordinates

    /// The compute longitude/latitude of query points, checked against the index's spatial reference.
    func queryCoordinates(_ gs: [Geometry], label: String) throws(EngineError) -> [Coordinate] {
        for g in gs { try GeometryEngine.requireSameSpatialReference(spatialReference, g.spatialReference) }
        return try Self.computeCoordinates(gs, in: GeodeticFrame(input: spatialReference, output: nil), label: label)
    }

    /// The points' longitude/latitude on their datum (one batch through PROJ for a projected spatial reference).
    /// `label` names a geometry by position ("input feature" → "input feature 3"), or is the whole name when it
    /// starts with "the".
    static func computeCoordinates(_ gs: [Geometry], in frame: GeodeticFrame, label: String) throws(EngineError)
        -> [Coordinate]
    {
        let sr = gs.first?.spatialReference ?? frame.outputSR
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(gs.count)
        for (i, g) in gs.enumerated() {
            let name = label.hasPrefix("the ") ? label : "\(label) \(i)"
            try GeometryEngine.requireSameSpatialReference(sr, g.spatialReference)
            guard case .point(let p) = g else {
                throw .invalidArgument(
                    "\(name) is a \(g.typeName.lowercased()); geodesic proximity is computed between points only")
            }
            try GeometryEngine.checkProximityGeometry(g, name)
            coordinates.append(Coordinate(x: p.x, y: p.y))
        }
        let converted = try frame.toCompute(coordinates)
        for (i, c) in converted.enumerated() where !(c.x.isFinite && c.y >= -90 && c.y <= 90) {
            let name = label.hasPrefix("the ") ? label : "\(label) \(i)"
            throw .badGeometry(.malformed("\(name) is at latitude \(c.y), longitude \(c.x); latitudes lie in [-90, 90]"))
        }
        return converted
    }
}
