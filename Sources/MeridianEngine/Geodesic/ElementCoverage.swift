import Foundation
import MeridianCore

/// The elements of several groups in a spatial index, to find quickly the elements whose boundary passes near a
/// point or whose true buffer contains it: a point's candidates are the elements that can come within their
/// required distance plus `reach` of it, whatever the number of elements elsewhere. Queries look for the smallest
/// `distance − required`; they compute exact distances (iterative for segments) nearest-first by a lower bound
/// on the ellipsoid's conformal sphere (`ConformalSphere`) and stop at the first element whose bound exceeds the
/// best found, so a point near a long line computes a few distances, not one per element within reach.
struct ElementCoverage {
    private struct Entry {
        /// The element's group and its index in the group's elements (an entry does not copy the element: a
        /// segment's geodesic line is 53 doubles).
        var group: Int
        var element: Int
        /// A segment's image on the conformal sphere: the great-circle arc between its ends' images and how far
        /// (radians) the image of the geodesic can stray from that arc.
        var arc: SphereArc?
    }
    private let groups: [ElementGroup]
    private let entries: [Entry]
    /// Per entry, what the first filter of a query reads, packed `stride` doubles apart: the centre (the vertex, or
    /// the segment's midpoint, on the conformal unit sphere: x, y, z); the squared chord beyond which a point's
    /// bound exceeds `reach` whatever its latitude; half the segment's length (0 for a vertex; every point of a
    /// segment is that close to its middle); the required distance; and the centre's signed upper bound of m
    /// (`ConformalSphere.signedUpperMetersPerRadian(atLatitude:)`, 0 without one).
    private let packed: [Double]
    private static let stride = 7
    private let index: SphereBallIndex
    private let sphere: ConformalSphere
    /// The largest required distance plus `reach` plus half length over the elements, meters: any element found
    /// lies within it of the query point, so the geodesic between them stays within `sphere.latitudeSpan` of it.
    private let farthest: Double
    private let geodesic: Geodesic
    /// Whether the smallest `distance − required` at a point is at most the distance to any point of any element
    /// (a vertex, or a point of a segment, ends included) less its required distance, so that the distance to an
    /// element's centre bounds it from above: true when no group is inward, the ellipsoid's m is known
    /// (`ConformalSphere.signedUpperMetersPerRadian`), and both ends of every segment are vertex elements of its
    /// group with the same required distance (a point whose nearest point on a segment is an end is then as far
    /// from that end's vertex element). Checked at `init` when asked for (`upperBounds`).
    private let hasUpperBounds: Bool
    /// How far beyond its required distance, in meters, an element is found from a point (≥ 1).
    let reach: Double

    /// The number of elements.
    var count: Int { entries.count }

    /// The element at an entry's index.
    private func element(_ i: Int) -> GeodeticElement { groups[entries[i].group].elements[entries[i].element] }

