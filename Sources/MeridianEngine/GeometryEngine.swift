import Dispatch
import Foundation
import MeridianCore

/// Geometry operations, with the names ArcGIS users know. Planar operations run in GEOS in the geometries' own
/// spatial reference; projection runs in PROJ; geodetic operations run on the ellipsoid (see `geodetic…`).
///
/// Every function is thread-safe and throws an `EngineError` with GEOS's or PROJ's message on failure.
public enum GeometryEngine {}

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

// MARK: - Buffers

/// How the ends of buffered lines are drawn.
public enum EndCapStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// A half circle (the default).
    case round
    /// Cut square at the line's end.
    case flat
    /// A square extending `distance` past the end.
    case square
}

/// How buffered lines and polygons turn at their vertices.
public enum JoinStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// An arc (the default).
    case round
    /// A sharp corner, cut at the mitre limit.
    case mitre
    /// A straight cut across the corner.
    case bevel
}

/// How a buffer's curves are approximated.
///
/// Each quarter circle becomes `segmentsPerQuarterCircle` (q) straight chords, with the vertices on the circle.
/// A chord spanning π/(2q) deviates from the arc by at most r·(1 − cos(π/(4q))): with the default q = 16 that is
/// 0.12% of the radius (6.4 ft for a 1-mile buffer), and a point's buffer, a regular 4q-gon, has
/// (2q/π)·sin(π/(2q)) = 0.99839 of the circle's area (0.16% less).
public struct BufferParameters: Sendable, Hashable, Codable {
    /// Chords per quarter circle, q ≥ 1. Default 16 (64 vertices on a point's buffer).
    public var segmentsPerQuarterCircle: Int
    /// End caps of buffered lines.
    public var endCapStyle: EndCapStyle
    /// Joins of buffered lines and polygons.
    public var joinStyle: JoinStyle
    /// For mitre joins: the largest ratio of mitre length to distance before the corner is bevelled (default 5).
    public var mitreLimit: Double

    /// Creates buffer parameters.
    /// - Parameters:
    ///   - segmentsPerQuarterCircle: Chords per quarter circle, 1…1000 (default 16).
    ///   - endCapStyle: Line end caps (default round).
    ///   - joinStyle: Vertex joins (default round).
    ///   - mitreLimit: Mitre ratio limit (default 5).
    public init(segmentsPerQuarterCircle: Int = 16, endCapStyle: EndCapStyle = .round, joinStyle: JoinStyle = .round,
                mitreLimit: Double = 5) {
        self.segmentsPerQuarterCircle = segmentsPerQuarterCircle
        self.endCapStyle = endCapStyle
        self.joinStyle = joinStyle
        self.mitreLimit = mitreLimit
    }

    /// The defaults: 16 chords per quarter circle, round caps and joins.
    public static let `default` = BufferParameters()

    /// The largest distance between a true circular arc of radius 1 and its chords: 1 − cos(π/(4q)).
    public var relativeChordError: Double { 1 - cos(Double.pi / (4 * Double(segmentsPerQuarterCircle))) }
}

extension GeometryEngine {
    /// The largest buffer distance accepted, in meters: half the Earth's equatorial circumference. No planar
    /// projection is meaningful beyond it.
    public static let maximumBufferDistance = 20_037_508.342789244

