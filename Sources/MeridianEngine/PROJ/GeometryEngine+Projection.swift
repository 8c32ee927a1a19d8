import Foundation
import MeridianCore

// MARK: - Projection

extension GeometryEngine {
    /// Projects a geometry into another spatial reference, returning the same type: a ``/MeridianCore/Polygon`` for a polygon,
    /// a ``/MeridianCore/Point`` for a point (`let p: Polygon = try GeometryEngine.project(polygon, into: sr)`).
    ///
    /// Every vertex is projected; the segments between them stay straight in the target, so a long edge that is
    /// curved in the target's plane is approximated by its chord (densify first to follow the curve).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline or polygon.
    ///   - spatialReference: The target spatial reference.
    /// - Returns: The projected geometry, of the input's type.
    /// - Throws: `EngineError.projectionFailed` when a vertex is outside the transformation's domain.
    public static func project<G: VertexGeometry>(_ geometry: G, into spatialReference: SpatialReference)
        throws(EngineError) -> G
    {
        try transformVertices(geometry, into: spatialReference).geometry
    }

    /// Projects an envelope: the result is a ``/MeridianCore/Polygon`` through the four projected corners, because a
    /// rectangle is in general no longer axis-aligned in another spatial reference (its edges may even be curved
    /// there: densify `envelope.polygon` first to follow them; the envelope around the result is its ``/MeridianCore/Geometry/extent``).
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - spatialReference: The target spatial reference.
    /// - Returns: The projected rectangle as a four-corner polygon.
    /// - Throws: `EngineError.projectionFailed` when a corner is outside the transformation's domain.
    public static func project(_ envelope: Envelope, into spatialReference: SpatialReference) throws(EngineError) -> Polygon {
        try project(envelope.polygon, into: spatialReference)
    }

    /// Projects a geometry held as a ``/MeridianCore/Geometry`` (or any ``/MeridianCore/GeometryConvertible``) into another spatial reference;
    /// an envelope becomes a polygon (see `project(_:into:)`).
    /// - Parameters:
    ///   - geometry: Any geometry.
    ///   - spatialReference: The target spatial reference.
    /// - Returns: The projected geometry.
    /// - Throws: `EngineError.projectionFailed` when a vertex is outside the transformation's domain.
    public static func project(_ geometry: some GeometryConvertible, into spatialReference: SpatialReference)
        throws(EngineError) -> Geometry
    {
        try transformVertices(geometry.geometry, into: spatialReference).geometry
    }

    /// Projects a geometry and reports which PROJ operation ran and its accuracy (for NAD27 ↔ WGS84 without the
    /// NADCON grid, PROJ falls back to a Helmert shift accurate to about 7 m; with the grid under `PROJ_DATA` it
    /// uses the grid).
    /// - Parameters:
    ///   - geometry: Any geometry.
    ///   - spatialReference: The target spatial reference.
    /// - Returns: The projected geometry and the operations used.
    public static func projectReportingOperations(
        _ geometry: some GeometryConvertible, into spatialReference: SpatialReference
    ) throws(EngineError) -> ProjectedGeometry {
        let (g, operations) = try transformVertices(geometry.geometry, into: spatialReference)
        return ProjectedGeometry(geometry: g, operations: operations)
    }

    /// The one projection of a geometry: all vertices in one call (`project(_:from:into:)`), then redistributed
    /// into the shape.
    /// - Parameter pipeline: A PROJ pipeline to run instead of the operation PROJ would choose.
    static func transformVertices<G: VertexGeometry>(
        _ g: G, into spatialReference: SpatialReference, pipeline: String? = nil
    ) throws(EngineError) -> (geometry: G, operations: [ProjectionOperation]) {
        let source = g.geometry.spatialReference
        if source == spatialReference { return (g, []) }
        var all = g.geometry.coordinates
        let operation = try project(&all, from: source, into: spatialReference, pipeline: pipeline)
        var iterator = all.makeIterator()
        return (g.mapCoordinates(into: spatialReference) { _ in iterator.next()! }, operation.map { [$0] } ?? [])
    }

    /// Projects coordinates in bulk, without building geometries (the fast path for large point sets), on
    /// `Parallelism.threadCount` threads. Where PROJ runs a smooth operation (no grid shift) the vertices are
    /// interpolated tile by tile from PROJ's values (``InterpolatedProjection``): within 1e-11° (into a geographic
    /// spatial reference) or 1 µm (into a projected one) of what PROJ itself returns; elsewhere PROJ transforms each
    /// vertex. Heights are transformed where present (by PROJ); a coordinate without one is transformed at height 0
    /// and keeps `nil`.
    /// - Parameters:
    ///   - coordinates: Coordinates in `source`; replaced by the projected coordinates on success, unchanged when
    ///     this throws.
    ///   - source: Their spatial reference.
    ///   - target: The target spatial reference.
    /// - Returns: The operation PROJ uses for the last coordinate, if any ran.
    /// - Throws: `EngineError.projectionFailed` located at the first vertex (``EngineError/Location/vertex``, its
    ///   index; the message gives its input x, y) that PROJ cannot transform, e.g. one outside the projection's domain.
    @discardableResult
    public static func project(
        _ coordinates: inout [Coordinate], from source: SpatialReference, into target: SpatialReference
    ) throws(EngineError) -> ProjectionOperation? {
        try project(&coordinates, from: source, into: target, pipeline: nil)
    }

