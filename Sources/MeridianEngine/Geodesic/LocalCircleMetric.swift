import Foundation
import MeridianCore

/// A closed-form estimate of how far the straight longitude/latitude chords of a small geodesic circle stray from
/// it, used instead of inverse geodesics while the vertices of a circle with mandatory azimuths (a line's end) are
/// chosen (those vertices come from PROJ's `geod_direct`; circles without mandatory azimuths are evenly spaced, see
/// `GeodeticBufferBuilder.evenlySpacedCircle`).
///
/// The distance from the centre is approximated by the mid-latitude formula g(P) = √((M·Δφ)² + (N·cos φₘ·Δλ)²)
/// with the meridional and normal radii M, N at the mean latitude φₘ. Its error e = g − s (s the geodesic distance)
/// is a smooth function of the point, of relative size about (ϑ·tan φ)², where ϑ is the circle's angular radius.
/// A chord's deviation at parameter t is estimated as g(q) − ((1 − t)·g(a) + t·g(b)): its endpoints are exactly on
/// the circle, so e cancels except for its variation along the chord, leaving an error about 8·e/r relative to the
/// deviation itself. The metric is only offered where ϑ·tan φ ≤ `maximumSkew` over the whole circle (relative error
/// of the deviation ≲ 1 %), and the estimate is inflated by `inflation`; `LocalCircleMetricTests` compares it with
/// the exact sampled check.
struct LocalCircleMetric {
    /// The largest angular radius (radians, on the polar radius of curvature) × tan(largest latitude) accepted.
    static let maximumSkew = 0.03
    /// The largest latitude (degrees) any point of an accepted circle may reach.
    static let maximumLatitude = 88.0
    /// The factor applied to the estimate (a margin over its ≲ 1 % error).
    static let inflation = 1.02

    private let lon0: Double
    private let phi0: Double
    private let a: Double
    private let e2: Double
    /// The circle's angular radius ϑ (radians, on the smallest radius of curvature a(1 − e²): an upper bound).
    let angularRadius: Double
    /// ϑ·tan φ at the circle's latitude farthest from the equator: at most `maximumSkew`.
    let skew: Double

    /// The metric of the circle of `radius` m around `center` (lon/lat on `ellipsoid`), or `nil` when the circle is
    /// too large or too close to a pole for the estimate's error bound.
    init?(center: Coordinate, radius: Double, ellipsoid: Ellipsoid) {
        let a = ellipsoid.semiMajorAxis, f = ellipsoid.flattening
        let e2 = f * (2 - f)
        guard radius > 0, radius.isFinite, a > 0, center.y.isFinite, center.x.isFinite else { return nil }
        // The meridional radius of curvature is smallest at the equator: a(1 − e²).
        let theta = radius / (a * (1 - e2))
        let extent = abs(center.y) + theta * 180 / Double.pi
        guard theta <= 0.05, extent <= Self.maximumLatitude else { return nil }
        skew = theta * tan(extent * Double.pi / 180)
        guard skew <= Self.maximumSkew else { return nil }
        angularRadius = theta
        lon0 = center.x
        phi0 = center.y * Double.pi / 180
        self.a = a
        self.e2 = e2
    }

    /// The approximate distance in meters from the centre to `p` (lon/lat, longitude in any turn).
    func distance(_ p: Coordinate) -> Double {
        let dLon = unwrappedLongitude(p.x, near: lon0) - lon0
        let phi = p.y * Double.pi / 180
        let phiM = (phi0 + phi) / 2
        let s = sin(phiM)
        let w = 1 - e2 * s * s
        let n = a / w.squareRoot()
        let m = n * (1 - e2) / w
        let x = n * cos(phiM) * dLon * Double.pi / 180
        let y = m * (phi - phi0)
        return (x * x + y * y).squareRoot()
    }

    /// The estimated largest |distance − radius| at the five points t = k/6 of the straight chord from `a` to `b`
    /// (output lon/lat, `b` unwrapped near `a`), the same points the exact check samples.
    func chordDeviation(_ a: Coordinate, _ b: Coordinate) -> Double {
        let ga = distance(a), gb = distance(b)
        var worst = 0.0
        for k in 1...5 {
            let t = Double(k) / 6
            let q = Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
            worst = max(worst, abs(distance(q) - ((1 - t) * ga + t * gb)))
        }
        return Self.inflation * worst
    }
}
