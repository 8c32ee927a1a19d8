import MeridianCore

// MARK: - Proximity: near tables and nearest features, geodesic (points)

extension GeometryEngine {
    /// Every pair of an input point and a near point within a geodesic search distance of each other, with their
    /// distance on the ellipsoid — ArcGIS Pro's Generate Near Table with `method = GEODESIC`, PostGIS's
    /// `ST_DWithin` on geography.
    ///
    /// Each candidate pair is decided by Karney's inverse problem (PROJ's `geod_inverse`): a pair is in the table
    /// exactly when that distance is at most the input point's search distance (boundary inclusive). Candidates
    /// come from a ``GeodeticSpatialIndex`` of the near points, whose filter provably keeps every such pair, across
    /// the antimeridian and around the poles. Points only in this version: lines and polygons are refused.
    /// - Parameters:
    ///   - inFeatures: The input ("left") points, in one geographic or projected spatial reference (a projected
    ///     one's geographic base gives the ellipsoid and the longitude/latitude).
    ///   - nearFeatures: The near ("right") points, in the same spatial reference.
    ///   - distances: One geodesic search distance for every input point, or exactly one per input point, in
    ///     `distanceUnit`; each finite and ≥ 0.
    ///   - distanceUnit: The unit of `distances` and of the distances returned (default meters).
    /// - Returns: The near table, ordered by input point, then distance, then near point (see ``NearPair``).
    /// - Throws: `.distanceCountMismatch`, `.invalidDistance` (naming the input feature), `.spatialReferenceMismatch`,
    ///   `.spatialReferenceRequired` for unspecified coordinates, `.invalidArgument` for a geometry other than a
    ///   point, `.badGeometry` for a non-finite coordinate or a latitude beyond ±90° (naming it: "input feature 2",
    ///   "near feature 7"), `.projectionFailed`.
    public static func geodeticNearPairs(
        from inFeatures: [some GeometryConvertible], to nearFeatures: [some GeometryConvertible], distances: [Double],
        distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = inFeatures.map { $0.geometry }
        let distanceOf = try proximityDistances(distances, count: lefts.count)
        if let first = lefts.first, let near = nearFeatures.first {
            try requireSameSpatialReference(first.spatialReference, near.geometry.spatialReference)
        }
        return try geodeticNearPairs(lefts, GeodeticSpatialIndex(nearFeatures), distanceOf, distanceUnit)
    }

    /// `geodeticNearPairs(from:to:distances:distanceUnit:)` against near points indexed once — for input points
    /// that arrive in batches (add each batch's offset to `leftIndex`).
    /// - Parameters:
    ///   - inFeatures: The input points, in the index's spatial reference.
    ///   - index: The near points, indexed.
    ///   - distances: One geodesic search distance for all, or one per input point, in `distanceUnit`.
    ///   - distanceUnit: The unit of `distances` and of the result (default meters).
    /// - Returns: The near table (`rightIndex`: positions in the index).
    /// - Throws: as `geodeticNearPairs(from:to:distances:distanceUnit:)`.
    public static func geodeticNearPairs(
        from inFeatures: [some GeometryConvertible], to index: GeodeticSpatialIndex, distances: [Double],
        distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = inFeatures.map { $0.geometry }
        let distanceOf = try proximityDistances(distances, count: lefts.count)
        return try geodeticNearPairs(lefts, index, distanceOf, distanceUnit)
    }

