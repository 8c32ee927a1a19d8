import Foundation
import MeridianCore

// MARK: - Stage 4: placing the vertices of GEOS's union on the true boundary

extension GeodeticBufferPipeline {
    /// Turns a GEOS result into a Meridian polygon: crossing vertices moved onto the true boundary (onto the true
    /// crossing, or, where that lies more than half-way to a neighbour along the ring or is not found, onto the
    /// nearest point of the true boundary), vertices lying strictly inside another element's true buffer removed,
    /// cut lines cleaned, rings oriented.
    /// With `placement` `.projections`, every vertex is projected onto the true boundary instead (`projected`); with
    /// `.asIs`, only the cut lines are cleaned and the rings oriented (GEOS's result as it is).
    static func finish(_ ref: GEOSGeometryRef, groups: [ElementGroup], generated: Set<XY>, frame: GeodeticFrame,
                       context: GEOSContext, placement: VertexPlacement = .crossings) throws(EngineError) -> Polygon {
        let polygon = try context.polygon(ref, in: frame.outputSR)
        guard placement != .asIs else {
            return Polygon(parts: polygon.parts.map { part in
                GEOSContext.oriented(frame.geographicOutput
                    ? Polygon.Part(shell: cleanedCutLines(part.shell), holes: part.holes.map(cleanedCutLines)) : part)
            }, spatialReference: frame.outputSR)
        }
        let geod = frame.geodesic
        // With one element every vertex lies on its boundary by construction; with several, a vertex of one
        // element's sampled boundary can lie inside another's true buffer while outside its straight-edged polygon
        // (in the sliver between a chord and its arc), so it survives the GEOS union but is not on the true union's
        // boundary.
        let coverage = ElementCoverage(groups: groups, geodesic: geod,
                                       reach: 2 * (groups.map { $0.tolerance }.max() ?? 0) + 1)
        if placement == .projections {
            return try projected(polygon, coverage: coverage, frame: frame)
        }
        var crossings: [(ll: Coordinate, out: Coordinate)] = []
        var inserted = false
        // One geometry's buffer: vertices whose true crossing lies past a neighbour are projected (below). Unions
        // of several keep the crossings as they are (projecting there left vertices metres off the union of dense
        // circles in Tests/python/test_geodesic.py, not yet understood); an invalid result goes to `.projections`.
        let projectsAstray = groups.count == 1
        var parts: [Polygon.Part] = []
        for part in polygon.parts {
            var rings: [[Coordinate]] = []
            for ring in part.rings {
                var fixed = ring
                var refinedCrossings: [RefinedCrossing] = []
                let n = ring.count - 1
                for i in fixed.indices.dropLast() {
                    if i % 1024 == 0 { try WorkBudget.check() }
                    let v = fixed[i]
                    if frame.geographicOutput && (abs(v.y) == 90 || abs(v.x) == 180) { continue }
                    if generated.contains(XY(v)) { continue }
                    let ll = try frame.toCompute(v)
                    if let r = coverage.nearResidual(ll, output: v), abs(r) < 1e-5 { continue }
                    let refined = coverage.refineCrossing(ll, output: v)
                    let out = try refined.map { r throws(EngineError) in try crossingOutput(r.point, near: v, frame: frame) }
                    if projectsAstray, out == nil || movesPastNeighbours(to: out!, from: v, between: ring[(i + n - 1) % n],
                                                                         ring[(i + 1) % n], geographic: frame.geographicOutput)
                    {
                        // No true crossing found near it, or the crossings of nearly tangent boundaries, or of
                        // boundaries meeting at about a degree, lying farther along the ring than its neighbours:
                        // this vertex is projected instead (across the boundary only, so the ring keeps its order),
                        // as `.projections` does for all.
                        guard let q = coverage.projection(ll, output: v) else {
                            throw .geos("geodesic buffer: a vertex could not be projected onto the true boundary")
                        }
                        fixed[i] = try crossingOutput(q, near: v, frame: frame)
                        continue
                    }
                    guard let refined else { continue }
                    refinedCrossings.append(RefinedCrossing(index: i, point: refined.point, first: refined.first,
                                                            second: refined.second))
                    fixed[i] = out!
                }
                try separateSharedCrossings(&fixed, ring: ring, refined: refinedCrossings, frame: frame)
                if let first = fixed.first { fixed[fixed.count - 1] = first }
                if coverage.count > 1 {
                    let result = try withoutCoveredVertices(fixed, coverage: coverage, frame: frame, crossings: &crossings)
                    fixed = result.ring
                    inserted = inserted || result.inserted
                }
                guard fixed.count >= 4 else { continue }
                rings.append(frame.geographicOutput ? cleanedCutLines(fixed) : fixed)
            }
            guard let shell = rings.first, shell.count >= 4 else { continue }
            parts.append(GEOSContext.oriented(Polygon.Part(shell: shell, holes: rings.dropFirst().filter { $0.count >= 4 })))
        }
        guard inserted, parts.count > 1 else { return Polygon(parts: parts, spatialReference: frame.outputSR) }
        // Parts that now meet along a lens edge (the same two crossing vertices) are dissolved into one.
        var members: [GEOSGeometryRef] = []
        for part in parts { members.append(try context.make(.polygon(Polygon(parts: [part], spatialReference: frame.outputSR)))) }
        let merged = try context.polygon(try context.unaryUnion(of: members),
                                         in: frame.outputSR)
        let mergedParts = merged.parts.map { part in
            GEOSContext.oriented(frame.geographicOutput
                ? Polygon.Part(shell: cleanedCutLines(part.shell), holes: part.holes.map(cleanedCutLines)) : part)
        }
        return Polygon(parts: mergedParts, spatialReference: frame.outputSR)
    }

