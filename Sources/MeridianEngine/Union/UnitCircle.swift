import Foundation

/// The unit circle GEOS uses for a point's round buffer, so that `center + radius × vertex` reproduces GEOS's buffer
/// vertices bit for bit.
///
/// GEOS 3.11 (`OffsetSegmentGenerator::createCircle` / `addDirectedFillet`) walks clockwise from angle 0 in
/// n = 4q equal steps: vertex k is `(x + r·cos(a_k), y + r·sin(a_k))` with `a_k = Double(-k) · (2π / n)`. The table
/// keeps `cos(a_k)` and `sin(a_k)` exactly as GEOS computes them (the same libm calls on the same arguments) and
/// stores them in counter-clockwise order (GEOS's vertex 0, then n−1, n−2, … 1), the orientation Meridian returns.
struct UnitCircle: Sendable {
    /// Vertices per circle, 4 × segments per quarter circle.
    let count: Int
    /// cos of each vertex's angle, counter-clockwise from angle 0.
    let x: [Double]
    /// sin of each vertex's angle, counter-clockwise from angle 0.
    let y: [Double]
    /// The angle between consecutive vertices, 2π / count.
    let step: Double
    /// cos(π / count): the inscribed polygon's inner radius (edge midpoints) relative to its outer radius.
    let innerRatio: Double

    /// The table for `segmentsPerQuarterCircle` chords per quarter circle.
    init(segmentsPerQuarterCircle q: Int) {
        // GEOS: filletAngleQuantum = π/2/q; nSegs = Int(totalAngle / quantum + 0.5); angleInc = totalAngle / nSegs.
        let quantum = Double.pi / 2.0 / Double(q)
        let total = abs(0.0 - 2.0 * Double.pi)
        let n = Int(total / quantum + 0.5)
        let increment = total / Double(n)
        var cw = [(Double, Double)]()
        cw.reserveCapacity(n)
        for k in 0..<n {
            let angle = 0.0 + Double(-1 * k) * increment
            cw.append((cos(angle), sin(angle)))
        }
        var xs = [Double](), ys = [Double]()
        xs.reserveCapacity(n)
        ys.reserveCapacity(n)
        for m in 0..<n {
            let (c, s) = cw[(n - m) % n]
            xs.append(c)
            ys.append(s)
        }
        count = n
        x = xs
        y = ys
        step = 2 * Double.pi / Double(n)
        innerRatio = cos(Double.pi / Double(n))
    }
}
