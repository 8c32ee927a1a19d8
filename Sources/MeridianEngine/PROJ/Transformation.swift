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
/// longitude/latitude and easting/northing. Thread-safe through its lock.
final class Transformation: @unchecked Sendable {
    private let context: PROJContext
    private let object: PROJObject
    private let lock = PROJLock()
    let source: SpatialReference
    let target: SpatialReference

    private init(from source: SpatialReference, to target: SpatialReference) throws(EngineError) {
        let context = PROJContext()
        guard let raw = proj_create_crs_to_crs(context.handle, source.definition, target.definition, nil) else {
            throw .proj("no transformation from \(source) to \(target): \(context.lastMessage())")
        }
        let created = PROJObject(raw, context: context)
        guard let normalised = proj_normalize_for_visualization(context.handle, created.pointer) else {
            throw .proj("could not normalise axis order: \(context.lastMessage())")
        }
        self.context = context
        self.object = PROJObject(normalised, context: context)
        self.source = source
        self.target = target
    }

    private struct Key: Hashable {
        let source: String
        let target: String
    }
    nonisolated(unsafe) private static var cache: [Key: Transformation] = [:]
    private static let cacheLock = PROJLock()

    /// The shared transformation between two spatial references.
    static func between(_ source: SpatialReference, _ target: SpatialReference) throws(EngineError) -> Transformation {
        let key = Key(source: source.definition, target: target.definition)
        let result: Result<Transformation, EngineError> = cacheLock.withLock {
            if let t = cache[key] { return .success(t) }
            do throws(EngineError) {
                let t = try Transformation(from: source, to: target)
                if cache.count > 64 { cache.removeAll() }
                cache[key] = t
                return .success(t)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Transforms coordinates in place (x/y, and z when present) and returns the operation PROJ last used.
    /// - Throws: `EngineError.projectionFailed` naming the first coordinate that could not be transformed.
    func transform(_ coordinates: inout [Coordinate]) throws(EngineError) -> ProjectionOperation? {
        let n = coordinates.count
        guard n > 0 else { return nil }
        var xs = [Double](repeating: 0, count: n), ys = xs
        let hasZ = coordinates.contains { $0.z != nil }
        var zs = hasZ ? [Double](repeating: 0, count: n) : []
        for i in 0..<n {
            xs[i] = coordinates[i].x
            ys[i] = coordinates[i].y
            if hasZ { zs[i] = coordinates[i].z ?? 0 }
        }
        let operation: ProjectionOperation? = lock.withLock {
            let stride = MemoryLayout<Double>.stride
            xs.withUnsafeMutableBufferPointer { x in
                ys.withUnsafeMutableBufferPointer { y in
                    zs.withUnsafeMutableBufferPointer { z in
                        _ = proj_trans_generic(
                            object.pointer, PJ_FWD, x.baseAddress, stride, n, y.baseAddress, stride, n,
                            hasZ ? z.baseAddress : nil, hasZ ? stride : 0, hasZ ? n : 0, nil, 0, 0)
                    }
                }
            }
            return lastOperation()
        }
        for i in 0..<n {
            guard xs[i].isFinite, ys[i].isFinite else {
                let c = coordinates[i]
                throw .projectionFailed("vertex \(i) (\(c.x), \(c.y)) cannot be transformed from \(source) to \(target)")
            }
            coordinates[i].x = xs[i]
            coordinates[i].y = ys[i]
            if hasZ, coordinates[i].z != nil { coordinates[i].z = zs[i] }
        }
        return operation
    }

    /// The operation PROJ used in the last call (PROJ 9.1+); call with the lock held.
    private func lastOperation() -> ProjectionOperation? {
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
