import MeridianCore

// MARK: - Overlay

extension GeometryEngine {
    /// The union of two geometries (points, lines and areas) in one spatial reference (ArcGIS `union(_:_:)`).
    ///
    /// ArcGIS's documented rule for different dimensions applies: when the two geometries have different
    /// dimensions (a polygon and a point, a line and a multipoint), the result is the one of higher dimension,
    /// unchanged — so a point outside a polygon is not part of their union here, where GEOS would answer a
    /// GEOMETRYCOLLECTION that one `Geometry` cannot hold. Geometries of one dimension are unioned by GEOS; an empty
    /// geometry counts as no geometry.
    /// - Throws: `EngineError.spatialReferenceMismatch`, `.invalidGeometry`, `.geos`.
    public static func union(_ a: some GeometryConvertible, _ b: some GeometryConvertible) throws(EngineError) -> Geometry {
        try union(of: [a.geometry, b.geometry])
    }

    /// The union of any number of geometries in one spatial reference (GEOS's cascaded unary union), with
    /// ArcGIS's rule for different dimensions (see ``union(_:_:)``): only the geometries of the highest dimension
    /// present are unioned; the others are covered by them in ArcGIS's sense and left out.
    /// - Parameter geometries: At least one geometry.
    /// - Throws: as ``union(_:_:)``; `.badGeometry` for no geometries.
    public static func union(of geometries: [some GeometryConvertible]) throws(EngineError) -> Geometry {
        let gs = geometries.map { $0.geometry }
        guard let sr = gs.first?.spatialReference else { throw .badGeometry(.empty("nothing to union")) }
        let context = try GEOSContext()
        var refs: [(ref: GEOSGeometryRef, dimension: Int)] = []
        for g in gs {
            guard g.spatialReference == sr else { throw .spatialReferenceMismatch(sr, g.spatialReference) }
            let ref = try context.make(g)
            try context.requireValid(ref, g)
            if !g.coordinates.isEmpty { refs.append((ref, g.dimension)) }
        }
        guard let top = refs.map({ $0.dimension }).max() else {
            return gs.max { $0.dimension < $1.dimension }!  // all empty: the empty geometry of the highest dimension
        }
        let result = try context.unaryUnion(of: refs.filter { $0.dimension == top }.map { $0.ref })
        try context.requireSingleDimension(result, "union")
        return try context.geometry(result, in: sr)
    }

    /// The part common to both geometries, of the highest dimension present: where two polygons also touch along
    /// an edge or at a point, those lower-dimension contacts are left out (OverlayNG's strict-mode semantics).
    public static func intersection(_ a: some GeometryConvertible, _ b: some GeometryConvertible) throws(EngineError) -> Geometry {
        try binary(a, b, "intersection") { a, b throws(EngineError) in try a.intersection(b) }
    }

    /// The part of `a` not in `b`.
    public static func difference(_ a: some GeometryConvertible, _ b: some GeometryConvertible) throws(EngineError) -> Geometry {
        try binary(a, b, "difference") { a, b throws(EngineError) in try a.difference(b) }
    }

    /// The parts in exactly one of the two geometries (ArcGIS `symmetricDifference(_:_:)`).
    /// - Throws: `.mixedDimensionResult` when those parts mix dimensions (e.g. a polygon and a point outside it):
    ///   one `Geometry` cannot hold them, and ArcGIS refuses geometries of different dimensions for this operation
    ///   (ArcGIS Pro SDK: "Input geometries do not have the same dimension"); Meridian answers whenever the result
    ///   has one dimension (a point inside a polygon leaves the polygon).
    public static func symmetricDifference(_ a: some GeometryConvertible, _ b: some GeometryConvertible)
        throws(EngineError) -> Geometry
    {
        try binary(a, b, "symmetric difference", singleDimension: true) { a, b throws(EngineError) in try a.symmetricDifference(b) }
    }

    /// Whether a geometry is topologically valid (OGC rules), and GEOS's reason when not.
    /// - Returns: `nil` when valid, else GEOS's diagnosis (e.g. "Self-intersection[1 1]").
    public static func invalidityReason(_ geometry: some GeometryConvertible) throws(EngineError) -> String? {
        let context = try GEOSContext()
        return try context.make(geometry.geometry).invalidityReason()
    }

