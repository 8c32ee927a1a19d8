import Foundation
import MeridianCore

/// The ellipsoid's conformal sphere (conformal latitude χ, the same longitude), for cheap lower bounds of geodesic
/// distances: the map from the ellipsoid to the unit sphere at (χ, λ) is conformal with a scale of 1/m(φ) for
/// m(φ) = N(φ) cos φ / cos χ meters per radian, so a path of length s whose latitudes stay within |φ| ≤ Φ maps to
/// a path of at most s / m(Φ) radians and s ≥ m(Φ) × the spherical angle between the ends' images.
/// m decreases with |φ| (d ln m/dφ = (1 − e²)(sin χ − sin φ) / ((1 − e² sin²φ) cos φ), and |χ| < |φ|), from a at
/// the equator to m(90°) = a ((1 − e)/(1 + e))^(e/2) / √(1 − e²) at the poles (0.99665 a on WGS84): the bound is
/// within about 10⁻⁴ of the geodesic distance for paths spanning a degree of latitude.
struct ConformalSphere {
    private let a: Double
    /// The first eccentricity (0 for a sphere and for the prolate fallback).
    private let e: Double
    /// m at the poles, in meters per radian (a for a sphere); for a prolate ellipsoid (f < 0) a constant below its
    /// smallest radius of curvature, a/(1 − f) (then χ = φ and the unit sphere is the geodetic one).
    private let polar: Double
    private let prolate: Bool

    /// The conformal sphere of `ellipsoid`.
    init(_ ellipsoid: Ellipsoid) {
        a = ellipsoid.semiMajorAxis
        let f = ellipsoid.flattening
        prolate = f < 0
        if prolate {
            e = 0
            polar = 0.999 * a * (1 + f)
        } else {
            e = (f * (2 - f)).squareRoot()
            polar = a * pow((1 - e) / (1 + e), e / 2) / (1 - e * e).squareRoot()
        }
    }

    /// The conformal latitude of a geodetic latitude, both in radians.
    func conformalLatitude(_ phi: Double) -> Double {
        guard e > 0 else { return phi }
        let s = sin(phi)
        return 2 * atan(tan(.pi / 4 + phi / 2) * pow((1 - e * s) / (1 + e * s), e / 2)) - .pi / 2
    }

    /// The image of a lon/lat coordinate (degrees) on the unit sphere.
    func unitVector(_ c: Coordinate) -> UnitVector {
        let lat = abs(c.y) >= 90 ? c.y : conformalLatitude(c.y * .pi / 180) * 180 / .pi
        return UnitVector(Coordinate(x: c.x, y: lat))
    }

    /// A lower bound of m(φ) over |φ| ≤ `maximumLatitude` (radians; any value, the bound is taken at most at the
    /// poles), in meters per radian, less 10⁻⁸ relative for rounding.
    func metersPerRadian(maximumLatitude: Double) -> Double {
        let phi = min(abs(maximumLatitude), .pi / 2)
        guard !prolate, e > 0 else { return minimumMetersPerRadian }
        guard phi < .pi / 2 - 1e-6 else { return minimumMetersPerRadian }
        let m = a * cos(phi) / (1 - e * e * sin(phi) * sin(phi)).squareRoot() / cos(conformalLatitude(phi))
        return max(m, polar) * (1 - 1e-8)
    }

    /// The lower bound of m over all latitudes (the poles'), meters per radian, less 10⁻⁸ relative.
    var minimumMetersPerRadian: Double { polar * (1 - 1e-8) }

    /// An upper bound of m at the geodetic latitude `phi` (radians), signed as `phi` (+ at the equator), in meters
    /// per radian: m(φ) plus 10⁻⁸ relative for rounding, or a (m's largest value, at the equator) within 10⁻⁶ rad
    /// of a pole; `nil` for the prolate fallback, whose m is not known (only bounded below).
    /// The largest m along a great-circle arc of the unit sphere is m at the end nearer the equator when both
    /// ends lie in the same hemisphere (along a great circle sin χ = sin i · sin θ, concave in θ over each
    /// hemisphere's half, and m decreases with |φ|), else a: so a path from p to q of at most
    /// max(m(p), m(q)) × their angle exists on the ellipsoid (the image of that arc), and the geodesic distance is at
    /// most that (`upperMetersPerRadian(_:_:)`).
    /// `image`: the point's `unitVector`, if known (cos χ is then its distance from the axis, no conformal latitude
    /// to compute; relative error ≈ 1e-16 / cos χ ≤ 1e-10 here).
    func signedUpperMetersPerRadian(atLatitude phi: Double, image: UnitVector? = nil) -> Double? {
        guard !prolate else { return nil }
        let sign: Double = phi < 0 ? -1 : 1
        guard e > 0, abs(phi) < .pi / 2 - 1e-6 else { return sign * a * (1 + 1e-8) }
        let cosChi = image.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() } ?? cos(conformalLatitude(phi))
        let m = a * cos(phi) / (1 - e * e * sin(phi) * sin(phi)).squareRoot() / cosChi
        return sign * min(m, a) * (1 + 1e-8)
    }

    /// The upper bound of m along the great-circle arc between two images whose ends have the signed bounds `p`
    /// and `q` (`signedUpperMetersPerRadian(atLatitude:)`): the larger when they share a hemisphere, else a's.
    func upperMetersPerRadian(_ p: Double, _ q: Double) -> Double {
        (p < 0) == (q < 0) ? max(abs(p), abs(q)) : a * (1 + 1e-8)
    }

    /// The largest change of latitude in radians along a path of `meters` (the meridian's smallest radius of
    /// curvature is a(1 − e²); for the prolate fallback, the smallest radius bound), with 10⁻⁸ to spare.
    func latitudeSpan(_ meters: Double) -> Double {
        meters / (prolate ? polar : a * (1 - e * e)) * (1 + 1e-8)
    }
}
