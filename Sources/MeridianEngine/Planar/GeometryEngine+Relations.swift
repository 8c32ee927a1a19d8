import MeridianCore

// MARK: - Spatial relationships (DE-9IM), under ArcGIS's names

extension GeometryEngine {
    /// Whether `geometry1` contains `geometry2`: no point of `geometry2` lies outside `geometry1`, and the two share
    /// at least one interior point (ArcGIS `doesGeometry(_:contain:)`; GEOS `contains`) — the test the buffer sample
    /// uses to accept a tap inside the area of use.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidGeometry` for invalid polygons (as every predicate: the
    ///   answer would depend on how GEOS happens to read an interior that is not well defined).
    public static func doesGeometry(_ geometry1: some GeometryConvertible, contain geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "contains", .contains)
    }

    /// Whether `geometry1` lies within `geometry2` (the converse of ``doesGeometry(_:contain:)``).
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, within geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "within", .within)
    }

    /// Whether the two geometries share at least one point (the opposite of ``isGeometry(_:disjointWith:)``).
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, intersecting geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "intersects", .intersects)
    }

    /// Whether the two geometries share no point at all.
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, disjointWith geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "disjoint", .disjoint)
    }

    /// Whether the two geometries meet only on their boundaries: they share a point, but no interior point.
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, touching geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "touches", .touches)
    }

    /// Whether the geometries cross: their interiors meet in a geometry of lower dimension than the higher of the
    /// two (a line passing through a polygon's interior and out, two lines meeting at an interior point).
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, crossing geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "crosses", .crosses)
    }

    /// Whether two geometries of the same dimension overlap: their interiors share part of that dimension, and each
    /// has a part outside the other.
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, overlapping geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "overlaps", .overlaps)
    }

    /// Whether the two geometries occupy the same space (topological equality, GEOS `equalsTopo`): vertex order,
    /// start vertex and extra collinear vertices do not matter.
    /// - Throws: as ``doesGeometry(_:contain:)``.
    public static func isGeometry(_ geometry1: some GeometryConvertible, equivalentTo geometry2: some GeometryConvertible)
        throws(EngineError) -> Bool
    {
        try predicate(geometry1, geometry2, "equals", .equals)
    }

    /// Whether the DE-9IM intersection matrix of the two geometries matches a pattern (ArcGIS
    /// `isGeometry(_:relatedTo:byRelation:)`; GEOS `relatePattern`).
    /// - Parameters:
    ///   - geometry1: The first geometry (rows of the matrix).
    ///   - geometry2: The second geometry (columns).
    ///   - relation: Nine characters, row by row (interior, boundary, exterior of `geometry1` against those of
    ///     `geometry2`), each `T` (non-empty), `F` (empty), `*` (anything), `0`, `1` or `2` (that dimension);
    ///     e.g. `T*F**F***` is "within".
    /// - Throws: `.invalidArgument` for a malformed pattern; as ``doesGeometry(_:contain:)`` otherwise.
    public static func isGeometry(
        _ geometry1: some GeometryConvertible, relatedTo geometry2: some GeometryConvertible, byRelation relation: String
    ) throws(EngineError) -> Bool {
        let pattern = relation.uppercased()
        guard pattern.count == 9, pattern.allSatisfy({ "TF*012".contains($0) }) else {
            throw .invalidArgument(
                "a DE-9IM relation is 9 characters from T, F, *, 0, 1, 2 (e.g. T*F**F***), got '\(relation.prefix(40))'")
        }
        return try predicate(geometry1, geometry2, "relate", .relate(pattern: pattern))
    }

    /// Whether a geometry is simple in ArcGIS's sense: a polygon (or envelope) is topologically valid by the OGC
    /// rules (rings closed, not self-intersecting, holes inside their shells, no ring of fewer than three distinct
    /// vertices); a polyline does not intersect itself except at part ends (GEOS `isSimple`); a multipoint has no
    /// repeated point; a point is always simple. ``simplify(_:)->G`` repairs what is not.
    public static func isSimple(_ geometry: some GeometryConvertible) throws(EngineError) -> Bool {
        let g = geometry.geometry
        let context = try GEOSContext()
        let ref = try context.make(g)
        switch g {
        case .polygon, .envelope: return try ref.checkValid("is simple")
        case .point, .multipoint, .polyline: return try ref.checkSimple("is simple")
        }
    }

    static func predicate(
        _ a: some GeometryConvertible, _ b: some GeometryConvertible, _ name: String,
        _ relation: GEOSPredicate
    ) throws(EngineError) -> Bool {
        let (ga, gb) = (a.geometry, b.geometry)
        let context = try GEOSContext()
        let (ra, rb) = try context.validPair(ga, gb)
        return try ra.satisfies(relation, rb, name)
    }
}