    /// Projects coordinates that are to be printed rounded to `decimals` decimals, so that the text is the text of
    /// PROJ's own results: as ``project(_:from:into:)``, and then every vertex whose interpolated x or y lies within
    /// the interpolation's bound of a rounding boundary (where the interpolant and PROJ might round apart) is
    /// projected again by PROJ itself. (With 4 decimals of US feet that is about one vertex in fifteen; with 9
    /// decimals of degrees one in fifty.)
    /// - Parameters:
    ///   - coordinates: Coordinates in `source`; replaced by the projected coordinates on success, unchanged when
    ///     this throws.
    ///   - source: Their spatial reference.
    ///   - target: The target spatial reference.
    ///   - decimals: The decimals the results will be printed with (0…17).
    /// - Returns: The operation PROJ uses for the last coordinate, if any ran.
    /// - Throws: As ``project(_:from:into:)``.
    @discardableResult
    public static func project(
        _ coordinates: inout [Coordinate], from source: SpatialReference, into target: SpatialReference,
        printedWith decimals: Int
    ) throws(EngineError) -> ProjectionOperation? {
        guard source != target, let last = coordinates.last else { return nil }
        let projection = try InterpolatedProjection.between(source, target)
        let original = coordinates  // PROJ's input where it projects again, and kept on failure
        do throws(EngineError) {
            try projection.transform(&coordinates)  // (into a new array, copied on the threads)
            if projection.interpolates, (0...17).contains(decimals) {
                try settleRounding(&coordinates, original, decimals: decimals, bound: projection.bound,
                                   by: try Transformation.between(source, target))
            }
        } catch {
            coordinates = original
            throw error
        }
        return try operation(at: last, from: source, into: target, pipeline: nil)
    }

    /// Projects again with PROJ (`transformation`) every vertex whose x or y in `projected` lies within `bound` of
    /// a rounding boundary at `decimals` decimals (see `project(_:from:into:printedWith:)`). Large arrays are
    /// searched and projected in pieces on `threads` threads (as `InterpolatedProjection` shares them).
    private static func settleRounding(_ projected: inout [Coordinate], _ original: [Coordinate], decimals: Int,
                                       bound: Double, by transformation: Transformation,
                                       threads: Int = Parallelism.threadCount) throws(EngineError) {
        let scale = pow(10, Double(decimals)), margin = bound * scale
        @Sendable func nearBoundary(_ v: Double) -> Bool {
            let scaled = v * scale  // (its rounding error, a few ulps, is added to the margin)
            return abs(scaled - scaled.rounded(.down) - 0.5) <= margin + 4 * scaled.magnitude.ulp
        }
        let n = projected.count, minimum = InterpolatedProjection.parallelMinimum
        let pieces = n >= minimum ? min(max(threads, 1), n / (minimum / 2)) : 1
        // Each piece: the indices of its vertices near a boundary, and PROJ's values there (errors in piece order).
        let settled = try projected.withUnsafeBufferPointer { (values: UnsafeBufferPointer<Coordinate>) throws(EngineError) in
            try original.withUnsafeBufferPointer { (inputs: UnsafeBufferPointer<Coordinate>) throws(EngineError) in
                let values = ReadOnlyCoordinates(values), inputs = ReadOnlyCoordinates(inputs)
                return try ForkJoin.map(count: pieces, threads: pieces) { (p: Int) throws(EngineError) -> ([Int], [Coordinate]) in
                    let range = (n * p / pieces)..<(n * (p + 1) / pieces)
                    let settle = range.filter { nearBoundary(values.buffer[$0].x) || nearBoundary(values.buffer[$0].y) }
                    var exact = settle.map { inputs.buffer[$0] }
                    if !exact.isEmpty {
                        _ = try transformation.transform(&exact, reportsOperation: false, vertexNumbers: settle)
                    }
                    return (settle, exact)
                }
            }
        }
        for (settle, exact) in settled {
            for (k, i) in settle.enumerated() { projected[i] = exact[k] }
        }
    }

