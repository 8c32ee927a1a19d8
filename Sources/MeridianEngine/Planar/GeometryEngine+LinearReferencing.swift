import Foundation
import MeridianCore

// MARK: - Linear referencing: locations along a polyline by length

extension GeometryEngine {
    /// The point at a planar distance along a polyline, measured from its first vertex through its parts in order
    /// (ArcGIS `point(along:distance:)`, Runtime `pointAlongPolyline:distance:`).
    ///
    /// A distance of zero or less gives the first vertex, one of the line's length or more the last vertex (as in
    /// ArcGIS). A distance that falls exactly where one part ends and the next begins gives the end of the earlier
    /// part (ArcGIS leaves this undetermined). z is interpolated when both ends of the segment have one.
    /// - Parameters:
    ///   - polyline: The line, in any spatial reference (lengths are planar, in its unit).
    ///   - distance: The distance from the start, in the spatial reference's unit; finite.
    /// - Returns: The point, in the polyline's spatial reference; `nil` for an empty polyline.
    /// - Throws: `.invalidArgument` for a non-finite distance.
    public static func point(along polyline: Polyline, distance: Double) throws(EngineError) -> Point? {
        guard distance.isFinite else { throw .invalidArgument("the distance along the line must be finite, got \(distance)") }
        let parts = polyline.parts.filter { !$0.isEmpty }
        guard let first = parts.first?.first, let last = parts.last?.last else { return nil }
        let sr = polyline.spatialReference
        if distance <= 0 { return Point(first, spatialReference: sr) }
        var travelled = 0.0
        for part in parts where part.count > 1 {
            for i in 0..<(part.count - 1) {
                let (a, b) = (part[i], part[i + 1])
                let length = hypot(b.x - a.x, b.y - a.y)
                if travelled + length >= distance, length > 0 {
                    let t = (distance - travelled) / length
                    let z = a.z.flatMap { za in b.z.map { zb in za + t * (zb - za) } }
                    return Point(Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y), z: z), spatialReference: sr)
                }
                travelled += length
            }
        }
        return Point(last, spatialReference: sr)
    }

    /// Where the location on a polyline nearest to a point lies, as a fraction of the polyline's planar length
    /// from its first vertex (ArcGIS `fractionAlong(line:point:tolerance:)`).
    ///
    /// The nearest location is found as by ``nearestCoordinate(in:to:)`` (ties go to the first segment); its
    /// distance from the line's start, through the parts in order, divided by the total length is the answer.
    /// - Parameters:
    ///   - line: The line; lengths are planar, in its spatial reference's unit.
    ///   - point: The point to locate, in the line's spatial reference.
    ///   - tolerance: The largest distance the point may be from the line, in the spatial reference's unit; a
    ///     negative tolerance accepts any distance as long as the point lies between the line's two ends (its
    ///     nearest location is not a part's first or last vertex reached from beyond it).
    /// - Returns: The fraction in 0...1, or `nil` where ArcGIS answers NaN: the point is farther than `tolerance`
    ///   (or, for a negative tolerance, beyond an end), or the line is empty. A line of zero length answers 0.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidArgument` for a non-finite tolerance or point.
    public static func fractionAlong(line: Polyline, point: Point, tolerance: Double) throws(EngineError) -> Double? {
        try requireSameSpatialReference(line.spatialReference, point.spatialReference)
        guard tolerance.isFinite, point.x.isFinite, point.y.isFinite else {
            throw .invalidArgument("fractionAlong needs a finite point and tolerance")
        }
        let parts = line.parts.filter { !$0.isEmpty }
        guard !parts.isEmpty else { return nil }
        var total = 0.0
        var best: (distance: Double, along: Double, beyondEnd: Bool)?
        for part in parts {
            if part.count == 1 {
                let d = hypot(part[0].x - point.x, part[0].y - point.y)
                if best == nil || d < best!.distance { best = (d, total, d > 0) }
                continue
            }
            for i in 0..<(part.count - 1) {
                let s = SegmentProjection(part[i], part[i + 1], point.coordinate)
                let d = hypot(s.nearest.x - point.x, s.nearest.y - point.y)
                let beyond = (i == 0 && s.raw < 0) || (i == part.count - 2 && s.raw > 1)
                if best == nil || d < best!.distance { best = (d, total + s.t * s.length, beyond && d > 0) }
                total += s.length
            }
        }
        guard let best else { return nil }
        if tolerance >= 0 ? best.distance > tolerance : best.beyondEnd { return nil }
        return total > 0 ? min(1, best.along / total) : 0
    }
}
