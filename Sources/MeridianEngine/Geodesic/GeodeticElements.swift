import Foundation
import MeridianCore

/// One piece of an input geometry that a geodesic buffer keeps its distance from: a vertex, or the interior of a
/// geodesic segment (the points whose nearest point on the segment is not an end).
struct GeodeticElement {
    enum Kind {
        case vertex(Coordinate)
        case segment(start: Coordinate, end: Coordinate, line: Geodesic.Line)
    }
    let kind: Kind
    /// The required distance in meters (> 0).
    let required: Double
}

/// The distance from a point to an element and the direction in which it grows fastest.
struct ElementDistance {
    /// Meters.
    var distance: Double
    /// The azimuth, at the point, of the geodesic coming from the element's nearest point (degrees).
    var azimuth: Double
}

/// The nearest point on a geodesic segment.
struct SegmentFoot {
    /// Meters from the segment's start, in [0, length].
    var along: Double
    /// The distance from the point to the segment, meters.
    var distance: Double
    /// The azimuth at the point of the geodesic from the foot (degrees).
    var azimuth: Double
    /// Whether the foot is strictly inside the segment (not an end).
    var isInterior: Bool
}

extension Geodesic {
    /// The mean radius (2a + b)/3 in meters, for spherical first guesses.
    var meanRadius: Double { ellipsoid.semiMajorAxis * (3 - ellipsoid.flattening) / 3 }

    /// The nearest point to `p` on a geodesic segment, found by iterating the spherical along-track step
    /// (each step's point and azimuths are PROJ's geodesic solutions, so the converged foot is exact: the geodesic
    /// from it to `p` is perpendicular to the segment).
    /// - Parameters:
    ///   - p: A lon/lat coordinate.
    ///   - line: The segment.
    ///   - guess: A starting position along the segment in meters, if known.
    func foot(of p: Coordinate, on line: Line, guess: Double? = nil) -> SegmentFoot {
        let length = line.length
        let radius = meanRadius
        var t: Double
        if let guess {
            t = min(max(guess, 0), length)
        } else {
            let start = line.position(0)
            let inv = inverse(start.coordinate, p)
            let beta = (inv.azimuth1 - start.azimuth) * .pi / 180
            let sigma = inv.distance / radius
            t = min(max(radius * atan2(sin(sigma) * cos(beta), cos(sigma)), 0), length)
        }
        var lastStep = Double.infinity
        for _ in 0..<60 {
            let s = line.position(t)
            let inv = inverse(s.coordinate, p)
            let beta = (inv.azimuth1 - s.azimuth) * .pi / 180
            let sigma = inv.distance / radius
            var dt = radius * atan2(sin(sigma) * cos(beta), cos(sigma))
            // Guard against oscillation: never step further than half the previous step once converging.
            if abs(dt) > lastStep { dt = dt > 0 ? lastStep / 2 : -lastStep / 2 }
            let next = min(max(t + dt, 0), length)
            let moved = abs(next - t)
            t = next
            if moved < 1e-7 { break }
            lastStep = max(moved, 1e-6)
        }
        let s = line.position(t)
        let inv = inverse(s.coordinate, p)
        let margin = max(length, 1) * 1e-9
        return SegmentFoot(along: t, distance: inv.distance, azimuth: inv.azimuth2,
                           isInterior: t > margin && t < length - margin)
    }

    /// The distance from `p` to an element, or `nil` for a segment whose nearest point is one of its ends (the
    /// end's own vertex element covers that case).
    func distance(from p: Coordinate, to element: GeodeticElement, guess: Double? = nil) -> ElementDistance? {
        switch element.kind {
        case .vertex(let v):
            let inv = inverse(v, p)
            return ElementDistance(distance: inv.distance, azimuth: inv.azimuth2)
        case .segment(_, _, let line):
            let f = foot(of: p, on: line, guess: guess)
            return f.isInterior ? ElementDistance(distance: f.distance, azimuth: f.azimuth) : nil
        }
    }

