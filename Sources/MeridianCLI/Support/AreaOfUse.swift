import Foundation
import Meridian
import MeridianIO

/// Refuses geometries with a vertex outside a spatial reference's horizon (the one area-of-use rule,
/// `GeometryEngine.firstVertexOutsideHorizon`: the area of use widened by `ProjectionHorizon.margin`, where PROJ's
/// round trip returns the point), naming the feature and the vertex in degrees. `buffer` and `project` refuse this
/// way unless `--allow-outside-area` is given.
/// - Parameters:
///   - geometries: The input geometries, in any one spatial reference.
///   - sr: The spatial reference whose horizon applies (no area of use known: the round trip alone).
///   - label: The label of the feature with vertex `vertex` of geometry `geometry` (a multipoint may hold many
///     features' points).
///   - override: The flag that skips the check, named in the message.
///   - verb: What the command does, e.g. "buffer" or "project".
/// - Throws: `CommandError.failure` naming the first feature outside.
func refuseOutsideAreaOfUse(
    _ geometries: [Geometry], of sr: SpatialReference, label: (_ geometry: Int, _ vertex: Int) -> String,
    override: String, verb: String
) throws(CommandError) {
    guard let outside = try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideHorizon(geometries, of: sr) })
    else { return }
    let place = outside.longitude.isFinite
        ? String(format: " at longitude %.6f, latitude %.6f", outside.longitude, outside.latitude) : ""
    throw .failure("\(label(outside.geometryIndex, outside.vertexIndex))\(place) \(outside.reasonPhrase(for: sr)); "
                   + "use \(override) to \(verb) it anyway")
}
