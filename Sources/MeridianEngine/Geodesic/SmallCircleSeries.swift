import Foundation
import MeridianCore

/// A geodesic circle (the points at geodesic distance s from a centre) written as trigonometric series in the
/// azimuth α at the centre, built from a few exact points of PROJ's `geod_direct`, so that the many vertices of a
/// buffer polygon cost a few multiply-adds each instead of one direct problem each.
///
/// On an ellipsoid of revolution the circle is symmetric about the centre's meridian, so latitude is an even and
/// longitude offset an odd function of α:
///
///     φ(α) = φ₀ + Σ_{m=0…M} wₘ·cₘ·cos mα        λ(α) = λ₀ + Σ_{m=1…M−1} dₘ·sin mα      (w₀ = w_M = ½, else 1)
///
/// The coefficients interpolate M + 1 exact points at α = πj/M, j = 0…M (a type-I discrete cosine transform for φ,
/// a type-I sine transform for λ; the points at α = −πj/M follow by symmetry). Both functions are analytic, so the
/// coefficients fall off geometrically, by about ϑ·max(1, tan φ) per order for an angular radius ϑ; M starts at 8
/// and doubles (reusing every point) until the interpolant's error estimate is within the tolerance.
///
/// Error estimate: the largest possible difference between the interpolants on M and on M/2 (every other point),
/// Σ|Δcₘ|·wₘ + Σ|Δdₘ|, converted to meters with the largest radius of curvature over the circle. It bounds the
/// error of the coarser interpolant and, with geometric decay, overestimates the finer one's by about the decay
/// ratio to the power M/2. `SmallCircleSeriesTests` compares the vertices with `geod_direct` at every azimuth.
///
/// Only circles that do not reach a pole are represented (`init` returns `nil` otherwise).
struct SmallCircleSeries {
    /// The centre's longitude and latitude, degrees.
    let center: Coordinate
    /// The circle's radius in meters.
    let radius: Double
    /// The number of intervals M between the exact points on [0, π].
    let order: Int
    /// Cosine coefficients of latitude − φ₀, degrees (c₀ … c_M, weights not applied).
    private let latitudeCoefficients: [Double]
    /// Sine coefficients of longitude − λ₀, degrees (d₁ … d_{M−1}, stored from index 1; index 0 unused).
    private let longitudeCoefficients: [Double]
    /// The error estimate in meters (see the type's description).
    let errorEstimate: Double

    /// The largest number of intervals tried before giving up (65 direct problems).
    static let maximumOrder = 64

