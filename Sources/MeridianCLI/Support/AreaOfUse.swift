import Foundation
import Meridian

/// Refuses geometries with a vertex outside a spatial reference's area of use (the one check,
/// `GeometryEngine.firstVertexOutsideAreaOfUse`), naming the feature and the vertex in degrees. `buffer` and
/// `project` refuse this way unless `--allow-outside-area` is given.
/// - Parameters:
///   - geometries: The input geometries, in any one spatial reference.
///   - sr: The spatial reference whose area of use applies (none known: all accepted).
///   - label: The label of the feature with vertex `vertex` of geometry `geometry` (a multipoint may hold many
///     features' points).
///   - override: The flag that skips the check, named in the message.
///   - verb: What the command does, e.g. "buffer" or "project".
/// - Throws: `CommandError.failure` naming the first feature outside.
func refuseOutsideAreaOfUse(
    _ geometries: [Geometry], of sr: SpatialReference, label: (_ geometry: Int, _ vertex: Int) -> String,
    override: String, verb: String
) throws(CommandError) {
    guard let area = sr.areaOfUse,
          let outside = try engine({ () throws(EngineError) in try GeometryEngine.firstVertexOutsideAreaOfUse(geometries, of: sr) })
    else { return }
    throw .failure(String(format: "%@ at longitude %.6f, latitude %.6f is outside the area of use of %@ (W %g, S %g, E %g, N %g); use %@ to %@ it anyway",
                          label(outside.geometryIndex, outside.vertexIndex), outside.longitude, outside.latitude,
                          sr.name, area.west, area.south, area.east, area.north, override, verb))
}
