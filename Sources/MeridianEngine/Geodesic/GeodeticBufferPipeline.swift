import MeridianCore

/// The geodesic buffer pipeline behind
/// ``GeometryEngine/geodeticBuffer(around:distances:distanceUnit:maxDeviation:curveType:shouldUnion:outputSpatialReference:)``:
/// validated geometries, distances and tolerances (meters) in, polygons in the frame's output spatial reference out.
///
/// Its stages, in order (each a function here or a type of its own):
/// 1. **merge** (unions): polygons at one distance and tolerance merged where that is exact (`merged(exactly:)`,
///    `BufferPreUnion`);
/// 2. **cull** (unions): point circles that other circles cover left out (`pointCulling()`, `GeodeticCircleCulling`);
/// 3. **build**: each geometry's pieces in output coordinates and GEOS's union of them, at a tolerance scale
///    (`GeodeticBufferBuilder`); one-by-one buffers first try a point's evenly spaced small circle
///    (`smallCircleBuffer`) and a line's seeded buffer (`SeededLineBuffer`), which need no union;
/// 4. **place vertices**: the union's vertices moved onto the true boundary (`finish`, `VertexPlacement`, in
///    GeodeticBufferPipeline+VertexPlacement.swift);
/// 5. **refine**: stages 3–4 retried at finer scales and other placements until GEOS finds the polygon valid
///    (`validRefinement`); for a culled union, the holes the culled circles fill are dropped (`withoutFilledHoles`).
struct GeodeticBufferPipeline {
    /// Where the buffers are computed and written.
    let frame: GeodeticFrame
    /// The GEOS context of the calling thread.
    let context: GEOSContext
    /// The geometries, all in one spatial reference.
    var geometries: [Geometry]
    /// One distance per geometry, meters (validated by the caller).
    var distances: [Double]
    /// One maxDeviation per geometry, meters (validated by the caller).
    var tolerances: [Double]

    /// All the stages for a union: the one polygon of every geometry's buffer.
    /// - Parameter mergingPolygons: Whether stage 1 merges (off only for the tests that compare both paths).
    func union(mergingPolygons: Bool) throws(EngineError) -> Polygon {
        // Polygons at the same positive distance are merged first where that is exact (`BufferPreUnion`).
        let merged = try merged(exactly: mergingPolygons)
        let culling = try merged.pointCulling()
        if let culling, let polygon = try merged.union(culling: culling) { return polygon }
        // Without culling: no point circles to cull, or a part lies inside a hole that culled circles fill.
        return try merged.union(culling: nil)!
    }

    /// Stage 1: this pipeline with the polygons that `BufferPreUnion` merges exactly replaced by their merge
    /// (`exactly` false: the geometries as they are, for the tests that compare both paths).
    func merged(exactly: Bool) throws(EngineError) -> GeodeticBufferPipeline {
        var merged = BufferPreUnion(geometries: geometries, distances: distances, tolerances: tolerances)
        if exactly {
            merged = try BufferPreUnion(geometries, distances: distances, tolerances: tolerances, context: context)
        }
        return GeodeticBufferPipeline(frame: frame, context: context, geometries: merged.geometries,
                                      distances: merged.distances, tolerances: merged.tolerances)
    }

