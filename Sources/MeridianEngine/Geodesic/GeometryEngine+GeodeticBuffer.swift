import Foundation
import MeridianCore

extension GeometryEngine {
    /// The default `maxDeviation` of geodesic buffers as a fraction of the distance: 0.2 %, Esri's default.
    ///
    /// Why: when the whole buffer fills a 1000-pixel view (a diameter of 2 × distance), 0.2 % of the distance is
    /// one pixel, so the polygon is indistinguishable from the true curve at any zoom showing all of it; the area is
    /// then within about 0.27 % of the true area (a chord's mean inward deviation is 2/3 of its maximum). A circle
    /// needs about π·√(1/(2·0.002)) ≈ 50 vertices away from the poles. Never less than 0.1 mm.
    public static let defaultGeodeticMaxDeviationRatio = 0.002

    /// Buffers one geometry on the ellipsoid. See ``geodeticBuffer(around:distances:distanceUnit:maxDeviation:curveType:shouldUnion:outputSpatialReference:)``.
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or envelope in any geographic or projected spatial reference.
    ///   - distance: The buffer distance in `distanceUnit`: > 0 for points and lines; non-zero for polygons (negative shrinks);
    ///     |distance| from 1 µm to the limits of the many-geometry variant.
    ///   - distanceUnit: The unit of `distance` and `maxDeviation` (default meters).
    ///   - maxDeviation: The largest allowed distance between the true buffer boundary and the polygon's edges, in
    ///     `distanceUnit`; `nil` for 0.2 % of |distance| (`defaultGeodeticMaxDeviationRatio`).
    ///   - curveType: How input edges and distances are measured (`.geodesic`).
    ///   - outputSpatialReference: Where the result is expressed; `nil` for the input's spatial reference.
    /// - Returns: The buffer (empty when a polygon shrinks to nothing).
    public static func geodeticBuffer(
        around geometry: some GeometryConvertible, distance: Double, distanceUnit: LinearUnit = .meters,
        maxDeviation: Double? = nil, curveType: GeodeticCurveType = .geodesic,
        outputSpatialReference: SpatialReference? = nil
    ) throws(EngineError) -> Polygon {
        try geodeticBuffer(around: [geometry.geometry], distances: [distance], distanceUnit: distanceUnit,
                           maxDeviation: maxDeviation, curveType: curveType, shouldUnion: false,
                           outputSpatialReference: outputSpatialReference)[0]
    }

