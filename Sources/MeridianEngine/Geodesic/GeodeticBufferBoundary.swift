import Foundation
import MeridianCore

/// The elements of one buffered geometry, with the sign of its buffer.
struct ElementGroup {
    var elements: [GeodeticElement]
    /// `true` for a shrunk polygon (negative distance): its elements only constrain points inside the polygon.
    var isInward: Bool
    /// For inward groups: a test whether an output coordinate lies inside the input polygon.
    var contains: ((Coordinate) -> Bool)?
    /// The buffer's largest allowed deviation in meters (its chord polygons' vertices lie within it of the true
    /// boundaries).
    var tolerance = 0.0
}

extension Geodesic {
    /// The smallest `distance − required` over a set of element groups at a lon/lat point (the signed distance
    /// from the buffer boundary, positive outside a positive buffer), or `nil` when no element applies.
    func residual(at p: Coordinate, output: Coordinate, groups: [ElementGroup]) -> Double? {
        var best: Double?
        for group in groups {
            if group.isInward, let contains = group.contains, !contains(output) { continue }
            for e in group.elements {
                guard let d = distance(from: p, to: e) else { continue }
                let r = d.distance - e.required
                if best == nil || r < best! { best = r }
            }
        }
        return best
    }

    /// Moves a point that lies where the boundaries of two elements cross (as found on their chord approximations)
    /// onto the true crossing: Newton's method on (dist₁ − req₁, dist₂ − req₂) in the local east/north plane, each
    /// step a geodesic move. Returns `nil` when it does not converge to 10 µm; otherwise the crossing and the two
    /// elements whose boundaries cross there.
    func refineCrossing(_ p0: Coordinate, groups: [ElementGroup], output: Coordinate)
        -> (point: Coordinate, first: GeodeticElement, second: GeodeticElement)?
    {
        // The two elements whose boundaries pass closest to the point.
        var candidates: [(r: Double, e: GeodeticElement)] = []
        for group in groups {
            if group.isInward, let contains = group.contains, !contains(output) { continue }
            for e in group.elements {
                guard let d = distance(from: p0, to: e) else { continue }
                candidates.append((d.distance - e.required, e))
            }
        }
        guard candidates.count >= 2 else { return nil }
        candidates.sort { $0.r < $1.r }
        return crossing(of: candidates[0].e, candidates[1].e, from: p0).map { ($0, candidates[0].e, candidates[1].e) }
    }

    /// The point on the boundary of `e1` (at its required distance) reached from `p` by a geodesic move of `s` m
    /// (negative: backwards) along `azimuth`, then moved along the direction of `e1`'s distance onto its boundary.
    private func boundaryPoint(of e1: GeodeticElement, from p: Coordinate, azimuth: Double, along s: Double)
        -> Coordinate?
    {
        var q = move(p, azimuth: s < 0 ? azimuth + 180 : azimuth, distance: abs(s))
        for _ in 0..<3 {
            guard let d = distance(from: q, to: e1) else { return nil }
            let r = d.distance - e1.required
            if abs(r) < 1e-7 { break }
            q = move(q, azimuth: r > 0 ? d.azimuth + 180 : d.azimuth, distance: abs(r))
        }
        return q
    }

    /// The other crossing of the boundaries of `e1` and `e2` besides the crossing `x`, within `reach` m of it along
    /// `e1`'s boundary: from `x` the boundary of `e1` is followed (in steps doubling from 1 m) in the direction
    /// that enters `e2`'s true buffer until it leaves it again, and that exit is bisected and refined. Two nearly
    /// tangent boundaries cross twice at the ends of a long thin lens, where the crossings of their chord
    /// approximations can both refine to the same true crossing. Returns `nil` when there is no such crossing
    /// (distinct from `x` by more than 1 mm).
    func otherCrossing(of e1: GeodeticElement, _ e2: GeodeticElement, besides x: Coordinate, reach: Double)
        -> Coordinate?
    {
        guard let d1 = distance(from: x, to: e1) else { return nil }
        let tangent = d1.azimuth + 90
        func excess(_ s: Double) -> (Double, Coordinate)? {
            guard let q = boundaryPoint(of: e1, from: x, azimuth: tangent, along: s),
                  let d2 = distance(from: q, to: e2) else { return nil }
            return (d2.distance - e2.required, q)
        }
        guard let plus = excess(1), let minus = excess(-1) else { return nil }
        let sign: Double = plus.0 < minus.0 ? 1 : -1
        guard min(plus.0, minus.0) < 0 else { return nil }
        var inside = 1.0, s = 1.0
        var outside: Double?
        while s < reach {
            s = min(2 * s, reach)
            guard let e = excess(sign * s) else { return nil }
            if e.0 >= 0 { outside = s; break }
            inside = s
        }
        guard var hi = outside else { return nil }
        var lo = inside
        for _ in 0..<60 where hi - lo > 1e-4 {
            let mid = (lo + hi) / 2
            guard let e = excess(sign * mid) else { return nil }
            if e.0 < 0 { lo = mid } else { hi = mid }
        }
        guard let start = excess(sign * hi)?.1, let y = crossing(of: e1, e2, from: start),
              distance(x, y) > 1e-3 else { return nil }
        return y
    }

    /// The point near `p0` where the boundaries of two elements cross (each at its required distance): Newton's
    /// method on (dist₁ − req₁, dist₂ − req₂) in the local east/north plane, each step a geodesic move. Returns
    /// `nil` when it does not converge to 10 µm.
    func crossing(of e1: GeodeticElement, _ e2: GeodeticElement, from p0: Coordinate) -> Coordinate? {
        var p = p0
        for _ in 0..<40 {
            guard let d1 = distance(from: p, to: e1), let d2 = distance(from: p, to: e2) else { return nil }
            let r1 = d1.distance - e1.required, r2 = d2.distance - e2.required
            if abs(r1) < 1e-6 && abs(r2) < 1e-6 { break }
            let a1 = d1.azimuth * .pi / 180, a2 = d2.azimuth * .pi / 180
            let s1 = sin(a1), c1 = cos(a1), s2 = sin(a2), c2 = cos(a2)
            let det = s1 * c2 - c1 * s2
            guard abs(det) > 1e-9 else { return nil }
            let east = (-r1 * c2 + r2 * c1) / det
            let north = (-r2 * s1 + r1 * s2) / det
            let step = (east * east + north * north).squareRoot()
            guard step.isFinite else { return nil }
            p = move(p, azimuth: atan2(east, north) * 180 / .pi, distance: step)
            if step < 1e-7 { break }
        }
        guard let d1 = distance(from: p, to: e1), let d2 = distance(from: p, to: e2),
              abs(d1.distance - e1.required) < 1e-5, abs(d2.distance - e2.required) < 1e-5 else { return nil }
        return p
    }
}
