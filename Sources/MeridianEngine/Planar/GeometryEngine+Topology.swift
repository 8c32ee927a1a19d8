import Foundation
import MeridianCore

// MARK: - Topological analysis, under ArcGIS's names (GEOS underneath)

/// How ``GeometryEngine/offset(_:byDistance:offsetType:bevelRatio:flattenError:)->Geometry`` turns at convex corners.
public enum OffsetType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A sharp corner, cut where it would reach farther than `bevelRatio` × distance.
    case mitered
    /// A straight cut across the corner.
    case bevelled
    /// An arc of the offset distance around the corner.
    case rounded
    /// A square corner (ArcGIS's "squared"): the arc replaced by its circumscribed square, drawn as a mitre
    /// limited at √2 × distance.
    case squared
}

extension GeometryEngine {
    /// Every part common to both geometries, one geometry per dimension, lowest first: a ``/MeridianCore/Multipoint`` for the
    /// points where they only touch, a ``/MeridianCore/Polyline`` for shared edges and line overlaps, a ``/MeridianCore/Polygon`` for the
    /// shared area — each present only when not empty (ArcGIS `intersections(_:_:)`). Unlike
    /// ``intersection(_:_:)``, which keeps only the highest dimension, nothing is left out.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidGeometry` for invalid polygons, `.geos`.
    public static func intersections(_ geometry1: some GeometryConvertible, _ geometry2: some GeometryConvertible)
        throws(EngineError) -> [Geometry]
    {
        let (a, b) = (geometry1.geometry, geometry2.geometry)
        let context = try GEOSContext()
        let (ra, rb) = try context.validPair(a, b)
        let result = try ra.intersection(rb, "intersections")
        return try context.geometriesByDimension(result, in: a.spatialReference)
    }