    /// Buffers one geometry in its own (projected) spatial reference (ArcGIS's `buffer(around:distance:)`).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or envelope in a projected spatial reference.
    ///   - distance: The buffer distance, in `distanceUnit` or, when that is `nil`, in the spatial reference's unit
    ///     (US survey feet for EPSG:32038). Negative shrinks polygons; zero or negative gives points and lines an
    ///     empty polygon (as GEOS, JTS and ArcGIS do). Its size in meters must not exceed `maximumBufferDistance`.
    ///   - distanceUnit: The unit of `distance`; `nil` (default) for the spatial reference's own unit, as ArcGIS.
    ///   - parameters: Segments per quarter circle, end caps and joins.
    /// - Returns: The buffer polygon (possibly empty, e.g. a polygon shrunk to nothing).
    /// - Throws: `EngineError.geographicCoordinatesRefused` for degree coordinates (use `geodeticBuffer`),
    ///   `.spatialReferenceRequired` for a `distanceUnit` with an unspecified spatial reference,
    ///   `.invalidDistance`, `.invalidGeometry` for self-intersecting polygons, `.badGeometry`.
    public static func buffer(
        around geometry: some GeometryConvertible, distance: Double, distanceUnit: LinearUnit? = nil,
        parameters: BufferParameters = .default
    ) throws(EngineError) -> Polygon {
        try buffer(around: [geometry.geometry], distances: [distance], distanceUnit: distanceUnit, shouldUnion: false,
                   parameters: parameters)[0]
    }