    /// For every input point, its `count` geodesically nearest near points, optionally no farther than
    /// `maxDistance`, with their distances on the ellipsoid (Karney's inverse) — ArcGIS Pro's Generate Near Table
    /// with `closest_count` and `method = GEODESIC`. Ties are broken by index, as
    /// `nearest(from:to:count:maxDistance:distanceUnit:)`.
    /// - Parameters:
    ///   - inFeatures: The input points, in one geographic or projected spatial reference.
    ///   - nearFeatures: The near points, in the same spatial reference.
    ///   - count: How many near points per input point, ≥ 1.
    ///   - maxDistance: The largest geodesic distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the distances returned (default meters).
    /// - Returns: The near table, ordered by input point, then rank.
    /// - Throws: `.invalidArgument` for `count` < 1, `.invalidDistance` for a negative or non-finite `maxDistance`;
    ///   otherwise as `geodeticNearPairs(from:to:distances:distanceUnit:)`.
    public static func geodeticNearest(
        from inFeatures: [some GeometryConvertible], to nearFeatures: [some GeometryConvertible], count: Int = 1,
        maxDistance: Double? = nil, distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = inFeatures.map { $0.geometry }
        try checkNearest(k: count, maxDistance: maxDistance)
        if let first = lefts.first, let near = nearFeatures.first {
            try requireSameSpatialReference(first.spatialReference, near.geometry.spatialReference)
        }
        return try geodeticNearest(lefts, GeodeticSpatialIndex(nearFeatures), count, maxDistance, distanceUnit)
    }

    /// ``geodeticNearest(from:to:count:maxDistance:distanceUnit:)`` against near points indexed once.
    /// - Parameters:
    ///   - inFeatures: The input points, in the index's spatial reference.
    ///   - index: The near points, indexed.
    ///   - count: How many near points per input point, ≥ 1.
    ///   - maxDistance: The largest geodesic distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the result (default meters).
    /// - Returns: The near table (`rightIndex`: positions in the index).
    /// - Throws: as ``geodeticNearest(from:to:count:maxDistance:distanceUnit:)``.
    public static func geodeticNearest(
        from inFeatures: [some GeometryConvertible], to index: GeodeticSpatialIndex, count: Int = 1,
        maxDistance: Double? = nil, distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = inFeatures.map { $0.geometry }
        try checkNearest(k: count, maxDistance: maxDistance)
        return try geodeticNearest(lefts, index, count, maxDistance, distanceUnit)
    }

    // MARK: Internals

    /// The input points' compute longitude/latitude (checked: points, one spatial reference, the index's).
    private static func geodeticInputs(_ lefts: [Geometry], _ index: GeodeticSpatialIndex)
        throws(EngineError) -> [Coordinate]
    {
        guard let sr = lefts.first?.spatialReference else { return [] }
        if index.count > 0 { return try index.queryCoordinates(lefts, label: "input feature") }
        // Nothing to find, but the input is still checked (points, one spatial reference, usable coordinates).
        return try GeodeticSpatialIndex.computeCoordinates(lefts, in: GeodeticFrame(input: sr, output: nil),
                                                           label: "input feature")
    }

    private static func geodeticNearPairs(
        _ lefts: [Geometry], _ index: GeodeticSpatialIndex, _ distanceOf: (Int) -> Double, _ unit: LinearUnit
    ) throws(EngineError) -> [NearPair] {
        let points = try geodeticInputs(lefts, index)
        let matches = points.indices.map { i in
            index.within(unit.convert(distanceOf(i), to: .meters), of: points[i]).map {
                NearFeature(index: $0.index, distance: LinearUnit.meters.convert($0.distance, to: unit))
            }
        }
        return nearTable(matches)
    }

    private static func geodeticNearest(
        _ lefts: [Geometry], _ index: GeodeticSpatialIndex, _ k: Int, _ maxDistance: Double?, _ unit: LinearUnit
    ) throws(EngineError) -> [NearPair] {
        let points = try geodeticInputs(lefts, index)
        let limit = maxDistance.map { unit.convert($0, to: .meters) } ?? .infinity
        let matches = points.indices.map { i in
            index.nearest(to: points[i], k: k, maxMeters: limit).map {
                NearFeature(index: $0.index, distance: LinearUnit.meters.convert($0.distance, to: unit))
            }
        }
        return nearTable(matches)
    }
}