    /// The part of a geometry inside an envelope (ArcGIS `clip(_:to:)`; GEOS `clipByRect`). Polygons stay
    /// polygons, lines stay lines (cut where they leave the envelope), points inside are kept.
    /// - Returns: The clipped geometry, empty when nothing is inside.
    /// - Throws: `.spatialReferenceMismatch`, `.invalidGeometry` for invalid polygons, `.geos`.
    public static func clip(_ geometry: some GeometryConvertible, to envelope: Envelope) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, envelope.spatialReference)
        let context = try GEOSContext()
        let ref = try context.make(g)
        try context.requireValid(ref, g)
        let clipped = try ref.clipped(to: envelope)
        return try context.geometry(clipped, in: g.spatialReference)
    }

    /// The smallest convex polygon containing a geometry (ArcGIS `convexHull(for:)`): a ``/MeridianCore/Polygon``, or a
    /// ``/MeridianCore/Polyline`` when every vertex lies on one line, or a ``/MeridianCore/Point`` for a single location;
    /// an empty polygon for an empty geometry (GEOS answers an empty geometry too).
    /// - Throws: `.geos`.
    public static func convexHull(for geometry: some GeometryConvertible) throws(EngineError) -> Geometry {
        try convexHull(for: [geometry.geometry], shouldMerge: true)[0]
    }

    /// Convex hulls of several geometries (ArcGIS `convexHull(for:shouldMerge:)`).
    /// - Parameters:
    ///   - geometries: Geometries in one spatial reference.
    ///   - shouldMerge: `true` for one hull around all of them, `false` for one hull per geometry.
    /// - Returns: One hull, or one per geometry in input order (none for no geometries); the hull of an empty
    /// geometry, or of only empty ones when merged, is an empty polygon (empty geometries add nothing to a merged hull).
    /// - Throws: `.spatialReferenceMismatch`, `.geos`.
    public static func convexHull(for geometries: [some GeometryConvertible], shouldMerge: Bool)
        throws(EngineError) -> [Geometry]
    {
        let gs = geometries.map { $0.geometry }
        guard let sr = gs.first?.spatialReference else { return [] }
        if let other = gs.first(where: { $0.spatialReference != sr }) { throw .spatialReferenceMismatch(sr, other.spatialReference) }
        let empty = Geometry.polygon(Polygon(parts: [], spatialReference: sr))
        let context = try GEOSContext()
        func hull(_ ref: GEOSGeometryRef) throws(EngineError) -> Geometry {
            try context.geometry(try ref.convexHull(), in: sr)
        }
        if shouldMerge {
            var refs: [GEOSGeometryRef] = []
            for g in gs where !g.coordinates.isEmpty { refs.append(try context.make(g)) }
            return [refs.isEmpty ? empty : try hull(try context.collection(refs))]
        }
        var result: [Geometry] = []
        for g in gs { result.append(g.coordinates.isEmpty ? empty : try hull(try context.make(g))) }
        return result
    }

    /// The boundary of a geometry (ArcGIS `boundary(of:)`): a polygon's rings as a ``/MeridianCore/Polyline``; a polyline's end
    /// points as a ``/MeridianCore/Multipoint`` (by the OGC mod-2 rule: a closed part has none, an end shared by two parts is
    /// not a boundary point); an empty multipoint for points.
    /// - Throws: `.geos`.
    public static func boundary(of geometry: some GeometryConvertible) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        switch g {
        case .point, .multipoint: return .multipoint(Multipoint([], spatialReference: g.spatialReference))
        default: break
        }
        let result = try GEOSContext().unary(g) { ref throws(EngineError) in try ref.boundary() }
        // A polyline's boundary is points: GEOS returns an empty line for an empty polygon, a point set otherwise.
        if case .point(let p) = result { return .multipoint(Multipoint([p.coordinate], spatialReference: g.spatialReference)) }
        return result
    }

    /// A point guaranteed to lie inside a polygon, away from its edges where possible (ArcGIS `labelPoint(for:)`;
    /// GEOS `pointOnSurface`: on the widest horizontal chord through the polygon's middle).
    /// - Throws: `.badGeometry` for an empty polygon, `.invalidGeometry`, `.geos`.
    public static func labelPoint(for polygon: Polygon) throws(EngineError) -> Point {
        guard !polygon.parts.isEmpty else { throw .badGeometry(.empty("an empty polygon has no label point")) }
        let context = try GEOSContext()
        let g = Geometry.polygon(polygon)
        let ref = try context.make(g)
        try context.requireValid(ref, g)
        let p = try ref.pointOnSurface("label point")
        guard case .point(let point) = try context.geometry(p, in: polygon.spatialReference) else {
            throw .geos("label point: GEOS returned no point")
        }
        return point
    }

    /// Adds vertices so that no segment is longer than `maxSegmentLength` (ArcGIS `densify(_:maxSegmentLength:)`;
    /// GEOS `densify`): each longer segment is split into the fewest equal pieces that are short enough. Existing
    /// vertices are kept; points are returned unchanged. The result has the input's type.
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - maxSegmentLength: The longest segment allowed, in the spatial reference's unit; positive.
    /// - Throws: `.invalidArgument` for a length that is not positive and finite, `.geos`.
    public static func densify<G: VertexGeometry>(_ geometry: G, maxSegmentLength: Double) throws(EngineError) -> G {
        try sameType(as: geometry, "densify", try densified(geometry.geometry, maxSegmentLength: maxSegmentLength))
    }

    /// Densifies an envelope's rectangle (see `densify(_:maxSegmentLength:)`): the result is a polygon.
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - maxSegmentLength: The longest segment allowed, in the spatial reference's unit; positive.
    /// - Throws: `.invalidArgument` for a length that is not positive and finite, `.geos`.
    public static func densify(_ envelope: Envelope, maxSegmentLength: Double) throws(EngineError) -> Polygon {
        try densify(envelope.polygon, maxSegmentLength: maxSegmentLength)
    }

    private static func densified(_ g: Geometry, maxSegmentLength: Double) throws(EngineError) -> Geometry {
        guard maxSegmentLength > 0, maxSegmentLength.isFinite else {
            throw .invalidArgument("the maximum segment length must be positive and finite, got \(maxSegmentLength)")
        }
        switch g {
        case .point, .multipoint: return g
        default: break
        }
        try WorkBudget.admit(vertices: densifiedVertexCount(g, maxSegmentLength: maxSegmentLength), for: "densify")
        let result = try GEOSContext().unary(g) { ref throws(EngineError) in try ref.densified(maxSegmentLength) }
        try WorkBudget.produce(vertices: result.coordinates.count, by: "densify")
        return result
    }

    /// The vertices `densify` makes: each segment becomes ⌈length / maxSegmentLength⌉ pieces (as GEOS splits it),
    /// counted in floating point so that an absurd request is said as it is.
    static func densifiedVertexCount(_ g: Geometry, maxSegmentLength: Double) -> Double {
        let paths: [[Coordinate]] = switch g {
        case .polyline(let l): l.parts
        case .polygon(let p): p.parts.flatMap { $0.rings }
        case .envelope(let e): e.polygon.parts.flatMap { $0.rings }
        case .point, .multipoint: [g.coordinates]
        }
        var total = 0.0
        for path in paths {
            total += 1
            for (a, b) in zip(path, path.dropFirst()) {
                total += max(1, (hypot(b.x - a.x, b.y - a.y) / maxSegmentLength).rounded(.up))
            }
        }
        return total
    }

    /// Removes vertices with the Douglas–Peucker algorithm (ArcGIS `generalize(_:maxDeviation:removeDegenerateParts:)`;
    /// GEOS `simplify`): no removed vertex lies farther than `maxDeviation` from the result's segments. Polygons
    /// are repaired if generalizing made a ring cross another (GEOS). Points are returned unchanged. The result
    /// has the input's type.
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - maxDeviation: The largest distance a removed vertex may be from the result, in the spatial reference's
    ///     unit; zero or positive (zero removes only vertices exactly on a straight line).
    ///   - removeDegenerateParts: `true` to drop parts that collapse (a polyline part whose vertices all coincide,
    ///     a polygon part with no area); `false` keeps a collapsed polyline part as its two end vertices (polygon
    ///     parts with no area are always dropped by GEOS, as in ArcGIS).
    /// - Throws: `.invalidArgument` for a negative or non-finite deviation, `.geos`.
    public static func generalize<G: VertexGeometry>(
        _ geometry: G, maxDeviation: Double, removeDegenerateParts: Bool
    ) throws(EngineError) -> G {
        try sameType(as: geometry, "generalize", try generalized(
            geometry.geometry, maxDeviation: maxDeviation, removeDegenerateParts: removeDegenerateParts))
    }

    /// Generalizes an envelope's rectangle (see `generalize(_:maxDeviation:removeDegenerateParts:)`):
    /// the result is a polygon.
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - maxDeviation: The largest distance a removed vertex may be from the result, in the spatial reference's
    ///     unit; zero or positive.
    ///   - removeDegenerateParts: `true` to drop parts that collapse.
    /// - Throws: `.invalidArgument` for a negative or non-finite deviation, `.geos`.
    public static func generalize(
        _ envelope: Envelope, maxDeviation: Double, removeDegenerateParts: Bool
    ) throws(EngineError) -> Polygon {
        try generalize(envelope.polygon, maxDeviation: maxDeviation, removeDegenerateParts: removeDegenerateParts)
    }

    private static func generalized(
        _ g: Geometry, maxDeviation: Double, removeDegenerateParts: Bool
    ) throws(EngineError) -> Geometry {
        guard maxDeviation >= 0, maxDeviation.isFinite else {
            throw .invalidArgument("the maximum deviation must be zero or positive and finite, got \(maxDeviation)")
        }
        switch g {
        case .point, .multipoint: return g
        default: break
        }
        let result = try GEOSContext().unary(g) { ref throws(EngineError) in try ref.simplified(maxDeviation, "generalize") }
        try WorkBudget.produce(vertices: result.coordinates.count, by: "generalize")
        guard removeDegenerateParts, case .polyline(let line) = result else { return result }
        let parts = line.parts.filter { part in part.contains { $0.x != part[0].x || $0.y != part[0].y } }
        return .polyline(Polyline(parts: parts, spatialReference: line.spatialReference))
    }

    /// Makes a geometry topologically correct for its type (ArcGIS `simplify(_:)`), so that ``isSimple(_:)`` holds:
    /// a polygon is repaired by GEOS's MakeValid (a bow tie becomes two triangles, crossing rings are split, rings
    /// that collapse to lines or points are dropped) and keeps only its area; a polyline loses repeated
    /// consecutive vertices and parts that collapse to a point; a multipoint loses repeated points (first kept).
    /// A point is returned unchanged. The result has the input's type (a wrapped envelope becomes its polygon).
    /// - Throws: `.geos`.
    public static func simplify<G: VertexGeometry>(_ geometry: G) throws(EngineError) -> G {
        try sameType(as: geometry, "simplify", try simplified(geometry.geometry))
    }

    /// An envelope's rectangle as a polygon (see `simplify(_:)`); a rectangle is always simple.
    /// - Throws: `.geos`.
    public static func simplify(_ envelope: Envelope) throws(EngineError) -> Polygon {
        try simplify(envelope.polygon)
    }

    private static func simplified(_ g: Geometry) throws(EngineError) -> Geometry {
        try WorkBudget.produce(vertices: g.coordinates.count, by: "simplify")  // it makes at most as many
        switch g {
        case .point: return g
        case .multipoint(let m):
            var seen = Set<[Double]>()
            // (A missing z is keyed apart from every height; NaN would never equal itself.)
            let unique = m.coordinates.filter { seen.insert([$0.x, $0.y, $0.z ?? 0, $0.z == nil ? 0 : 1]).inserted }
            return .multipoint(Multipoint(unique, spatialReference: m.spatialReference))
        case .polyline(let l):
            let parts = l.parts.map { part in
                part.enumerated().filter { i, c in i == 0 || c != part[i - 1] }.map { $0.element }
            }.filter { $0.count >= 2 }
            return .polyline(Polyline(parts: parts, spatialReference: l.spatialReference))
        case .polygon, .envelope:
            let context = try GEOSContext()
            let ref = try context.make(g)
            if ref.isValid { return .polygon(try context.polygon(ref, in: g.spatialReference)) }
            let valid = try ref.madeValid("simplify")
            return .polygon(try context.polygon(valid, in: g.spatialReference))
        }
    }

    /// Refuses an offset distance that dwarfs the geometry: the result's coordinates are about M + |d| (M the
    /// largest coordinate), where doubles step by ulp(M + |d|), and a geometry whose extent is under 1,000 such
    /// steps collapses there (a 10-unit square offset by 1e300 in a unit of 1e-300 m, which the Earth bound lets
    /// through, gave a pentagon). The same 1,000 steps as the command line's rule for buffer distances too fine
    /// for the coordinates.
    static func requireResolved(_ g: Geometry, atOffset distance: Double) throws(EngineError) {
        var xMin = Double.infinity, xMax = -Double.infinity, yMin = Double.infinity, yMax = -Double.infinity
        for c in g.coordinates {
            xMin = min(xMin, c.x)
            xMax = max(xMax, c.x)
            yMin = min(yMin, c.y)
            yMax = max(yMax, c.y)
        }
        let extent = max(xMax - xMin, yMax - yMin)
        guard extent > 0, extent.isFinite else { return }
        let scale = max(abs(xMin), abs(xMax), abs(yMin), abs(yMax)) + abs(distance)
        guard extent < 1000 * scale.ulp else { return }
        throw .invalidArgument("the offset distance \(distance) dwarfs the geometry: its extent, \(extent), is under 1,000 steps of a double at the result's coordinates (about \(scale), where doubles step by \(scale.ulp))")
    }

    /// A geometry at a constant distance from a polyline or polygon (ArcGIS
    /// `offset(_:byDistance:offsetType:bevelRatio:flattenError:)`).
    ///
    /// ArcGIS's sides: a positive distance offsets a polyline to the right of its direction and grows a polygon
    /// outwards; a negative one offsets to the left and shrinks a polygon. (GEOS's offset curve takes the left
    /// side for positive distances; the sign is turned here.) Each polyline part gives one offset line (GEOS
    /// `offsetCurve`); a polygon gives the buffer polygon with the chosen corners.
    ///
    /// Known limitation with GEOS 3.11.1 (Debian 12): the *ends* of a polyline's offset can differ from GEOS 3.11.2
    /// and later, whose end handling was corrected: a curve may end on a stray vertex closer to the line than the
    /// offset, or stop short of where the newer GEOS ends it (16 of 80 random lines differ at an end from shapely's GEOS
    /// 3.11.4 in `Tests/python/test_cli_op_peers.py`; interior vertices and polygon offsets agree to 1e-9).
    /// - Parameters:
    ///   - geometry: A polyline, polygon or envelope.
    ///   - distance: The offset in the spatial reference's unit; not zero.
    ///   - offsetType: How convex corners are drawn.
    ///   - bevelRatio: For `.mitered`: the longest mitre, as a multiple of `distance`, before the corner is
    ///     bevelled (≥ 1; ArcGIS's default is 10).
    ///   - flattenError: For `.rounded`: the largest distance between the true arc and its chords, in the spatial
    ///     reference's unit (> 0; it sets the number of chords).
    /// - Throws: `.invalidArgument` for points, a zero or non-finite distance, or an out-of-range ratio or error;
    ///   `.invalidGeometry` for invalid polygons; `.geos`.
    public static func offset(
        _ geometry: some GeometryConvertible, byDistance distance: Double, offsetType: OffsetType,
        bevelRatio: Double = 10, flattenError: Double
    ) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        guard distance != 0, distance.isFinite else { throw .invalidArgument("the offset distance must be non-zero and finite, got \(distance)") }
        // As for buffers: no planar distance beyond half the Earth's circumference (1e300 gave a pentagon).
        guard abs(distance) * (g.spatialReference.unit?.metersPerUnit ?? 1) <= maximumBufferDistance else {
            throw .invalidArgument("the offset distance \(distance) exceeds half the Earth's circumference")
        }
        try requireResolved(g, atOffset: distance)
        guard bevelRatio >= 1, bevelRatio.isFinite else { throw .invalidArgument("the bevel ratio must be at least 1, got \(bevelRatio)") }
        guard flattenError > 0, flattenError.isFinite else { throw .invalidArgument("the flatten error must be positive, got \(flattenError)") }
        // Chords per quarter circle so that r·(1 − cos(π/(4q))) ≤ flattenError, capped at 1000.
        let ratio = min(1, flattenError / abs(distance))
        let quadrantSegments = Int(min(1000, max(1, (Double.pi / (4 * acos(1 - ratio))).rounded(.up))))
        let join: JoinStyle = switch offsetType {
        case .rounded: .round
        case .bevelled: .bevel
        case .mitered, .squared: .mitre
        }
        let mitreLimit = offsetType == .squared ? 2.0.squareRoot() : bevelRatio
        try WorkBudget.admit(vertices: Double(estimatedBufferVertices([g], segmentsPerQuarterCircle: quadrantSegments)),
                             for: "the offset")
        let context = try GEOSContext()
        switch g {
        case .point, .multipoint:
            throw .invalidArgument("an offset needs a polyline or a polygon, got a \(g.typeName.lowercased())")
        case .polyline(let line):
            var parts: [[Coordinate]] = []
            for part in line.parts {
                let ref = try context.make(.polyline(Polyline(parts: [part], spatialReference: line.spatialReference)))
                let curve = try ref.offsetCurve(-distance, quarterSegments: quadrantSegments, join: join,
                                                mitreLimit: mitreLimit)
                if case .polyline(let l) = try context.geometry(curve, in: line.spatialReference) { parts += l.parts }
            }
            try WorkBudget.produce(vertices: parts.reduce(0) { $0 + $1.count }, by: "the offset")
            return .polyline(Polyline(parts: parts, spatialReference: line.spatialReference))
        case .polygon, .envelope:
            let ref = try context.make(g)
            try context.requireValid(ref, g)
            // (GEOS's default end cap is round: the parameters are GEOS's defaults but for these three.)
            let params = try GEOSBufferParameters(
                BufferParameters(segmentsPerQuarterCircle: quadrantSegments, joinStyle: join, mitreLimit: mitreLimit),
                context: context, "offset")
            let grown = try context.polygon(try ref.buffer(distance, params, "offset"), in: g.spatialReference)
            try WorkBudget.produce(vertices: grown.vertexCount, by: "the offset")
            return .polygon(grown)
        }
    }
}