    /// Buffers geometries on the ellipsoid: the set of points within a geodesic distance of each geometry,
    /// computed with PROJ's geodesic routines (Karney) on the ellipsoid of the input's spatial reference.
    ///
    /// Input edges are geodesics between consecutive vertices. Longitude/latitude polygon edges lying on ±180° or
    /// ±90° are taken as cuts (RFC 7946 §3.1.9), not as boundary.
    ///
    /// Accuracy contract (distances measured on the input's ellipsoid):
    /// - every output vertex lies at the requested distance from the input, within 1 mm, except the corners a cut
    ///   adds at ±90° latitude and vertices on ±180° that only continue a straight cut line, and — rarely, as a last
    ///   resort — where neither moving the vertices where the pieces cross onto the true crossings (at 1, 1/4 and
    ///   1/16 of `maxDeviation`) nor projecting every vertex onto the true boundary gives a polygon valid for GEOS:
    ///   then they stay where the straight-edged pieces cross, within `maxDeviation` (the result is always valid);
    ///   where the vertices are projected, a true corner between two of them may be left out (the edge there stays
    ///   within `maxDeviation`);
    /// - every point of every edge — an edge is straight in the output's own coordinates (degrees of
    ///   longitude/latitude for geographic output, as GEOS, GeoJSON renderers and GIS tools draw it) — is within
    ///   `maxDeviation` of the requested distance, except the cut edges along ±180° and ±90°;
    /// - vertices are placed adaptively (greedy longest chords within 0.8 × `maxDeviation`), so there are no more
    ///   than needed; near the poles a geographic output needs many more vertices than a projected one. A small
    ///   circle in longitude/latitude clear of the poles and of ±180° (a point buffer up to about 300 km) gets
    ///   evenly spaced azimuths instead, as many as a chord bound needs for the same 0.8 × `maxDeviation`, with
    ///   vertices from a series fitted to a few `geod_direct` points (within 10 µm of them). A single polyline in
    ///   longitude/latitude (clear of ±180° and the poles, up to 1,000 km) is first tried from GEOS's planar buffer in
    ///   an azimuthal equidistant frame, every vertex then placed on the true boundary and every edge checked at
    ///   five points (split until within 0.8 × `maxDeviation`); that result is kept only when every check passes
    ///   (`SeededLineBuffer`), else the line takes the path above.
    ///
    /// Output in a geographic spatial reference: a buffer crossing ±180° is split into parts on each side
    /// (RFC 7946 §3.1.9), a buffer containing a pole contains it with an edge along ±90°, and buffers wider than a
    /// hemisphere are right (they contain the rest of the world). Output in a projected spatial reference needs
    /// the buffer to lie within the projection's domain.
    ///
    /// Distance rule: one distance for all geometries, or exactly one per geometry.
    /// - Parameters:
    ///   - geometries: Geometries in one spatial reference (geographic or projected).
    ///   - distances: In `distanceUnit`. Points and lines: > 0. Polygons: non-zero, negative shrinks. |distance| at least
    ///     1 µm (`minimumGeodeticDistance`) and at most 99.9 % of half the meridian (≈ 19,984 km on WGS84) for points and multipoints, 45 % of it
    ///     (≈ 9,000 km) for lines and polygons; larger distances are refused with `invalidDistance`.
    ///   - distanceUnit: The unit of `distances` and `maxDeviation` (default meters).
    ///   - maxDeviation: The largest allowed deviation, in `distanceUnit`; `nil` for 0.2 % of each |distance|. Must be at
    ///     least 0.1 mm and 10⁻⁶ × |distance|, and at most |distance| / 2.
    ///   - curveType: `.geodesic`.
    ///   - shouldUnion: `true` to dissolve all buffers into one polygon (correct across ±180° and the poles).
    ///   - outputSpatialReference: The result's spatial reference; `nil` (default) for the input's; pass `.wgs84`
    ///     for longitude/latitude output of a projected input.
    /// - Returns: One polygon per geometry, or one polygon when `shouldUnion` (none for no geometries); shells
    ///   counter-clockwise, holes clockwise.
    /// - Throws: `EngineError.invalidDistance`, `.distanceCountMismatch`, `.spatialReferenceMismatch`,
    ///   `.badGeometry`, `.invalidGeometry` (self-intersecting polygon), `.projectionFailed`, `.geos`.
    public static func geodeticBuffer(
        around geometries: [some GeometryConvertible], distances: [Double], distanceUnit: LinearUnit = .meters,
        maxDeviation: Double? = nil, curveType: GeodeticCurveType = .geodesic, shouldUnion: Bool,
        outputSpatialReference: SpatialReference? = nil
    ) throws(EngineError) -> [Polygon] {
        try geodeticBuffer(around: geometries.map(\.geometry), distances: distances, distanceUnit: distanceUnit,
                           maxDeviation: maxDeviation, shouldUnion: shouldUnion,
                           outputSpatialReference: outputSpatialReference, mergingPolygons: true,
                           seedingLines: true)
    }

