import MeridianCore

// MARK: - Proximity: near tables and nearest features, planar

extension GeometryEngine {
    /// Every pair of an input feature and a near feature within a search distance of each other, with their planar
    /// distance — ArcGIS Pro's Generate Near Table with a search radius and `closest = ALL`, geopandas'
    /// `sjoin(predicate="dwithin")`, PostGIS's `ST_DWithin` join.
    ///
    /// A pair is in the table exactly when the planar distance between the two geometries (GEOS's distance;
    /// √(Δx² + Δy²) for two points) is at most the input feature's search distance: the boundary is inclusive, and
    /// no buffer polygon is involved (a buffer's chords would miss points just inside the true circle). The near
    /// features are indexed (``SpatialIndex``) and each input feature looks its candidates up there.
    /// - Parameters:
    ///   - inFeatures: The input ("left") features, in one projected or unspecified spatial reference.
    ///   - nearFeatures: The near ("right") features, in the same spatial reference.
    ///   - distances: One search distance for every input feature, or exactly one per input feature (in
    ///     `distanceUnit`); each finite and ≥ 0.
    ///   - distanceUnit: The unit of `distances` and of the distances returned; `nil` (default) for the spatial
    ///     reference's own unit (US survey feet for EPSG:32038), as ArcGIS. The test is made in the spatial
    ///     reference's unit.
    /// - Returns: The near table, ordered by input feature, then distance, then near feature (see ``NearPair``).
    /// - Throws: `.distanceCountMismatch`, `.invalidDistance` (naming the input feature), `.spatialReferenceMismatch`,
    ///   `.geographicCoordinatesRefused` for degree coordinates (use
    ///   `geodeticNearPairs(from:to:distances:distanceUnit:)`), `.spatialReferenceRequired` for a `distanceUnit`
    ///   with unspecified coordinates, `.badGeometry` for an empty or non-finite geometry (naming it: "input feature
    ///   2", "near feature 7"), `.invalidGeometry` for an invalid polygon, `.geos`.
    public static func nearPairs(
        from inFeatures: [some GeometryConvertible], to nearFeatures: [some GeometryConvertible], distances: [Double],
        distanceUnit: LinearUnit? = nil
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        let distanceOf = try proximityDistances(distances, count: lefts.count)
        if let first = lefts.first, let near = nearFeatures.first {
            try requireSameSpatialReference(first.spatialReference, near.geometry.spatialReference)
        }
        try checkPlanarInputs(lefts, distanceUnit: distanceUnit)
        return try nearPairs(lefts, SpatialIndex(nearFeatures), distanceOf, distanceUnit)
    }

    /// `nearPairs(from:to:distances:distanceUnit:)` against near features indexed once — for input features that
    /// arrive in batches (add each batch's offset to `leftIndex`).
    /// - Parameters:
    ///   - inFeatures: The input features, in the index's spatial reference.
    ///   - index: The near features, indexed.
    ///   - distances: One search distance for all, or one per input feature, in `distanceUnit`.
    ///   - distanceUnit: The unit of `distances` and of the result; `nil` for the spatial reference's own.
    /// - Returns: The near table (`rightIndex`: positions in the index).
    /// - Throws: as `nearPairs(from:to:distances:distanceUnit:)`.
    public static func nearPairs(
        from inFeatures: [some GeometryConvertible], to index: SpatialIndex, distances: [Double],
        distanceUnit: LinearUnit? = nil
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        let distanceOf = try proximityDistances(distances, count: lefts.count)
        try checkPlanarInputs(lefts, distanceUnit: distanceUnit)
        return try nearPairs(lefts, index, distanceOf, distanceUnit)
    }

    /// `nearPairs(from:to:distances:distanceUnit:)` for input points given by their coordinates, all in one
    /// spatial reference — a batch of points read as columns, searched without a geometry (and a reference to its
    /// spatial reference) made for each. The same near table as for the same points as geometries.
    /// - Parameters:
    ///   - coordinates: The input points' coordinates (z is ignored).
    ///   - spatialReference: Their spatial reference, the index's.
    ///   - index: The near features, indexed.
    ///   - distances: One search distance for all, or one per input point, in `distanceUnit`.
    ///   - distanceUnit: The unit of `distances` and of the result; `nil` for the spatial reference's own.
    /// - Returns: The near table (`leftIndex`: positions in `coordinates`; `rightIndex`: in the index).
    /// - Throws: as `nearPairs(from:to:distances:distanceUnit:)`; a non-finite coordinate is `.badGeometry` naming
    ///   its input feature.
    public static func nearPairs(
        fromPointsAt coordinates: [Coordinate], in spatialReference: SpatialReference, to index: SpatialIndex,
        distances: [Double], distanceUnit: LinearUnit? = nil
    ) throws(EngineError) -> [NearPair] {
        let distanceOf = try proximityDistances(distances, count: coordinates.count)
        guard !coordinates.isEmpty else { return [] }
        try checkPlanarSpatialReference(spatialReference, distanceUnit: distanceUnit)
        for (i, c) in coordinates.enumerated() where !(c.x.isFinite && c.y.isFinite) {
            try checkProximityGeometry(.point(Point(c, spatialReference: spatialReference)),
                                       at: EngineError.Location(.inputFeatures, geometry: i))
        }
        return try coordinates.withUnsafeBufferPointer { (all) throws(EngineError) in
            try planarNearTable(count: all.count, spatialReference, index, distanceOf, distanceUnit) {
                (i, d, measure, scratch) throws(EngineError) in
                let c = all[i]
                try index.within(d, of: .point(c), bounds: (c.x, c.y, c.x, c.y), measure, scratch: &scratch)
            }
        }
    }