extension GeometryEngine {
    /// A polyline's offset (see `offset(_:byDistance:offsetType:bevelRatio:flattenError:)`): a polyline, one
    /// part per input part.
    /// - Parameters:
    ///   - polyline: The line; a positive distance offsets it to the right of its direction.
    ///   - distance: The offset in the spatial reference's unit; not zero.
    ///   - offsetType: How convex corners are drawn.
    ///   - bevelRatio: For `.mitered`: the longest mitre, as a multiple of `distance` (≥ 1; default 10).
    ///   - flattenError: For `.rounded`: the largest distance between the true arc and its chords, in the spatial
    ///     reference's unit (> 0).
    /// - Throws: `.invalidArgument` for a zero or non-finite distance, or an out-of-range ratio or error; `.geos`.
    public static func offset(
        _ polyline: Polyline, byDistance distance: Double, offsetType: OffsetType, bevelRatio: Double = 10,
        flattenError: Double
    ) throws(EngineError) -> Polyline {
        try sameType(as: polyline, "offset", try offset(
            polyline.geometry, byDistance: distance, offsetType: offsetType, bevelRatio: bevelRatio,
            flattenError: flattenError))
    }

    /// A polygon's offset (see `offset(_:byDistance:offsetType:bevelRatio:flattenError:)`): the polygon grown
    /// (positive distance) or shrunk (negative), with the chosen corners.
    /// - Parameters:
    ///   - polygon: The area.
    ///   - distance: The offset in the spatial reference's unit; not zero.
    ///   - offsetType: How convex corners are drawn.
    ///   - bevelRatio: For `.mitered`: the longest mitre, as a multiple of `distance` (≥ 1; default 10).
    ///   - flattenError: For `.rounded`: the largest distance between the true arc and its chords, in the spatial
    ///     reference's unit (> 0).
    /// - Throws: `.invalidArgument` for a zero or non-finite distance, or an out-of-range ratio or error;
    ///   `.invalidGeometry` for an invalid polygon; `.geos`.
    public static func offset(
        _ polygon: Polygon, byDistance distance: Double, offsetType: OffsetType, bevelRatio: Double = 10,
        flattenError: Double
    ) throws(EngineError) -> Polygon {
        try sameType(as: polygon, "offset", try offset(
            polygon.geometry, byDistance: distance, offsetType: offsetType, bevelRatio: bevelRatio,
            flattenError: flattenError))
    }

