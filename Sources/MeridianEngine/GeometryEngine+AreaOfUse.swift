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

    /// The first geometry with a vertex outside a spatial reference's area of use (PROJ's WGS84 box, edges
    /// included), for refusing input where a planar operation in that spatial reference is not meaningful. All
    /// geometries are projected to WGS84 in one PROJ call. A spatial reference with no known area of use accepts all.
    /// - Parameters:
    ///   - geometries: Geometries sharing one spatial reference (any; they are projected to WGS84 to be checked).
    ///   - spatialReference: The spatial reference whose area of use applies.
    /// - Returns: The index of the first geometry with a vertex outside, and that vertex in degrees; nil when all
    ///   vertices are inside.
    /// - Throws: `EngineError.projectionFailed` or `.spatialReferenceMismatch` from the projection to WGS84.
    public static func firstVertexOutsideAreaOfUse(
        _ geometries: [some GeometryConvertible], of spatialReference: SpatialReference
    ) throws(EngineError) -> (geometryIndex: Int, longitude: Double, latitude: Double)? {
        guard let area = spatialReference.areaOfUse else { return nil }
        for (i, g) in try project(geometries, into: .wgs84).enumerated() {
            if let c = g.coordinates.first(where: { !area.contains(longitude: $0.x, latitude: $0.y) }) {
                return (i, c.x, c.y)
            }
        }
        return nil
    }
}
