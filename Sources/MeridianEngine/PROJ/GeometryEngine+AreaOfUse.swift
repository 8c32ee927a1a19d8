import MeridianCore

extension GeometryEngine {
    /// The area of use of a spatial reference as a polygon in that spatial reference: PROJ's WGS84 box with each
    /// edge densified (a box edge along a parallel is curved in most projections), then projected.
    /// - Parameters:
    ///   - spatialReference: A spatial reference with a known area of use.
    ///   - verticesPerEdge: Vertices on each side of the box, 1…10,000 (default 64).
    /// - Returns: The boundary polygon, counter-clockwise.
    /// - Throws: `EngineError.projectionFailed` when the box cannot be projected, `.proj` when no area is known.
    public static func areaOfUsePolygon(of spatialReference: SpatialReference, verticesPerEdge: Int = 64)
        throws(EngineError) -> Polygon
    {
        guard let area = spatialReference.areaOfUse else {
            throw .proj("PROJ's database has no area of use for \(spatialReference)")
        }
        return try boxPolygon(area, in: spatialReference, verticesPerEdge: verticesPerEdge)
    }

    /// The projection's horizon of a spatial reference as a polygon in that spatial reference: the area of use widened
    /// by ``ProjectionHorizon/margin`` (``ProjectionHorizon/widenedAreaOfUse``), densified and projected like
    /// ``areaOfUsePolygon(of:verticesPerEdge:)``. It outlines where ``firstVertexOutsideHorizon(_:of:)`` accepts
    /// points by their longitude and latitude; the rule's round trip may still refuse a point inside it.
    /// - Parameters:
    ///   - spatialReference: A spatial reference with a known area of use.
    ///   - verticesPerEdge: Vertices on each side of the box, 1…10,000 (default 64).
    /// - Returns: The boundary polygon, counter-clockwise.
    /// - Throws: `EngineError.projectionFailed` when the widened box cannot be projected (it reaches a pole that the
    ///   projection cannot map, as Web Mercator's), `.proj` when no area is known.
    public static func horizonPolygon(of spatialReference: SpatialReference, verticesPerEdge: Int = 64)
        throws(EngineError) -> Polygon
    {
        guard let area = ProjectionHorizon(of: spatialReference).widenedAreaOfUse else {
            throw .proj("PROJ's database has no area of use for \(spatialReference)")
        }
        let polygon = try boxPolygon(area, in: spatialReference, verticesPerEdge: verticesPerEdge)
        // A vertex beyond the largest projected coordinate is a singularity PROJ did not report (PROJ 9.1 maps Web
        // Mercator's pole to 2.4e8 m), where the horizon's rule refuses points: there is no outline to draw.
        let limit = spatialReference.unit.map { maximumProjectedCoordinate / $0.metersPerUnit } ?? maximumProjectedCoordinate
        for c in polygon.parts[0].shell where !(abs(c.x) <= limit && abs(c.y) <= limit) {
            throw .projectionFailed("the horizon of \(spatialReference.name) reaches a singularity of its projection")
        }
        return polygon
    }

    /// A WGS84 longitude/latitude box with `verticesPerEdge` vertices on each side, projected into `spatialReference`.
    private static func boxPolygon(_ area: AreaOfUse, in spatialReference: SpatialReference, verticesPerEdge: Int)
        throws(EngineError) -> Polygon
    {
        let n = max(1, min(verticesPerEdge, 10_000))
        let east = area.west <= area.east ? area.east : area.east + 360
        func lerp(_ a: Double, _ b: Double, _ i: Int) -> Double { a + (b - a) * Double(i) / Double(n) }
        var ring: [Coordinate] = []
        for i in 0..<n { ring.append(Coordinate(x: lerp(area.west, east, i), y: area.south)) }
        for i in 0..<n { ring.append(Coordinate(x: east, y: lerp(area.south, area.north, i))) }
        for i in 0..<n { ring.append(Coordinate(x: lerp(east, area.west, i), y: area.north)) }
        for i in 0..<n { ring.append(Coordinate(x: area.west, y: lerp(area.north, area.south, i))) }
        ring.append(ring[0])
        for i in ring.indices where ring[i].x > 180 { ring[i].x -= 360 }
        try project(&ring, from: .wgs84, into: spatialReference)
        let part = Polygon.Part(shell: Polygon.signedArea(ring) < 0 ? ring.reversed() : ring)
        return Polygon(parts: [part], spatialReference: spatialReference)
    }