    /// The result of a type-preserving operation as the input's type (GEOS keeps the type, empty inputs included:
    /// a mismatch would be GEOS breaking its contract, reported rather than trapped).
    static func sameType<G: VertexGeometry>(
        as input: G, _ operation: String, _ result: Geometry
    ) throws(EngineError) -> G {
        if let typed = G(result) { return typed }
        throw .geos("\(operation) gave a \(result.typeName.lowercased()) for a \(input.geometry.typeName.lowercased())")
    }
}

// MARK: - Proximity

/// The answer of ``GeometryEngine/nearestCoordinate(in:to:)`` and ``GeometryEngine/nearestVertex(in:to:)``.
public struct ProximityResult: Sendable, Hashable {
    /// The nearest location on (or vertex of) the geometry.
    public var coordinate: Point
    /// Its planar distance from the query point, in the spatial reference's unit.
    public var distance: Double
    /// The part (polyline part, polygon ring counted shells and holes in order, or multipoint point) it lies on.
    public var partIndex: Int
    /// The vertex index within that part: the vertex itself for ``GeometryEngine/nearestVertex(in:to:)``, the
    /// first vertex of the segment it lies on for ``GeometryEngine/nearestCoordinate(in:to:)``.
    public var pointIndex: Int
}

extension GeometryEngine {
    /// The location on a geometry's points, lines or rings nearest to a point (ArcGIS `nearestCoordinate(in:to:)`).
    /// For a polygon the rings are searched, so a point inside gets the nearest boundary location; ties go to the
    /// first segment in ring order.
    /// - Returns: The nearest location, or `nil` for an empty geometry.
    /// - Throws: `.spatialReferenceMismatch`.
    public static func nearestCoordinate(in geometry: some GeometryConvertible, to point: Point)
        throws(EngineError) -> ProximityResult?
    {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, point.spatialReference)
        var best: ProximityResult?
        for (partIndex, part) in parts(of: g).enumerated() {
            if part.count == 1 {
                consider(part[0], partIndex: partIndex, pointIndex: 0, query: point, into: &best)
                continue
            }
            for i in 0..<(part.count - 1) {
                let c = SegmentProjection(part[i], part[i + 1], point.coordinate).nearest
                consider(c, partIndex: partIndex, pointIndex: i, query: point, into: &best)
            }
        }
        return best
    }

    /// The vertex of a geometry nearest to a point (ArcGIS `nearestVertex(in:to:)`); ties go to the first vertex
    /// in part order.
    /// - Returns: The nearest vertex, or `nil` for an empty geometry.
    /// - Throws: `.spatialReferenceMismatch`.
    public static func nearestVertex(in geometry: some GeometryConvertible, to point: Point)
        throws(EngineError) -> ProximityResult?
    {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, point.spatialReference)
        var best: ProximityResult?
        for (partIndex, part) in parts(of: g).enumerated() {
            for (i, c) in part.enumerated() { consider(c, partIndex: partIndex, pointIndex: i, query: point, into: &best) }
        }
        return best
    }

    /// Where a point projects onto the segment from `a` to `b` (planar): the parameter along the segment, unclamped
    /// (`raw`, < 0 before `a`, > 1 beyond `b`) and clamped (`t`), the nearest location on the segment and its length.
    struct SegmentProjection {
        let raw: Double, t: Double, nearest: Coordinate, length: Double

        init(_ a: Coordinate, _ b: Coordinate, _ q: Coordinate) {
            let dx = b.x - a.x, dy = b.y - a.y
            let lengthSquared = dx * dx + dy * dy
            raw = lengthSquared > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / lengthSquared : 0
            t = min(1, max(0, raw))
            nearest = t == 0 ? a : t == 1 ? b : Coordinate(x: a.x + t * dx, y: a.y + t * dy)
            length = lengthSquared.squareRoot()
        }
    }

    /// The vertex sequences searched by the proximity functions: each point of a multipoint alone, polyline parts,
    /// polygon rings (shells and holes in order).
    private static func parts(of g: Geometry) -> [[Coordinate]] {
        switch g {
        case .point(let p): [[p.coordinate]]
        case .multipoint(let m): m.coordinates.map { [$0] }
        case .polyline(let l): l.parts
        case .polygon(let p): p.rings.map(Polygon.closed)
        case .envelope(let e): e.polygon.rings
        }
    }

    private static func consider(
        _ c: Coordinate, partIndex: Int, pointIndex: Int, query: Point, into best: inout ProximityResult?
    ) {
        let d = hypot(c.x - query.x, c.y - query.y)
        if best == nil || d < best!.distance {
            best = ProximityResult(
                coordinate: Point(Coordinate(x: c.x, y: c.y, z: c.z), spatialReference: query.spatialReference),
                distance: d, partIndex: partIndex, pointIndex: pointIndex)
        }
    }
}