    /// Indexes the elements of `groups`. `reach` (meters, ≥ 1; default 1) is how far outside an element's true
    /// buffer a point may be and still find it: `refineCrossing` looks that far for the two elements crossing at a
    /// chord polygon's vertex, so pass at least the largest buffer tolerance (such a vertex lies within it of both).
    /// `upperBounds`: check whether the groups allow `isWithin` to decide from upper bounds of distances as well
    /// (see `hasUpperBounds`; one hash look-up per vertex and two per segment).
    init(groups: [ElementGroup], geodesic: Geodesic, reach: Double = 1, upperBounds: Bool = false) {
        self.groups = groups
        self.geodesic = geodesic
        self.reach = max(reach, 1)
        sphere = ConformalSphere(geodesic.ellipsoid)
        let total = groups.reduce(0) { $0 + $1.elements.count }
        var entries: [Entry] = []
        var packed: [Double] = []
        var centers: [UnitVector] = []
        var radii: [Double] = []
        entries.reserveCapacity(total)
        packed.reserveCapacity(Self.stride * total)
        centers.reserveCapacity(total)
        radii.reserveCapacity(total)
        var farthest = 0.0
        var upper = upperBounds && sphere.signedUpperMetersPerRadian(atLatitude: 0) != nil
        for (i, group) in groups.enumerated() {
            upper = upper && !group.isInward
            // With upper bounds, the vertices' required distances (for the check) and images (for the segments'
            // arcs, whose ends they are) by coordinate.
            var vertices: [XY: (required: Double, image: UnitVector)] = [:]
            if upper {
                for element in group.elements {
                    if case .vertex(let v) = element.kind {
                        vertices[XY(v)] = (element.required, sphere.unitVector(v))
                    }
                }
            }
            for (k, element) in group.elements.enumerated() {
                let center: Coordinate, half: Double, u: UnitVector
                var arc: SphereArc?
                switch element.kind {
                case .vertex(let v):
                    center = v
                    half = 0
                    u = vertices[XY(v)]?.image ?? sphere.unitVector(v)
                case .segment(let a, let b, let line):
                    half = line.length / 2
                    center = line.position(half).coordinate
                    u = sphere.unitVector(center)
                    let band = abs(center.y) * .pi / 180 + sphere.latitudeSpan(half)
                    let ends = (vertices[XY(a)], vertices[XY(b)])
                    arc = SphereArc(ends.0?.image ?? sphere.unitVector(a), ends.1?.image ?? sphere.unitVector(b),
                                    length: line.length / sphere.metersPerRadian(maximumLatitude: band))
                    upper = upper && ends.0?.required == element.required && ends.1?.required == element.required
                }
                let far = element.required + self.reach + half
                let angle = far / sphere.minimumMetersPerRadian
                let chord = angle >= .pi ? 2.0 : 2 * sin(angle / 2)
                entries.append(Entry(group: i, element: k, arc: arc))
                packed += [u.x, u.y, u.z, chord * chord * (1 + 1e-9) + 1e-15, half, element.required,
                           sphere.signedUpperMetersPerRadian(atLatitude: center.y * .pi / 180, image: u) ?? 0]
                centers.append(u)
                radii.append(angle)
                farthest = max(farthest, far)
            }
        }
        self.entries = entries
        self.packed = packed
        self.farthest = farthest
        hasUpperBounds = upper
        index = SphereBallIndex(centers: centers, radii: radii)
    }

    /// A query point as the bounds need it: its image on the conformal sphere, the lower bound of m over the
    /// latitudes within `farthest` of it (`scale`), and its signed upper bound of m (`upper`, 0 without one).
    private struct Probe {
        var u: UnitVector
        var scale: Double
        var upper: Double
    }

    private func probe(_ p: Coordinate) -> Probe {
        let phi = p.y * .pi / 180
        let u = sphere.unitVector(p)
        return Probe(u: u, scale: sphere.metersPerRadian(maximumLatitude: abs(phi) + sphere.latitudeSpan(farthest)),
                     upper: hasUpperBounds ? sphere.signedUpperMetersPerRadian(atLatitude: phi, image: u) ?? 0 : 0)
    }

    /// The bounds of entry `i`'s `distance − required` at the probe, when its lower bound is at most `slack`
    /// (else `nil`). The lower bound, for an element whose distance matters (at most its required distance plus
    /// `reach`, so the geodesic to it stays within `farthest` of the point): `scale` times the conformal-sphere
    /// angle to its vertex, or for a segment the larger of the angle to its midpoint less half its length (the
    /// triangle inequality along the segment) and the angle to its arc less the arc's stray (`SphereArc`), less
    /// 1 µm for rounding. The upper bound (+∞ without upper bounds): the upper bound of m along the arc to the
    /// centre (`ConformalSphere.upperMetersPerRadian`) times the angle to it, plus 1 µm: the distance from the point
    /// to the vertex or the segment's midpoint, which bounds the smallest `distance − required` from above
    /// (`hasUpperBounds`).
    @inline(__always)
    private func bounds(_ i: Int, _ q: Probe, slack: Double, _ packed: UnsafeBufferPointer<Double>)
        -> (lower: Double, upper: Double)?
    {
        let k = Self.stride * i
        let dx = q.u.x - packed[k], dy = q.u.y - packed[k + 1], dz = q.u.z - packed[k + 2]
        let chord2 = dx * dx + dy * dy + dz * dz
        guard chord2 <= packed[k + 3] else { return nil }
        let half = packed[k + 4], required = packed[k + 5]
        // The chord is at most the angle: a cheaper bound first (scale × chord − half − required − 1 µm ≤ slack,
        // compared squared with 1e-12 to spare), then the angle, then a segment's arc.
        let reach = (slack + half + required + 1e-6) / q.scale
        guard reach > 0, chord2 <= reach * reach * (1 + 1e-12) else { return nil }
        let toCenter = 2 * asin(min(1, chord2.squareRoot() / 2))
        var angle = toCenter - half / q.scale
        guard q.scale * angle - required - 1e-6 <= slack else { return nil }
        if let arc = entries[i].arc { angle = max(angle, arc.angle(to: q.u) - arc.stray) }
        let lower = q.scale * angle - required - 1e-6
        guard lower <= slack else { return nil }
        guard q.upper != 0 else { return (lower, .infinity) }
        return (lower, sphere.upperMetersPerRadian(q.upper, packed[k + 6]) * toCenter - required + 1e-6)
    }

