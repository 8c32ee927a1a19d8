import Foundation
import Meridian

/// What a planar buffer takes once the options are checked, and the buffering of a batch of features: the rules
/// of `BufferRules.swift`, the area of use, the vertex limit, then GEOS.
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
    /// `--max-vertices`: the most output vertices (estimated before buffering) without --union.
    let maxVertices: Int

    /// The buffers of the input's features (or their union) and the features' geometries in `sr`, refusing
    /// features without geometry, outside the area of use, invalid polygons, unusable distances and, without
    /// union, more than `maxVertices` estimated vertices counting those already written (`verticesSoFar`).
    func buffers(of input: FeatureInput, union: Bool, verticesSoFar: inout Int) throws(CommandError)
        -> ([Polygon], [Geometry])
    {
        var inputs: [Geometry] = []
        var distances: [Double] = []
        for (i, feature) in input.features.enumerated() {
            inputs.append(try bufferable(feature, label: input.labels[i]))
            if let d = try distance.fieldDistance(of: feature, label: input.labels[i], in: srUnit) { distances.append(d) }
        }
        if !allowOutside {
            try refuseOutsideAreaOfUse(inputs, of: sr, label: { geometry, _ in input.labels[geometry] },
                                       override: "--allow-outside-area", verb: "buffer")
        }
        if !union {
            let estimate = estimatedBufferVertices(inputs, segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
            let (total, overflow) = verticesSoFar.addingReportingOverflow(estimate)
            verticesSoFar = overflow ? Int.max : total
            guard verticesSoFar <= maxVertices else {
                throw .failure("the buffers would have about \(verticesSoFar) vertices (\(input.labels.first + input.count) features, --segments \(parameters.segmentsPerQuarterCircle)), more than the limit of \(maxVertices); use fewer --segments or --union, or raise --max-vertices")
            }
        }
        // Polygons checked in the input's own coordinates, so that the place GEOS names is where the user looks.
        for (i, g) in inputs.enumerated() {
            if case .polygon = g, let reason = try engine({ () throws(EngineError) in try GeometryEngine.invalidityReason(g) }) {
                throw .failure("\(input.labels[i]): invalid polygon: \(reason) (GeometryEngine.makeValid can repair it)")
            }
        }
        let geometries = try projectEach(inputs, into: sr, labels: input.labels)
        if let fixed = distance.fixed { distances = [fixed.value(in: srUnit)] }
        try refuseUnusableDistances(distances, count: geometries.count, isAreal: { geometries[$0].isAreal },
                                    metersPerUnit: srUnit.metersPerUnit, label: { input.labels[$0] })
        do {
            let buffers = try GeometryEngine.buffer(around: geometries, distances: distances, shouldUnion: union,
                                                    parameters: parameters)
            return (buffers, geometries)
        } catch let error {
            throw .failure(relabel(error.description, "geometry", labels: input.labels))
        }
    }
}