    /// The series of the circle of `radius` meters around `center` (lon/lat, degrees) on `geodesic`'s ellipsoid,
    /// accurate to `tolerance` meters by its estimate; `nil` when the circle reaches within about 1° of a pole, when
    /// its angular radius exceeds 0.2 rad, or when 64 intervals are not enough.
    init?(center: Coordinate, radius: Double, geodesic: Geodesic, tolerance: Double) {
        let ellipsoid = geodesic.ellipsoid
        let a = ellipsoid.semiMajorAxis, f = ellipsoid.flattening
        let e2 = f * (2 - f)
        guard radius > 0, radius.isFinite, tolerance > 0, center.x.isFinite, center.y.isFinite, e2 < 1 else {
            return nil
        }
        // Angular radius on the smallest radius of curvature, a(1 − e²) (meridional, at the equator): an upper bound.
        let theta = radius / (a * (1 - e2))
        let reach = abs(center.y) + theta * 180 / Double.pi
        guard theta <= 0.2, reach <= 89 else { return nil }
        // Meters per degree, bounded above over the circle: the polar radius of curvature a/√(1 − e²) is the
        // largest, and a longitude degree is longest at the circle's latitude nearest the equator.
        let largestRadius = a / (1 - e2).squareRoot()
        let nearestEquator = max(0, abs(center.y) - theta * 180 / Double.pi)
        let metersPerDegreeLatitude = largestRadius * Double.pi / 180
        let metersPerDegreeLongitude = metersPerDegreeLatitude * cos(nearestEquator * Double.pi / 180)

        // Exact points at α = πj/M for the current M; refined by inserting the odd points of 2M.
        var order = 8
        var latitudes: [Double] = []   // φ(πj/M) − φ₀, j = 0…M
        var longitudes: [Double] = []  // λ(πj/M) − λ₀ (unwrapped), j = 0…M
        func exact(_ alpha: Double) -> (Double, Double) {
            let d = geodesic.direct(latitude: center.y, longitude: center.x, azimuth: alpha * 180 / Double.pi,
                                    distance: radius, unroll: true)
            return (d.latitude - center.y, d.longitude - center.x)
        }
        for j in 0...order {
            let (dphi, dlambda) = exact(Double.pi * Double(j) / Double(order))
            latitudes.append(dphi)
            longitudes.append(dlambda)
        }
        var coarse = Self.transform(latitudes: latitudes.enumerated().filter { $0.offset % 2 == 0 }.map { $0.element },
                                    longitudes: longitudes.enumerated().filter { $0.offset % 2 == 0 }.map { $0.element })
        while true {
            let fine = Self.transform(latitudes: latitudes, longitudes: longitudes)
            var latitudeGap = 0.0, longitudeGap = 0.0
            // The two interpolants' difference, coefficient by coefficient (weights ½ at 0 and at the last order).
            for m in 0...order {
                let fineTerm = fine.c[m] * (m == 0 || m == order ? 0.5 : 1)
                let coarseTerm = m > order / 2 ? 0 : coarse.c[m] * (m == 0 || m == order / 2 ? 0.5 : 1)
                latitudeGap += abs(fineTerm - coarseTerm)
                let coarseD = m < order / 2 ? coarse.d[m] : 0
                longitudeGap += abs(fine.d[m] - coarseD)
            }
            let estimate = latitudeGap * metersPerDegreeLatitude + longitudeGap * metersPerDegreeLongitude
            if estimate <= tolerance {
                self.center = center
                self.radius = radius
                self.order = order
                latitudeCoefficients = fine.c
                longitudeCoefficients = fine.d
                errorEstimate = estimate
                return
            }
            guard estimate.isFinite, order < Self.maximumOrder else { return nil }
            // Double M: the old points become the even ones.
            var refinedLatitudes: [Double] = [], refinedLongitudes: [Double] = []
            refinedLatitudes.reserveCapacity(2 * order + 1)
            refinedLongitudes.reserveCapacity(2 * order + 1)
            for j in 0...order {
                refinedLatitudes.append(latitudes[j])
                refinedLongitudes.append(longitudes[j])
                guard j < order else { break }
                let (dphi, dlambda) = exact(Double.pi * Double(2 * j + 1) / Double(2 * order))
                refinedLatitudes.append(dphi)
                refinedLongitudes.append(dlambda)
            }
            latitudes = refinedLatitudes
            longitudes = refinedLongitudes
            order *= 2
            coarse = fine
        }
    }

    /// cos and sin of π·i/`maximumOrder` for i = 0…2·`maximumOrder` − 1.
    private static let unitCircle: (cosines: [Double], sines: [Double]) = {
        let angles = (0..<(2 * maximumOrder)).map { Double.pi * Double($0) / Double(maximumOrder) }
        return (angles.map { cos($0) }, angles.map { sin($0) })
    }()