    /// For every input feature, its `count` nearest near features, optionally no farther than `maxDistance`, with
    /// their planar distances — ArcGIS Pro's Generate Near Table with `closest_count`, geopandas'
    /// `sjoin_nearest(max_distance=…)`, shapely's `STRtree.query_nearest`.
    ///
    /// Ties are broken by index: of equally near features the lower indices rank first, and a tie at the last
    /// place keeps only the lowest indices, so an input feature gets exactly `count` rows whenever that many near
    /// features are within reach.
    /// - Parameters:
    ///   - inFeatures: The input features, in one projected or unspecified spatial reference.
    ///   - nearFeatures: The near features, in the same spatial reference.
    ///   - count: How many near features per input feature, ≥ 1.
    ///   - maxDistance: The largest distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the distances returned; `nil` for the spatial reference's.
    /// - Returns: The near table, ordered by input feature, then rank.
    /// - Throws: `.invalidArgument` for `count` < 1, `.invalidDistance` for a negative or non-finite `maxDistance`;
    ///   otherwise as `nearPairs(from:to:distances:distanceUnit:)`.
    public static func nearest(
        from inFeatures: [some GeometryConvertible], to nearFeatures: [some GeometryConvertible], count: Int = 1,
        maxDistance: Double? = nil, distanceUnit: LinearUnit? = nil
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        try checkNearest(k: count, maxDistance: maxDistance)
        if let first = lefts.first, let near = nearFeatures.first {
            try requireSameSpatialReference(first.spatialReference, near.geometry.spatialReference)
        }
        try checkPlanarInputs(lefts, distanceUnit: distanceUnit)
        return try nearest(lefts, SpatialIndex(nearFeatures), count, maxDistance, distanceUnit)
    }

    /// `nearest(from:to:count:maxDistance:distanceUnit:)` against near features indexed once.
    /// - Parameters:
    ///   - inFeatures: The input features, in the index's spatial reference.
    ///   - index: The near features, indexed.
    ///   - count: How many near features per input feature, ≥ 1.
    ///   - maxDistance: The largest distance considered (inclusive), in `distanceUnit`; `nil` for no limit.
    ///   - distanceUnit: The unit of `maxDistance` and of the result; `nil` for the spatial reference's own.
    /// - Returns: The near table (`rightIndex`: positions in the index).
    /// - Throws: as `nearest(from:to:count:maxDistance:distanceUnit:)`.
    public static func nearest(
        from inFeatures: [some GeometryConvertible], to index: SpatialIndex, count: Int = 1,
        maxDistance: Double? = nil, distanceUnit: LinearUnit? = nil
    ) throws(EngineError) -> [NearPair] {
        let lefts = proximityGeometries(inFeatures)
        try checkNearest(k: count, maxDistance: maxDistance)
        try checkPlanarInputs(lefts, distanceUnit: distanceUnit)
        return try nearest(lefts, index, count, maxDistance, distanceUnit)
    }

    // MARK: Internals

    /// Refuses input features in different or geographic spatial references, and a distance unit for unspecified
    /// coordinates.
    private static func checkPlanarInputs(_ lefts: [Geometry], distanceUnit: LinearUnit?) throws(EngineError) {
        guard let sr = lefts.first?.spatialReference else { return }
        // Read in place (a loop over the array copies every geometry, and its spatial reference, first).
        try lefts.withUnsafeBufferPointer { (all) throws(EngineError) in
            for i in all.indices { try requireSameSpatialReference(sr, of: all[i]) }
        }
        try checkPlanarSpatialReference(sr, distanceUnit: distanceUnit)
    }