    /// The entries that may apply at the probe with a lower bound at most `slack`, with their lower bounds, in
    /// increasing order of those, and the smallest upper bound among them (+∞ without upper bounds): from the
    /// index, or from `among` (a `Neighbourhood` holding the probe).
    private func candidates(_ q: Probe, slack: Double, among: Neighbourhood?)
        -> (near: [(index: Int, bound: Double)], upper: Double)
    {
        var near: [(index: Int, bound: Double)] = []
        var upper = Double.infinity
        packed.withUnsafeBufferPointer { packed in
            func visit(_ i: Int) {
                guard let b = bounds(i, q, slack: slack, packed) else { return }
                near.append((i, b.lower))
                upper = min(upper, b.upper)
            }
            if let among {
                for i in among.entries { visit(Int(i)) }
            } else {
                index.forEachCandidate(q.u, visit)
            }
        }
        near.sort { $0.bound < $1.bound }
        return (near, upper)
    }

    /// Visits the elements that apply at the lon/lat point `p` (output coordinate `output`; for inward groups only
    /// inside the input polygon, as in `Geodesic.residual`) and may come within their required distance plus
    /// `slack` (≤ `reach`) of it, in increasing order of a lower bound of their `distance − required` (`bounds`),
    /// calling `visit(index, excess)` with each one's exact value, until the next bound exceeds `limit()` (the
    /// caller's current cut-off: an element whose bound exceeds it cannot change the caller's answer).
    private func scan(_ p: Coordinate, output: Coordinate, slack: Double, limit: () -> Double,
                      _ visit: (_ index: Int, _ excess: Double) -> Void)
    {
        exact(candidates(probe(p), slack: slack, among: nil).near, p, output: output, limit: limit, visit)
    }

    /// `scan`'s exact part over candidates already ordered by their lower bounds.
    private func exact(_ near: [(index: Int, bound: Double)], _ p: Coordinate, output: Coordinate,
                       limit: () -> Double, _ visit: (_ index: Int, _ excess: Double) -> Void)
    {
        var inside: [Int: Bool] = [:]
        for (i, bound) in near {
            if bound > limit() { return }
            let entry = entries[i]
            let group = groups[entry.group]
            if group.isInward, let contains = group.contains {
                if inside[entry.group] == nil { inside[entry.group] = contains(output) }
                if inside[entry.group] == false { continue }
            }
            let element = group.elements[entry.element]
            guard let d = geodesic.distance(from: p, to: element) else { continue }
            visit(i, d.distance - element.required)
        }
    }

    /// The element with the smallest `distance − required` at `p` among those `scan` visits with `slack`.
    private func smallest(_ p: Coordinate, output: Coordinate, slack: Double) -> (index: Int, excess: Double)? {
        var best: (index: Int, excess: Double)?
        scan(p, output: output, slack: slack, limit: { best?.excess ?? .infinity }) { i, excess in
            if best == nil || excess < best!.excess { best = (i, excess) }
        }
        return best
    }

    /// The element with the smallest `distance − required` at the lon/lat point `p` (output coordinate `output`)
    /// and that value in meters, among the elements that can come within `reach` of their required distance;
    /// `nil` when none can.
    func nearest(_ p: Coordinate, output: Coordinate) -> (index: Int, excess: Double)? {
        smallest(p, output: output, slack: reach)
    }

    /// The elements that can matter to `isWithin` with a band up to `slack` (≤ `reach`) at any of a few nearby
    /// points, gathered once for all of them (`neighbourhood(of:slack:)`).
    struct Neighbourhood {
        fileprivate var entries: [Int32]
    }