    /// The distance in meters from `p` to a whole segment, ends included.
    func distance(from p: Coordinate, toSegment line: Line, guess: Double? = nil) -> Double {
        foot(of: p, on: line, guess: guess).distance
    }
}

/// The elements of one buffered geometry, with the sign of its buffer.
struct ElementGroup {
    var elements: [GeodeticElement]
    /// `true` for a shrunk polygon (negative distance): its elements only constrain points inside the polygon.
    var isInward: Bool
    /// For inward groups: a test whether an output coordinate lies inside the input polygon.
    var contains: ((Coordinate) -> Bool)?
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

/// The elements of several groups with the latitude band outside which none of them can come within its required
/// distance, to find quickly whether a point lies strictly inside some element's true buffer.
struct ElementCoverage {
    private struct Entry {
        var group: Int
        var element: GeodeticElement
        var latitudes: ClosedRange<Double>
    }
    private let groups: [ElementGroup]
    /// Sorted by the start of their latitude band.
    private let entries: [Entry]
    /// The widest latitude band, degrees.
    private let widestBand: Double
    /// A lower bound of geodesic distance per unit of angular distance on the sphere in the same longitude and
    /// latitude: the ellipsoid's line element is at least a(1 − e²) = a(1 − f)² times the unit sphere's (the
    /// meridian's smallest radius of curvature; the parallels' radius N ≥ a), less 0.1 % for rounding.
    private let metersPerRadian: Double
    private let geodesic: Geodesic

    /// The number of elements.
    var count: Int { entries.count }

    init(groups: [ElementGroup], geodesic: Geodesic) {
        self.groups = groups
        self.geodesic = geodesic
        // Meters per degree of latitude are at least a(1 − e²) = a(1 − f)² per radian (the meridian's smallest
        // radius of curvature); 1 % on top of that bound and 1 m on the distance keep the band conservative.
        let e = geodesic.ellipsoid
        let metersPerDegree = e.semiMajorAxis * (1 - e.flattening) * (1 - e.flattening) * .pi / 180
        var entries: [Entry] = []
        for (i, group) in groups.enumerated() {
            for element in group.elements {
                let lo: Double, hi: Double, reach: Double
                switch element.kind {
                case .vertex(let v):
                    lo = v.y
                    hi = v.y
                    reach = element.required
                case .segment(let a, let b, let line):
                    // Every point of the segment is within half its length of an end.
                    lo = min(a.y, b.y)
                    hi = max(a.y, b.y)
                    reach = element.required + line.length / 2
                }
                let band = 1.01 * (reach + 1) / metersPerDegree
                entries.append(Entry(group: i, element: element, latitudes: (lo - band)...(hi + band)))
            }
        }
        entries.sort { $0.latitudes.lowerBound < $1.latitudes.lowerBound }
        self.entries = entries
        metersPerRadian = 0.999 * e.semiMajorAxis * (1 - e.flattening) * (1 - e.flattening)
        widestBand = entries.map { $0.latitudes.upperBound - $0.latitudes.lowerBound }.max() ?? 0
    }

