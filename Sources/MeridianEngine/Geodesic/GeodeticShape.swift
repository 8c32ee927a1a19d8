import Foundation
import MeridianCore

/// A geometry on the ellipsoid for geodesic proximity: its isolated vertices, its edges as geodesic segments, its
/// polygon rings (for "inside") and the box of unit normals that holds every point of it, interior included.
///
/// The distance between two shapes is the least geodesic distance between a point of one and a point of the other
/// (a polygon's interior counts: a point inside is at distance 0): 0 when an edge of one meets an edge of the other
/// or a part of one lies inside a polygon of the other, otherwise the least vertex–vertex, vertex–segment or
/// segment–segment distance (`Geodesic.distance(between:_:)`).
///
/// Inside a polygon: the edges are geodesics, and the inside of a ring is the side its own coordinates enclose,
/// `GeometryEngine.geodeticArea`'s rule: the region enclosed in the longitude/latitude plane (edges along ±90° run
/// along that pole, so a ring with one contains the pole; edges along ±180° are cuts, crossed by no meridian), and
/// for a ring that winds once around a pole without such an edge, the smaller of its two sides. A point is inside
/// a polygon when it is inside an odd number of its rings (holes and parts alike).
final class GeodeticShape: Sendable {
    /// Points of a point or multipoint and one-vertex parts of a line (compute longitude/latitude).
    let vertices: [Coordinate]
    /// The edges of lines and rings.
    let segments: [GeodesicSegment]
    /// The rings of a polygon or envelope; empty for other geometries.
    let rings: [Ring]
    /// One vertex of every connected part (each point, each line part, each ring), to tell whether one geometry
    /// lies inside another whose edges it neither meets nor touches.
    let representatives: [Coordinate]
    /// The box of the unit normals of every point of the geometry, interior included: minima then maxima (x, y, z).
    let box: [Double]
    /// The elements (vertices, then segments) by the boxes of their normal balls.
    let tree: PackedRTree

    /// One ring's edges as the crossing-number test reads them.
    struct Ring: Sendable {
        /// The edges, each with its start (compute longitude/latitude), its longitude span and its geodesic.
        var edges: [Edge]
        /// For a ring that winds around a pole: whether its inside is the side of the north pole (the smaller one);
        /// `nil` for a ring that does not wind.
        var northInside: Bool?
    }

    /// An edge of a ring: from `start`, `span` degrees of longitude (east when positive) along `segment`.
    struct Edge: Sendable {
        var start: Coordinate
        /// The longitude change along the edge: the coordinates' difference wrapped into [-180, 180] (±180 for a
        /// geodesic over a pole, signed as the coordinates), or for an edge along a pole the difference unwrapped.
        var span: Double
        /// The edge's latitude everywhere but its ends when it runs along a pole (both ends at ±90°); `nil` otherwise.
        var pole: Double?
        var segment: Int
    }

    /// The shape of a geometry's parts in compute longitude/latitude.
    /// - Parameters:
    ///   - points: Isolated vertices.
    ///   - paths: Line parts (a one-vertex part is a vertex).
    ///   - rings: Polygon rings (closed or not).
    ///   - geodesic: The ellipsoid's solver.
    ///   - curvature: Its largest curvature (`GeodeticSpatialIndex.largestCurvature(of:)`).
    init(points: [Coordinate], paths: [[Coordinate]], rings ringCoordinates: [[Coordinate]], geodesic: Geodesic,
         curvature: Double) {
        var vertices = points
        var segments: [GeodesicSegment] = []
        var representatives = points
        for path in paths where !path.isEmpty {
            representatives.append(path[0])
            if path.count == 1 { vertices.append(path[0]) }
            for i in 1..<max(1, path.count) {
                segments.append(GeodesicSegment(path[i - 1], path[i], geodesic: geodesic, curvature: curvature))
            }
        }
        var rings: [Ring] = []
        for ring in ringCoordinates where !ring.isEmpty {
            representatives.append(ring[0])
            let closed = Polygon.closed(ring)
            var edges: [Edge] = []
            var winding = 0.0
            for i in 1..<max(1, closed.count) {
                let (a, b) = (closed[i - 1], closed[i])
                let alongPole = abs(a.y) == 90 && a.y == b.y
                var span = b.x - a.x
                if !alongPole {
                    if span > 180 { span -= 360 } else if span < -180 { span += 360 }
                }
                winding += span
                edges.append(Edge(start: a, span: span, pole: alongPole ? a.y : nil, segment: segments.count))
                segments.append(GeodesicSegment(a, b, geodesic: geodesic, curvature: curvature))
            }
            var northInside: Bool?
            if abs(winding) >= 180 {
                // Going east, the north side is on the left, which a positive signed area measures.
                let signed = geodesic.polygonArea(Array(closed.dropLast()), signed: true).area
                northInside = winding > 0 ? signed > 0 : signed < 0
            }
            rings.append(Ring(edges: edges, northInside: northInside))
        }
        self.vertices = vertices
        self.segments = segments
        self.rings = rings
        self.representatives = representatives
        box = Self.normalBox(vertices: vertices, segments: segments, rings: rings, geodesic: geodesic)
        var boxes: [Double] = []
        boxes.reserveCapacity(6 * (vertices.count + segments.count))
        for v in vertices {
            let n = UnitVector(v)
            boxes += [n.x, n.y, n.z, n.x, n.y, n.z]
        }
        for s in segments {
            let (n, r) = (s.center, s.radius)
            boxes += [n.x - r, n.y - r, n.z - r, n.x + r, n.y + r, n.z + r]
        }
        tree = PackedRTree(dimensions: 3, boxes: boxes)
    }