    /// All the stages for one-by-one buffers: one polygon per geometry.
    /// - Parameter seedingLines: Whether a line first tries `SeededLineBuffer` (off only for the tests of the
    ///   exact path on lines the attempt takes).
    func buffers(seedingLines: Bool) throws(EngineError) -> [Polygon] {
        let (gs, distancesInMeters, tolerances) = (geometries, distances, tolerances)
        var polygons: [Polygon] = []
        for (i, g) in gs.enumerated() {
            try WorkBudget.check()
            let builder = GeodeticBufferBuilder(frame: frame, context: context, tolerance: tolerances[i])
            if let circle = try Self.smallCircleBuffer(g, distance: distancesInMeters[i], builder: builder) {
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
            polygons.append(try refinedBuffer(g, distance: distancesInMeters[i], tolerance: tolerances[i]))
        }
        return polygons
    }

    /// Stages 3–5 for one geometry alone.
    private func refinedBuffer(_ g: Geometry, distance: Double, tolerance: Double) throws(EngineError) -> Polygon {
        let (frame, context) = (frame, context)
        // The pieces and their union depend only on the scale: built once per scale, whatever the placement.
        var built: [Double: (ref: GEOSGeometryRef, group: ElementGroup, generated: Set<XY>)] = [:]
        return try Self.validRefinement { scale, placement throws(EngineError) in
            if built[scale] == nil {
                let builder = GeodeticBufferBuilder(frame: frame, context: context, tolerance: scale * tolerance)
                let (ref, group) = try builder.buffer(g, distance: distance)
                built[scale] = (ref, group, builder.generated)
            }
            let b = built[scale]!
            return try Self.finish(b.ref, groups: [b.group], generated: b.generated, frame: frame, context: context,
                                   placement: placement)
        }
    }

    /// The culling of the point geometries' circles of a union (`GeodeticCircleCulling`, with a margin of four
    /// times the largest tolerance plus 1 m), or `nil` with fewer than two points.
    func pointCulling() throws(EngineError) -> GeodeticCircleCulling? {
        let (gs, distances, tolerances) = (geometries, distances, tolerances)
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
    func union(culling: GeodeticCircleCulling?) throws(EngineError) -> Polygon? {
        let (gs, distances, tolerances, frame, context) = (geometries, distances, tolerances, frame, context)
        var islandInFilledHole = false
        // The buffers and their GEOS union depend only on the scale: built once per scale, whatever the placement.
        var built: [Double: (unioned: GEOSGeometryRef, groups: [ElementGroup], generated: Set<XY>)] = [:]
        let polygon = try Self.validRefinement { scale, placement throws(EngineError) in
                if built[scale] == nil {
                    var results: [(ref: GEOSGeometryRef, group: ElementGroup, generated: Set<XY>)] = []
                    for (i, g) in gs.enumerated() where culling?.culled[i] != true {
                        try WorkBudget.check()
                        let builder = GeodeticBufferBuilder(frame: frame, context: context,
                                                            tolerance: scale * tolerances[i])
                        let (ref, group) = try builder.buffer(g, distance: distances[i])
                        results.append((ref, group, builder.generated))
                    }
                    let unioned = try context.unaryUnion(of: results.map { $0.ref })
                    // One buffer (a merged coverage): its set as it is, not copied into an empty one.
                    let generated = results.count == 1 ? results[0].generated
                        : results.reduce(into: Set<XY>()) { $0.formUnion($1.generated) }
                    built[scale] = (unioned, results.map { $0.group }, generated)
                }
                let b = built[scale]!
                let polygon = try Self.finish(b.unioned, groups: b.groups, generated: b.generated, frame: frame,
                                         context: context, placement: placement)
                guard let culling else { return polygon }
                guard let filled = try Self.withoutFilledHoles(polygon, culling: culling, frame: frame, context: context)
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
    static func withoutFilledHoles(_ polygon: Polygon, culling: GeodeticCircleCulling, frame: GeodeticFrame,
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
                guard let reason = try GeometryEngine.invalidityReason(polygon) else { return polygon }
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
    static func smallCircleBuffer(_ geometry: Geometry, distance: Double, builder: GeodeticBufferBuilder)
        throws(EngineError) -> Polygon?
    {
        guard case .point(let point) = geometry, point.spatialReference == builder.frame.computeSR,
              abs(point.coordinate.y) < 90
        else { return nil }
        let center = Coordinate(x: normalizedLongitude(point.coordinate.x), y: point.coordinate.y)
        guard let ring = try builder.evenlySpacedCircle(center: center, radius: abs(distance)) else { return nil }
        return Polygon(shell: ring, spatialReference: builder.frame.outputSR)
    }
}
