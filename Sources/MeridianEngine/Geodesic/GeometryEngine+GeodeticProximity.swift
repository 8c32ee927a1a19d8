import Foundation
import MeridianCore

extension GeometryEngine {
    /// The location on a geometry nearest to a point on the ellipsoid, edges taken as geodesics (ArcGIS
    /// `nearestCoordinateGeodetic`, Swift `geodeticNearestCoordinate(in:to:maxDeviation:deviationUnit:)`).
    ///
    /// Each edge is searched along its geodesic: the distance from the point is sampled at 16 evenly spaced
    /// places and then minimised by golden-section search around the nearest sample, until the bracket is shorter
    /// than `maxDeviation`; an edge that cannot come closer than the best so far (its start's distance minus its
    /// length) is skipped. Points and multipoints are searched vertex by vertex. A point inside a polygon (or
    /// envelope), by the polygon's own coordinates, is at distance 0 and is its own nearest location, reported with
    /// the part and segment of the nearest boundary location.
    /// - Parameters:
    ///   - geometry: Any geometry in a geographic or projected spatial reference.
    ///   - point: The point, in the geometry's spatial reference.
    ///   - maxDeviation: How far the location found may lie from the true nearest location along its edge, in
    ///     `deviationUnit`; zero or less (or NaN) for 1 cm, as in ArcGIS. The distance is then within that much of the
    ///     true distance, and usually far closer (the distance is flat near its minimum).
    ///   - deviationUnit: The unit of `maxDeviation` (default meters).
    /// - Returns: The nearest location in the geometry's spatial reference, with its geodesic distance in meters
    ///   (ArcGIS returns meters too), part and segment index as ``nearestCoordinate(in:to:)`` numbers them; `nil` for
    ///   an empty geometry.
    /// - Throws: `.spatialReferenceMismatch`, `.spatialReferenceRequired` for an unspecified spatial reference,
    ///   `.badGeometry` for non-finite coordinates or latitudes beyond ±90°, `.projectionFailed`.
    public static func geodeticNearestCoordinate(
        in geometry: some GeometryConvertible, to point: Point, maxDeviation: Double = 0,
        deviationUnit: LinearUnit = .meters
    ) throws(EngineError) -> ProximityResult? {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, point.spatialReference)
        guard !g.coordinates.isEmpty else { return nil }
        let step = maxDeviation > 0 && maxDeviation.isFinite ? deviationUnit.convert(maxDeviation, to: .meters) : 0.01
        let frame = try GeodeticFrame(input: g.spatialReference, output: nil)
        let q = try geodeticVertices(of: point.geometry, in: frame)[0][0]
        let closedRings: Bool
        switch g {
        case .polygon, .envelope: closedRings = true
        default: closedRings = false
        }
        let parts = try geodeticVertices(of: g, in: frame).map { closedRings ? Polygon.closed($0) : $0 }
        let geodesic = frame.geodesic
        var best: (distance: Double, at: Coordinate, part: Int, index: Int)?
        func consider(_ c: Coordinate, _ d: Double, _ part: Int, _ index: Int) {
            if best == nil || d < best!.distance { best = (d, c, part, index) }
        }
        for (p, part) in parts.enumerated() {
            if part.count == 1 {
                consider(part[0], geodesic.distance(q, part[0]), p, 0)
                continue
            }
            for i in 0..<(part.count - 1) {
                let (a, b) = (part[i], part[i + 1])
                let edge = geodesic.inverse(a, b)
                let fromStart = geodesic.distance(q, a)
                if let best, fromStart - edge.distance >= best.distance { continue }
                let at = { (s: Double) -> Coordinate in geodesic.move(a, azimuth: edge.azimuth1, distance: s) }
                let f = { (s: Double) -> Double in geodesic.distance(q, at(s)) }
                let samples = 16
                var (bestK, bestF) = (0, fromStart)
                for k in 1...samples {
                    let v = k == samples ? geodesic.distance(q, b) : f(edge.distance * Double(k) / Double(samples))
                    if v < bestF { (bestK, bestF) = (k, v) }
                }
                var lo = edge.distance * Double(max(bestK - 1, 0)) / Double(samples)
                var hi = edge.distance * Double(min(bestK + 1, samples)) / Double(samples)
                let ratio = (5.0.squareRoot() - 1) / 2
                var x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo)
                var f1 = f(x1), f2 = f(x2)
                var iterations = 0
                while hi - lo > step, iterations < 200 {
                    iterations += 1
                    if f1 <= f2 {
                        (hi, x2, f2) = (x2, x1, f1)
                        x1 = hi - ratio * (hi - lo)
                        f1 = f(x1)
                    } else {
                        (lo, x1, f1) = (x1, x2, f2)
                        x2 = lo + ratio * (hi - lo)
                        f2 = f(x2)
                    }
                }
                // The minimum may sit at an end of the bracket (a vertex): compare with the sampled best too.
                let s = f1 <= f2 ? x1 : x2
                let (candidate, distance) = (at(s), min(f1, f2))
                if distance <= bestF {
                    consider(candidate, distance, p, i)
                } else {
                    consider(bestK == samples ? b : bestK == 0 ? a : at(edge.distance * Double(bestK) / Double(samples)),
                             bestF, p, i)
                }
            }
        }
        guard let found = best else { return nil }
        if closedRings, try doesGeometry(g, contain: point) {
            return ProximityResult(coordinate: point, distance: 0, partIndex: found.part, pointIndex: found.index)
        }
        let location = try frame.toOutput(found.at)
        return ProximityResult(coordinate: Point(Coordinate(x: location.x, y: location.y), spatialReference: g.spatialReference),
                               distance: found.distance, partIndex: found.part, pointIndex: found.index)
    }
}