    /// `polygon` (GEOS's union of the straight-edged pieces) with every vertex moved onto the nearest point of the true
    /// union's boundary (`ElementCoverage.projection`), in the order the ring has them (cut-line vertices of
    /// geographic output stay). Throws `EngineError.geos` when a vertex cannot be projected (the caller then tries
    /// the next placement). No vertex moves along the boundary, so the rings keep their order where the
    /// pieces' boundaries cross at shallow angles (the crossing of their chords then lies far from the true one,
    /// and moving it there can fold the ring); the true corners between such vertices are left out, which moves
    /// the edges there by about the distance the vertices moved, within the chords' own deviation.
    private static func projected(_ polygon: Polygon, coverage: ElementCoverage, frame: GeodeticFrame)
        throws(EngineError) -> Polygon
    {
        var parts: [Polygon.Part] = []
        for part in polygon.parts {
            var rings: [[Coordinate]] = []
            for ring in part.rings {
                var fixed = ring
                for i in fixed.indices.dropLast() {
                    if i % 1024 == 0 { try WorkBudget.check() }
                    let v = fixed[i]
                    if frame.geographicOutput && (abs(v.y) == 90 || abs(v.x) == 180) { continue }
                    let ll = try frame.toCompute(v)
                    guard let q = coverage.projection(ll, output: v) else {
                        throw .geos("geodesic buffer: a vertex could not be projected onto the true boundary")
                    }
                    if q != ll { fixed[i] = try crossingOutput(q, near: v, frame: frame) }
                }
                if let first = fixed.first { fixed[fixed.count - 1] = first }
                guard fixed.count >= 4 else { continue }
                rings.append(frame.geographicOutput ? cleanedCutLines(fixed) : fixed)
            }
            guard let shell = rings.first, shell.count >= 4 else { continue }
            parts.append(GEOSContext.oriented(Polygon.Part(shell: shell, holes: rings.dropFirst().filter { $0.count >= 4 })))
        }
        return Polygon(parts: parts, spatialReference: frame.outputSR)
    }

