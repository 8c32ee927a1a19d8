import CPROJ
import Foundation
import MeridianCore

/// A coordinate operation PROJ chose and ran, as reported to users: its name and accuracy.
public struct ProjectionOperation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// PROJ's name for the operation, e.g. "Inverse of NAD27 to WGS 84 (6) + Texas North Central …".
    public let name: String
    /// The operation's accuracy in meters as recorded in PROJ's database; `nil` when unknown (a ballpark operation).
    public let accuracy: Double?

    /// Creates a record of an operation.
    /// - Parameters:
    ///   - name: The operation's name.
    ///   - accuracy: Meters, or `nil` when unknown.
    public init(name: String, accuracy: Double?) {
        self.name = name
        self.accuracy = accuracy
    }

    public var description: String {
        "\(name) (accuracy: \(accuracy.map { "\($0) m" } ?? "unknown, ballpark"))"
    }
}

/// A geometry after projection, with the operations PROJ used to produce it.
public struct ProjectedGeometry: Sendable, Hashable {
    /// The projected geometry.
    public let geometry: Geometry
    /// The operations PROJ ran (empty when source and target were the same spatial reference).
    public let operations: [ProjectionOperation]
}

/// A PROJ transformation between two spatial references, cached and reused; x/y order is normalised to
/// longitude/latitude and easting/northing. Thread-safe, and threads transform at the same time: each call borrows an
/// idle copy of the operation in its own PROJ context (a PROJ object is used by one thread at a time), cloned from a
/// template the first time that many threads transform at once.
final class Transformation: @unchecked Sendable {
    /// One PROJ context and a copy of the operation in it, used by one thread at a time.
    private final class Instance: @unchecked Sendable {
        let context: PROJContext
        let object: PROJObject
        /// The operation's projection step alone, run backwards, when `BareInverse` found it equivalent: what
        /// `transform` runs instead of `object` (which still names the operation).
        let bareInverse: PROJObject?

        init(context: PROJContext, object: PROJObject, bareInverse: PROJObject? = nil) {
            self.context = context
            self.object = object
            self.bareInverse = bareInverse
        }

        /// A copy in a new context.
        func clone() -> Instance? {
            let context = PROJContext()
            guard let copy = proj_clone(context.handle, object.pointer) else { return nil }
            var bare: PROJObject?
            if let b = bareInverse {
                guard let copy = proj_clone(context.handle, b.pointer) else { return nil }
                bare = PROJObject(copy, context: context)
            }
            return Instance(context: context, object: PROJObject(copy, context: context), bareInverse: bare)
        }
    }

    /// The operation as created; only cloned (with `lock` held), never run (but for `BareInverse`'s comparison,
    /// while it is made).
    private let template: Instance
    /// Copies not in use (guarded by `lock`).
    private var idle: [Instance] = []
    private let lock = PROJLock()
    let source: SpatialReference
    let target: SpatialReference
    /// `PJ_FWD`, or `PJ_INV` for a pipeline run backwards (from its target to its source).
    private var direction = PJ_FWD

    /// The operation PROJ chooses between two spatial references.
    /// - Parameter simplified: Whether to run the operation's projection step alone when `BareInverse` finds that
    ///   equivalent (false: always the whole operation; tests compare the two).
    init(from source: SpatialReference, to target: SpatialReference, simplified: Bool = true) throws(EngineError) {
        let context = PROJContext()
        guard let raw = try context.making({ proj_create_crs_to_crs($0, source.definition, target.definition, nil) }) else {
            throw .proj("no transformation from \(source) to \(target): \(context.lastMessage())")
        }
        let created = PROJObject(raw, context: context)
        guard let normalised = proj_normalize_for_visualization(context.handle, created.pointer) else {
            throw .proj("could not normalise axis order: \(context.lastMessage())")
        }
        let operation = PROJObject(normalised, context: context)
        let bare = simplified ? BareInverse.make(for: operation, context: context, sourceArea: source.areaOfUse) : nil
        template = Instance(context: context, object: operation, bareInverse: bare)
        self.source = source
        self.target = target
    }

    /// A transformation running one given operation (a `DatumTransformation`'s PROJ pipeline, already in
    /// longitude/latitude, easting/northing order).
    /// With `inverse`, the pipeline runs backwards: `source` is the pipeline's target and `target` its source.
    private init(pipeline: String, from source: SpatialReference, to target: SpatialReference, inverse: Bool)
        throws(EngineError)
    {
        let context = PROJContext()
        guard let raw = try context.making({ proj_create($0, pipeline) }) else {
            throw .proj("the operation cannot run here: \(context.lastMessage())")
        }
        template = Instance(context: context, object: PROJObject(raw, context: context))
        self.source = source
        self.target = target
        if inverse {
            guard proj_pj_info(raw).has_inverse != 0 else { throw .proj("the operation has no inverse") }
            direction = PJ_INV
        }
    }