    /// Refuses a geographic spatial reference, and a distance unit for unspecified coordinates or a spatial
    /// reference without a linear unit.
    private static func checkPlanarSpatialReference(_ sr: SpatialReference, distanceUnit: LinearUnit?)
        throws(EngineError)
    {
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar proximity search") }
        if distanceUnit != nil, sr.isUnspecified {
            throw .spatialReferenceRequired(
                operation: "a search distance with a unit (give a plain number, in the coordinates' unit)")
        }
        if let distanceUnit, sr.unit == nil {
            throw .invalidArgument("search distances in \(distanceUnit.name)s need a spatial reference with a linear "
                                   + "unit; \(sr) has none (give a plain number, in the coordinates' unit)")
        }
    }

    /// Converts between `distanceUnit` and the spatial reference's unit (identity when either is missing).
    private static func planarUnits(_ sr: SpatialReference, _ distanceUnit: LinearUnit?)
        -> (toNative: (Double) -> Double, fromNative: (Double) -> Double)
    {
        guard let distanceUnit, let unit = sr.unit, distanceUnit != unit else { return ({ $0 }, { $0 }) }
        return ({ distanceUnit.convert($0, to: unit) }, { unit.convert($0, to: distanceUnit) })
    }

    private static func nearPairs(
        _ lefts: [Geometry], _ index: SpatialIndex, _ distanceOf: (Int) -> Double, _ distanceUnit: LinearUnit?
    ) throws(EngineError) -> [NearPair] {
        guard let sr = lefts.first?.spatialReference else { return [] }
        // The geometries are read in place, a point by its coordinate: a loop over the array would copy every
        // geometry (and retain its spatial reference, which all of them share, from every thread searching).
        return try lefts.withUnsafeBufferPointer { (all) throws(EngineError) in
            try planarNearTable(count: all.count, sr, index, distanceOf, distanceUnit) {
                (i, d, measure, scratch) throws(EngineError) in
                let q = try query(all, i, measure)
                if case .point(let c) = q {
                    try index.within(d, of: q, bounds: (c.x, c.y, c.x, c.y), measure, scratch: &scratch)
                } else {
                    try index.within(d, of: all[i], q, measure, scratch: &scratch)
                }
            }
        }
    }

    /// The near table of `count` input features in `sr` (every one of them: checked by the caller), each searched
    /// by `search(i, its distance in the index's unit, measure, scratch)`, which leaves its matches in
    /// `scratch.found`.
    @inline(__always)
    private static func planarNearTable(
        count: Int, _ sr: SpatialReference, _ index: SpatialIndex, _ distanceOf: (Int) -> Double,
        _ distanceUnit: LinearUnit?,
        search: (Int, Double, PlanarDistances, inout SpatialIndex.SearchScratch) throws(EngineError) -> Void
    ) throws(EngineError) -> [NearPair] {
        let units = planarUnits(sr, distanceUnit)
        let measure = try PlanarDistances(index)
        // Every input is in `sr`: the index's spatial reference is checked once.
        try index.requireOwnSpatialReference(sr)
        var rows: [NearPair] = []
        rows.reserveCapacity(count)
        var scratch = SpatialIndex.SearchScratch()
        for i in 0..<count {
            try search(i, units.toNative(distanceOf(i)), measure, &scratch)
            appendNearRows(scratch.found, left: i, distance: units.fromNative, to: &rows)
        }
        return rows
    }

    /// Input feature `i` as a query: a finite point by its coordinate (nothing copied), anything else checked
    /// (`checkProximityGeometry`, located) and prepared.
    @inline(__always)
    private static func query(_ all: UnsafeBufferPointer<Geometry>, _ i: Int, _ measure: PlanarDistances)
        throws(EngineError) -> PlanarDistances.Query
    {
        if let c = all[i].pointCoordinate, c.x.isFinite, c.y.isFinite { return .point(c) }
        try checkProximityGeometry(all[i], at: EngineError.Location(.inputFeatures, geometry: i))
        return try measure.query(all[i])
    }

    private static func nearest(
        _ lefts: [Geometry], _ index: SpatialIndex, _ k: Int, _ maxDistance: Double?, _ distanceUnit: LinearUnit?
    ) throws(EngineError) -> [NearPair] {
        guard let sr = lefts.first?.spatialReference else { return [] }
        let units = planarUnits(sr, distanceUnit)
        let measure = try PlanarDistances(index)
        let limit = maxDistance.map(units.toNative) ?? .infinity
        var rows: [NearPair] = []
        rows.reserveCapacity(lefts.count * min(k, 4))
        var scratch = SpatialIndex.SearchScratch()
        // Read in place, a point by its coordinate, as `nearPairs` does; rows made as found (the near table's).
        try lefts.withUnsafeBufferPointer { (all) throws(EngineError) in
            for i in all.indices {
                try index.requireOwnSpatialReference(of: all[i])
                let found = try index.nearest(to: all[i], query(all, i, measure), measure, k: k, maxDistance: limit,
                                              scratch: &scratch)
                appendNearRows(found, left: i, distance: units.fromNative, to: &rows)
            }
        }
        return rows
    }
}