// MARK: - Extents and affine transformations

extension GeometryEngine {
    /// The envelope around two geometries (ArcGIS `combineExtents(_:_:)`).
    /// - Throws: `.spatialReferenceMismatch`, `.badGeometry` when both are empty.
    public static func combineExtents(_ geometry1: some GeometryConvertible, _ geometry2: some GeometryConvertible)
        throws(EngineError) -> Envelope
    {
        try combineExtents(of: [geometry1.geometry, geometry2.geometry])
    }

    /// The envelope around several geometries (ArcGIS `combineExtents(of:)`); empty geometries add nothing.
    /// - Throws: `.spatialReferenceMismatch`, `.badGeometry` when every geometry is empty.
    public static func combineExtents(of geometries: [some GeometryConvertible]) throws(EngineError) -> Envelope {
        let gs = geometries.map { $0.geometry }
        guard let sr = gs.first?.spatialReference else { throw .badGeometry(.empty("no geometries to combine")) }
        if let other = gs.first(where: { $0.spatialReference != sr }) { throw .spatialReferenceMismatch(sr, other.spatialReference) }
        guard let envelope = Envelope(around: gs.flatMap({ $0.coordinates }), spatialReference: sr) else {
            throw .badGeometry(.empty("every geometry is empty: there is no extent"))
        }
        return envelope
    }