    /// Repairs an invalid geometry (GEOS's MakeValid): a self-intersecting ring becomes a multi-part polygon.
    public static func makeValid(_ geometry: some GeometryConvertible) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        let context = try GEOSContext()
        return try context.geometry(try context.make(g).madeValid(), in: g.spatialReference)
    }

    private static func binary(
        _ a: some GeometryConvertible, _ b: some GeometryConvertible, _ name: String, singleDimension: Bool = false,
        _ op: (GEOSGeometryRef, GEOSGeometryRef) throws(EngineError) -> GEOSGeometryRef
    ) throws(EngineError) -> Geometry {
        let (ga, gb) = (a.geometry, b.geometry)
        let context = try GEOSContext()
        let (ra, rb) = try context.validPair(ga, gb)
        let result = try op(ra, rb)
        if singleDimension { try context.requireSingleDimension(result, name) }
        return try context.geometry(result, in: ga.spatialReference)
    }
}

// MARK: - Planar measurement

extension GeometryEngine {
    /// The planar area in the square of the spatial reference's unit (0 for points and lines).
    /// - Throws: `.geographicCoordinatesRefused` for degree coordinates (use `geodeticArea`), `.invalidGeometry` for
    ///   invalid polygons (a self-intersecting ring's signed parts cancel: a bow tie would measure 0).
    public static func area(of geometry: some GeometryConvertible) throws(EngineError) -> Double {
        try measure(geometry, "a planar area", requireValid: true) { ref, name throws(EngineError) in try ref.area(name) }
    }

    /// The planar length (perimeter for polygons: the length of all rings, holes included) in the spatial
    /// reference's unit. It depends only on the rings, so it is measured even for an invalid polygon.
    /// - Throws: `.geographicCoordinatesRefused` for degree coordinates (use `geodeticLength`).
    public static func length(of geometry: some GeometryConvertible) throws(EngineError) -> Double {
        try measure(geometry, "a planar length", requireValid: false) { ref, name throws(EngineError) in try ref.length(name) }
    }

    /// The smallest planar distance between two geometries in their spatial reference's unit (0 when they meet).
    /// - Throws: `.spatialReferenceMismatch`, `.geographicCoordinatesRefused` for degree coordinates (use
    ///   `geodeticDistance`), `.badGeometry` for an empty geometry (no distance to nothing; GEOS would say 0),
    ///   `.invalidGeometry` for invalid polygons.
    public static func distance(from a: some GeometryConvertible, to b: some GeometryConvertible) throws(EngineError) -> Double {
        let (ga, gb) = (a.geometry, b.geometry)
        try requireSameSpatialReference(ga.spatialReference, gb.spatialReference)
        guard !ga.spatialReference.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar distance") }
        guard !ga.coordinates.isEmpty, !gb.coordinates.isEmpty else {
            throw .badGeometry(.empty("a distance needs two non-empty geometries"))
        }
        let context = try GEOSContext()
        let ra = try context.make(ga), rb = try context.make(gb)
        try context.requireValid(ra, ga)
        try context.requireValid(rb, gb)
        return try ra.distance(to: rb, "distance")
    }

    private static func measure(
        _ geometry: some GeometryConvertible, _ name: String, requireValid: Bool,
        _ op: (GEOSGeometryRef, String) throws(EngineError) -> Double
    ) throws(EngineError) -> Double {
        let g = geometry.geometry
        guard !g.spatialReference.isGeographic else { throw .geographicCoordinatesRefused(operation: name) }
        let context = try GEOSContext()
        let ref = try context.make(g)
        if requireValid { try context.requireValid(ref, g) }
        return try op(ref, name)
    }
}

// MARK: - Versions

extension GeometryEngine {
    /// The GEOS library version, e.g. "3.11.1-CAPI-1.17.1".
    public static var geosVersion: String { GEOSContext.version }
    /// The PROJ library version, e.g. "9.1.1".
    public static var projVersion: String { PROJInfo.version }
}