    /// The type-I cosine transform of `latitudes` and sine transform of `longitudes` (samples at α = πj/M,
    /// j = 0…M): c₀…c_M and d₀…d_M (d₀ = d_M = 0).
    private static func transform(latitudes f: [Double], longitudes g: [Double]) -> (c: [Double], d: [Double]) {
        let m = f.count - 1
        // cos and sin of πjk/M from the table of π·i/maximumOrder (M divides maximumOrder; jk taken modulo 2M).
        let spacing = maximumOrder / m
        var c = [Double](repeating: 0, count: m + 1), d = c
        for k in 0...m {
            var sumC = 0.5 * (f[0] + (k % 2 == 0 ? f[m] : -f[m]))
            var sumD = 0.0
            for j in 1..<m {
                let index = (j * k) % (2 * m) * spacing
                sumC += f[j] * unitCircle.cosines[index]
                sumD += g[j] * unitCircle.sines[index]
            }
            c[k] = 2 * sumC / Double(m)
            d[k] = k == 0 || k == m ? 0 : 2 * sumD / Double(m)
        }
        return (c, d)
    }

    /// The circle's point at azimuth `alpha` (radians clockwise from north): latitude and unwrapped longitude (it
    /// may leave [-180, 180] near the antimeridian), degrees.
    func coordinate(azimuth alpha: Double) -> Coordinate {
        let (dphi, dlambda) = offsets(cosine: cos(alpha), sine: sin(alpha))
        return Coordinate(x: center.x + dlambda, y: center.y + dphi)
    }

    /// φ − φ₀ and λ − λ₀ at the azimuth with the given cosine and sine, by Clenshaw's recurrence on the Chebyshev
    /// forms cos mα = Tₘ(cos α) and sin mα = sin α·Uₘ₋₁(cos α).
    private func offsets(cosine x: Double, sine s: Double) -> (Double, Double) {
        let m = order
        let c = latitudeCoefficients, d = longitudeCoefficients
        // Σ wₖ cₖ Tₖ(x): b_k = w_k c_k + 2x b_{k+1} − b_{k+2}; the sum is b₀ − x·b₁.
        var b1 = 0.5 * c[m], b2 = 0.0
        for k in stride(from: m - 1, through: 1, by: -1) {
            let b0 = c[k] + 2 * x * b1 - b2
            b2 = b1
            b1 = b0
        }
        let latitude = 0.5 * c[0] + x * b1 - b2
        // Σ dₖ Uₖ₋₁(x) for k = 1…M−1: e_k = d_k + 2x e_{k+1} − e_{k+2}; the sum is e₁.
        var e1 = 0.0, e2 = 0.0
        for k in stride(from: m - 1, through: 1, by: -1) {
            let e0 = d[k] + 2 * x * e1 - e2
            e2 = e1
            e1 = e0
        }
        return (latitude, s * e1)
    }

    /// The closed ring of `count` vertices at azimuths 0, −360°/count, −2·360°/count, … (counter-clockwise as seen
    /// from outside, starting due north), the last repeating the first; longitudes unwrapped around λ₀. The ring
    /// is exactly symmetric about the centre's meridian.
    func ring(vertexCount count: Int) -> [Coordinate] {
        precondition(count >= 3)
        var ring = [Coordinate](repeating: center, count: count + 1)
        let step = 2 * Double.pi / Double(count)
        // cos and sin of kα by rotation (a rounding error of k·ε, at most 1e-13 rad for 1e3 steps: far below the
        // series' accuracy).
        let cosStep = cos(step), sinStep = sin(step)
        var cosine = 1.0, sine = 0.0
        for k in 0...(count / 2) {
            if k > 0 {
                (cosine, sine) = (cosine * cosStep - sine * sinStep, sine * cosStep + cosine * sinStep)
            }
            let (dphi, dlambda) = offsets(cosine: cosine, sine: k == 0 || 2 * k == count ? 0 : sine)
            // Azimuth −α (vertex k, counter-clockwise) and +α (vertex count − k) mirror each other.
            ring[k] = Coordinate(x: center.x - dlambda, y: center.y + dphi)
            ring[count - k] = Coordinate(x: center.x + dlambda, y: center.y + dphi)
        }
        ring[count] = ring[0]
        return ring
    }
}
