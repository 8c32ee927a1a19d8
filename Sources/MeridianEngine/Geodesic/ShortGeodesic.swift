import MeridianCore

/// Geodesic distances of short lines from the chord between their ends: for two points on an ellipsoid at most
/// `a/64` apart (99.7 km on WGS 84), the length of the geodesic between them, within 1 µm of Karney's solution
/// (PROJ's `geod_inverse`), at a fiftieth of its cost — what decides most pairs of a geodesic proximity search.
///
/// The formula: a geodesic has no geodesic curvature, so its curvature as a space curve is the surface's normal
/// curvature κ in its direction, and its torsion is the geodesic torsion, of order f/R. A curve of arc length s
/// whose curvature at its midpoint is κ has the chord c = s − κ²s³/24 + O(s⁵); read backwards,
///
///     s = c + κ²c³/24 + 3κ⁴c⁵/640 + E,
///
/// exact on a sphere up to the c⁷ term, where E holds the change of κ along the line and the torsion. κ is the
/// normal curvature at the surface point over the chord's midpoint in the chord's direction, from the ellipsoid's
/// quadric x²/a² + y²/a² + z²/b² = 1: for a unit tangent t at a point p of it, κ = tᵀAt / |Ap| with
/// A = diag(1/a², 1/a², 1/b²) — no trigonometric function, two square roots.
///
/// Accuracy, measured against GeographicLib (Python, 40,000 pairs per length) and held by `ShortGeodesicTests`
/// (against PROJ's inverse) and `Tests/python/test_near.py` (GeographicLib's, through `meridian near`): E grows as f·s⁵/R⁴ — at most 0.26 µm for chords up to 100 km on WGS 84 and Clarke 1866, 9 nm up to
/// 50 km (the rounding of Earth-centred coordinates, 10⁻⁹ m, below that), 0.81 µm at f = 1/100; 0 to rounding on a
/// sphere. Hence the bound this type states and its users rely on: ≤ 1.6·10⁻¹³·a (1 µm on the Earth) for
/// 0 ≤ f ≤ 1/100 and chords ≤ a/64; `decisionMargin` is six times that.
struct ShortGeodesic: Sendable {
    /// Earth-centred coordinates of a point on the ellipsoid, meters.
    typealias Position = (x: Double, y: Double, z: Double)

    private let a: Double
    private let e2: Double
    private let inverseA2: Double
    private let inverseB2: Double
    /// The longest chord measured, meters (a/64).
    let longestChord: Double
    /// How far from a search distance a short-line distance must be for it to decide the pair (10⁻¹²·a, 6.4 µm on
    /// the Earth: six times the formula's largest error); pairs closer to the limit are measured by Karney's inverse.
    let decisionMargin: Double

    /// The formula for an ellipsoid, or nil when its flattening lies outside [0, 1/100] (where the stated accuracy
    /// has not been measured).
    init?(_ ellipsoid: Ellipsoid) {
        let f = ellipsoid.flattening, a = ellipsoid.semiMajorAxis
        guard f >= 0, f <= 0.01, a.isFinite, a > 0 else { return nil }
        let b = a * (1 - f)
        self.a = a
        e2 = f * (2 - f)
        inverseA2 = 1 / (a * a)
        inverseB2 = 1 / (b * b)
        longestChord = a / 64
        decisionMargin = a * 1e-12
    }

    /// The Earth-centred position of the point whose geodetic unit normal is (`x`, `y`, `z`): N·(x, y, (1 − e²)z)
    /// with N = a/√(1 − e² z²) the prime-vertical radius.
    @inline(__always)
    func position(normalX x: Double, y: Double, z: Double) -> Position {
        let n = a / (1 - e2 * z * z).squareRoot()
        return (n * x, n * y, n * (1 - e2) * z)
    }

    /// The geodesic distance in meters between two points on the ellipsoid (see the type's accuracy), or nil when
    /// their chord is longer than `longestChord`.
    @inline(__always)
    func distance(_ p: Position, _ q: Position) -> Double? {
        let dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z
        let c2 = dx * dx + dy * dy + dz * dz
        guard c2 > 0 else { return 0 }
        let c = c2.squareRoot()
        guard c <= longestChord else { return nil }
        // The gradient of the quadric at the chord's midpoint m (the normal's direction there), g = A·m.
        let mx = 0.5 * (p.x + q.x), my = 0.5 * (p.y + q.y), mz = 0.5 * (p.z + q.z)
        let gx = mx * inverseA2, gy = my * inverseA2, gz = mz * inverseB2
        let g2 = gx * gx + gy * gy + gz * gz
        // The chord's direction in the tangent plane: d − (d·g)g/|g|².
        let dg = (dx * gx + dy * gy + dz * gz) / g2
        let tx = dx - dg * gx, ty = dy - dg * gy, tz = dz - dg * gz
        let t2 = tx * tx + ty * ty + tz * tz
        guard t2 > 0 else { return nil }
        // κ = tᵀAt/|t|² / |A p|, p = m/√(mᵀAm) the surface point over m, so |A p| = |g|/√(m·g).
        let tAt = (tx * tx + ty * ty) * inverseA2 + tz * tz * inverseB2
        let mg = mx * gx + my * gy + mz * gz
        let kappa = tAt / t2 * (mg / g2).squareRoot()
        let k2c2 = kappa * kappa * c2
        return c * (1 + k2c2 * (1.0 / 24 + k2c2 * (3.0 / 640)))
    }

    /// The distance in meters from `p` to the point of unit normal (`x`, `y`, `z`) when it decides whether that
    /// point lies within `limit` meters: the distance when it is below the limit by more than `decisionMargin`,
    /// +∞ when above it by more; nil when it cannot decide (that close to the limit, or a chord beyond
    /// `longestChord`) and Karney's inverse must.
    @inline(__always)
    func decide(from p: Position, toNormalX x: Double, y: Double, z: Double, limit: Double) -> Double? {
        guard let s = distance(p, position(normalX: x, y: y, z: z)) else { return nil }
        if s < limit - decisionMargin { return s }
        return s > limit + decisionMargin ? .infinity : nil
    }
}
