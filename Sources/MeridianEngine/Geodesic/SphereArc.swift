import Foundation
import MeridianCore

/// A great-circle arc of the unit sphere between the images of a geodesic segment's ends on the conformal sphere,
/// with a bound on how far the image of the geodesic itself strays from it. That image is a curve of at most
/// `length` radians (the segment's length over the smallest meters per radian along it) joining the arc's ends,
/// so its points q satisfy angle(q, a) + angle(q, b) ≤ length: they lie in the spherical ellipse with foci a and b,
/// whose points are at most β from the arc, cos β = cos(length/2) / cos(c/2) for the arc's angle c (the ellipse's
/// semi-minor axis; a point beyond an end is at most length − c from it, also counted). Then any point's angle to
/// the image is at least its angle to the arc less `stray`.
struct SphereArc {
    private let a: UnitVector, b: UnitVector
    /// The unit normal of the arc's great circle (a × b normalized); `nil` when a and b nearly coincide.
    private let normal: UnitVector?
    /// How far the geodesic's image can be from the arc, radians.
    let stray: Double

    /// The arc from `a` to `b` for a curve of at most `length` radians between them.
    init(_ a: UnitVector, _ b: UnitVector, length: Double) {
        self.a = a
        self.b = b
        let c = a.angle(to: b)
        let n = a.cross(b)
        let norm = n.dot(n).squareRoot()
        normal = norm > 1e-12 ? UnitVector(x: n.x / norm, y: n.y / norm, z: n.z / norm) : nil
        let l = max(length, c)
        // 1 − cos β without cancellation: (cos(c/2) − cos(l/2)) / cos(c/2).
        let oneMinusCos = 2 * sin((l + c) / 4) * sin((l - c) / 4) / cos(c / 2)
        let beta = 2 * asin(min(1, max(0, oneMinusCos / 2).squareRoot()))
        stray = max(beta, l - c) * (1 + 1e-6) + 1e-12
    }

    /// The angle in radians from `p` to the nearest point of the arc (to an end when the nearest point of the
    /// great circle is outside the arc or `p` is closer to the opposite side).
    func angle(to p: UnitVector) -> Double {
        // Where the great circle's nearest point lies on the arc, the angle to the circle is the angle to the arc
        // (and at most the angle to either end, both on the circle): the ends are measured only otherwise.
        if let n = normal, p.dot(a) + p.dot(b) > 0, a.cross(p).dot(n) >= 0, p.cross(b).dot(n) >= 0 {
            return asin(min(1, abs(p.dot(n))))
        }
        return min(p.angle(to: a), p.angle(to: b))
    }
}