    /// ``geodeticBuffer(around:distances:distanceUnit:maxDeviation:curveType:shouldUnion:outputSpatialReference:)``
    /// with the merging of polygons before a union (`BufferPreUnion`) on or off (`mergingPolygons`: off only for
    /// the tests that compare the two paths), and the seeded attempt for lines (`SeededLineBuffer`) on or off
    /// (`seedingLines`: off only for the tests of the exact path on lines the attempt takes).
    static func geodeticBuffer(
        around gs: [Geometry], distances: [Double], distanceUnit: LinearUnit, maxDeviation: Double?,
        shouldUnion: Bool, outputSpatialReference: SpatialReference?, mergingPolygons: Bool,
        seedingLines: Bool = true
    ) throws(EngineError) -> [Polygon] {
        guard let sr = gs.first?.spatialReference else { return [] }
        guard distances.count == gs.count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: gs.count, distances: distances.count)
        }
        if let other = gs.first(where: { $0.spatialReference != sr }) {
            throw .spatialReferenceMismatch(sr, other.spatialReference)
        }
        let frame = try GeodeticFrame(input: sr, output: outputSpatialReference)
        let context = try GEOSContext()
        var distancesInMeters: [Double] = [], tolerances: [Double] = []
        for (i, g) in gs.enumerated() {
            let d = distanceUnit.convert(distances.count == 1 ? distances[0] : distances[i], to: .meters)
            tolerances.append(try deviation(maxDeviation.map { distanceUnit.convert($0, to: .meters) }, distance: d, index: i))
            try validate(geodeticDistance: d, for: g, index: i, geodesic: frame.geodesic)
            distancesInMeters.append(d)
        }
        if shouldUnion {
            // Polygons at the same positive distance are merged first where that is exact (`BufferPreUnion`).
            var merged = BufferPreUnion(geometries: gs, distances: distancesInMeters, tolerances: tolerances)
            if mergingPolygons {
                merged = try BufferPreUnion(gs, distances: distancesInMeters, tolerances: tolerances,
                                              context: context)
            }
            let (gs, distancesInMeters, tolerances) = (merged.geometries, merged.distances, merged.tolerances)
            let culling = try pointCulling(gs, distances: distancesInMeters, tolerances: tolerances, frame: frame)
            if let culling, let polygon = try union(gs, distances: distancesInMeters, tolerances: tolerances,
                                                    culling: culling, frame: frame, context: context)
            {
                return [polygon]
            }
            // Without culling: no point circles to cull, or a part lies inside a hole that culled circles fill.
            return [try union(gs, distances: distancesInMeters, tolerances: tolerances, culling: nil, frame: frame,
                              context: context)!]
        }
        var polygons: [Polygon] = []
        for (i, g) in gs.enumerated() {
            try WorkBudget.check()
            let builder = GeodeticBufferBuilder(frame: frame, context: context, tolerance: tolerances[i])
            if let circle = smallCircleBuffer(g, distance: distancesInMeters[i], builder: builder) {
                polygons.append(circle)
                continue
            }
            // One line: first the attempt seeded from a planar buffer in an azimuthal equidistant frame
            // (`SeededLineBuffer`), kept only when every check passes.
            if case .polyline(let line) = g, seedingLines,
               let seeded = try SeededLineBuffer.buffer(line, distance: distancesInMeters[i], tolerance: tolerances[i],
                                                        frame: frame, context: context)
            {
                polygons.append(seeded)
                continue
            }
            // The pieces and their union depend only on the scale: built once per scale, whatever the placement.
            var built: [Double: (ref: GEOSGeometryRef, group: ElementGroup, generated: Set<XY>)] = [:]
            polygons.append(try validRefinement { scale, placement throws(EngineError) in
                if built[scale] == nil {
                    let builder = GeodeticBufferBuilder(frame: frame, context: context, tolerance: scale * tolerances[i])
                    let (ref, group) = try builder.buffer(g, distance: distancesInMeters[i])
                    built[scale] = (ref, group, builder.generated)
                }
                let b = built[scale]!
                return try finish(b.ref, groups: [b.group], generated: b.generated, frame: frame, context: context,
                                  placement: placement)
            })
        }
        return polygons
    }

    /// The culling of the point geometries' circles of a union (`GeodeticCircleCulling`, with a margin of four
    /// times the largest tolerance plus 1 m), or `nil` with fewer than two points.
    private static func pointCulling(_ gs: [Geometry], distances: [Double], tolerances: [Double],
                                     frame: GeodeticFrame) throws(EngineError) -> GeodeticCircleCulling?
    {
        var centers: [Coordinate] = [], radii: [Double] = [], indices: [Int] = []
        var tolerance = 0.0
        let points = gs.indices.filter { if case .point = gs[$0] { return true } else { return false } }
        guard points.count >= 2 else { return nil }
        // One PROJ call for all points (a projected input: one transformation, not one per point).
        let inCompute = gs[points[0]].spatialReference == frame.computeSR ? points.map { gs[$0] }
            : try GeometryEngine.project(points.map { gs[$0] }, into: frame.computeSR)
        for (k, i) in points.enumerated() {
            guard case .point(let p) = inCompute[k], p.coordinate.x.isFinite, p.coordinate.y.isFinite else { continue }
            centers.append(Coordinate(x: normalizedLongitude(p.coordinate.x), y: p.coordinate.y))
            radii.append(distances[i])
            indices.append(i)
            tolerance = max(tolerance, tolerances[i])
        }
        guard centers.count >= 2 else { return nil }
        var culling = try GeodeticCircleCulling(centers: centers, radii: radii, margin: 4 * tolerance + 1,
                                            geodesic: frame.geodesic)
        var culled = [Bool](repeating: false, count: gs.count)
        for (k, i) in indices.enumerated() { culled[i] = culling.culled[k] }
        culling.culled = culled
        return culling
    }

    /// The union of the geometries' buffers, leaving out the circles `culling` culls and then the holes they fill;
    /// `nil` when a part of the result lies inside such a hole (the caller then unions without culling).
    private static func union(_ gs: [Geometry], distances: [Double], tolerances: [Double],
                              culling: GeodeticCircleCulling?, frame: GeodeticFrame, context: GEOSContext)
        throws(EngineError) -> Polygon?
    {
        var islandInFilledHole = false
        // The buffers and their GEOS union depend only on the scale: built once per scale, whatever the placement.
        var built: [Double: (unioned: GEOSGeometryRef, groups: [ElementGroup], generated: Set<XY>)] = [:]
        let polygon = try validRefinement { scale, placement throws(EngineError) in
                if built[scale] == nil {
                    var results: [(ref: GEOSGeometryRef, group: ElementGroup, generated: Set<XY>)] = []
                    for (i, g) in gs.enumerated() where culling?.culled[i] != true {
                        try WorkBudget.check()
                        let builder = GeodeticBufferBuilder(frame: frame, context: context,
                                                            tolerance: scale * tolerances[i])
                        let (ref, group) = try builder.buffer(g, distance: distances[i])
                        results.append((ref, group, builder.generated))
                    }
                    let unioned = try context.unaryUnion(of: results.map(\.ref))
                    // One buffer (a merged coverage): its set as it is, not copied into an empty one.
                    let generated = results.count == 1 ? results[0].generated
                        : results.reduce(into: Set<XY>()) { $0.formUnion($1.generated) }
                    built[scale] = (unioned, results.map(\.group), generated)
                }
                let b = built[scale]!
                let polygon = try finish(b.unioned, groups: b.groups, generated: b.generated, frame: frame,
                                         context: context, placement: placement)
                guard let culling else { return polygon }
                guard let filled = try withoutFilledHoles(polygon, culling: culling, frame: frame, context: context)
                else {
                    islandInFilledHole = true
                    return polygon
                }
                return filled
        }
        return islandInFilledHole ? nil : polygon
    }

    /// `polygon` without the holes that culled circles fill (`GeodeticCircleCulling.fillsHole` at a hole's first
    /// vertex), or `nil` when another part's shell lies inside such a hole (then it would need merging).
    private static func withoutFilledHoles(_ polygon: Polygon, culling: GeodeticCircleCulling, frame: GeodeticFrame,
                                           context: GEOSContext) throws(EngineError) -> Polygon?
    {
        var parts: [Polygon.Part] = []
        var filled: [[Coordinate]] = []
        for part in polygon.parts {
            var holes: [[Coordinate]] = []
            for hole in part.holes {
                if let v = hole.first, culling.fillsHole(try frame.toCompute(v)) {
                    filled.append(hole)
                } else {
                    holes.append(hole)
                }
            }
            parts.append(Polygon.Part(shell: part.shell, holes: holes))
        }
        guard !filled.isEmpty else { return polygon }
        if parts.count > 1 {
            var refs: [GEOSGeometryRef] = []
            for hole in filled {
                refs.append(try context.make(.polygon(Polygon(shell: hole, spatialReference: frame.outputSR))))
            }
            let area = try GEOSPreparedGeometry(try context.collection(refs), "prepare")
            for part in parts { if let v = part.shell.first, area.covers(v) { return nil } }
        }
        return Polygon(parts: parts, spatialReference: frame.outputSR)
    }

    /// The polygon `build` makes at a tolerance scale of 1 with the pieces' crossings moved onto the true ones
    /// (`.crossings`), or, when that one is not valid for GEOS or GEOS fails on the way (a topology exception), at
    /// scale 1 with every vertex projected onto the true boundary (`.projections`), then with crossings at scales
    /// 1/4 and 1/16, and last at scale 1 as GEOS's union of the straight-edged pieces as it is (`.asIs`, valid by
    /// construction). Where elements' boundaries meet at shallow angles or in features smaller than the chords,
    /// the pieces can show a different topology from the true buffers', and moving their crossings onto the true
    /// ones can pinch or fold a ring. Two causes seen: nearly tangent boundaries (a vertex circle and the offset
    /// curves of both its segments where a line barely turns: Newton's crossing is then undetermined along them by
    /// metres, within 1 µm of both), and boundaries crossing at about a degree (the vertex circles of a noisy line
    /// inside a bend tighter than the distance: the chords' crossing lies up to kilometres from the true one), where
    /// the true crossings come in another order than the pieces' and finer chords do not settle it. Projection moves
    /// each vertex across the boundary only, so the rings keep their order; `.crossings` already projects the
    /// vertices whose true crossing lies more than half-way to a neighbour along the ring (or is not found), so on
    /// such lines the first attempt is usually valid. Never returns an invalid polygon.
    /// - Throws: `EngineError.geos` when even the last attempt is invalid; other errors as `build` throws them.
    static func validRefinement(_ build: (_ scale: Double, _ placement: VertexPlacement) throws(EngineError) -> Polygon)
        throws(EngineError) -> Polygon
    {
        var problem = ""
        let attempts: [(Double, VertexPlacement)] = [(1.0, .crossings), (1.0, .projections), (1.0 / 4, .crossings),
                                                     (1.0 / 16, .crossings), (1.0, .asIs)]
        for (scale, placement) in attempts {
            try WorkBudget.check()
            do {
                let polygon = try build(scale, placement)
                guard let reason = try invalidityReason(polygon) else { return polygon }
                problem = reason
            } catch {
                guard case .geos(let message) = error else { throw error }
                problem = message
            }
        }
        throw .geos("geodesic buffer: no valid polygon, even from GEOS's union of the pieces as it is (\(problem))")
    }

    /// The buffer of a point given in the frame's compute lon/lat when it is a small circle clear of the poles and
    /// of ±180° written in that same lon/lat (`GeodeticBufferBuilder.evenlySpacedCircle`): a strictly convex ring,
    /// valid as it is, so it needs neither GEOS nor the union's vertex checks. `nil` for anything else.
    private static func smallCircleBuffer(_ geometry: Geometry, distance: Double, builder: GeodeticBufferBuilder)
        -> Polygon?
    {
        guard case .point(let point) = geometry, point.spatialReference == builder.frame.computeSR,
              abs(point.coordinate.y) < 90
        else { return nil }
        let center = Coordinate(x: normalizedLongitude(point.coordinate.x), y: point.coordinate.y)
        guard let ring = builder.evenlySpacedCircle(center: center, radius: abs(distance)) else { return nil }
        return Polygon(shell: ring, spatialReference: builder.frame.outputSR)
    }

    /// The smallest non-zero geodesic buffer distance in meters, 1 µm: a thousand times the ground resolution of
    /// double-precision degrees (about 1e-9 m); below it the offset vertices collapse onto the input's.
    static let minimumGeodeticDistance = 1e-6

    /// The largest geodesic buffer distance in meters for points on an ellipsoid: 99.9 % of half the meridian.
    /// Closer to the antipode the circle nears the cut locus, where geodesics of that length stop being shortest.
    static func maximumGeodeticPointDistance(_ g: Geodesic) -> Double { 0.999 * g.halfMeridian }
    /// The largest geodesic buffer distance in meters for lines and polygons: 45 % of half the meridian (offset
    /// curves of a geodesic degenerate at a quarter meridian).
    static func maximumGeodeticLineDistance(_ g: Geodesic) -> Double { 0.45 * g.halfMeridian }

    private static func deviation(_ requested: Double?, distance d: Double, index: Int) throws(EngineError) -> Double {
        guard let requested else { return max(defaultGeodeticMaxDeviationRatio * abs(d), 1e-4) }
        guard requested.isFinite, requested >= 1e-4, requested >= 1e-6 * abs(d), requested <= abs(d) / 2 else {
            throw .invalidDistance("geometry \(index): maxDeviation \(requested) m must be at least 0.1 mm and 1e-6 × |distance|, and at most |distance|/2 (distance \(d) m)")
        }
        return requested
    }

    private static func validate(geodeticDistance d: Double, for g: Geometry, index: Int, geodesic: Geodesic) throws(EngineError) {
        guard d.isFinite else { throw .invalidDistance("geometry \(index): distance \(d) is not a finite number") }
        guard d == 0 || abs(d) >= minimumGeodeticDistance else {
            throw .invalidDistance(String(format: "geometry %d: |%.10g| m is less than 1 µm, finer than longitude/latitude coordinates resolve", index, d))
        }
        switch g {
        case .point, .multipoint:
            guard d > 0 else { throw .invalidDistance("geometry \(index): a \(g.typeName.lowercased()) needs a positive distance, got \(d) m") }
            let limit = maximumGeodeticPointDistance(geodesic)
            guard d <= limit else {
                throw .invalidDistance(String(format: "geometry %d: %.10g m is more than %.0f m, 99.9%% of half the meridian (the farthest any point can be); the buffer would be nearly the whole ellipsoid", index, d, limit))
            }
        case .polyline:
            guard d > 0 else { throw .invalidDistance("geometry \(index): a polyline needs a positive distance, got \(d) m") }
            fallthrough
        case .polygon, .envelope:
            guard d != 0 else { throw .invalidDistance("geometry \(index): a polygon needs a non-zero distance") }
            let limit = maximumGeodeticLineDistance(geodesic)
            guard abs(d) <= limit else {
                throw .invalidDistance(String(format: "geometry %d: |%.10g| m is more than %.0f m, the largest geodesic buffer distance for lines and polygons (45%% of half the meridian)", index, d, limit))
            }
        }
    }

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
                                       reach: 2 * (groups.map(\.tolerance).max() ?? 0) + 1)
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