    /// The first geometry with a vertex outside a spatial reference's area of use as PROJ records it (the WGS84 box,
    /// edges included, with no margin). All geometries are projected to WGS84 in one PROJ call. A spatial reference
    /// with no known area of use accepts all.
    ///
    /// Deprecated: the rule Meridian applies (and the command line and the viewer apply) is the projection's
    /// horizon, ``firstVertexOutsideHorizon(_:of:)``: the box widened by ``ProjectionHorizon/margin`` (so that the
    /// published test points of a zone just outside it are accepted), with PROJ's round trip.
    /// - Parameters:
    ///   - geometries: Geometries sharing one spatial reference (any; they are projected to WGS84 to be checked).
    ///   - spatialReference: The spatial reference whose area of use applies.
    /// - Returns: The index of the first geometry with a vertex outside, the index of that vertex in the geometry's
    ///   `coordinates` (for a multipoint of many input points: which point), and the vertex in degrees; nil when all
    ///   vertices are inside.
    /// - Throws: `EngineError.projectionFailed` or `.spatialReferenceMismatch` from the projection to WGS84.
    @available(*, deprecated, message: "the box without its margin: use firstVertexOutsideHorizon(_:of:), Meridian's rule")
    public static func firstVertexOutsideAreaOfUse(
        _ geometries: [some GeometryConvertible], of spatialReference: SpatialReference
    ) throws(EngineError) -> (geometryIndex: Int, vertexIndex: Int, longitude: Double, latitude: Double)? {
        guard let area = spatialReference.areaOfUse else { return nil }
        for (i, g) in try project(geometries, into: .wgs84).enumerated() {
            let coordinates = g.coordinates
            if let k = coordinates.firstIndex(where: { !area.contains(longitude: $0.x, latitude: $0.y) }) {
                return (i, k, coordinates[k].x, coordinates[k].y)
            }
        }
        return nil
    }
}

extension GeometryEngine {
    /// The largest round-trip difference accepted by `firstVertexOutsideProjectionDomain`: 1e-6° (about 0.1 m) in a
    /// geographic source, 0.01 of the source's unit (1 cm, or 3 mm in US feet) in a projected one. PROJ's inverses
    /// agree with their forward formulas to nanometers inside the domain; outside it they return another point
    /// altogether (meters to thousands of kilometers away), so the threshold separates the two by orders of magnitude.
    public static let projectionRoundTripTolerance = (degrees: 1e-6, units: 1e-2)

    /// The largest projected coordinate accepted by `firstVertexOutsideProjectionDomain`, in meters: 10^8 m, 2.5
    /// times the Earth's circumference. No projection reaches it inside its domain; beyond it lies a singularity
    /// (the poles in Mercator, for which PROJ returns y = ±242,528,680 m).
    public static let maximumProjectedCoordinate = 1e8

    /// The first vertex outside a projection's own domain: projected back into the source, it does not return where
    /// it started (e.g. x = 10^15 ft in a Texas State Plane zone gives a longitude/latitude that projects back to
    /// somewhere else), or its projected coordinates exceed `maximumProjectedCoordinate` (a singularity such as a
    /// pole in Mercator). Longitudes are compared modulo 360°.
    /// - Parameters:
    ///   - original: The vertices in `source`, in order.
    ///   - projected: The same vertices projected into `target`, in order (same count).
    ///   - source: The spatial reference of `original`.
    ///   - target: The spatial reference of `projected`.
    ///   - transformation: The operation that projected them, when one was chosen
    ///     (``project(_:from:into:datumTransformation:)``); `nil` for the one PROJ picks. The round trip runs its inverse.
    /// - Returns: The index of the first vertex beyond `maximumProjectedCoordinate` or whose round trip differs by
    ///   more than `projectionRoundTripTolerance`, or nil.
    /// - Throws: `EngineError.projectionFailed` when the inverse cannot be computed at all.
    public static func firstVertexOutsideProjectionDomain(
        _ original: [Coordinate], _ projected: [Coordinate], from source: SpatialReference,
        into target: SpatialReference, datumTransformation transformation: DatumTransformation? = nil
    ) throws(EngineError) -> Int? {
        guard source != target else { return nil }
        // Back with the inverse of the operation that ran forward (another operation differs by meters).
        func projectBack(_ coordinates: inout [Coordinate]) throws(EngineError) {
            let pipeline = transformation?.pipeline
            try InterpolatedProjection.between(target, source, pipeline: pipeline, inverse: pipeline != nil)
                .transform(&coordinates, atomically: false)  // (a copy of the caller's: dropped on failure)
        }
        if target.isProjected {
            let limit = maximumProjectedCoordinate / (target.unit?.metersPerUnit ?? 1)
            if let i = projected.firstIndex(where: { !(abs($0.x) <= limit && abs($0.y) <= limit) }) { return i }
        }
        var back = projected
        do { try projectBack(&back) } catch {
            // A vertex that cannot be projected back is outside the domain: find the first one.
            for i in projected.indices {
                var one = [projected[i]]
                if (try? projectBack(&one)) == nil { return i }
            }
            throw error
        }
        for i in original.indices {
            let a = original[i], b = back[i]
            if source.isGeographic {
                var dx = abs(a.x - b.x).truncatingRemainder(dividingBy: 360)
                dx = min(dx, 360 - dx)
                if !(dx <= projectionRoundTripTolerance.degrees && abs(a.y - b.y) <= projectionRoundTripTolerance.degrees) {
                    return i
                }
            } else if !(abs(a.x - b.x) <= projectionRoundTripTolerance.units
                        && abs(a.y - b.y) <= projectionRoundTripTolerance.units) {
                return i
            }
        }
        return nil
    }
}
