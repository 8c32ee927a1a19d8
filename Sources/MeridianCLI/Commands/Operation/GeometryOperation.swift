import Foundation
import Meridian
import MeridianIO

/// One `op` operation with its options checked and its `--with` geometry decoded, applied to an input's features.
struct GeometryOperation {
    /// The command's options.
    let command: OperationCommand
    /// `--with`, in the input's spatial reference.
    let other: Geometry?
    /// The input's spatial reference.
    let spatialReference: SpatialReference

    private var operation: Operation { command.operation }

    /// The answer of a predicate for every feature.
    /// - Throws: `CommandError.failure` naming the feature without a geometry or whose predicate failed.
    func answers(for input: FeatureInput) throws(CommandError) -> [Bool] {
        guard case .predicate(let answer) = operation.action else {
            throw .failure("\(operation.rawValue) is not a predicate")
        }
        return try eachFeature(of: input) { (g: Geometry, _: Feature) throws(EngineError) in try answer(self, g) }
    }

    /// `body` applied to every feature's geometry, the features shared in runs between `Parallelism.threadCount`
    /// threads (each feature's result depends on it alone), the results in the features' order.
    /// - Throws: `CommandError.failure` naming the first feature (in order) without a geometry or whose `body` threw.
    private func eachFeature<T: Sendable>(of input: FeatureInput,
                                          _ body: @escaping (Geometry, Feature) throws(EngineError) -> T)
        throws(CommandError) -> [T]
    {
        let work = SharedWork(features: input.features, labels: input.labels, body: body)
        let n = work.features.count, threads = Parallelism.threadCount
        let runs = max(1, min(4 * threads, n / Self.featuresPerRun))
        // WorkBudget.map: the command's --max-vertices bound holds on every thread.
        let pieces = try WorkBudget.map(count: runs, threads: threads) { (r: Int) throws(CommandError) -> [T] in
            var results: [T] = []
            for i in (n * r / runs)..<(n * (r + 1) / runs) {
                guard let g = work.features[i].geometry else { throw .failure("\(work.labels[i]) has no geometry") }
                do throws(EngineError) {
                    results.append(try work.body(g, work.features[i]))
                } catch {
                    throw .failure("\(work.labels[i]): \(describe(error))")
                }
            }
            return results
        }
        return pieces.flatMap { $0 }
    }

    /// The fewest features `eachFeature` hands to a thread at once.
    static let featuresPerRun = 64

    /// The features the operation makes: one per input feature for most, none or several for cut, extend and
    /// reshape, one per gap for auto-complete, one hull for convex-hull --merge.
    /// - Throws: `CommandError.failure` naming the feature without a geometry or whose operation failed.
    func results(for input: FeatureInput) throws(CommandError) -> [Feature] {
        if operation == .convexHull, command.merge {
            return try mergedHull(of: input, with: nil).map { [Feature(geometry: $0, properties: [:], id: nil)] } ?? []
        }
        switch operation.action {
        case .wholeInput(let made): return try made(self, input)
        case .features(let made):
            return try eachFeature(of: input) { (g: Geometry, feature: Feature) throws(EngineError) in
                try made(self, g, feature)
            }.flatMap { $0 }
        case .predicate: throw .failure("\(operation.rawValue) is a predicate")
        }
    }

    /// `convex-hull --merge` of a batch: the hull of the batch's geometries and of the hull of the batches before
    /// (`so far`), exact since the hull of hulls is the hull of all; nil when there is no geometry yet.
    func mergedHull(of input: FeatureInput, with soFar: Geometry?) throws(CommandError) -> Geometry? {
        let all = (soFar.map { [$0] } ?? []) + input.features.compactMap { $0.geometry }
        guard !all.isEmpty else { return nil }
        return try engine { () throws(EngineError) in try GeometryEngine.convexHull(for: all, shouldMerge: true) }.first
    }

    /// `--with`, for the operation `name` that needs it.
    /// - Throws: `EngineError.invalidArgument` when there is none.
    func otherGeometry(for name: String) throws(EngineError) -> Geometry {
        guard let other else { throw .invalidArgument("\(name) needs --with") }
        return other
    }

    /// `--with` as a line, for the operation `name` that needs one.
    /// - Throws: `EngineError.invalidArgument` when it is not a line.
    func otherLine(for name: String) throws(EngineError) -> Polyline {
        guard let line = other?.polyline else { throw .invalidArgument("\(name) needs a line") }
        return line
    }
}

/// What the threads of `GeometryOperation.eachFeature` share: read-only features and labels, and the operation (whose
/// engine calls are thread-safe: each makes its own GEOS context).
private struct SharedWork<T>: @unchecked Sendable {
    let features: [Feature]
    let labels: FeatureLabels
    let body: (Geometry, Feature) throws(EngineError) -> T
}