// MARK: - Building one buffer

extension GeodeticBufferBuilder {
    /// The buffer of one geometry as GEOS polygons in output coordinates, and the elements it keeps its distance from.
    func buffer(_ geometry: Geometry, distance d: Double) throws(EngineError) -> (GEOSGeometryRef, ElementGroup) {
        let radius = abs(d)
        let paths = try GeometryEngine.geodeticVertices(of: geometry, in: frame)
        var g = geometry
        if case .envelope(let e) = g { g = .polygon(e.polygon) }

        // Vertices and segments, with physical points keyed once (poles at longitude 0, -180 as 180).
        func key(_ c: Coordinate) -> Coordinate {
            if abs(c.y) == 90 { return Coordinate(x: 0, y: c.y) }
            let x = normalizedLongitude(c.x)
            return Coordinate(x: x == -180 ? 180 : x, y: c.y)
        }
        var isolated: [Coordinate] = []
        var segments: [BufferSegment] = []
        var mandatory: [XY: [Double]] = [:]
        var vertexOrder: [Coordinate] = []
        func addVertex(_ c: Coordinate) {
            if mandatory[XY(c)] == nil { mandatory[XY(c)] = []; vertexOrder.append(c) }
        }
        switch g {
        case .point, .multipoint:
            for path in paths { for c in path { let k = key(c); if mandatory[XY(k)] == nil { isolated.append(k) }; addVertex(k) } }
        case .polyline, .polygon, .envelope:
            let isPolygon: Bool = { if case .polyline = g { return false } else { return true } }()
            for path in paths {
                var vertices = (isPolygon ? Polygon.closed(path) : path).map(key)
                vertices = vertices.enumerated().filter { i, c in i == 0 || geod.distance(vertices[i - 1], c) > 1e-9 }.map(\.1)
                if vertices.count == 1 || (isPolygon && vertices.count <= 2) {
                    if !isPolygon { isolated.append(vertices[0]); addVertex(vertices[0]) }
                    continue
                }
                for i in 0..<(vertices.count - 1) {
                    let a = vertices[i], b = vertices[i + 1]
                    // Cut edges of longitude/latitude polygons (RFC 7946 §3.1.9) are not boundary.
                    if isPolygon && g.spatialReference.isGeographic {
                        if abs(a.y) == 90 && abs(b.y) == 90 { continue }
                        if abs(a.x) == 180 && abs(b.x) == 180 { continue }
                    }
                    let line = geod.line(from: a, to: b)
                    let inv = geod.inverse(a, b)
                    segments.append(BufferSegment(a: a, b: b, line: line, azimuthA: inv.azimuth1, azimuthB: inv.azimuth2))
                    addVertex(a)
                    addVertex(b)
                    mandatory[XY(a)]!.append(contentsOf: [inv.azimuth1 + 90, inv.azimuth1 - 90])
                    mandatory[XY(b)]!.append(contentsOf: [inv.azimuth2 + 90, inv.azimuth2 - 90])
                }
            }
        }

        let union = try piecesUnion(isolated: isolated, segments: segments, mandatory: mandatory, radius: radius)
        let elements = vertexOrder.map { GeodeticElement(kind: .vertex($0), required: radius) }
            + segments.map { GeodeticElement(kind: .segment(start: $0.a, end: $0.b, line: $0.line), required: radius) }

        guard case .polygon(let polygon) = g else {
            return (union, ElementGroup(elements: elements, isInward: false, contains: nil, tolerance: tolerance))
        }
        let interior = try interiorPiece(polygon, paths: paths, distance: radius)
        if d > 0 {
            let result = try context.unaryUnion(of: [interior, union])
            return (result, ElementGroup(elements: elements, isInward: false, contains: nil, tolerance: tolerance))
        }
        let area = try GEOSPreparedGeometry(try interior.clone(), "prepare")
        let result = try interior.difference(union)
        return (result, ElementGroup(elements: elements, isInward: true, contains: { area.covers($0) },
                                    tolerance: tolerance))
    }