    /// Whether moving a ring vertex `v` to `target` (output coordinates) carries it, along the ring (the direction
    /// from its previous neighbour `p` to its next `q`), more than half-way to a neighbour: two neighbours that each
    /// move less than half their gap toward each other keep their order, so only such moves can fold or pinch the
    /// ring, as at the crossings of nearly tangent boundaries (refined crossings metres apart from vertices a metre
    /// apart) or of boundaries meeting at about a degree (the chords' crossing hundreds of metres from the true
    /// one). Moves across the ring do not count. Longitudes are scaled by the cosine of the latitude in geographic
    /// output. Where the ring doubles back at the vertex (no direction along it), any move of more than half the
    /// distance to the nearer neighbour counts.
    private static func movesPastNeighbours(to target: Coordinate, from v: Coordinate, between p: Coordinate,
                                            _ q: Coordinate, geographic: Bool) -> Bool
    {
        let k = geographic ? cos(v.y * .pi / 180) : 1
        func vector(_ a: Coordinate, _ b: Coordinate) -> (x: Double, y: Double) {
            let dx = geographic ? unwrappedLongitude(b.x, near: a.x) - a.x : b.x - a.x
            return (k * dx, b.y - a.y)
        }
        let t = vector(p, q), m = vector(v, target), toNext = vector(v, q), toPrevious = vector(v, p)
        func dot(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double { a.x * b.x + a.y * b.y }
        let ahead = dot(toNext, t), behind = dot(toPrevious, t)
        guard ahead > 0, behind < 0 else {
            let moved = dot(m, m).squareRoot()
            return 2 * moved > min(dot(toNext, toNext), dot(toPrevious, toPrevious)).squareRoot()
        }
        let along = dot(m, t)
        return 2 * along > ahead || 2 * along < behind
    }

    /// How `finish` places the vertices of GEOS's union of the straight-edged pieces on the true boundary.
    enum VertexPlacement {
        /// Crossings of the pieces' boundaries moved onto the true crossings, covered vertices removed.
        case crossings
        /// Every vertex moved onto the nearest point of the true boundary (`projected`).
        case projections
        /// GEOS's union as it is.
        case asIs
    }

    /// A ring vertex that GEOS put where two elements' chord boundaries cross, moved onto their true crossing.
    private struct RefinedCrossing {
        var index: Int
        var point: Coordinate
        var first: GeodeticElement
        var second: GeodeticElement
    }

    /// The output coordinate of the lon/lat point `p`, kept on the side of ±180° of `v` and within the world.
    private static func crossingOutput(_ p: Coordinate, near v: Coordinate, frame: GeodeticFrame)
        throws(EngineError) -> Coordinate
    {
        var out = try frame.toOutput(p)
        if frame.geographicOutput {
            out.x = min(180, max(-180, unwrappedLongitude(out.x, near: v.x)))
            out.y = min(90, max(-90, out.y))
        }
        return out
    }

    /// Two boundaries that are nearly tangent cross twice, at the ends of a long thin lens; the two GEOS crossings
    /// of their chord approximations (where the ring passes from one element to the other and back) can lie close
    /// together and both refine to the same true crossing, pinching the ring there (a self-intersection). For each
    /// such pair of ring vertices (`refined`, indices into the closed `ring` of GEOS coordinates) the other true
    /// crossing of the same two elements is found, and the two crossings are assigned to the two vertices in the
    /// way that keeps each closer to its neighbours in the ring (the ring reaches each crossing along a boundary
    /// from its near side). `fixed` is the ring after refinement, closed.
    private static func separateSharedCrossings(_ fixed: inout [Coordinate], ring: [Coordinate],
                                                refined: [RefinedCrossing], frame: GeodeticFrame)
        throws(EngineError)
    {
        guard refined.count >= 2 else { return }
        let geod = frame.geodesic
        let n = ring.count - 1
        var done = Set<Int>()
        // Pairs lie within 1 mm, far less than 1e-7° of latitude (≈ 1.1 cm): only refined crossings that close in
        // latitude are compared (sorted by latitude), not every pair.
        let byLatitude = refined.indices.sorted { refined[$0].point.y < refined[$1].point.y }
        var rank = [Int](repeating: 0, count: refined.count)
        for (k, i) in byLatitude.enumerated() { rank[i] = k }
        for a in refined.indices where !done.contains(a) {
            var close: [Int] = []
            for direction in [-1, 1] {
                var k = rank[a] + direction
                while k >= 0, k < byLatitude.count,
                      abs(refined[byLatitude[k]].point.y - refined[a].point.y) <= 1e-7 {
                    close.append(byLatitude[k])
                    k += direction
                }
            }
            for b in close.sorted() where b > a && !done.contains(b) {
                let x = refined[a], y = refined[b]
                guard geod.distance(x.point, y.point) < 1e-3,
                      geod.distance(try frame.toCompute(ring[x.index]), try frame.toCompute(ring[y.index])) > 1e-3
                else { continue }
                // The search along the boundary reaches as far as the two ring vertices' neighbours.
                var reach = 0.0
                var neighbours: [[Coordinate]] = []
                for r in [x, y] {
                    let here = try frame.toCompute(ring[r.index])
                    var pair: [Coordinate] = []
                    for j in [(r.index + n - 1) % n, (r.index + 1) % n] {
                        let c = try frame.toCompute(ring[j])
                        pair.append(c)
                        reach = max(reach, 2 * geod.distance(here, c))
                    }
                    neighbours.append(pair)
                }
                guard let other = geod.otherCrossing(of: x.first, x.second, besides: x.point, reach: max(reach, 1))
                else { continue }
                func cost(_ k: Int, _ p: Coordinate) -> Double {
                    neighbours[k].reduce(0) { $0 + geod.distance($1, p) }
                }
                let keep = cost(0, x.point) + cost(1, other), swap = cost(0, other) + cost(1, x.point)
                let (moved, vertex) = keep <= swap ? (y, ring[y.index]) : (x, ring[x.index])
                fixed[moved.index] = try crossingOutput(other, near: vertex, frame: frame)
                if moved.index == 0 { fixed[n] = fixed[0] }
                done.insert(a)
                done.insert(b)
                break
            }
        }
    }

    /// A closed ring without the vertices (other than those on ±180° or ±90° in geographic output) lying more than
    /// 1 mm inside the true buffer of some element. Such a vertex of one element's boundary sits in the sliver
    /// between another element's chord and its arc. Usually it is just past the crossing of the two boundaries,
    /// which a neighbouring (refined) crossing vertex already marks, and it is removed. When both neighbours of a
    /// run of such vertices are clearly outside the covering buffers (the two true boundaries cross in a thin lens
    /// that the polygons do not show), the run is replaced by the two true crossings, shared exactly with every
    /// other ring through `crossings`; `inserted` is then `true`.
    static func withoutCoveredVertices(_ ring: [Coordinate], coverage: ElementCoverage, frame: GeodeticFrame,
                                       crossings: inout [(ll: Coordinate, out: Coordinate)])
        throws(EngineError) -> (ring: [Coordinate], inserted: Bool)
    {
        let n = ring.count - 1
        guard n >= 3 else { return (ring, false) }
        var lls: [Coordinate?] = []
        var cover: [Int?] = []
        for v in ring.dropLast() {
            if frame.geographicOutput && (abs(v.y) == 90 || abs(v.x) == 180) {
                lls.append(nil)
                cover.append(nil)
                continue
            }
            let ll = try frame.toCompute(v)
            lls.append(ll)
            cover.append(coverage.covering(ll, output: v, margin: 1e-3))
        }
        guard cover.contains(where: { $0 != nil }) else { return (ring, false) }
        guard let s = cover.firstIndex(where: { $0 == nil }) else { return ([], false) }
        var out: [Coordinate] = []
        var inserted = false
        var k = 0
        while k < n {
            let i = (s + k) % n
            guard let covering = cover[i] else {
                out.append(ring[i])
                k += 1
                continue
            }
            var k2 = k
            while k2 < n, cover[(s + k2) % n] != nil { k2 += 1 }
            let last = (s + k2 - 1) % n, p = (s + k - 1) % n, q = (s + k2) % n
            let coveringLast = cover[last] ?? covering
            if let pll = lls[p], let qll = lls[q],
               let ep = coverage.excess(pll, element: covering), ep > 1e-3,
               let eq = coverage.excess(qll, element: coveringLast), eq > 1e-3,
               let ap = coverage.nearestBoundary(pll, output: ring[p], excluding: covering),
               let aq = coverage.nearestBoundary(qll, output: ring[q], excluding: coveringLast),
               let x1 = try crossingVertex(ap, covering, between: ring[p], ring[i], coverage: coverage, frame: frame,
                                           crossings: &crossings),
               let x2 = try crossingVertex(aq, coveringLast, between: ring[last], ring[q], coverage: coverage,
                                           frame: frame, crossings: &crossings)
            {
                // A crossing of the two boundaries can itself lie inside a third element's buffer (then the
                // union's boundary passes outside it): it is projected onto that boundary.
                let y1 = try uncovered(x1, coverage: coverage, frame: frame)
                let y2 = try uncovered(x2, coverage: coverage, frame: frame)
                if let y1 { out.append(y1) }
                if let y2, y2 != y1 { out.append(y2) }
                inserted = inserted || y1 != nil || y2 != nil
            }
            k = k2
        }
        guard let first = out.first, out.count >= 3 else { return ([], inserted) }
        return (out + [first], inserted)
    }

    /// The output coordinate `x` when it is not more than 1 mm inside some element's true buffer, else its
    /// projection onto the true union's boundary (`ElementCoverage.projection`), `nil` when that fails.
    private static func uncovered(_ x: Coordinate, coverage: ElementCoverage, frame: GeodeticFrame)
        throws(EngineError) -> Coordinate?
    {
        let ll = try frame.toCompute(x)
        guard coverage.covering(ll, output: x, margin: 1e-3) != nil else { return x }
        guard let q = coverage.projection(ll, output: x) else { return nil }
        return try crossingOutput(q, near: x, frame: frame)
    }

    /// The output coordinate of the crossing of two elements' boundaries between the output vertices `u` and `v`,
    /// reusing a crossing already found within 1 mm so that rings meeting there share the exact vertex.
    private static func crossingVertex(_ a: Int, _ b: Int, between u: Coordinate, _ v: Coordinate,
                                       coverage: ElementCoverage, frame: GeodeticFrame,
                                       crossings: inout [(ll: Coordinate, out: Coordinate)])
        throws(EngineError) -> Coordinate?
    {
        let mid = Coordinate(x: (u.x + v.x) / 2, y: (u.y + v.y) / 2)
        let start = try frame.toCompute(mid)
        let geod = frame.geodesic
        let span = geod.distance(try frame.toCompute(u), try frame.toCompute(v))
        guard let x = coverage.crossing(of: a, b, from: start), geod.distance(x, start) <= span else { return nil }
        if let known = crossings.first(where: { geod.distance($0.ll, x) < 1e-3 }) { return known.out }
        var out = try frame.toOutput(x)
        if frame.geographicOutput {
            out.x = min(180, max(-180, unwrappedLongitude(out.x, near: mid.x)))
            out.y = min(90, max(-90, out.y))
        }
        crossings.append((x, out))
        return out
    }

    /// Removes repeated vertices and vertices inside straight runs along ±180° or ±90°.
    static func cleanedCutLines(_ ring: [Coordinate]) -> [Coordinate] {
        // Nothing to remove without a repeated vertex or a vertex on a cut line (most rings): the ring as it is.
        if let first = ring.first, let last = ring.last, last.x == first.x, last.y == first.y, ring.count > 4,
           !ring.indices.dropFirst().contains(where: { ring[$0].x == ring[$0 - 1].x && ring[$0].y == ring[$0 - 1].y }),
           !ring.contains(where: { abs($0.x) == 180 || abs($0.y) == 90 })
        {
            return ring
        }
        var cs = Array(ring.dropLast())
        var changed = true
        while changed && cs.count > 3 {
            changed = false
            var out: [Coordinate] = []
            let n = cs.count
            for i in 0..<n {
                let p = cs[(i + n - 1) % n], c = cs[i], q = cs[(i + 1) % n]
                if c.x == p.x && c.y == p.y { changed = true; continue }
                let onX = abs(c.x) == 180 && p.x == c.x && q.x == c.x
                let onY = abs(c.y) == 90 && p.y == c.y && q.y == c.y
                if onX || onY { changed = true; continue }
                out.append(c)
            }
            cs = out
        }
        guard let first = cs.first else { return [] }
        return cs + [first]
    }
}