    /// Buffers several geometries, one distance each, and returns one polygon per geometry or one unioned polygon
    /// (ArcGIS's `buffer(around:distances:shouldUnion:)`).
    ///
    /// Distance rule: give exactly one distance per geometry, or a single distance for all of them; any other count
    /// is an error (`distanceCountMismatch`), never silently padded or truncated.
    /// - Parameters:
    ///   - geometries: Geometries in one projected spatial reference.
    ///   - distances: Distances in `distanceUnit` or, when that is `nil`, in the spatial reference's unit (see
    ///     `buffer(around:distance:distanceUnit:parameters:)`).
    ///   - distanceUnit: The unit of `distances`; `nil` (default) for the spatial reference's own unit, as ArcGIS.
    ///   - shouldUnion: `true` to dissolve all buffers into one (multi-part) polygon.
    ///   - parameters: Segments per quarter circle, end caps and joins.
    /// - Returns: `geometries.count` polygons, or one polygon when `shouldUnion` (none when `geometries` is empty).
    public static func buffer(
        around geometries: [some GeometryConvertible], distances: [Double], distanceUnit: LinearUnit? = nil,
        shouldUnion: Bool, parameters: BufferParameters = .default
    ) throws(EngineError) -> [Polygon] {
        let gs = geometries.map(\.geometry)
        guard let sr = gs.first?.spatialReference else { return [] }
        guard distances.count == gs.count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: gs.count, distances: distances.count)
        }
        if let other = gs.first(where: { $0.spatialReference != sr }) {
            throw .spatialReferenceMismatch(sr, other.spatialReference)
        }
        var distances = distances
        if let distanceUnit {
            if sr.isUnspecified {
                throw .spatialReferenceRequired(operation: "a buffer distance with a unit (give a plain number, in the coordinates' unit)")
            }
            guard let unit = sr.unit, sr.isProjected else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
            distances = distances.map { distanceUnit.convert($0, to: unit) }
        }
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
        guard (1...1000).contains(parameters.segmentsPerQuarterCircle) else {
            throw .invalidDistance("segments per quarter circle must be in 1…1000, got \(parameters.segmentsPerQuarterCircle)")
        }
        let metersPerUnit = sr.unit?.metersPerUnit ?? 1
        for (i, g) in gs.enumerated() {
            let d = distances.count == 1 ? distances[0] : distances[i]
            try validate(distance: d, for: g, index: i, metersPerUnit: metersPerUnit)
        }
        if shouldUnion, let c = PointBufferUnion.circles(gs, distances: distances, parameters: parameters) {
            // Point buffers: built directly and unioned by CircleUnion (GEOS only for degenerate configurations).
            return [try PointBufferUnion.union(x: c.x, y: c.y, radius: c.radius, parameters: parameters, in: sr).0]
        }
        let context = try GEOSContext()
        let params = try GEOSBufferParameters(parameters, context: context)
        var merged = BufferPreUnion(geometries: gs,
                                    distances: gs.indices.map { distances.count == 1 ? distances[0] : distances[$0] },
                                    tolerances: Array(repeating: 0, count: gs.count))
        if shouldUnion && parameters.joinStyle == .round {
            // Polygons at the same positive distance are merged first where that is exact (`BufferPreUnion`).
            // Not with mitred or bevelled joins: a corner of one polygon that the union fills would stick out.
            merged = try BufferPreUnion(merged.geometries, distances: merged.distances, tolerances: merged.tolerances,
                                        context: context)
        }
        var buffers: [GEOSGeometryRef] = []
        buffers.reserveCapacity(merged.geometries.count)
        for (k, g) in merged.geometries.enumerated() {
            let i = merged.indices[k], d = merged.distances[k]
            let input = try context.make(g)
            do { try context.requireValid(input, g) } catch .invalidGeometry(let reason) {
                throw .invalidGeometry(reason: "geometry \(i): \(reason)")
            }
            buffers.append(try input.buffer(d, params))
        }
        if shouldUnion {
            return [try context.polygon(try context.unaryUnion(of: buffers), in: sr)]
        }
        var result: [Polygon] = []
        result.reserveCapacity(buffers.count)
        for b in buffers { result.append(try context.polygon(b, in: sr)) }
        return result
    }

    /// The union of round buffers around points given only as coordinates, for callers that hold the centres and
    /// radii rather than a geometry per point (a million points as `Geometry` values cost several times the memory).
    /// The result is the same polygon `buffer(around:distances:shouldUnion: true, parameters:)` gives for the same
    /// points: `CircleUnion`'s fast path, GEOS for degenerate clusters, or GEOS's buffers and union for non-round end
    /// caps or non-finite centres.
    /// - Parameters:
    ///   - centres: The points, in `spatialReference` (a projected one).
    ///   - distances: One radius per point, or one for all, in the spatial reference's unit; positive and finite.
    ///   - spatialReference: The centres' spatial reference.
    ///   - parameters: Chords per quarter circle (1…1000) and end cap.
    /// - Throws: `EngineError` for a geographic spatial reference, a distance count mismatch, or an invalid distance
    ///   (naming "geometry i").
    public static func unionOfBuffers(
        aroundPoints centres: [Coordinate], distances: [Double], in spatialReference: SpatialReference,
        parameters: BufferParameters = .default
    ) throws(EngineError) -> Polygon {
        var parts: [Polygon.Part] = []
        try unionOfBuffers(aroundPoints: centres, distances: distances, in: spatialReference, parameters: parameters,
                           batchSize: .max) { (p: Polygon, _: Int) throws(EngineError) in parts += p.parts }
        return Polygon(parts: parts, spatialReference: spatialReference)
    }

    /// The union of round buffers around points, handed over a batch of parts at a time so that the whole union is
    /// never held: the circles are grouped into clusters that cannot touch (`CircleUnion.clusters()`), the clusters
    /// into batches of about `batchSize` circles, and each batch is unioned on its own (the same computation as
    /// `unionOfBuffers(aroundPoints:distances:in:parameters:)`, whose parts are the batches' parts together; with
    /// `batchSize` at least the number of points there is one batch and the parts come in the same order).
    /// - Parameters:
    ///   - centres: The points, in `spatialReference` (a projected one).
    ///   - distances: One radius per point, or one for all, in the spatial reference's unit; positive and finite.
    ///   - spatialReference: The centres' spatial reference.
    ///   - parameters: Chords per quarter circle (1…1000) and end cap.
    ///   - batchSize: About how many circles to union at once (1 or more; clusters are not split).
    ///   - overlapped: Whether the next batch is unioned on a background thread while `body` handles this one (two
    ///     cores at once; at most two batches are held), each batch of 8,192 circles or more by two threads
    ///     (`PointBufferUnion.union(clusters:of:parameters:in:minimumToShare:)`). `body` gets the same batches, the
    ///     same parts in the same order, either way and whatever the threads' timing, always on the calling thread;
    ///     false (the default) does everything on the calling thread.
    ///   - body: Receives each batch's parts as a polygon, and how many circles are done so far.
    /// - Throws: `EngineError` as `unionOfBuffers(aroundPoints:distances:in:parameters:)`, or what `body` throws
    ///   (then no further batch is unioned).
    public static func unionOfBuffers(
        aroundPoints centres: [Coordinate], distances: [Double], in spatialReference: SpatialReference,
        parameters: BufferParameters = .default, batchSize: Int, overlapped: Bool = false,
        _ body: (Polygon, Int) throws(EngineError) -> Void
    ) throws(EngineError) {
        let sr = spatialReference
        guard !centres.isEmpty else { return }
        guard distances.count == centres.count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: centres.count, distances: distances.count)
        }
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
        guard (1...1000).contains(parameters.segmentsPerQuarterCircle) else {
            throw .invalidDistance("segments per quarter circle must be in 1…1000, got \(parameters.segmentsPerQuarterCircle)")
        }
        let metersPerUnit = sr.unit?.metersPerUnit ?? 1
        let probe = Geometry.point(Point(x: 0, y: 0, spatialReference: sr))  // validation looks only at the type
        for (i, d) in distances.enumerated() { try validate(distance: d, for: probe, index: i, metersPerUnit: metersPerUnit) }
        guard parameters.endCapStyle == .round, centres.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            let points = centres.map { Point($0, spatialReference: sr) }
            try body(try buffer(around: points, distances: distances, shouldUnion: true, parameters: parameters)[0],
                     centres.count)
            return
        }
        let radius = distances.count == 1 ? Array(repeating: distances[0], count: centres.count) : distances
        let x = centres.map(\.x), y = centres.map(\.y)
        guard centres.count > batchSize else {
            try body(try PointBufferUnion.union(x: x, y: y, radius: radius, parameters: parameters, in: sr).0,
                     centres.count)
            return
        }
        let circle = UnitCircle(segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
        let problem = CircleUnion(circle: circle, x: x, y: y, radius: radius)  // clusters index its own arrays
        let clusters = problem.clusters()
        // Batch b is clusters[ends[b - 1]..<ends[b]] (from 0 for the first): whole clusters, at least batchSize
        // circles except the last batch.
        var ends: [Int] = []
        var done: [Int] = []
        var circles = 0
        for (k, cluster) in clusters.enumerated() {
            circles += cluster.count
            guard circles >= batchSize || k == clusters.count - 1 else { continue }
            ends.append(k + 1)
            // Exact duplicates were dropped by CircleUnion: the last batch completes the count.
            done.append(k == clusters.count - 1 ? centres.count : min((done.last ?? 0) + circles, centres.count))
            circles = 0
        }
        try LookaheadPipeline.run(count: ends.count, ahead: overlapped ? 1 : 0) { [ends] (b: Int) throws(EngineError) in
            try PointBufferUnion.union(clusters: clusters[(b == 0 ? 0 : ends[b - 1])..<ends[b]], of: problem,
                                       parameters: parameters, in: sr, minimumToShare: overlapped ? 8192 : .max)
        } consume: { (union: Polygon, b: Int) throws(EngineError) in
            try body(union, done[b])
        }
    }

    private static func validate(distance d: Double, for g: Geometry, index: Int, metersPerUnit: Double) throws(EngineError) {
        guard d.isFinite else { throw .invalidDistance("geometry \(index): distance \(d) is not a finite number") }
        guard abs(d) * metersPerUnit <= maximumBufferDistance else {
            throw .invalidDistance("geometry \(index): distance \(d) exceeds half the Earth's circumference")
        }
    }
}

extension GeometryEngine {
    /// Refuses two spatial references that differ (operands of one operation must share theirs).
    static func requireSameSpatialReference(_ a: SpatialReference, _ b: SpatialReference) throws(EngineError) {
        guard a == b else { throw .spatialReferenceMismatch(a, b) }
    }
}
