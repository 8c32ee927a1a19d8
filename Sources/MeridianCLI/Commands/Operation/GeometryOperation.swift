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
        try eachFeature(of: input) { (g: Geometry, _: Feature) throws(EngineError) in try answer(for: g) }
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
        if operation == .autoComplete { return try autoComplete(input) }
        if operation == .convexHull, command.merge {
            return try mergedHull(of: input, with: nil).map { [Feature(geometry: $0, properties: [:], id: nil)] } ?? []
        }
        return try eachFeature(of: input) { (g: Geometry, feature: Feature) throws(EngineError) in
            try apply(to: g, of: feature)
        }.flatMap { $0 }
    }

    /// `convex-hull --merge` of a batch: the hull of the batch's geometries and of the hull of the batches before
    /// (`so far`), exact since the hull of hulls is the hull of all; nil when there is no geometry yet.
    func mergedHull(of input: FeatureInput, with soFar: Geometry?) throws(CommandError) -> Geometry? {
        let all = (soFar.map { [$0] } ?? []) + input.features.compactMap { $0.geometry }
        guard !all.isEmpty else { return nil }
        return try engine { () throws(EngineError) in try GeometryEngine.convexHull(for: all, shouldMerge: true) }.first
    }

    /// The features made from one feature's geometry.
    private func apply(to g: Geometry, of feature: Feature) throws(EngineError) -> [Feature] {
        func keeping(_ geometry: Geometry?) -> [Feature] {
            geometry.map { [Feature(geometry: $0, properties: feature.properties, id: feature.id)] } ?? []
        }
        switch operation {
        case .cut:
            guard let cutter = other?.polyline else { throw .invalidArgument("cut needs a line") }
            return try GeometryEngine.cut(g, usingCutter: cutter).enumerated().compactMap { k, piece in
                guard !piece.coordinates.isEmpty else { return nil }
                var properties = feature.properties
                properties["cut"] = .string(k == 0 ? "left" : k == 1 ? "right" : "undefined")
                return Feature(geometry: piece, properties: properties, id: feature.id)
            }
        case .extend, .reshape:
            return keeping(try edit(g))
        case .ellipse, .sector:
            guard let center = g.point else {
                throw .invalidArgument("\(operation.rawValue) needs a point feature (its centre), got a \(g.typeName.lowercased())")
            }
            return keeping(try shape(around: center))
        default:
            return keeping(try transform(g))
        }
    }

    /// `auto-complete`: the polygons closing the gaps between the input's polygons and the `--with` lines.
    private func autoComplete(_ input: FeatureInput) throws(CommandError) -> [Feature] {
        var polygons: [Polygon] = []
        for (i, feature) in input.features.enumerated() {
            switch feature.geometry {
            case .polygon(let p): polygons.append(p)
            case .envelope(let e): polygons.append(e.polygon)
            default: throw .failure("\(input.labels[i]): auto-complete needs polygons, got \(feature.geometry.map { "a " + $0.typeName.lowercased() } ?? "no geometry")")
            }
        }
        guard let lines = other?.polyline else { throw .usage("auto-complete needs lines --with") }
        let made = try engine { () throws(EngineError) in
            try GeometryEngine.autoComplete(existingBoundaries: polygons, newBoundaries: [lines])
        }
        return made.map { Feature(geometry: .polygon($0), properties: [:], id: nil) }
    }

    /// `extend` and `reshape`: the edited line or polygon, or nil when the `--with` line does not change it.
    private func edit(_ g: Geometry) throws(EngineError) -> Geometry? {
        guard let line = other?.polyline else { throw .invalidArgument("\(operation.rawValue) needs a line") }
        switch (operation, g) {
        case (.extend, .polyline(let l)): return try GeometryEngine.extend(l, using: line, options: command.extendOptions).map { .polyline($0) }
        case (.reshape, .polyline(let l)): return try GeometryEngine.reshape(l, using: line).map { .polyline($0) }
        case (.reshape, .polygon(let p)): return try GeometryEngine.reshape(p, using: line).map { .polygon($0) }
        case (.reshape, .envelope(let e)): return try GeometryEngine.reshape(e.polygon, using: line).map { .polygon($0) }
        default:
            throw .invalidArgument("\(operation.rawValue) needs a \(operation == .extend ? "line" : "line or polygon"), got a \(g.typeName.lowercased())")
        }
    }

    /// The operations of one geometry alone, or with `--with` (the overlays).
    private func transform(_ g: Geometry) throws(EngineError) -> Geometry {
        switch operation {
        case .convexHull: return try GeometryEngine.convexHull(for: g)
        case .boundary: return try GeometryEngine.boundary(of: g)
        case .labelPoint:
            switch g {
            case .polygon(let p): return .point(try GeometryEngine.labelPoint(for: p))
            case .envelope(let e): return .point(try GeometryEngine.labelPoint(for: e.polygon))
            default: throw .invalidArgument("a label point needs a polygon, got a \(g.typeName.lowercased())")
            }
        case .simplify: return try GeometryEngine.simplify(g)
        case .densify: return try GeometryEngine.densify(g, maxSegmentLength: command.maxSegmentLength ?? 0)
        case .generalize:
            return try GeometryEngine.generalize(g, maxDeviation: command.maxDeviation ?? 0,
                                                 removeDegenerateParts: command.removeDegenerateParts)
        case .offset:
            let d = command.distance ?? 0
            return try GeometryEngine.offset(g, byDistance: d, offsetType: command.offsetType, bevelRatio: command.bevelRatio,
                                             flattenError: command.flattenError ?? abs(d) / 1000)
        case .clip:
            guard let b = command.envelope else { throw .invalidArgument("clip needs an envelope") }
            return try GeometryEngine.clip(g, to: Envelope(xMin: b.xMin, yMin: b.yMin, xMax: b.xMax, yMax: b.yMax,
                                                           spatialReference: spatialReference))
        default: return try overlay(g)
        }
    }

    /// The overlays with `--with`.
    private func overlay(_ g: Geometry) throws(EngineError) -> Geometry {
        guard let other else { throw .invalidArgument("\(operation.rawValue) needs --with") }
        switch operation {
        case .intersection: return try GeometryEngine.intersection(g, other)
        case .union: return try GeometryEngine.union(g, other)
        case .difference: return try GeometryEngine.difference(g, other)
        case .symmetricDifference: return try GeometryEngine.symmetricDifference(g, other)
        default: throw .invalidArgument("\(operation.rawValue) is a predicate")
        }
    }

    /// The geodesic ellipse or sector around `center`, as the geometry type `--geometry-type` names.
    private func shape(around center: Point) throws(EngineError) -> Geometry {
        let n = command.shape
        func ellipse<G: GeodesicShapeGeometry>(_: G.Type) throws(EngineError) -> Geometry {
            try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<G>(
                axisDirection: n.axisDirection, center: center, maxPointCount: n.maxPointCount,
                maxSegmentLength: command.maxSegmentLength ?? 0, semiAxis1Length: n.semiAxis1 ?? 0,
                semiAxis2Length: n.semiAxis2 ?? 0)).geometry
        }
        func sector<G: GeodesicShapeGeometry>(_: G.Type) throws(EngineError) -> Geometry {
            try GeometryEngine.geodesicSector(parameters: GeodesicSectorParameters<G>(
                axisDirection: n.axisDirection, center: center, maxPointCount: n.maxPointCount,
                maxSegmentLength: command.maxSegmentLength ?? 0, sectorAngle: n.sectorAngle ?? 0,
                semiAxis1Length: n.semiAxis1 ?? 0, semiAxis2Length: n.semiAxis2 ?? 0,
                startDirection: n.startDirection)).geometry
        }
        switch (operation, n.geometryType) {
        case (.ellipse, .polyline): return try ellipse(Polyline.self)
        case (.ellipse, .multipoint): return try ellipse(Multipoint.self)
        case (.ellipse, .polygon): return try ellipse(Polygon.self)
        case (_, .polyline): return try sector(Polyline.self)
        case (_, .multipoint): return try sector(Multipoint.self)
        case (_, .polygon): return try sector(Polygon.self)
        }
    }

    /// A predicate's answer for one geometry.
    private func answer(for g: Geometry) throws(EngineError) -> Bool {
        if operation == .isSimple { return try GeometryEngine.isSimple(g) }
        guard let other else { throw .invalidArgument("\(operation.rawValue) needs --with") }
        switch operation {
        case .contains: return try GeometryEngine.doesGeometry(g, contain: other)
        case .within: return try GeometryEngine.isGeometry(g, within: other)
        case .intersects: return try GeometryEngine.isGeometry(g, intersecting: other)
        case .disjoint: return try GeometryEngine.isGeometry(g, disjointWith: other)
        case .touches: return try GeometryEngine.isGeometry(g, touching: other)
        case .crosses: return try GeometryEngine.isGeometry(g, crossing: other)
        case .overlaps: return try GeometryEngine.isGeometry(g, overlapping: other)
        case .equals: return try GeometryEngine.isGeometry(g, equivalentTo: other)
        case .relate: return try GeometryEngine.isGeometry(g, relatedTo: other, byRelation: command.pattern ?? "")
        default: throw .invalidArgument("\(operation.rawValue) is not a predicate")
        }
    }
}

/// What the threads of `GeometryOperation.eachFeature` share: read-only features and labels, and the operation (whose
/// engine calls are thread-safe: each makes its own GEOS context).
private struct SharedWork<T>: @unchecked Sendable {
    let features: [Feature]
    let labels: FeatureLabels
    let body: (Geometry, Feature) throws(EngineError) -> T
}
