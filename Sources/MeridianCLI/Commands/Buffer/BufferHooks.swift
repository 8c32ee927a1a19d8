import Foundation
import Meridian
import MeridianIO

/// What a union's input is once read, checked and projected, instead of the union (`BufferHooks.union`).
enum BufferUnionInput {
    /// Round buffers around points: centres in the planar spatial reference, one radius for all or one per point
    /// (in its unit); `features` is the input's feature count.
    case circles(centres: [Coordinate], radii: [Double], spatialReference: SpatialReference, features: Int)
    /// Any other geometries with one distance for all or one per geometry: planar (in the spatial reference, in its
    /// unit) or geodesic (as read, in meters).
    case geometries([Geometry], distances: [Double], labels: FeatureLabels)
}

/// Ways into `meridian buffer` for the internal jobs of `meridian-dask` (`InternalCommand`): the same parsing,
/// checks and messages as the command, with the work after them replaced. The command itself runs with none set.
struct BufferHooks {
    /// With `--union`: receives the checked input instead of computing the union.
    var union: ((BufferUnionInput) throws(CommandError) -> Void)?
    /// Called when a union's input has been read, with its feature count (errors before it are errors of reading).
    var read: ((Int) -> Void)?
    /// Without `--union`: `--max-vertices` is not enforced, and this receives the estimated vertex count of all
    /// the buffers and the number of features (the caller adds up the pieces of a larger input and checks the sum).
    var vertices: ((_ vertices: Int, _ features: Int) -> Void)?
}

extension BufferUnionInput {
    /// A planar union's checked geometries (in its spatial reference): circles when every geometry is a point or a
    /// multipoint (the case `GeometryEngine.buffer(around:distances:shouldUnion:parameters:)` hands to its circle
    /// union), else the geometries as they are.
    init(_ geometries: [Geometry], distances: [Double], labels: FeatureLabels) {
        var centres: [Coordinate] = [], radii: [Double] = []
        for (i, g) in geometries.enumerated() {
            let d = distances.count == 1 ? distances[0] : distances[i]
            switch g {
            case .point(let p): centres.append(p.coordinate)
            case .multipoint(let m): centres += m.coordinates
            default:
                self = .geometries(geometries, distances: distances, labels: labels)
                return
            }
            if distances.count > 1 { radii += Array(repeating: d, count: centres.count - radii.count) }
        }
        guard let sr = geometries.first?.spatialReference else {
            self = .geometries(geometries, distances: distances, labels: labels)
            return
        }
        self = .circles(centres: centres, radii: distances.count == 1 ? distances : radii, spatialReference: sr,
                        features: labels.count)
    }
}
