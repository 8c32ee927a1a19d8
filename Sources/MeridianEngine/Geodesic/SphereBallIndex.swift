import Foundation
import MeridianCore

/// A point of the unit sphere for a longitude/latitude taken as spherical coordinates (x toward 0°E on the equator,
/// z toward the north pole). The chord between two such points is at most their spherical angle, so a ball of
/// angular radius ρ around a centre lies inside the axis-aligned cube of half-side ρ around its unit vector.
struct UnitVector {
    var x: Double
    var y: Double
    var z: Double

    /// The unit vector of a lon/lat coordinate in degrees.
    init(_ c: Coordinate) {
        let lon = c.x * .pi / 180, lat = c.y * .pi / 180
        let cl = cos(lat)
        x = cl * cos(lon)
        y = cl * sin(lon)
        z = sin(lat)
    }

    /// The spherical angle to `other` in radians, in [0, π] (from the chord, accurate for small angles too).
    func angle(to other: UnitVector) -> Double {
        let dx = x - other.x, dy = y - other.y, dz = z - other.z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        return 2 * asin(min(1, chord / 2))
    }
}

/// Balls on the unit sphere (a centre and an angular radius each), bucketed in a uniform 3D grid of cubes, to find
/// the balls that may contain a point in time independent of how many balls there are elsewhere: a point's own cell
/// lists every ball whose bounding cube meets that cell. Balls that would need more than `maximumCellsPerBall`
/// cells (long segments, huge distances) are kept in one list examined for every query.
struct SphereBallIndex {
    /// The cube side, in unit-sphere units.
    let side: Double
    private var buckets: [Int64: [Int32]] = [:]
    private var everywhere: [Int32] = []
    /// The most cells one ball may occupy before it goes to the list examined for every point.
    static let maximumCellsPerBall = 64

    /// Indexes balls given by their unit-vector centres and angular radii (radians, ≥ 0). The cube side is about
    /// the median ball diameter (so most balls occupy at most eight cells), at least 1e-6 (≈ 6 m on the Earth, so that the
    /// 2²¹ cells per axis of the keys span the sphere).
    init(centers: [UnitVector], radii: [Double]) {
        let sorted = radii.sorted()
        let median = sorted.isEmpty ? 1 : sorted[sorted.count / 2]
        side = max(2 * median, 1e-6)
        for (i, c) in centers.enumerated() {
            // Rounding of the unit vectors and of the radius (≈ 1e-16) is covered by a relative and absolute pad.
            let r = radii[i] * (1 + 1e-9) + 1e-12
            guard r.isFinite, r < 4 else {
                everywhere.append(Int32(i))
                continue
            }
            func cell(_ v: Double) -> Int64 { Int64((v / side).rounded(.down)) }
            let lo = (cell(c.x - r), cell(c.y - r), cell(c.z - r)), hi = (cell(c.x + r), cell(c.y + r), cell(c.z + r))
            let cells = (hi.0 - lo.0 + 1) * (hi.1 - lo.1 + 1) * (hi.2 - lo.2 + 1)
            guard cells <= Self.maximumCellsPerBall else {
                everywhere.append(Int32(i))
                continue
            }
            for a in lo.0...hi.0 {
                for b in lo.1...hi.1 {
                    for k in lo.2...hi.2 { buckets[Self.key(a, b, k), default: []].append(Int32(i)) }
                }
            }
        }
    }

    private static func key(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64 {
        let bias: Int64 = 1 << 20
        return ((a + bias) << 42) | ((b + bias) << 21) | (c + bias)
    }

    /// Calls `body` with the index of every ball whose bounding cube contains `p` (a superset of the balls
    /// containing it), each once.
    func forEachCandidate(_ p: UnitVector, _ body: (Int) -> Void) {
        if let bucket = buckets[cell(p)] { for i in bucket { body(Int(i)) } }
        for i in everywhere { body(Int(i)) }
    }

    /// Calls `body` with the index of every ball whose bounding cube contains one of `points`, each once.
    func forEachCandidate(_ points: [UnitVector], _ body: (Int) -> Void) {
        var cells: [Int64] = []
        for p in points where !cells.contains(cell(p)) { cells.append(cell(p)) }
        if cells.count == 1 {
            forEachCandidate(points[0], body)
            return
        }
        // A ball in several of the cells is listed by each: merged, sorted and visited once.
        var merged = cells.flatMap { buckets[$0] ?? [] }
        merged.sort()
        var last: Int32 = -1
        for i in merged where i != last {
            body(Int(i))
            last = i
        }
        for i in everywhere { body(Int(i)) }
    }

    /// The key of the cell holding `p`.
    private func cell(_ p: UnitVector) -> Int64 {
        Self.key(Int64((p.x / side).rounded(.down)), Int64((p.y / side).rounded(.down)),
                 Int64((p.z / side).rounded(.down)))
    }
}