    /// The geometry moved by a distance along each axis (ArcGIS `move(_:deltaX:deltaY:)`), of the input's type
    /// (a wrapped envelope stays an envelope).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - deltaX: The shift along x, in the spatial reference's unit.
    ///   - deltaY: The shift along y, in the spatial reference's unit.
    public static func move<G: VertexGeometry>(_ geometry: G, deltaX: Double, deltaY: Double) -> G {
        if let e = geometry.geometry.envelope, let moved = G(.envelope(move(e, deltaX: deltaX, deltaY: deltaY))) {
            return moved
        }
        return geometry.mapCoordinates(into: geometry.geometry.spatialReference) {
            Coordinate(x: $0.x + deltaX, y: $0.y + deltaY, z: $0.z)
        }
    }

    /// An envelope moved by a distance along each axis: still an envelope.
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - deltaX: The shift along x, in the spatial reference's unit.
    ///   - deltaY: The shift along y, in the spatial reference's unit.
    public static func move(_ envelope: Envelope, deltaX: Double, deltaY: Double) -> Envelope {
        Envelope(xMin: envelope.xMin + deltaX, yMin: envelope.yMin + deltaY, xMax: envelope.xMax + deltaX,
                 yMax: envelope.yMax + deltaY, spatialReference: envelope.spatialReference)
    }