    /// Copies kept for reuse once returned; more threads than this still transform at once, their extra copies are
    /// destroyed after use.
    private static let idleLimit = 8

    /// Runs `body` with a copy of the operation no other thread is using.
    private func withInstance<R>(_ body: (Instance) -> R) throws(EngineError) -> R {
        let borrowed: Instance? = lock.withLock { idle.popLast() ?? template.clone() }
        guard let instance = borrowed else {
            throw .proj("could not copy the operation from \(source) to \(target) for another thread")
        }
        defer { lock.withLock { if idle.count < Self.idleLimit { idle.append(instance) } } }
        return body(instance)
    }

    private struct Key: Hashable {
        let source: String
        let target: String
        var pipeline: String?
        var inverse = false
    }
    nonisolated(unsafe) private static var cache: [Key: Transformation] = [:]
    private static let cacheLock = PROJLock()

    /// The shared transformation between two spatial references.
    /// - Parameters:
    ///   - pipeline: A PROJ pipeline to run instead of the operation PROJ would choose.
    ///   - inverse: Run `pipeline` backwards (it leads from `target` to `source`).
    static func between(_ source: SpatialReference, _ target: SpatialReference, pipeline: String? = nil,
                        inverse: Bool = false)
        throws(EngineError) -> Transformation
    {
        if source.isUnspecified || target.isUnspecified { throw .spatialReferenceRequired(operation: "a projection") }
        let key = Key(source: source.definition, target: target.definition, pipeline: pipeline,
                      inverse: pipeline != nil && inverse)
        let result: Result<Transformation, EngineError> = cacheLock.withLock {
            if let t = cache[key] { return .success(t) }
            do throws(EngineError) {
                let t: Transformation
                if let pipeline {
                    t = try Transformation(pipeline: pipeline, from: source, to: target, inverse: inverse)
                } else {
                    t = try Transformation(from: source, to: target)
                }
                if cache.count > 64 { cache.removeAll() }
                cache[key] = t
                return .success(t)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Transforms coordinates (x/y, and z when present) and returns the operation PROJ last used.
    ///
    /// PROJ runs on a copy, chunk by chunk, in place: x and y through strided pointers into the copy's coordinates,
    /// z through a scratch array for chunks that have heights (a coordinate without z is transformed at height 0 and
    /// keeps `nil`). `coordinates` is replaced by the copy only when every vertex was transformed.
    /// - Parameters:
    ///   - coordinates: The coordinates to transform; unchanged when this throws.
    ///   - reportsOperation: `false` not to look the operation up and return `nil` (the look-up costs far more than
    ///     transforming a few coordinates; geodesic buffers transform one to five at a time).
    ///   - vertexNumbers: The number to give each coordinate in the error's location (nil: its index), when the
    ///     coordinates were picked out of a larger array.
    /// - Throws: `EngineError.projectionFailed` located at the first coordinate that could not be transformed (a
    ///   non-finite x or y from PROJ).
    func transform(_ coordinates: inout [Coordinate], reportsOperation: Bool = true, vertexNumbers: [Int]? = nil)
        throws(EngineError) -> ProjectionOperation?
    {
        let n = coordinates.count
        guard n > 0 else { return nil }
        var failure: Int?
        var operation: ProjectionOperation?
        var refused: String?
        let transformed = try withInstance { instance in
            coordinates.withUnsafeBufferPointer { source in
                [Coordinate](unsafeUninitializedCapacity: n) { copy, initialized in
                    var heights: [Double] = []
                    while initialized < n, failure == nil {
                        let range = initialized..<min(initialized + Self.chunkSize, n)
                        let chunk = UnsafeMutableBufferPointer(rebasing: copy[range])
                        _ = chunk.initialize(fromContentsOf: source[range])
                        failure = transformInPlace(chunk, with: instance, heights: &heights).map { range.lowerBound + $0 }
                        initialized = range.upperBound
                    }
                    if reportsOperation { operation = lastOperation(of: instance) }
                    refused = instance.context.refusedFiles.first
                }
            }
        }
        // A grid PROJ opens only when it first transforms (and refused then) fails the call, or makes PROJ run
        // another of its candidate operations: either way the answer is not the one the definitions asked for.
        if let refused { throw .fileRefused(refused) }
        if let i = failure {
            let c = coordinates[i]
            throw EngineError.projectionFailed("(\(c.x), \(c.y)) cannot be transformed from \(source) to \(target)")
                .at(EngineError.Location(vertex: vertexNumbers?[i] ?? i))
        }
        coordinates = transformed
        return operation
    }

    /// Coordinates per PROJ call in `transform(_:)`: 32 KiB of them, so a chunk is still in cache when it is
    /// transformed and checked after being copied, while the cost of a call stays negligible.
    private static let chunkSize = 1024

    /// The byte offsets of `Coordinate`'s x and y, and its stride: PROJ reads and writes them in place.
    private static let xOffset = MemoryLayout<Coordinate>.offset(of: \.x)!
    private static let yOffset = MemoryLayout<Coordinate>.offset(of: \.y)!
    private static let coordinateStride = MemoryLayout<Coordinate>.stride

    /// Runs PROJ on `chunk` in place with a borrowed copy of the operation. z goes through `heights` (scratch, reused
    /// between chunks) when a coordinate of the chunk has one.
    /// - Returns: The index in `chunk` of the first coordinate PROJ could not transform, if any.
    private func transformInPlace(_ chunk: UnsafeMutableBufferPointer<Coordinate>, with instance: Instance,
                                  heights: inout [Double]) -> Int? {
        let object = instance.bareInverse ?? instance.object
        let direction = instance.bareInverse == nil ? direction : PJ_INV
        let n = chunk.count
        let base = UnsafeMutableRawPointer(chunk.baseAddress!)
        let x = (base + Self.xOffset).assumingMemoryBound(to: Double.self)
        let y = (base + Self.yOffset).assumingMemoryBound(to: Double.self)
        let stride = Self.coordinateStride
        if chunk.contains(where: { $0.z != nil }) {
            heights.removeAll(keepingCapacity: true)
            heights.append(contentsOf: chunk.lazy.map { $0.z ?? 0 })
            heights.withUnsafeMutableBufferPointer { z in
                _ = proj_trans_generic(
                    object.pointer, direction, x, stride, n, y, stride, n, z.baseAddress, MemoryLayout<Double>.stride, n,
                    nil, 0, 0)
            }
            for i in 0..<n where chunk[i].z != nil { chunk[i].z = heights[i] }
        } else {
            _ = proj_trans_generic(object.pointer, direction, x, stride, n, y, stride, n, nil, 0, 0, nil, 0, 0)
        }
        if instance.bareInverse != nil { BareInverse.toDegrees(chunk) }
        return chunk.firstIndex { !($0.x.isFinite && $0.y.isFinite) }
    }

    /// How PROJ chooses its operation point by point (`OperationChoice`), worked out on a borrowed copy of the
    /// operation; nil when it cannot be known.
    func operationChoice() throws(EngineError) -> OperationChoice? {
        try withInstance { instance in
            OperationChoice.make(for: instance.object, from: source, to: target, context: instance.context) { c in
                var x = c.x, y = c.y
                let stride = MemoryLayout<Double>.stride
                _ = proj_trans_generic(instance.object.pointer, direction, &x, stride, 1, &y, stride, 1, nil, 0, 0,
                                       nil, 0, 0)
                guard let op = proj_trans_get_last_used_operation(instance.object.pointer) else { return nil }
                defer { proj_destroy(op) }
                return proj_get_name(op).map { String(cString: $0) }
            }
        }
    }

    /// Whether `transform` runs the operation's projection step alone (`BareInverse`): an analytic projection,
    /// without grids or datum shifts, so smooth wherever it is defined (what `InterpolatedProjection` relies on).
    var runsBareInverse: Bool { template.bareInverse != nil }

    /// The operation PROJ used in the copy's last call (PROJ 9.1+).
    private func lastOperation(of instance: Instance) -> ProjectionOperation? {
        let object = instance.object, context = instance.context
        guard let op = proj_trans_get_last_used_operation(object.pointer) else {
            let accuracy = proj_coordoperation_get_accuracy(context.handle, object.pointer)
            let name = proj_get_name(object.pointer).map { String(cString: $0) } ?? "unknown"
            return ProjectionOperation(name: name, accuracy: accuracy >= 0 ? accuracy : nil)
        }
        defer { proj_destroy(op) }
        let accuracy = proj_coordoperation_get_accuracy(context.handle, op)
        let name = proj_get_name(op).map { String(cString: $0) } ?? "unknown"
        return ProjectionOperation(name: name, accuracy: accuracy >= 0 ? accuracy : nil)
    }
}