    /// The box of normals: the vertices' normals and the segments' balls, and each of the six points where a
    /// coordinate of the unit normal is extreme (±1: longitude/latitude (0, 0), (90, 0), (180, 0), (-90, 0) and the
    /// poles) that lies inside the polygon.
    ///
    /// Why that holds the interior: the unit normal of the ellipsoid at geodetic latitude φ and longitude λ is the
    /// unit vector of (φ, λ), so a region of the ellipsoid maps onto a region of the unit sphere bounded by the image
    /// of its boundary. A coordinate's largest (or smallest) value over that closed region is taken on its boundary,
    /// or at an interior point where the coordinate is stationary on the sphere, and the only such points are the
    /// six above; so the box of the boundary's normals widened to those of the six that lie inside holds all.
    private static func normalBox(vertices: [Coordinate], segments: [GeodesicSegment], rings: [Ring],
                                  geodesic: Geodesic) -> [Double] {
        var box = [Double.infinity, .infinity, .infinity, -Double.infinity, -.infinity, -.infinity]
        func add(_ n: UnitVector, _ r: Double) {
            for (k, v) in [n.x, n.y, n.z].enumerated() {
                box[k] = min(box[k], v - r)
                box[k + 3] = max(box[k + 3], v + r)
            }
        }
        for v in vertices { add(UnitVector(v), 0) }
        for s in segments { add(s.center, s.radius) }
        if !rings.isEmpty {
            let axes = [Coordinate(x: 0, y: 0), Coordinate(x: 90, y: 0), Coordinate(x: 180, y: 0),
                        Coordinate(x: -90, y: 0), Coordinate(x: 0, y: 90), Coordinate(x: 0, y: -90)]
            for a in axes where contains(a, rings: rings, segments: segments, geodesic: geodesic) {
                add(UnitVector(a), 0)
            }
        }
        return box
    }

    /// Whether a point (compute longitude/latitude) is inside this polygon (inside an odd number of its rings); a
    /// point on an edge may be reported either way (its distance is 0 regardless).
    func contains(_ p: Coordinate, geodesic: Geodesic) -> Bool {
        Self.contains(p, rings: rings, segments: segments, geodesic: geodesic)
    }

    private static func contains(_ p: Coordinate, rings: [Ring], segments: [GeodesicSegment],
                                 geodesic: Geodesic) -> Bool {
        var inside = false
        for ring in rings where ringContains(p, ring, segments: segments, geodesic: geodesic) { inside.toggle() }
        return inside
    }

    /// The crossing-number test along the meridian from `p` to the north pole: each edge whose longitude span
    /// holds p's longitude (half-open: from its western end, exclusive of its eastern, so a meridian through a
    /// vertex is counted once) crosses it once (a geodesic's longitude changes monotonically), at the latitude
    /// `crossingLatitude` gives; an odd count puts `p` inside a ring that does not wind, or on the ring's south side
    /// for one that does.
    private static func ringContains(_ p: Coordinate, _ ring: Ring, segments: [GeodesicSegment],
                                     geodesic: Geodesic) -> Bool {
        var odd = false
        for edge in ring.edges where edge.span != 0 {
            // The longitude offset from the edge's western end, and from its start along the edge.
            let west = edge.span > 0 ? edge.start.x : edge.start.x + edge.span
            var offset = (p.x - west).truncatingRemainder(dividingBy: 360)
            if offset < 0 { offset += 360 }
            guard offset < abs(edge.span) else { continue }
            let along = edge.span > 0 ? offset : offset + edge.span
            let latitude = edge.pole ?? crossingLatitude(segments[edge.segment], offset: along, span: edge.span,
                                                         geodesic: geodesic)
            if latitude > p.y { odd.toggle() }
        }
        guard let north = ring.northInside else { return odd }
        return north ? !odd : odd
    }

    /// The latitude where a segment reaches the longitude `offset` degrees from its start (toward `span`): Newton's
    /// method on the position along it, dλ/ds = sin α / (N cos φ), kept inside a shrinking bracket (bisection when
    /// a step would leave it), to 1 µm along the segment.
    private static func crossingLatitude(_ segment: GeodesicSegment, offset: Double, span: Double,
                                         geodesic: Geodesic) -> Double {
        let line = segment.line
        let start = line.position(0).coordinate.x
        let sign: Double = span > 0 ? 1 : -1
        let a = geodesic.ellipsoid.semiMajorAxis, f = geodesic.ellipsoid.flattening
        let e2 = f * (2 - f)
        var lo = 0.0, hi = line.length
        var s = line.length * offset / span
        var latitude = segment.start.y
        for _ in 0..<80 {
            let (c, azimuth) = line.position(s)
            latitude = c.y
            let excess = sign * (c.x - start - offset)
            if excess == 0 { break }
            if excess > 0 { hi = s } else { lo = s }
            guard hi - lo > 1e-6 else { break }
            let phi = c.y * .pi / 180
            let n = a / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
            let slope = sin(azimuth * .pi / 180) / (n * cos(phi)) * 180 / .pi
            let next = s - (c.x - start - offset) / slope
            s = next.isFinite && next > lo && next < hi ? next : (lo + hi) / 2
        }
        return latitude
    }

