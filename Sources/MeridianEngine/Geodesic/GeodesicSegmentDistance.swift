import Foundation
import MeridianCore

/// One edge of a geometry on the ellipsoid: the shortest geodesic between two vertices (compute longitude/latitude,
/// x = longitude), with the ball of unit normals that holds every point of it.
///
/// The ball: every point X of the segment is at most L/2 (L its length) from the segment's midpoint M along the
/// segment itself, a curve of that length; the proof of `GeodeticSpatialIndex.chordBound(meters:curvature:)` holds
/// for any curve (the normal along it turns by at most κ per meter), so the chord from n(M) to n(X) is at most
/// `chordBound(L/2)`. Nothing depends on longitude or latitude: a segment across ±180° or over a pole is bounded
/// the same way.
struct GeodesicSegment: Sendable {
    /// The first vertex.
    let start: Coordinate
    /// The second vertex.
    let end: Coordinate
    /// The geodesic from `start` to `end` (PROJ's `geod_inverseline`).
    let line: Geodesic.Line
    /// The unit normal at the segment's midpoint.
    let center: UnitVector
    /// The chord radius around `center` holding the normals of all the segment's points.
    let radius: Double

    /// The segment from `a` to `b` on `geodesic`'s ellipsoid of largest curvature `curvature`.
    init(_ a: Coordinate, _ b: Coordinate, geodesic: Geodesic, curvature: Double) {
        start = a
        end = b
        line = geodesic.line(from: a, to: b)
        center = UnitVector(line.position(line.length / 2).coordinate)
        radius = GeodeticSpatialIndex.chordBound(meters: line.length / 2, curvature: curvature)
    }
}

extension Geodesic {
    /// The geodesic distance in meters from `p` to the nearest point of a segment, its ends included: the minimum
    /// over the segment of Karney's inverse problem (PROJ's `geod_inverse`).
    ///
    /// The interior minimum is the foot of the perpendicular geodesic, found by `foot(of:on:guess:)` (each step
    /// solves PROJ's direct and inverse problems; it stops when a step moves less than 0.1 µm along the segment,
    /// where the distance is stationary, so its error is far below a micrometre); the ends' distances are taken too,
    /// and the least of the three is returned. Accuracy: within 1 µm of the true minimum (checked against
    /// GeographicLib's `Inverse` minimised by dense sampling and golden-section search, and against meridian and
    /// equator cases solved in closed form, in `ProximityGeodesicShapeTests`).
    func distance(from p: Coordinate, to segment: GeodesicSegment) -> Double {
        let ends = min(distance(p, segment.start), distance(p, segment.end))
        guard segment.line.length > 0 else { return ends }
        return min(ends, foot(of: p, on: segment.line).distance)
    }

    /// The geodesic distance in meters between two segments: 0 when they meet (`meets(_:_:)`), otherwise the
    /// least distance from an end of one to the other segment.
    ///
    /// Why the ends suffice: on a sphere, the distance from a point moving along one arc to a great circle it does
    /// not cross is asin(sin δ · sin t) for an angle t that stays within (0, π), concave in t, so the minimum over
    /// an arc is at one of its ends (or at an end of the other arc, where the foot leaves it). The ellipsoid's
    /// Gaussian curvature is positive everywhere, and by Toponogov's comparison the distance to a geodesic is no
    /// less concave than on the sphere of its smallest curvature, so the same holds: no interior-to-interior
    /// minimum. `ProximityGeodesicShapeTests` checks it against GeographicLib minimised over both segments.
    func distance(between a: GeodesicSegment, _ b: GeodesicSegment) -> Double {
        if meets(a, b) { return 0 }
        return min(distance(from: a.start, to: b), distance(from: a.end, to: b),
                   distance(from: b.start, to: a), distance(from: b.end, to: a))
    }

    /// Whether two segments have a common point (they cross or touch).
    ///
    /// Newton's method on the pair of positions (s along `a`, t along `b`) from their midpoints: at each step the
    /// gap from a(s) to b(t) is Karney's inverse (distance d, azimuths θ₁ at a(s) and θ₂ at b(t)); `b`'s direction is
    /// carried to a(s) along that geodesic, which keeps its angle with it (azimuth β = θ₁ + α_b − θ₂), and the
    /// step solves the tangent-plane equations ds·u(α_a) − dt·u(β) = d·u(θ₁) (u(α) the unit vector of azimuth α).
    /// The step is exact for straight lines in a plane, so the iteration converges quadratically; it stops when
    /// the gap is below 10 nm, and the segments meet when that point lies on both (ends included, 1 µm to spare).
    /// Segments whose normal balls are apart (`GeodesicSegment`) never meet and are not iterated; parallel ones
    /// (no crossing of the two geodesics nearby) are reported apart, and their distance is then an end's.
    func meets(_ a: GeodesicSegment, _ b: GeodesicSegment) -> Bool {
        guard a.center.chord2(to: b.center).squareRoot() <= a.radius + b.radius else { return false }
        let la = a.line.length, lb = b.line.length
        let reach = 4 * (la + lb) + 1
        var s = la / 2, t = lb / 2
        for _ in 0..<50 {
            let pa = a.line.position(s), pb = b.line.position(t)
            let gap = inverse(pa.coordinate, pb.coordinate)
            if gap.distance <= 1e-8 {
                return s >= -1e-6 && s <= la + 1e-6 && t >= -1e-6 && t <= lb + 1e-6
            }
            let radians = Double.pi / 180
            let alpha = pa.azimuth * radians, theta = gap.azimuth1 * radians
            let beta = (gap.azimuth1 + pb.azimuth - gap.azimuth2) * radians
            let det = sin(beta - alpha)
            guard abs(det) > 1e-12 else { return false }
            s += gap.distance * sin(beta - theta) / det
            t += gap.distance * sin(alpha - theta) / det
            // Far beyond both segments: the geodesics' nearest crossing is not on them.
            guard s.isFinite, t.isFinite, abs(s) <= reach, abs(t) <= reach else { return false }
        }
        return false
    }
}