    /// The geometry rotated counter-clockwise about a point (ArcGIS `rotate(_:by:around:)`), of the input's type
    /// (a wrapped envelope becomes a polygon).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - angle: The rotation in degrees, counter-clockwise.
    ///   - origin: The fixed point; `nil` for the centre of the geometry's extent.
    public static func rotate<G: VertexGeometry>(_ geometry: G, by angle: Double, around origin: Point? = nil) -> G {
        let g = geometry.geometry
        let center = origin?.coordinate ?? g.extent?.center ?? Coordinate(x: 0, y: 0)  // (no vertices: no matter)
        let (s, c) = (sin(angle * .pi / 180), cos(angle * .pi / 180))
        return geometry.mapCoordinates(into: g.spatialReference) {
            let (x, y) = ($0.x - center.x, $0.y - center.y)
            return Coordinate(x: center.x + c * x - s * y, y: center.y + s * x + c * y, z: $0.z)
        }
    }

    /// An envelope rotated about a point: a polygon, since a turned rectangle is no longer axis-aligned.
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - angle: The rotation in degrees, counter-clockwise.
    ///   - origin: The fixed point; `nil` for the envelope's centre.
    public static func rotate(_ envelope: Envelope, by angle: Double, around origin: Point? = nil) -> Polygon {
        rotate(envelope.polygon, by: angle, around: origin)
    }

