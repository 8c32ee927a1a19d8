import Foundation
import MeridianCore

/// Which geodesic circles of a union contribute nothing to its boundary: a circle whose whole boundary lies, by a
/// margin, inside the true disks of other circles (as `CircleUnion`'s culling does in the plane). In heavy overlap
/// nearly every circle is culled after a handful of nearest neighbours, so the union's cost follows its output.
///
/// The test is spherical, with bounds that make it conservative on the ellipsoid: with longitude and latitude taken
/// as spherical coordinates, the ellipsoid's line element lies between a(1 − e²) and a/√(1 − e²) times the unit
/// sphere's (the meridian's and the prime vertical's radii of curvature), so geodesic distances lie between those
/// multiples of spherical angles (0.1 % more slack each way covers rounding). A circle of radius r therefore lies
/// in the spherical annulus [r/R⁺, r/R⁻] around its centre, and the spherical cap of radius (r − margin)/R⁺ lies
/// inside the true disk shrunk by the margin. A neighbour covers the azimuths at which both ends of the annulus
/// lie inside its cap (a cap under a hemisphere is convex; spherical law of cosines); the circle is culled when
/// those azimuth windows cover the full turn.
///
/// Dropping culled circles can open holes that they filled. `fillsHole` tells them apart: with the margin `m`,
/// every vertex of the union's boundary lies more than `m` outside every culled disk or, when it bounds a hole that
/// the culled disks fill, more than `m/2` inside one of them (a point closer than that to a culled circle lies
/// deeper than `m/2` inside another disk, so it is not on the boundary of what remains unless that disk is culled too).
struct GeodeticCircleCulling {
    /// For each circle, whether it is culled (a caller may re-index it, e.g. by geometry; `fillsHole` does not use it).
    var culled: [Bool]
    /// The margin in meters.
    let margin: Double
    private let centers: [Coordinate]
    private let radii: [Double]
    private let geodesic: Geodesic
    private let index: SphereBallIndex?
    private let culledIndices: [Int]

    /// Culls circles given by their centres (compute lon/lat) and radii in meters, with `margin` meters (> 0):
    /// a culled circle's boundary lies at least `margin` inside other circles' true disks. Only circles whose caps
    /// stay clear of the poles and of ±180° (by a degree) are culled, so that what they fill is always a hole.
    /// - Throws: `EngineError.interrupted` when the running `WorkBudget` ends (checked every 256 circles).
    init(centers: [Coordinate], radii: [Double], margin: Double, geodesic: Geodesic) throws(EngineError) {
        self.centers = centers
        self.radii = radii
        self.margin = margin
        self.geodesic = geodesic
        let e = geodesic.ellipsoid
        let e2 = e.flattening * (2 - e.flattening)
        let rLow = 0.999 * e.semiMajorAxis * (1 - e2), rHigh = 1.001 * e.semiMajorAxis / (1 - e2).squareRoot()
        let n = centers.count
        var culled = [Bool](repeating: false, count: n)
        let units = centers.map(UnitVector.init)
        // A grid over longitude (scaled by the cosine of the mean latitude) and latitude in degrees, for visiting
        // neighbours nearest first; missing a far neighbour only culls less.
        let meanLatitude = centers.reduce(0) { $0 + $1.y } / Double(max(n, 1))
        let scale = max(cos(meanLatitude * .pi / 180), 0.05)
        let degrees = 180 / Double.pi
        let grid = CircleGrid(x: centers.map { $0.x * scale }, y: centers.map { $0.y },
                              radius: radii.map { $0 / rLow * degrees })
        var scratch = CoverageScratch()
        for i in 0..<n {
            if i % 256 == 0 { try WorkBudget.check() }  // (the viewer's deadline or a client gone: stop early)
            let c = centers[i]
            let aLow = radii[i] / rHigh, aHigh = radii[i] / rLow
            let aHighDegrees = aHigh * degrees
            guard aHigh < 0.5, abs(c.y) + aHighDegrees < 89 else { continue }
            let halfWidth = asin(min(1, sin(aHigh) / cos((abs(c.y) + aHighDegrees) / degrees))) * degrees
            guard abs(c.x) + halfWidth < 179 else { continue }
            scratch.reset()
            let (ix, iy) = grid.cell(c.x * scale, c.y)
            let lat1 = c.y / degrees
            var covered = false
            ringLoop: for ring in 0...grid.reach(for: aHighDegrees) {
                grid.forEachInRing(ix, iy, ring) { j in
                    if j == i || covered { return }
                    let beta = (radii[j] - margin) / rHigh
                    guard beta > 0, beta < 1.5 else { return }
                    let delta = units[i].angle(to: units[j])
                    if delta + aHigh <= beta * (1 - 1e-9) {
                        covered = true
                        return
                    }
                    guard delta > 1e-12, delta < aHigh + beta else { return }
                    func bound(_ a: Double) -> Double { (cos(beta) - cos(a) * cos(delta)) / (sin(a) * sin(delta)) }
                    let m = max(bound(aLow), bound(aHigh))
                    guard m < 1 else { return }
                    let w = acos(max(m, -1)) - CircleUnion.angleMargin
                    guard w > 0 else { return }
                    let lat2 = centers[j].y / degrees, dLon = (centers[j].x - c.x) / degrees
                    let azimuth = atan2(sin(dLon) * cos(lat2), cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon))
                    scratch.add(center: azimuth < 0 ? azimuth + 2 * .pi : azimuth, halfWidth: w)
                    if scratch.isFull() { covered = true }
                }
                if covered { break ringLoop }
            }
            culled[i] = covered
        }
        self.culled = culled
        culledIndices = culled.indices.filter { culled[$0] }
        index = culledIndices.isEmpty ? nil
            : SphereBallIndex(centers: culledIndices.map { units[$0] }, radii: culledIndices.map { radii[$0] / rLow })
    }

    /// Whether the lon/lat point `p`, a vertex of the boundary of the union of the circles that are not culled,
    /// bounds a hole that culled circles fill: it lies more than `margin`/4 inside a culled circle's true disk.
    func fillsHole(_ p: Coordinate) -> Bool {
        guard let index else { return false }
        var inside = false
        index.forEachCandidate(UnitVector(p)) { k in
            guard !inside else { return }
            let i = culledIndices[k]
            if geodesic.distance(centers[i], p) < radii[i] - margin / 4 { inside = true }
        }
        return inside
    }
}