    /// The entries whose lower bound (`bounds`) can be at most `slack` at some point of `points` (lon/lat, at least
    /// one): the index's candidates of the points' cells, kept when m's lower bound over all the points' latitudes
    /// times (the chord from the middle point's image to the entry's centre less ρ) less its half length and
    /// required distance is at most `slack`, ρ being the largest angle from the middle point's image to another
    /// point's. At a point at angle ≤ ρ from the middle one, the angle to the centre is at least that angle less ρ
    /// (the triangle inequality), and the angle at least the chord, so an entry left out has every lower bound
    /// above `slack` there.
    func neighbourhood(of points: [Coordinate], slack: Double) -> Neighbourhood {
        let images = points.map { sphere.unitVector($0) }
        let middle = images[images.count / 2]
        let rho = images.map { middle.angle(to: $0) }.max()! * (1 + 1e-9) + 1e-15
        let highest = points.map { abs($0.y) }.max()! * .pi / 180
        let scale = sphere.metersPerRadian(maximumLatitude: highest + sphere.latitudeSpan(farthest))
        var kept: [Int32] = []
        packed.withUnsafeBufferPointer { packed in
            index.forEachCandidate(images) { i in
                let k = Self.stride * i
                let dx = middle.x - packed[k], dy = middle.y - packed[k + 1], dz = middle.z - packed[k + 2]
                // The chord is at most the angle, so the entry is kept when the chord is at most ρ plus
                // (slack + half + required + 1 µm) / scale, compared squared (with 1e-12 to spare for rounding).
                let limit = rho + (slack + 1e-6 + packed[k + 4] + packed[k + 5]) / scale
                guard limit > 0, dx * dx + dy * dy + dz * dz <= limit * limit * (1 + 1e-12) else { return }
                kept.append(Int32(i))
            }
        }
        return Neighbourhood(entries: kept)
    }

    /// The entries with a lower bound (`bounds`) at most `slack` at the lon/lat point `p` and those bounds,
    /// nearest-first, from the index or from `among` (a `Neighbourhood` gathered with at least `slack` around
    /// points including `p`, which must give the same).
    func lowerBounds(_ p: Coordinate, slack: Double, among: Neighbourhood? = nil) -> [(index: Int, bound: Double)] {
        candidates(probe(p), slack: slack, among: among).near
    }

    /// Whether the smallest `distance − required` at the lon/lat point `p` (output coordinate `output`) lies within
    /// ±`band` m (`band` ≤ `reach`), with as few exact distances as that takes. With upper bounds
    /// (`hasUpperBounds`, asked for at `init`) and a band of 1 m or more, the smallest upper bound over the
    /// candidates (`bounds`) at most `band` shows some element within it without an exact distance. Otherwise the exact value for the element
    /// at index `hint` (the one expected nearest; `guess`: the position of its foot along a segment in meters, if
    /// known) comes first, then the others nearest-first until one is within `band`. Once some element is known
    /// within `band`, only the elements whose lower bound is below −`band` are computed exactly (nearest-first).
    /// `among`: a `Neighbourhood` of points including `p` gathered with a slack of at least `band`, instead of the
    /// index's candidates.
    func isWithin(_ p: Coordinate, output: Coordinate, band: Double, hint: Int?, guess: Double? = nil,
                  among: Neighbourhood? = nil) -> Bool
    {
        let q = probe(p)
        // The conformal bounds are a few meters apart at distances of 100 km: below a band of 1 m they never decide.
        if hasUpperBounds, band >= 1 {
            // First without the list of candidates: the smallest upper bound, and the entries that may lie deeper
            // than −band (usually none).
            var deep: [(index: Int, bound: Double)] = []
            var upper = Double.infinity
            packed.withUnsafeBufferPointer { packed in
                func visit(_ i: Int) {
                    guard let b = bounds(i, q, slack: band, packed) else { return }
                    if b.lower < -band { deep.append((i, b.lower)) }
                    upper = min(upper, b.upper)
                }
                if let among {
                    for i in among.entries { visit(Int(i)) }
                } else {
                    index.forEachCandidate(q.u, visit)
                }
            }
            if upper <= band {
                deep.sort { $0.bound < $1.bound }
                var failed = false
                exact(deep, p, output: output, limit: { failed ? -.infinity : -band }) { _, e in
                    if e < -band { failed = true }
                }
                return !failed
            }
        }
        let (near, upper) = candidates(q, slack: band, among: among)
        var found = upper <= band, failed = false
        if !found, let hint, let e = excess(p, element: hint, guess: guess) {
            if e < -band { return false }
            found = e <= band
        }
        exact(near, p, output: output, limit: { failed ? -.infinity : found ? -band : .infinity }) { _, e in
            if e < -band { failed = true } else if e <= band { found = true }
        }
        return found && !failed
    }

