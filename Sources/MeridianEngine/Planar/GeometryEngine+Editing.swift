import Foundation
import MeridianCore

extension GeometryEngine {
    /// How `extend(_:using:options:)` extends a polyline (ArcGIS `GeometryEngine.ExtendOptions`; the empty set is
    /// ArcGIS's `default`: both ends of every path considered, old ends kept, new vertices added, their z
    /// extrapolated along the end segment).
    public struct ExtendOptions: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int
        /// Creates options from raw bits.
        /// - Parameter rawValue: The bits (1 relocate ends, 2 keep end attributes, 4 no end attributes, 8 do not
        ///   extend from the start point, 16 do not extend from the end point, as ArcGIS numbers them).
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Move an extended end to its new position instead of keeping it and adding a vertex.
        public static let relocateEnds = ExtendOptions(rawValue: 1)
        /// The new vertex's z is the old end's, not extrapolated. Incompatible with `noEndAttributes`.
        public static let keepEndAttributes = ExtendOptions(rawValue: 2)
        /// The new vertex has no z. Incompatible with `keepEndAttributes`.
        public static let noEndAttributes = ExtendOptions(rawValue: 4)
        /// Do not extend the start ('from') end of any path.
        public static let doNotExtendFromStartPoint = ExtendOptions(rawValue: 8)
        /// Do not extend the end ('to') end of any path.
        public static let doNotExtendFromEndPoint = ExtendOptions(rawValue: 16)
    }

    /// Extends a polyline to an extender polyline (ArcGIS `extend(_:using:options:)`).
    ///
    /// Each end of each path is extended along its end segment: from the end vertex, away from the previous
    /// distinct vertex, to the nearest point where that ray meets the extender (ArcGIS: "the shortest extension is
    /// chosen"). An end that already lies on the extender, whose ray misses it, or that is shared with an end of
    /// another path (ArcGIS: "only end points for paths that are not shared by the end points of other paths are
    /// extended") is left as it is. Where the ray runs along an extender segment, the nearest point of the overlap
    /// counts. Computed in the plane of the spatial reference's coordinates.
    /// - Parameters:
    ///   - polyline: The polyline to extend.
    ///   - extender: The polyline to extend to, in the same spatial reference.
    ///   - options: ArcGIS's flags (default: none, ArcGIS's `default`).
    /// - Returns: The extended polyline, or `nil` when no end could be extended (as ArcGIS).
    /// - Throws: `.spatialReferenceMismatch`; `.invalidArgument` for `keepEndAttributes` with `noEndAttributes`;
    ///   `.badGeometry` for non-finite coordinates.
    public static func extend(_ polyline: Polyline, using extender: Polyline, options: ExtendOptions = [])
        throws(EngineError) -> Polyline?
    {
        try requireSameSpatialReference(polyline.spatialReference, extender.spatialReference)
        if options.contains(.keepEndAttributes) && options.contains(.noEndAttributes) {
            throw .invalidArgument("keepEndAttributes and noEndAttributes cannot be combined")
        }
        try requireFinite(polyline.geometry)
        try requireFinite(extender.geometry)
        let targets = extender.parts.flatMap { p in zip(p, p.dropFirst()).map { ($0, $1) } }
        try requireBoundedPairs(2 * polyline.parts.count, targets.count, "extend")
        let ends = polyline.parts.flatMap { [$0.first, $0.last] }.compactMap { $0 }
        /// Whether a path end is also an end of another path (counted twice among all ends, or more).
        func shared(_ c: Coordinate) -> Bool { ends.filter { $0.x == c.x && $0.y == c.y }.count > 1 }
        var extended = false
        var parts: [[Coordinate]] = []
        for part in polyline.parts {
            var path = part
            let distinct = path.count >= 2 && path.contains { $0.x != path[0].x || $0.y != path[0].y }
            if distinct, !options.contains(.doNotExtendFromEndPoint), !shared(path[path.count - 1]) {
                let end = path[path.count - 1]
                let before = path.last { $0.x != end.x || $0.y != end.y }!
                if let new = extensionPoint(from: end, away: before, to: targets, options: options) {
                    if options.contains(.relocateEnds) { path[path.count - 1] = new } else { path.append(new) }
                    extended = true
                }
            }
            if distinct, !options.contains(.doNotExtendFromStartPoint), !shared(path[0]) {
                let start = path[0]
                let after = path.first { $0.x != start.x || $0.y != start.y }!
                if let new = extensionPoint(from: start, away: after, to: targets, options: options) {
                    if options.contains(.relocateEnds) { path[0] = new } else { path.insert(new, at: 0) }
                    extended = true
                }
            }
            parts.append(path)
        }
        return extended ? Polyline(parts: parts, spatialReference: polyline.spatialReference) : nil
    }

    /// The nearest point beyond `end` on the ray from `end` away from `previous` where it meets a target segment,
    /// with its z as `options` say; `nil` when the ray meets none at a positive distance.
    private static func extensionPoint(from end: Coordinate, away previous: Coordinate, to targets: [(Coordinate, Coordinate)],
                                  options: ExtendOptions) -> Coordinate? {
        let dx = end.x - previous.x, dy = end.y - previous.y
        let scale = max(abs(end.x), abs(end.y), abs(dx), abs(dy), 1)
        var best = Double.infinity
        for (a, b) in targets {
            let ex = b.x - a.x, ey = b.y - a.y
            let denominator = dx * ey - dy * ex
            let wx = a.x - end.x, wy = a.y - end.y
            if denominator != 0 {
                let u = (wx * ey - wy * ex) / denominator  // along the ray, in units of the end segment
                let t = (wx * dy - wy * dx) / denominator  // along the target segment
                if t >= 0, t <= 1, u > 0 { best = min(best, u) }
            } else if abs(wx * dy - wy * dx) <= 1e-12 * scale * scale {
                // Collinear: the nearest point of the overlap ahead of the end.
                let d2 = dx * dx + dy * dy
                let ua = (wx * dx + wy * dy) / d2, ub = ((b.x - end.x) * dx + (b.y - end.y) * dy) / d2
                let lo = min(ua, ub), hi = max(ua, ub)
                if hi > 0 { best = min(best, max(lo, 0)) }
            }
        }
        guard best.isFinite, best > 0 else { return nil }
        var z: Double?
        if options.contains(.keepEndAttributes) {
            z = end.z
        } else if !options.contains(.noEndAttributes), let ze = end.z, let zp = previous.z {
            z = ze + best * (ze - zp)
        }
        return Coordinate(x: end.x + best * dx, y: end.y + best * dy, z: z)
    }

    /// Reshapes a polyline with a single-path polyline (ArcGIS `reshape(_:using:)` for polylines).
    ///
    /// ArcGIS's rule (its geometry service documents it): the reshaper's first and last intersections with the
    /// polyline — those closest to the reshaper's two ends — bound the piece of the reshaper that goes in; the
    /// polyline between those two points is replaced by it, the polyline's direction kept. When the two points
    /// lie on different paths, the first path up to its point, the reshaper piece and the second path from its
    /// point become one path (ArcGIS: "polylines can be reshaped across paths"); the rest of those two paths is
    /// dropped. Intersections are computed in the plane, crossings and touches alike.
    /// - Parameters:
    ///   - polyline: The polyline to reshape.
    ///   - reshaper: A polyline with exactly one path, in the same spatial reference.
    /// - Returns: The reshaped polyline, or `nil` when the reshaper meets the polyline in fewer than two points.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidArgument` for a reshaper without exactly one path of two or
    ///   more vertices, `.badGeometry`.
    public static func reshape(_ polyline: Polyline, using reshaper: Polyline) throws(EngineError) -> Polyline? {
        let path = try reshaperPath(reshaper, for: polyline.geometry)
        try requireBoundedPairs(path.count, polyline.parts.reduce(0) { $0 + $1.count }, "reshape")
        var hits: [(part: Int, along: Double, at: Double, point: Coordinate)] = []
        for (k, part) in polyline.parts.enumerated() {
            for h in crossings(path, part) { hits.append((k, h.a, h.b, h.point)) }
        }
        guard let first = hits.min(by: { $0.along < $1.along }), let last = hits.max(by: { $0.along < $1.along }),
              last.along > first.along, first.point.x != last.point.x || first.point.y != last.point.y
        else { return nil }
        let piece = subpath(path, from: first.along, to: last.along, start: first.point, end: last.point)
        var parts = polyline.parts
        if first.part == last.part {
            let part = parts[first.part]
            let forward = first.at <= last.at
            let (lo, hi) = forward ? (first, last) : (last, first)
            let middle = forward ? piece : piece.reversed()
            parts[first.part] = subpath(part, from: 0, to: lo.at, end: lo.point) + middle.dropFirst().dropLast()
                + subpath(part, from: hi.at, to: Double(part.count - 1), start: hi.point)
        } else {
            let a = parts[first.part], b = parts[last.part]
            let joined = subpath(a, from: 0, to: first.at, end: first.point) + piece.dropFirst().dropLast()
                + subpath(b, from: last.at, to: Double(b.count - 1), start: last.point)
            parts[min(first.part, last.part)] = joined
            parts.remove(at: max(first.part, last.part))
        }
        return Polyline(parts: parts.map(withoutRepeats), spatialReference: polyline.spatialReference)
    }

    /// Reshapes a polygon with a single-path polyline (ArcGIS `reshape(_:using:)` for polygons).
    ///
    /// ArcGIS's rule (its geometry service documents it): only one ring is reshaped, the first in order (each
    /// part's shell, then its holes) that the reshaper meets in two or more points. The reshaper's first and last
    /// intersections with that ring (closest to the reshaper's ends) split the ring in two; the longer of the two
    /// pieces is kept and closed with the reshaper between the two points, and the polygon is then simplified
    /// (`simplify(_:)`), which may turn the ring inside out or split it where the reshaper crosses it again.
    /// - Parameters:
    ///   - polygon: The polygon to reshape.
    ///   - reshaper: A polyline with exactly one path of two or more vertices, in the same spatial reference.
    /// - Returns: The reshaped polygon, or `nil` when no ring meets the reshaper in two points.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidArgument` for a bad reshaper, `.badGeometry`, `.geos`.
    public static func reshape(_ polygon: Polygon, using reshaper: Polyline) throws(EngineError) -> Polygon? {
        let path = try reshaperPath(reshaper, for: polygon.geometry)
        try requireBoundedPairs(path.count, polygon.geometry.coordinates.count, "reshape")
        var parts = polygon.parts
        for p in parts.indices {
            for r in 0...parts[p].holes.count {
                let ring = Polygon.closed(r == 0 ? parts[p].shell : parts[p].holes[r - 1])
                let hits = crossings(path, ring)
                guard let first = hits.min(by: { $0.a < $1.a }), let last = hits.max(by: { $0.a < $1.a }),
                      last.a > first.a, first.point.x != last.point.x || first.point.y != last.point.y else { continue }
                let piece = subpath(path, from: first.a, to: last.a, start: first.point, end: last.point)
                let n = Double(ring.count - 1)
                // The two pieces of the ring between the two points, each walked forward along the ring.
                let ab = subpath(ring, from: first.b, to: last.b + (last.b < first.b ? n : 0), closed: true,
                                 start: first.point, end: last.point)
                let ba = subpath(ring, from: last.b, to: first.b + (last.b < first.b ? 0 : n), closed: true,
                                 start: last.point, end: first.point)
                let keepAB = pathLength(ab) >= pathLength(ba)
                // ab runs first → last: close it with the reshaper piece reversed; ba runs last → first: with it.
                let newRing = keepAB ? ab + piece.reversed().dropFirst() : ba + piece.dropFirst()
                let closedRing = withoutRepeats(newRing)
                if r == 0 { parts[p].shell = closedRing } else { parts[p].holes[r - 1] = closedRing }
                return try simplify(Polygon(parts: parts, spatialReference: polygon.spatialReference))
            }
        }
        return nil
    }

    /// The one path of a reshaper, checked.
    private static func reshaperPath(_ reshaper: Polyline, for g: Geometry) throws(EngineError) -> [Coordinate] {
        try requireSameSpatialReference(g.spatialReference, reshaper.spatialReference)
        try requireFinite(g)
        try requireFinite(reshaper.geometry)
        guard reshaper.parts.count == 1, reshaper.parts[0].count >= 2 else {
            throw .invalidArgument("a reshaper must be a polyline with exactly one path of two or more vertices, "
                                   + "got \(reshaper.parts.count) paths")
        }
        return reshaper.parts[0]
    }

    /// Fills the closed gaps between polygons with new polygons bounded by the polygons' edges and new polylines
    /// (ArcGIS `autoComplete`; its other SDKs' parameter names are the labels).
    ///
    /// ArcGIS's semantics: the new polygons fill the closed empty areas bounded by the existing polygons' edges
    /// and the polylines; they overlap no existing polygon and no polyline, and each has at least one edge along a
    /// polyline. Only polygons that intersect a polyline take part. Computed with GEOS: the participating
    /// polygons' boundaries and the polylines are noded together and polygonized (GEOS `polygonize_full`); a face
    /// is kept when it lies outside every existing polygon (a point on its surface is not covered by one), no
    /// dangle or cut edge of the linework lies inside it (no polyline runs into it), and one of its edges lies along
    /// a polyline (its midpoint within 1e-9 of the inputs' extent of one: noding rounds vertices). Areas inside
    /// holes of existing polygons count as gaps.
    /// - Parameters:
    ///   - existingBoundaries: The polygons (valid), in one spatial reference.
    ///   - newBoundaries: The polylines, in the same spatial reference.
    /// - Returns: One polygon per closed gap (shell counter-clockwise), in GEOS's polygonize order; empty when
    ///   either input is empty or no gap is closed.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidGeometry` for invalid polygons, `.badGeometry`, `.geos`.
    public static func autoComplete(existingBoundaries: [Polygon], newBoundaries: [Polyline]) throws(EngineError) -> [Polygon] {
        guard let sr = existingBoundaries.first?.spatialReference, !newBoundaries.isEmpty else { return [] }
        for g in existingBoundaries { try requireSameSpatialReference(sr, g.spatialReference) }
        for g in newBoundaries { try requireSameSpatialReference(sr, g.spatialReference) }
        let context = try GEOSContext()
        let lineParts = newBoundaries.flatMap { $0.parts }
        guard !lineParts.isEmpty else { return [] }
        let lines = try context.make(.polyline(Polyline(parts: lineParts, spatialReference: sr)))
        let preparedLines = try GEOSPreparedGeometry(lines, "autoComplete")
        var boundaries: [GEOSGeometryRef] = []
        var polygons: [GEOSGeometryRef] = []
        for p in existingBoundaries where !p.parts.isEmpty {
            let ref = try context.make(.polygon(p))
            try context.requireValid(ref, .polygon(p))
            guard preparedLines.intersects(ref) == true else { continue }
            boundaries.append(try ref.boundary("autoComplete"))
            polygons.append(ref)
        }
        guard !polygons.isEmpty else { return [] }
        // All the linework noded at once (one unary union), as GEOS's own noding would split it.
        let linework = try context.unaryUnion(of: [try lines.clone("autoComplete")] + boundaries, "autoComplete")
        let (faces, cuts, dangles, _) = try linework.polygonizedFully("autoComplete")
        guard case .polygon(let all) = try context.geometry(faces, in: sr) else { return [] }
        // Lines inside a face are the edges polygonize could not use: cut edges and dangles.
        var strays: [Coordinate] = []
        for ref in [cuts, dangles] {
            guard case .polyline(let l) = try context.geometry(ref, in: sr) else { continue }
            for part in l.parts {
                for (a, b) in zip(part, part.dropFirst()) { strays.append(Coordinate(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)) }
            }
        }
        let strayPoints = strays.isEmpty ? nil : try context.make(.multipoint(Multipoint(strays, spatialReference: sr)))
        // A face edge lies along a line when its midpoint is within rounding of one (noding moves vertices by
        // rounding, so an exact test against the original lines would be fragile).
        let extent = Envelope(around: lineParts.flatMap { $0 } + existingBoundaries.flatMap { $0.parts.flatMap { $0.shell } },
                              spatialReference: sr)
        let tolerance = 1e-9 * max(1, extent.map { max($0.width, $0.height) } ?? 1)
        var result: [Polygon] = []
        for face in all.parts {
            let faceRef = try context.make(.polygon(Polygon(parts: [face], spatialReference: sr)))
            let inside = try faceRef.pointOnSurface("autoComplete")
            var covered = false
            for p in polygons { if try p.satisfies(.covers, inside, "autoComplete") { covered = true } }
            if covered { continue }
            let preparedFace = try GEOSPreparedGeometry(faceRef, "autoComplete")
            // A stray midpoint inside the face: all of them tested at once first, one by one only when some meet it.
            if let strayPoints {
                guard let meets = preparedFace.intersects(strayPoints) else { throw context.error("autoComplete") }
                var crossed = false
                if meets {
                    for m in strays where !crossed {
                        let point = try context.make(.point(Point(m, spatialReference: sr)))
                        crossed = preparedFace.contains(point) == true
                    }
                }
                if crossed { continue }
            }
            var along = false
            for ring in face.rings where !along {
                for (a, b) in zip(ring, ring.dropFirst()) where !along {
                    let point = try context.make(.point(Point(Coordinate(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2),
                                                              spatialReference: sr)))
                    along = try preparedLines.distance(to: point, "autoComplete") <= tolerance
                }
            }
            if along { result.append(Polygon(parts: [GEOSContext.oriented(face)], spatialReference: sr)) }
        }
        return result
    }

    // MARK: - Planar path helpers

    /// The most segment pairs `extend` and `reshape` test against each other (each pair a few floating-point
    /// operations: about a second of work).
    static let segmentPairLimit = 200_000_000

    /// Refuses inputs whose segment pairs would pass `segmentPairLimit`.
    private static func requireBoundedPairs(_ a: Int, _ b: Int, _ operation: String) throws(EngineError) {
        guard a.multipliedReportingOverflow(by: b).partialValue <= segmentPairLimit, a < Int(Int32.max), b < Int(Int32.max) else {
            throw .invalidArgument("\(operation) would test \(a) × \(b) segment pairs, more than \(segmentPairLimit); "
                                   + "clip or generalize the inputs first")
        }
    }

    private static func requireFinite(_ g: Geometry) throws(EngineError) {
        if let c = g.coordinates.first(where: { !$0.isFinite }) {
            throw .badGeometry(.nonFiniteCoordinate("(\(c.x), \(c.y)) in a \(g.typeName.lowercased())"))
        }
    }

    /// Where path `p` meets path `q`: positions along each as fractional vertex indices (segment index + fraction)
    /// and the point; collinear overlaps contribute their two ends.
    static func crossings(_ p: [Coordinate], _ q: [Coordinate]) -> [(a: Double, b: Double, point: Coordinate)] {
        var out: [(a: Double, b: Double, point: Coordinate)] = []
        for i in 0..<max(0, p.count - 1) {
            let p0 = p[i], p1 = p[i + 1]
            let dx = p1.x - p0.x, dy = p1.y - p0.y
            for j in 0..<max(0, q.count - 1) {
                let q0 = q[j], q1 = q[j + 1]
                let ex = q1.x - q0.x, ey = q1.y - q0.y
                let d = dx * ey - dy * ex
                let wx = q0.x - p0.x, wy = q0.y - p0.y
                if d != 0 {
                    let s = (wx * ey - wy * ex) / d, t = (wx * dy - wy * dx) / d
                    guard s >= 0, s <= 1, t >= 0, t <= 1 else { continue }
                    out.append((Double(i) + s, Double(j) + t, Coordinate(x: p0.x + s * dx, y: p0.y + s * dy)))
                } else if wx * dy - wy * dx == 0, dx != 0 || dy != 0, ex != 0 || ey != 0 {
                    // Collinear: the ends of the overlap.
                    let l2 = dx * dx + dy * dy, m2 = ex * ex + ey * ey
                    for c in [p0, p1, q0, q1] {
                        let s = ((c.x - p0.x) * dx + (c.y - p0.y) * dy) / l2
                        let t = ((c.x - q0.x) * ex + (c.y - q0.y) * ey) / m2
                        if s >= 0, s <= 1, t >= 0, t <= 1 { out.append((Double(i) + s, Double(j) + t, c)) }
                    }
                }
            }
        }
        return out
    }

    /// The point at fractional vertex index `f` of a path.
    private static func point(_ path: [Coordinate], at f: Double) -> Coordinate {
        let i = min(Int(f.rounded(.down)), path.count - 1)
        let s = f - Double(i)
        guard s > 0, i + 1 < path.count else { return path[i] }
        let a = path[i], b = path[i + 1]
        return Coordinate(x: a.x + s * (b.x - a.x), y: a.y + s * (b.y - a.y))
    }

    /// The part of a path between fractional vertex indices `from` ≤ `to` (both end points included). With
    /// `closed`, the path is a closed ring and indices may run past its end (they wrap).
    /// `start` and `end`, when given, replace the computed end points (the same point computed on another path, so
    /// that pieces joined there meet exactly).
    static func subpath(_ path: [Coordinate], from: Double, to: Double, closed: Bool = false,
                        start: Coordinate? = nil, end: Coordinate? = nil) -> [Coordinate] {
        let n = path.count - 1
        func at(_ f: Double) -> Coordinate {
            guard closed, n > 0 else { return point(path, at: f) }
            let k = f.truncatingRemainder(dividingBy: Double(n))
            return point(path, at: k < 0 ? k + Double(n) : k)
        }
        var out = [start ?? at(from)]
        var k = Int(from.rounded(.down)) + 1
        while Double(k) < to {
            out.append(closed && n > 0 ? path[k % n] : path[k])
            k += 1
        }
        out.append(end ?? at(to))
        return out
    }

    /// A path without consecutive repeated vertices.
    private static func withoutRepeats(_ path: [Coordinate]) -> [Coordinate] {
        var out: [Coordinate] = []
        for c in path where out.last.map({ $0.x != c.x || $0.y != c.y }) ?? true { out.append(c) }
        return out
    }

    private static func pathLength(_ path: [Coordinate]) -> Double {
        zip(path, path.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
    }
}