    /// The indices of the elements whose latitude band contains `latitude`: a binary search for the last band
    /// starting at or below it, then back while a band could still reach it.
    private func candidates(at latitude: Double) -> [Int] {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].latitudes.lowerBound <= latitude { lo = mid + 1 } else { hi = mid }
        }
        var result: [Int] = []
        var i = lo - 1
        while i >= 0, entries[i].latitudes.lowerBound >= latitude - widestBand {
            if entries[i].latitudes.upperBound >= latitude { result.append(i) }
            i -= 1
        }
        return result
    }

    /// The angle in radians between two lon/lat points on the unit sphere (haversine).
    private static func angle(_ p: Coordinate, _ q: Coordinate) -> Double {
        let rad = Double.pi / 180
        let dLat = (q.y - p.y) * rad, dLon = (q.x - p.x) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(p.y * rad) * cos(q.y * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * asin(min(1, h.squareRoot()))
    }

    /// The `distance − required` of every element that applies at the lon/lat point `p` (output coordinate
    /// `output`) and may come within its required distance of it (for inward groups, only inside the input
    /// polygon, as in `Geodesic.residual`), by element index.
    private func excesses(_ p: Coordinate, output: Coordinate) -> [(index: Int, excess: Double)] {
        var inside: [Int: Bool] = [:]
        var result: [(index: Int, excess: Double)] = []
        for i in candidates(at: p.y) {
            let entry = entries[i]
            if case .vertex(let v) = entry.element.kind,
               metersPerRadian * Self.angle(p, v) > entry.element.required + 1 { continue }
            let group = groups[entry.group]
            if group.isInward, let contains = group.contains {
                if inside[entry.group] == nil { inside[entry.group] = contains(output) }
                if inside[entry.group] == false { continue }
            }
            guard let d = geodesic.distance(from: p, to: entry.element) else { continue }
            result.append((i, d.distance - entry.element.required))
        }
        return result
    }

    /// `Geodesic.residual(at:output:groups:)` where it matters, at most 1 m: the smallest `distance − required` at
    /// the lon/lat point `p` over the elements that can come within 1 m of their required distance, `nil` when
    /// none can (then the residual over all elements exceeds 1 m).
    func nearResidual(_ p: Coordinate, output: Coordinate) -> Double? {
        excesses(p, output: output).map(\.excess).min()
    }

    /// `Geodesic.refineCrossing(_:groups:output:)` without a distance to every element: when the two elements whose
    /// boundaries pass closest to `p0` are both within 1 m of it, they are among the elements that can come that
    /// close (the latitude bands and the spherical bound exclude only elements farther), so the same two are found
    /// from those; otherwise every element is examined as `Geodesic.refineCrossing` does.
    func refineCrossing(_ p0: Coordinate, output: Coordinate)
        -> (point: Coordinate, first: GeodeticElement, second: GeodeticElement)?
    {
        let near = excesses(p0, output: output).sorted { $0.excess < $1.excess }
        guard near.count >= 2, near[1].excess <= 1 else {
            return geodesic.refineCrossing(p0, groups: groups, output: output)
        }
        let first = entries[near[0].index].element, second = entries[near[1].index].element
        return geodesic.crossing(of: first, second, from: p0).map { ($0, first, second) }
    }

    /// The index of the element whose true buffer the lon/lat point `p` (output coordinate `output`) lies deepest
    /// inside, if it lies more than `margin` m inside one (closer than its required distance − `margin`). Such a
    /// point is not on the boundary of the union of the buffers.
    func covering(_ p: Coordinate, output: Coordinate, margin: Double) -> Int? {
        guard let deepest = excesses(p, output: output).min(by: { $0.excess < $1.excess }),
              deepest.excess < -margin else { return nil }
        return deepest.index
    }

    /// `distance − required` from the lon/lat point `p` to the element at `index` (`nil` for a segment whose
    /// nearest point is an end).
    func excess(_ p: Coordinate, element index: Int) -> Double? {
        let element = entries[index].element
        return geodesic.distance(from: p, to: element).map { $0.distance - element.required }
    }

    /// The index of the element, other than `excluded`, on whose boundary the lon/lat point `p` lies most nearly.
    func nearestBoundary(_ p: Coordinate, output: Coordinate, excluding excluded: Int) -> Int? {
        excesses(p, output: output).filter { $0.index != excluded }.min(by: { abs($0.excess) < abs($1.excess) })?.index
    }

    /// The crossing near the lon/lat point `p0` of the boundaries of the elements at two indices.
    func crossing(of first: Int, _ second: Int, from p0: Coordinate) -> Coordinate? {
        geodesic.crossing(of: entries[first].element, entries[second].element, from: p0)
    }
}
