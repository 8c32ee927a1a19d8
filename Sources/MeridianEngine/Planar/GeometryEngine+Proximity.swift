import Foundation
import MeridianCore

// MARK: - Proximity

/// The answer of ``GeometryEngine/nearestCoordinate(in:to:)`` and ``GeometryEngine/nearestVertex(in:to:)``.
public struct ProximityResult: Sendable, Hashable {
    /// The nearest location on (or vertex of) the geometry.
    public var coordinate: Point
    /// Its planar distance from the query point, in the spatial reference's unit.
    public var distance: Double
    /// The part (polyline part, polygon ring counted shells and holes in order, or multipoint point) it lies on.
    public var partIndex: Int
    /// The vertex index within that part: the vertex itself for ``GeometryEngine/nearestVertex(in:to:)``, the
    /// first vertex of the segment it lies on for ``GeometryEngine/nearestCoordinate(in:to:)``.
    public var pointIndex: Int
}

extension GeometryEngine {
    /// The location on a geometry's points, lines or rings nearest to a point (ArcGIS `nearestCoordinate(in:to:)`).
    /// For a polygon the rings are searched, so a point inside gets the nearest boundary location; ties go to the
    /// first segment in ring order.
    /// - Returns: The nearest location, or `nil` for an empty geometry.
    /// - Throws: `.spatialReferenceMismatch`.
    public static func nearestCoordinate(in geometry: some GeometryConvertible, to point: Point)
        throws(EngineError) -> ProximityResult?
    {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, point.spatialReference)
        var best: ProximityResult?
        for (partIndex, part) in parts(of: g).enumerated() {
            if part.count == 1 {
                consider(part[0], partIndex: partIndex, pointIndex: 0, query: point, into: &best)
                continue
            }
            for i in 0..<(part.count - 1) {
                let c = SegmentProjection(part[i], part[i + 1], point.coordinate).nearest
                consider(c, partIndex: partIndex, pointIndex: i, query: point, into: &best)
            }
        }
        return best
    }

    /// The vertex of a geometry nearest to a point (ArcGIS `nearestVertex(in:to:)`); ties go to the first vertex
    /// in part order.
    /// - Returns: The nearest vertex, or `nil` for an empty geometry.
    /// - Throws: `.spatialReferenceMismatch`.
    public static func nearestVertex(in geometry: some GeometryConvertible, to point: Point)
        throws(EngineError) -> ProximityResult?
    {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, point.spatialReference)
        var best: ProximityResult?
        for (partIndex, part) in parts(of: g).enumerated() {
            for (i, c) in part.enumerated() { consider(c, partIndex: partIndex, pointIndex: i, query: point, into: &best) }
        }
        return best
    }

    /// Where a point projects onto the segment from `a` to `b` (planar): the parameter along the segment, unclamped
    /// (`raw`, < 0 before `a`, > 1 beyond `b`) and clamped (`t`), the nearest location on the segment and its length.
    struct SegmentProjection {
        let raw: Double, t: Double, nearest: Coordinate, length: Double

        init(_ a: Coordinate, _ b: Coordinate, _ q: Coordinate) {
            let dx = b.x - a.x, dy = b.y - a.y
            let lengthSquared = dx * dx + dy * dy
            raw = lengthSquared > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / lengthSquared : 0
            t = min(1, max(0, raw))
            nearest = t == 0 ? a : t == 1 ? b : Coordinate(x: a.x + t * dx, y: a.y + t * dy)
            length = lengthSquared.squareRoot()
        }
    }

    /// The vertex sequences searched by the proximity functions: each point of a multipoint alone, polyline parts,
    /// polygon rings (shells and holes in order).
    private static func parts(of g: Geometry) -> [[Coordinate]] {
        switch g {
        case .point(let p): [[p.coordinate]]
        case .multipoint(let m): m.coordinates.map { [$0] }
        case .polyline(let l): l.parts
        case .polygon(let p): p.rings.map(Polygon.closed)
        case .envelope(let e): e.polygon.rings
        }
    }

    private static func consider(
        _ c: Coordinate, partIndex: Int, pointIndex: Int, query: Point, into best: inout ProximityResult?
    ) {
        let d = hypot(c.x - query.x, c.y - query.y)
        if best == nil || d < best!.distance {
            best = ProximityResult(
                coordinate: Point(Coordinate(x: c.x, y: c.y, z: c.z), spatialReference: query.spatialReference),
                distance: d, partIndex: partIndex, pointIndex: pointIndex)
        }
    }
}
