import MeridianCore

// MARK: - Proximity: near tables and nearest features, geodesic

extension GeometryEngine {
    /// Every pair of an input feature and a near feature within a geodesic search distance of each other, with their
    /// distance on the ellipsoid — ArcGIS Pro's Generate Near Table with `method = GEODESIC`, PostGIS's
    /// `ST_DWithin` on geography.
    ///
    /// Each candidate pair is decided by the geodesic distance between the two geometries — the least distance on
    /// the ellipsoid between a point of one and a point of the other, edges taken as geodesics: a pair is in the
    /// table exactly when that distance is at most the input feature's search distance (boundary inclusive).
    /// - Two points: Karney's inverse problem (PROJ's `geod_inverse`, accurate to 15 nm); in a search within a
    ///   distance, points less than a/64 apart (99.7 km on the Earth) are measured from their chord and the
    ///   ellipsoid's curvature over its middle (within 1 µm of Karney's), and Karney's inverse measures a pair when
    ///   that distance lies within 6.4 µm of the search distance: the pair is decided as Karney's inverse decides it.
    /// - A point and an edge: the minimum of the inverse problem over the edge (the foot of the perpendicular
    ///   geodesic, found by iterating PROJ's direct and inverse problems, or an end).
    /// - Two edges: 0 when they cross or touch (found by Newton's method on the two geodesics), otherwise the least
    ///   distance from an end of one to the other (the minimum between two geodesic segments that do not meet is at
    ///   an end: the ellipsoid's curvature is positive).
    /// - A point inside a polygon, or a line or polygon inside one: 0. A polygon's inside is the side its own
    ///   coordinates enclose, as for `geodeticArea(of:unit:curveType:)`: a longitude/latitude ring with an edge
    ///   along ±90° contains that pole, edges along ±180° are cuts, and a ring that winds around a pole without such
    ///   an edge encloses the smaller of its two sides.
    ///
    /// Accuracy: every distance is within 1 µm of the true geodesic distance between the geometries (checked
    /// against GeographicLib minimised over the segments, and against meridian and equator cases solved in closed
    /// form); the inclusive test is exact to that. Candidates come from a ``GeodeticSpatialIndex`` of the near
    /// features, whose filter provably keeps every pair within the distance, across the antimeridian and around the
    /// poles.
    /// - Parameters:
    ///   - inFeatures: The input ("left") geometries — points, multipoints, lines, polygons, envelopes — in one
    ///     geographic or projected spatial reference (a projected one's geographic base gives the ellipsoid and the
    ///     longitude/latitude).
    ///   - nearFeatures: The near ("right") geometries, in the same spatial reference.
    ///   - distances: One geodesic search distance for every input feature, or exactly one per input feature, in
    ///     `distanceUnit`; each finite and ≥ 0.
    ///   - distanceUnit: The unit of `distances` and of the distances returned (default meters).
    /// - Returns: The near table, ordered by input feature, then distance, then near feature (see ``NearPair``).
    /// - Throws: `.distanceCountMismatch`, `.invalidDistance` (naming the input feature), `.spatialReferenceMismatch`,
    ///   `.spatialReferenceRequired` for unspecified coordinates, `.badGeometry` for a geometry without vertices, a
    ///   non-finite coordinate or a latitude beyond ±90° (naming it: "input feature 2", "near feature 7"),
    ///   `.projectionFailed`.
    public static func geodeticNearPairs(
        from inFeatures: [some GeometryConvertible], to nearFeatures: [some GeometryConvertible], distances: [Double],
        distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        let distanceOf = try proximityDistances(distances, count: lefts.count)
        if let first = lefts.first, let near = nearFeatures.first {
            try requireSameSpatialReference(first.spatialReference, near.geometry.spatialReference)
        }
        return try geodeticNearPairs(lefts, GeodeticSpatialIndex(nearFeatures), distanceOf, distanceUnit)
    }

    /// `geodeticNearPairs(from:to:distances:distanceUnit:)` against near features indexed once — for input
    /// features that arrive in batches (add each batch's offset to `leftIndex`).
    /// - Parameters:
    ///   - inFeatures: The input geometries, in the index's spatial reference.
    ///   - index: The near geometries, indexed.
    ///   - distances: One geodesic search distance for all, or one per input feature, in `distanceUnit`.
    ///   - distanceUnit: The unit of `distances` and of the result (default meters).
    /// - Returns: The near table (`rightIndex`: positions in the index).
    /// - Throws: as `geodeticNearPairs(from:to:distances:distanceUnit:)`.
    public static func geodeticNearPairs(
        from inFeatures: [some GeometryConvertible], to index: GeodeticSpatialIndex, distances: [Double],
        distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        let distanceOf = try proximityDistances(distances, count: lefts.count)
        return try geodeticNearPairs(lefts, index, distanceOf, distanceUnit)
    }

