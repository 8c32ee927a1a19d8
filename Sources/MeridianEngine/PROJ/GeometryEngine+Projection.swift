import Dispatch
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

    /// The one projection of a geometry: all vertices in one PROJ call, then redistributed into the shape.
    /// - Parameter pipeline: A PROJ pipeline to run instead of the operation PROJ would choose.
    static func transformVertices<G: VertexGeometry>(
        _ g: G, into spatialReference: SpatialReference, pipeline: String? = nil
    ) throws(EngineError) -> (geometry: G, operations: [ProjectionOperation]) {
        let source = g.geometry.spatialReference
        if source == spatialReference { return (g, []) }
        let transformation = try Transformation.between(source, spatialReference, pipeline: pipeline)
        var all = g.geometry.coordinates
        let operation = try transformation.transform(&all)
        var iterator = all.makeIterator()
        return (g.mapCoordinates(into: spatialReference) { _ in iterator.next()! }, operation.map { [$0] } ?? [])
    }

    /// Projects coordinates in bulk, without building geometries (the fast path for large point sets): PROJ reads
    /// and writes x and y inside the coordinates, with no intermediate arrays. Heights are transformed where present;
    /// a coordinate without one is transformed at height 0 and keeps `nil`.
    /// - Parameters:
    ///   - coordinates: Coordinates in `source`; replaced by the projected coordinates on success, unchanged when
    ///     this throws.
    ///   - source: Their spatial reference.
    ///   - target: The target spatial reference.
    /// - Returns: The operation PROJ used (for the last coordinate), if any ran.
    /// - Throws: `EngineError.projectionFailed` naming the first vertex (index and input x, y) that PROJ cannot
    ///   transform, e.g. one outside the projection's domain.
    @discardableResult
    public static func project(
        _ coordinates: inout [Coordinate], from source: SpatialReference, into target: SpatialReference
    ) throws(EngineError) -> ProjectionOperation? {
        if source == target { return nil }
        return try Transformation.between(source, target).transform(&coordinates)
    }

    /// Projects a polygon in place, ring by ring, so a large polygon (a union of a million buffers) is never held
    /// twice; PROJ's operation is not reported. A polygon of at least `parallelProjectionVertices` vertices is split
    /// between two threads (each ring on one of them, each thread with its own copy of the PROJ operation in its own
    /// context): the result is the same, bit for bit.
    /// - Parameters:
    ///   - polygon: The polygon; on success its rings are in `target` and its spatial reference is `target`.
    ///   - target: The spatial reference wanted.
    /// - Throws: `EngineError.projectionFailed` for the first ring (in order) with a vertex that cannot be
    ///   transformed (the polygon is then partly projected: discard it).
    public static func project(_ polygon: inout Polygon, into target: SpatialReference) throws(EngineError) {
        try project(&polygon, into: target, twoThreadsFrom: parallelProjectionVertices)
    }

    /// `project(_:into:)` with another threshold for two threads (tests use small polygons).
    static func project(_ polygon: inout Polygon, into target: SpatialReference, twoThreadsFrom threshold: Int)
        throws(EngineError)
    {
        let source = polygon.spatialReference
        guard source != target else { return }
        let transformation = try Transformation.between(source, target)
        var parts = polygon.parts
        polygon = Polygon(parts: [], spatialReference: target)  // drops the only other reference to the parts
        // The rings moved out of the parts (so each is uniquely referenced and transformed without a copy of it).
        let holeCounts = parts.map(\.holes.count)
        var rings: [[Coordinate]] = []
        rings.reserveCapacity(parts.count + holeCounts.reduce(0, +))
        for i in parts.indices {
            rings.append(parts[i].shell)
            parts[i].shell = []
            rings += parts[i].holes
            parts[i].holes = []
        }
        let vertices = rings.reduce(0) { $0 + $1.count }
        // Thread 0 takes rings[..<split], thread 1 the rest, about half the vertices each.
        var split = rings.count
        if vertices >= threshold {
            var sum = 0
            split = 0
            while 2 * sum < vertices {
                sum += rings[split].count
                split += 1
            }
        }
        let failures = rings.withUnsafeMutableBufferPointer { buffer in
            let shared = SharedRings(buffer)
            let ranges = [0..<split, split..<shared.rings.count].filter { !$0.isEmpty }
            let results = ThreadResults(count: ranges.count)
            DispatchQueue.concurrentPerform(iterations: ranges.count) { t in
                for r in ranges[t] {
                    do throws(EngineError) {
                        _ = try transformation.transform(&shared.rings[r], reportsOperation: false)
                    } catch {
                        results.set(t, error)
                        return
                    }
                }
            }
            return results.errors
        }
        if let error = failures.lazy.compactMap({ $0 }).first { throw error }
        var next = 0
        for i in parts.indices {
            parts[i].shell = rings[next]
            parts[i].holes = Array(rings[(next + 1)..<(next + 1 + holeCounts[i])])
            next += 1 + holeCounts[i]
        }
        polygon = Polygon(parts: parts, spatialReference: target)
    }

    /// Polygons with at least this many vertices are projected on two threads by `project(_:into:)` (a PROJ
    /// projection takes about 0.1–0.3 µs per vertex, a thread about 20 µs to start).
    public static let parallelProjectionVertices = 65_536
}

/// Rings handed to `project(_:into:)`'s threads: each thread writes only its own range of them.
private struct SharedRings: @unchecked Sendable {
    let rings: UnsafeMutableBufferPointer<[Coordinate]>
    init(_ rings: UnsafeMutableBufferPointer<[Coordinate]>) { self.rings = rings }
}

/// One slot per thread for the error that stopped it (guarded by a lock), read after the threads finish.
private final class ThreadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [EngineError?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ t: Int, _ error: EngineError) { lock.withLock { slots[t] = error } }
    var errors: [EngineError?] { lock.withLock { slots } }
}
