import Foundation
import Meridian
import MeridianIO

/// What a planar buffer takes once the options are checked, and the buffering of a batch of features: the rules
/// of `BufferRules.swift`, the area of use, then GEOS (under the command's `WorkBudget`, which bounds the vertices
/// of all the batches together).
struct PlanarBufferJob {
    /// `--srs`: the projected spatial reference the buffers are computed in.
    let sr: SpatialReference
    /// Its unit, the unit of the distances handed to the engine.
    let srUnit: LinearUnit
    /// `--distance`, or `--distance-field` and `--unit`.
    let distance: DistanceOptions
    /// `--segments` and the engine's other defaults.
    let parameters: BufferParameters
    /// `--allow-outside-area`.
    let allowOutside: Bool

    /// The buffers of the input's features (or their union) and the features' geometries in `sr`, refusing
    /// features without geometry, outside the area of use, invalid polygons, unusable distances, work beyond the
    /// command's `--max-vertices` (the engine's estimate before buffering, counting the batches already written)
    /// and buffers that come out empty.
    func buffers(of input: FeatureInput, union: Bool) throws(CommandError) -> ([Polygon], [Geometry]) {
        let (geometries, distances) = try checked(input, union: union)
        let buffers: [Polygon]
        do {
            buffers = try GeometryEngine.buffer(around: geometries, distances: distances, shouldUnion: union,
                                                parameters: parameters)
        } catch .limitExceeded(let why) {
            throw .failure("too large: \(why) (\(input.labels.first + input.count) features so far, --segments \(parameters.segmentsPerQuarterCircle)); use fewer --segments or --union, or raise --max-vertices")
        } catch let error {
            throw .failure(error.description(naming: { input.labels.label(of: $0) }))
        }
        try refuseEmptyBuffers(buffers, distances: union ? [distances.max() ?? 0] : distances) { k in
            union ? "\(input.labels.name): the union" : input.labels[k]
        }
        return (buffers, geometries)
    }

    /// The input's geometries projected to `sr` and their distances in its unit (one for all, or one per
    /// geometry), with every check `buffers(of:union:)` makes before it buffers.
    func checked(_ input: FeatureInput, union: Bool) throws(CommandError) -> (geometries: [Geometry], distances: [Double]) {
        var inputs: [Geometry] = []
        var distances: [Double] = []
        for (i, feature) in input.features.enumerated() {
            inputs.append(try bufferable(feature, label: input.labels[i]))
            if let d = try distance.fieldDistance(of: input, at: i, in: srUnit) { distances.append(d) }
        }
        if !allowOutside {
            try refuseOutsideAreaOfUse(inputs, of: sr, label: { geometry, _ in input.labels[geometry] },
                                       override: "--allow-outside-area", verb: "buffer")
        }
        try refuseInvalidPolygons(inputs, labels: input.labels)
        let geometries = try projectFeatures(inputs, into: sr, labels: input.labels)
        if let fixed = distance.fixed { distances = [fixed.value(in: srUnit)] }
        try refuseUnusableDistances(distances, count: geometries.count, isAreal: { geometries[$0].isAreal },
                                    metersPerUnit: srUnit.metersPerUnit, label: { input.labels[$0] })
        try refuseUnresolvableDistances(geometries, distances: distances, unit: srUnit.name, label: { input.labels[$0] })
        return (geometries, distances)
    }
}

extension PlanarBufferJob {
    /// About how many vertices the buffers of these geometries have (`GeometryEngine.estimatedBufferVertices`), for
    /// `BufferHooks.vertices`.
    func estimatedVertices(_ geometries: [Geometry]) -> Int {
        GeometryEngine.estimatedBufferVertices(geometries, segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
    }
}

/// Why buffers are refused for `--max-vertices` (`meridian internal`'s check of the sum of its pieces).
/// - Parameters:
///   - vertices: The estimated vertex count so far.
///   - features: The features read so far.
///   - segments: `--segments`.
///   - limit: `--max-vertices`.
func vertexLimitMessage(vertices: Int, features: Int, segments: Int, limit: Int) -> String {
    "the buffers would have about \(vertices) vertices (\(features) features, --segments \(segments)), more than the limit of \(limit); use fewer --segments or --union, or raise --max-vertices"
}