    /// `project(_:from:into:)` with PROJ's choice of operation or a given pipeline.
    static func project(
        _ coordinates: inout [Coordinate], from source: SpatialReference, into target: SpatialReference,
        pipeline: String?
    ) throws(EngineError) -> ProjectionOperation? {
        guard source != target, let last = coordinates.last else { return nil }
        try InterpolatedProjection.between(source, target, pipeline: pipeline).transform(&coordinates)
        return try operation(at: last, from: source, into: target, pipeline: pipeline)
    }

    /// The operation PROJ runs at one vertex (given in `source`): what the bulk projections report, as interpolated
    /// vertices name none.
    private static func operation(at vertex: Coordinate, from source: SpatialReference, into target: SpatialReference,
                                  pipeline: String?) throws(EngineError) -> ProjectionOperation? {
        var probe = [vertex]
        return try Transformation.between(source, target, pipeline: pipeline).transform(&probe)
    }

    /// Projects a polygon in place, ring by ring, so a large polygon (a union of a million buffers) is never held
    /// twice; PROJ's operation is not reported. Rings are interpolated where the operation is smooth, as by
    /// `project(_:from:into:)`. A polygon of at least `parallelProjectionVertices` vertices is shared between
    /// `Parallelism.threadCount` threads (each a run of whole rings): the result is the same, bit for bit.
    /// - Parameters:
    ///   - polygon: The polygon; on success its rings are in `target` and its spatial reference is `target`.
    ///   - target: The spatial reference wanted.
    /// - Throws: `EngineError.projectionFailed` for the first ring (in order) with a vertex that cannot be
    ///   transformed (the polygon is then partly projected: discard it).
    public static func project(_ polygon: inout Polygon, into target: SpatialReference) throws(EngineError) {
        try project(&polygon, into: target, threadsFrom: parallelProjectionVertices, threads: Parallelism.threadCount)
    }

    /// `project(_:into:)` with another threshold for several threads (tests use small polygons) and thread count.
    static func project(_ polygon: inout Polygon, into target: SpatialReference, threadsFrom threshold: Int,
                        threads: Int) throws(EngineError)
    {
        let source = polygon.spatialReference
        guard source != target else { return }
        let projection = try InterpolatedProjection.between(source, target)
        var parts = polygon.parts
        polygon = Polygon(parts: [], spatialReference: target)  // drops the only other reference to the parts
        // The rings moved out of the parts (so each is uniquely referenced and transformed without a copy of it).
        let holeCounts = parts.map { $0.holes.count }
        var rings: [[Coordinate]] = []
        rings.reserveCapacity(parts.count + holeCounts.reduce(0, +))
        for i in parts.indices {
            rings.append(parts[i].shell)
            parts[i].shell = []
            rings += parts[i].holes
            parts[i].holes = []
        }
        let vertices = rings.reduce(0) { $0 + $1.count }
        let runs = runsOfRings(rings.map { $0.count }, pieces: vertices >= threshold ? threads : 1)
        try rings.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<[Coordinate]>) throws(EngineError) in
            let shared = SharedRings(buffer)
            try WorkBudget.forEach(count: runs.count, threads: threads) { (r: Int) throws(EngineError) in
                var local = LocalTiles()  // one table of tiles for the run's rings
                defer { local.release() }
                for k in runs[r] { try projection.transform(&shared.rings[k], local: &local, atomically: false) }
            }
        }
        var next = 0
        for i in parts.indices {
            parts[i].shell = rings[next]
            parts[i].holes = Array(rings[(next + 1)..<(next + 1 + holeCounts[i])])
            next += 1 + holeCounts[i]
        }
        polygon = Polygon(parts: parts, spatialReference: target)
    }

    /// Consecutive runs of rings with about the same number of vertices each, at most `pieces` of them (fixed by
    /// the sizes alone, so the work is cut the same way whatever the threads do).
    static func runsOfRings(_ sizes: [Int], pieces: Int) -> [Range<Int>] {
        let total = sizes.reduce(0, +)
        guard pieces > 1, total > 0 else { return sizes.isEmpty ? [] : [0..<sizes.count] }
        var runs: [Range<Int>] = []
        var start = 0, sum = 0
        for (k, size) in sizes.enumerated() {
            sum += size
            // Run r ends once the vertices so far reach r/pieces of the total.
            if sum * pieces >= total * (runs.count + 1) || k == sizes.count - 1 {
                runs.append(start..<(k + 1))
                start = k + 1
            }
        }
        return runs
    }

    /// Polygons with at least this many vertices are projected on several threads by `project(_:into:)` (an
    /// interpolated vertex takes about 20 ns, PROJ 0.1–0.5 µs, a thread about 20 µs to start).
    public static let parallelProjectionVertices = 65_536
}

/// Rings handed to `project(_:into:)`'s threads: each thread writes only its own run of them.
private struct SharedRings: @unchecked Sendable {
    let rings: UnsafeMutableBufferPointer<[Coordinate]>
    init(_ rings: UnsafeMutableBufferPointer<[Coordinate]>) { self.rings = rings }
}