    /// For every input feature, its `count` geodesically nearest near features, optionally no farther than
    /// `maxDistance`, with their geodesic distances (measured as `geodeticNearPairs(from:to:distances:distanceUnit:)`
    /// measures them) — ArcGIS Pro's Generate Near Table with `closest_count` and `method = GEODESIC`. Ties are
    /// broken by index, as `nearest(from:to:count:maxDistance:distanceUnit:)`.
    /// - Parameters:
    ///   - inFeatures: The input geometries, in one geographic or projected spatial reference.
    ///   - nearFeatures: The near geometries, in the same spatial reference.
    ///   - count: How many near features per input feature, ≥ 1.
    ///   - maxDistance: The largest geodesic distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the distances returned (default meters).
    /// - Returns: The near table, ordered by input feature, then rank.
    /// - Throws: `.invalidArgument` for `count` < 1, `.invalidDistance` for a negative or non-finite `maxDistance`;
    ///   otherwise as `geodeticNearPairs(from:to:distances:distanceUnit:)`.
    public static func geodeticNearest(
        from inFeatures: [some GeometryConvertible], to nearFeatures: [some GeometryConvertible], count: Int = 1,
        maxDistance: Double? = nil, distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        try checkNearest(k: count, maxDistance: maxDistance)
        if let first = lefts.first, let near = nearFeatures.first {
            try requireSameSpatialReference(first.spatialReference, near.geometry.spatialReference)
        }
        return try geodeticNearest(lefts, GeodeticSpatialIndex(nearFeatures), count, maxDistance, distanceUnit)
    }

    /// `geodeticNearest(from:to:count:maxDistance:distanceUnit:)` against near features indexed once.
    /// - Parameters:
    ///   - inFeatures: The input geometries, in the index's spatial reference.
    ///   - index: The near geometries, indexed.
    ///   - count: How many near features per input feature, ≥ 1.
    ///   - maxDistance: The largest geodesic distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the result (default meters).
    /// - Returns: The near table (`rightIndex`: positions in the index).
    /// - Throws: as `geodeticNearest(from:to:count:maxDistance:distanceUnit:)`.
    public static func geodeticNearest(
        from inFeatures: [some GeometryConvertible], to index: GeodeticSpatialIndex, count: Int = 1,
        maxDistance: Double? = nil, distanceUnit: LinearUnit = .meters
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        try checkNearest(k: count, maxDistance: maxDistance)
        return try geodeticNearest(lefts, index, count, maxDistance, distanceUnit)
    }

    // MARK: Internals

    /// The input geometries on the ellipsoid (checked: one spatial reference, the index's, usable coordinates).
    private static func geodeticInputs(_ lefts: [Geometry], _ index: GeodeticSpatialIndex)
        throws(EngineError) -> [GeodeticFeature]
    {
        guard let sr = lefts.first?.spatialReference else { return [] }
        if index.count > 0 { return try index.queryFeatures(lefts, list: .inputFeatures) }
        // Nothing to find, but the input is still checked (one spatial reference, usable coordinates).
        let frame = try GeodeticFrame(input: sr, output: nil)
        return try GeodeticSpatialIndex.computeFeatures(
            lefts, in: frame, curvature: GeodeticSpatialIndex.largestCurvature(of: frame.geodesic.ellipsoid),
            list: .inputFeatures)
    }

    private static func geodeticNearPairs(
        _ lefts: [Geometry], _ index: GeodeticSpatialIndex, _ distanceOf: (Int) -> Double, _ unit: LinearUnit
    ) throws(EngineError) -> [NearPair] {
        let features = try geodeticInputs(lefts, index)
        var rows: [NearPair] = []
        rows.reserveCapacity(features.count)
        var scratch = SpatialIndex.SearchScratch()
        for i in features.indices {
            index.within(unit.convert(distanceOf(i), to: .meters), of: features[i], scratch: &scratch)
            appendNearRows(scratch.found, left: i, distance: { LinearUnit.meters.convert($0, to: unit) }, to: &rows)
        }
        return rows
    }

    private static func geodeticNearest(
        _ lefts: [Geometry], _ index: GeodeticSpatialIndex, _ k: Int, _ maxDistance: Double?, _ unit: LinearUnit
    ) throws(EngineError) -> [NearPair] {
        let features = try geodeticInputs(lefts, index)
        let limit = maxDistance.map { unit.convert($0, to: .meters) } ?? .infinity
        let matches = features.indices.map { i in
            index.nearest(to: features[i], k: k, maxMeters: limit).map {
                NearFeature(index: $0.index, distance: LinearUnit.meters.convert($0.distance, to: unit))
            }
        }
        return nearTable(matches)
    }
}
