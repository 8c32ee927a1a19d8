import Foundation
import MeridianCore

// MARK: - Topological analysis, under ArcGIS's names (GEOS underneath)

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

    /// The result of a type-preserving operation as the input's type (GEOS keeps the type, empty inputs included:
    /// a mismatch would be GEOS breaking its contract, reported rather than trapped).
    static func sameType<G: VertexGeometry>(
        as input: G, _ operation: String, _ result: Geometry
    ) throws(EngineError) -> G {
        if let typed = G(result) { return typed }
        throw .geos("\(operation) gave a \(result.typeName.lowercased()) for a \(input.geometry.typeName.lowercased())")
    }
}