    /// The geometry scaled about a point (ArcGIS `scale(_:factorX:factorY:relativeTo:)`), of the input's type
    /// (a wrapped envelope becomes a polygon).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - factorX: The scale factor along x (negative mirrors).
    ///   - factorY: The scale factor along y (negative mirrors).
    ///   - origin: The fixed point; `nil` for the centre of the geometry's extent.
    public static func scale<G: VertexGeometry>(
        _ geometry: G, factorX: Double, factorY: Double, relativeTo origin: Point? = nil
    ) -> G {
        let g = geometry.geometry
        let center = origin?.coordinate ?? g.extent?.center ?? Coordinate(x: 0, y: 0)  // (no vertices: no matter)
        return geometry.mapCoordinates(into: g.spatialReference) {
            Coordinate(x: center.x + factorX * ($0.x - center.x), y: center.y + factorY * ($0.y - center.y), z: $0.z)
        }
    }

    /// An envelope scaled about a point, as a polygon (as `scale(_:factorX:factorY:relativeTo:)`).
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - factorX: The scale factor along x (negative mirrors).
    ///   - factorY: The scale factor along y (negative mirrors).
    ///   - origin: The fixed point; `nil` for the envelope's centre.
    public static func scale(
        _ envelope: Envelope, factorX: Double, factorY: Double, relativeTo origin: Point? = nil
    ) -> Polygon {
        scale(envelope.polygon, factorX: factorX, factorY: factorY, relativeTo: origin)
    }
}

extension Envelope {
    /// The centre of the rectangle.
    var center: Coordinate { Coordinate(x: (xMin + xMax) / 2, y: (yMin + yMax) / 2) }
}