    /// The geodesic distance in meters to another shape on the same ellipsoid, when it is at most `limit`
    /// (otherwise some value above `limit`, possibly +∞). For each element (vertex or segment) of the shape with
    /// fewer, the nearest element of the other is found by a best-first search of the other's element tree, whose
    /// lower bound is the chord from the element's normal ball to a tree box divided by the curvature (the chord
    /// bound read backwards), no farther than the least distance found so far.
    /// - Parameters:
    ///   - other: The other shape.
    ///   - geodesic: The ellipsoid's solver.
    ///   - curvature: Its largest curvature.
    ///   - limit: The largest distance of interest, meters.
    func distance(to other: GeodeticShape, geodesic: Geodesic, curvature: Double, limit: Double) -> Double {
        let swapped = other.elementCount < elementCount
        let (small, large) = swapped ? (other, self) : (self, other)
        var best = Double.infinity
        for i in 0..<small.elementCount {
            let (c, r) = small.ball(i)
            let reach = min(best, limit)
            let found = try? large.tree.nearest(k: 1, maxDistance: reach, lowerBound: { b in
                let s = b.startIndex
                let dx = max(0, b[s] - c.x, c.x - b[s + 3])
                let dy = max(0, b[s + 1] - c.y, c.y - b[s + 4])
                let dz = max(0, b[s + 2] - c.z, c.z - b[s + 5])
                return max(0, ((dx * dx + dy * dy + dz * dz).squareRoot() - r - 1e-12) / curvature)
            }, exact: { j throws(EngineError) in
                swapped ? large.elementDistance(j, small, i, geodesic: geodesic)
                        : small.elementDistance(i, large, j, geodesic: geodesic)
            })
            if let d = found?.first?.distance { best = min(best, d) }
            if best == 0 { return 0 }
        }
        if !rings.isEmpty || !other.rings.isEmpty {
            if other.representatives.contains(where: { !rings.isEmpty && contains($0, geodesic: geodesic) })
                || representatives.contains(where: { !other.rings.isEmpty && other.contains($0, geodesic: geodesic) })
            {
                return 0
            }
        }
        return best
    }

    /// The geodesic distance in meters from a point (compute longitude/latitude) to the shape: 0 inside a polygon,
    /// otherwise to its nearest element, when at most `limit` (otherwise some value above it, possibly +∞).
    func distance(toPoint p: Coordinate, geodesic: Geodesic, curvature: Double, limit: Double) -> Double {
        if !rings.isEmpty, contains(p, geodesic: geodesic) { return 0 }
        let n = UnitVector(p)
        let found = try? tree.nearest(k: 1, maxDistance: limit, lowerBound: { b in
            let s = b.startIndex
            let dx = max(0, b[s] - n.x, n.x - b[s + 3])
            let dy = max(0, b[s + 1] - n.y, n.y - b[s + 4])
            let dz = max(0, b[s + 2] - n.z, n.z - b[s + 5])
            return max(0, ((dx * dx + dy * dy + dz * dz).squareRoot() - 1e-12) / curvature)
        }, exact: { j throws(EngineError) in
            j < vertices.count ? geodesic.distance(p, vertices[j])
                               : geodesic.distance(from: p, to: segments[j - vertices.count])
        })
        return found?.first?.distance ?? .infinity
    }

    /// How many elements (vertices and segments) the shape has.
    var elementCount: Int { vertices.count + segments.count }

    /// Element `i` (vertices first, then segments) as a ball of normals: its centre and chord radius.
    func ball(_ i: Int) -> (center: UnitVector, radius: Double) {
        i < vertices.count ? (UnitVector(vertices[i]), 0) : (segments[i - vertices.count].center,
                                                              segments[i - vertices.count].radius)
    }

    /// The distance between element `i` of this shape and element `j` of `other` (vertices first, then segments).
    private func elementDistance(_ i: Int, _ other: GeodeticShape, _ j: Int, geodesic: Geodesic) -> Double {
        let (vi, vj) = (vertices.count, other.vertices.count)
        switch (i < vi, j < vj) {
        case (true, true): return geodesic.distance(vertices[i], other.vertices[j])
        case (true, false): return geodesic.distance(from: vertices[i], to: other.segments[j - vj])
        case (false, true): return geodesic.distance(from: other.vertices[j], to: segments[i - vi])
        case (false, false): return geodesic.distance(between: segments[i - vi], other.segments[j - vj])
        }
    }
}