    /// The input polygon in output coordinates, its geodesic edges densified to within a quarter of the distance
    /// (the band of pieces around each edge covers the rest), as GEOS polygons within [-180, 180] for geographic
    /// output.
    func interiorPiece(_ polygon: Polygon, paths: [[Coordinate]], distance: Double) throws(EngineError) -> GEOSGeometryRef {
        var iterator = paths.makeIterator()
        var parts: [GEOSGeometryRef] = []
        let limit = max(distance / 4, 1e-3)
        for part in polygon.parts {
            var rings: [[Coordinate]] = []
            for _ in part.rings { rings.append(try densifiedRing(iterator.next()!, tolerance: limit)) }
            let literal = !frame.geographicOutput || rings.allSatisfy { ring in
                zip(ring, ring.dropFirst()).allSatisfy { abs($0.x - $1.x) <= 180 || (abs($0.y) == 90 && abs($1.y) == 90) }
            }
            if literal {
                let p = Polygon(parts: [Polygon.Part(shell: rings[0], holes: Array(rings.dropFirst()))],
                                spatialReference: frame.outputSR)
                let ref = try context.make(.polygon(p))
                try context.requireValid(ref, .polygon(p))
                parts.append(ref)
                continue
            }
            // A ring crossing ±180°: unwrap, take the side it encloses in the plane, cut into tiles.
            var regions: [GEOSGeometryRef] = []
            for (i, ring) in rings.enumerated() {
                var unwrapped: [Coordinate] = []
                for c in ring { unwrapped.append(unwrapped.last.map { Coordinate(x: unwrappedLongitude(c.x, near: $0.x), y: c.y) } ?? c) }
                let winds = abs(unwrapped.last!.x - unwrapped.first!.x) > 180
                if !winds && Polygon.signedArea(unwrapped) < 0 { unwrapped.reverse() }
                let tiles = try geographicRegion(unwrapped)
                let region = try context.unaryUnion(of: tiles)
                if i == 0 { regions.append(region); continue }
                let shell = regions.removeLast()
                regions.append(try shell.difference(region))
            }
            parts += regions
        }
        return try context.unaryUnion(of: parts)
    }