    /// `Geodesic.residual(at:output:groups:)` where it matters, at most 1 m: the smallest `distance − required` at
    /// the lon/lat point `p` over the elements that can come within 1 m of their required distance, `nil` when
    /// none can (then the residual over all elements exceeds 1 m).
    func nearResidual(_ p: Coordinate, output: Coordinate) -> Double? {
        smallest(p, output: output, slack: 1)?.excess
    }

    /// `Geodesic.refineCrossing(_:groups:output:)` without a distance to every element: when the two elements whose
    /// boundaries pass closest to `p0` are both within `reach` of it, they are among the elements that can come that
    /// close (the index and the spherical bound exclude only elements farther), so the same two are found from
    /// those; otherwise every element is examined as `Geodesic.refineCrossing` does.
    func refineCrossing(_ p0: Coordinate, output: Coordinate)
        -> (point: Coordinate, first: GeodeticElement, second: GeodeticElement)?
    {
        var two: [(index: Int, excess: Double)] = []
        scan(p0, output: output, slack: reach, limit: { two.count < 2 ? .infinity : two[1].excess }) { i, excess in
            two.append((i, excess))
            two.sort { $0.excess < $1.excess }
            if two.count > 2 { two.removeLast() }
        }
        guard two.count >= 2, two[1].excess <= reach else {
            return geodesic.refineCrossing(p0, groups: groups, output: output)
        }
        let first = element(two[0].index), second = element(two[1].index)
        return geodesic.crossing(of: first, second, from: p0).map { ($0, first, second) }
    }

    /// The point of the true union's boundary reached from the lon/lat point `p` (output coordinate `output`) by
    /// moving along the distance gradient of the element with the smallest `distance − required` (inwards when it
    /// is positive, outwards when negative) by that amount, repeated (at most 50 times) until the smallest is within
    /// 1 µm of zero: `p` itself when it already is; `nil` when no element within `reach` of its required distance
    /// applies or the moves do not settle.
    func projection(_ p: Coordinate, output: Coordinate) -> Coordinate? {
        var q = p
        for _ in 0..<50 {
            guard let best = smallest(q, output: output, slack: reach) else { return nil }
            if abs(best.excess) < 1e-6 { return q }
            guard let d = geodesic.distance(from: q, to: element(best.index)) else { return nil }
            q = geodesic.move(q, azimuth: best.excess > 0 ? d.azimuth + 180 : d.azimuth, distance: abs(best.excess))
        }
        return nil
    }

    /// The index of the element whose true buffer the lon/lat point `p` (output coordinate `output`) lies deepest
    /// inside, if it lies more than `margin` m inside one (closer than its required distance − `margin`). Such a
    /// point is not on the boundary of the union of the buffers.
    func covering(_ p: Coordinate, output: Coordinate, margin: Double) -> Int? {
        guard let deepest = smallest(p, output: output, slack: 1), deepest.excess < -margin else { return nil }
        return deepest.index
    }

    /// `distance − required` from the lon/lat point `p` to the element at `index` (`nil` for a segment whose
    /// nearest point is an end).
    func excess(_ p: Coordinate, element index: Int, guess: Double? = nil) -> Double? {
        let element = element(index)
        return geodesic.distance(from: p, to: element, guess: guess).map { $0.distance - element.required }
    }

    /// The index of the element, other than `excluded`, on whose boundary the lon/lat point `p` lies most nearly.
    func nearestBoundary(_ p: Coordinate, output: Coordinate, excluding excluded: Int) -> Int? {
        var best: (index: Int, excess: Double)?
        // |excess| ≥ excess ≥ the bound, so an element whose bound exceeds the best |excess| cannot be nearer.
        scan(p, output: output, slack: 1, limit: { best.map { abs($0.excess) } ?? .infinity }) { i, excess in
            if i != excluded, best == nil || abs(excess) < abs(best!.excess) { best = (i, excess) }
        }
        return best?.index
    }

    /// The crossing near the lon/lat point `p0` of the boundaries of the elements at two indices.
    func crossing(of first: Int, _ second: Int, from p0: Coordinate) -> Coordinate? {
        geodesic.crossing(of: element(first), element(second), from: p0)
    }
}