    /// A ring's geodesic edges in output coordinates, split until each chord's midpoint is within `tolerance` m
    /// of the geodesic's midpoint. Longitudes stay continuous along each edge.
    func densifiedRing(_ ring: [Coordinate], tolerance: Double) throws(EngineError) -> [Coordinate] {
        let closed = Polygon.closed(ring)
        var out: [Coordinate] = [try sample(0, closed[0]).out]
        if frame.geographicOutput && frame.isIdentity { out[0] = closed[0] }
        for i in 0..<(closed.count - 1) {
            let a = closed[i], b = closed[i + 1]
            let endOut: Coordinate = frame.isIdentity ? b : try sample(0, b).out
            if (abs(a.y) == 90 && abs(b.y) == 90) || geod.distance(a, b) < 1e-9 {
                out.append(endOut)
                continue
            }
            let line = geod.line(from: a, to: b)
            var stack: [(Double, Double)] = [(0, line.length)]
            var pieces: [Double] = []
            var budget = 100_000
            while let (s0, s1) = stack.popLast() {
                budget -= 1
                let p0 = line.position(s0).coordinate, p1 = line.position(s1).coordinate
                let m = line.position((s0 + s1) / 2).coordinate
                let o0 = try frame.toOutput(p0), o1 = near(try frame.toOutput(p1), try frame.toOutput(p0))
                let chordMid = try frame.toCompute(Coordinate(x: (o0.x + o1.x) / 2, y: (o0.y + o1.y) / 2))
                if budget > 0 && geod.distance(chordMid, m) > tolerance {
                    stack.append(((s0 + s1) / 2, s1))
                    stack.append((s0, (s0 + s1) / 2))
                } else {
                    pieces.append(s1)
                }
            }
            for s in pieces.dropLast() {
                var c = try frame.toOutput(line.position(s).coordinate)
                if let last = out.last { c = near(c, last) }
                out.append(c)
            }
            var e = endOut
            if frame.geographicOutput && !frame.isIdentity, let last = out.last { e = near(e, last) }
            out.append(e)
        }
        return out
    }
}
