import Foundation
import Meridian

/// The distance rules of the tool, planar and geodesic alike: a point or line needs a positive distance (the
/// library answers any other with an empty polygon, which in a tool is the user's mistake), and a non-zero |distance|
/// must be at least 1 µm (zero is allowed for polygons: nothing to buffer by).
/// - Parameters:
///   - distances: One distance for all, or one per geometry, in the spatial reference's unit.
///   - count: The number of geometries.
///   - isAreal: Whether geometry `i` is a polygon or envelope.
///   - metersPerUnit: Meters per unit of the distances (0.3048006096 for US survey feet, 1 for geodesic meters).
///   - label: The label of feature `i`.
/// - Throws: `CommandError.failure` naming the first feature whose distance cannot be used.
func refuseUnusableDistances(
    _ distances: [Double], count: Int, isAreal: (Int) -> Bool, metersPerUnit: Double, label: (Int) -> String
) throws(CommandError) {
    for i in 0..<count {
        let d = distances.count == 1 ? distances[0] : distances[i]
        guard d.isFinite else { continue }
        if d <= 0, !isAreal(i) {
            throw .failure(String(format: "invalid distance: %@: %.10g; a point or line needs a positive distance",
                                  label(i), d))
        }
        if d != 0, abs(d) * metersPerUnit < 1e-6 {
            throw .failure(String(format: "invalid distance: %@: |%.10g| (%.3g m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)",
                                  label(i), d, abs(d) * metersPerUnit))
        }
    }
}

/// A feature's geometry for a buffer, planar or geodesic: one rule for both, a null or empty geometry is refused.
/// - Parameters:
///   - feature: The input feature.
///   - label: How messages name it, e.g. "feature 3 (line 5)".
/// - Throws: `CommandError.failure` naming the feature.
func bufferable(_ feature: Feature, label: String) throws(CommandError) -> Geometry {
    guard let geometry = feature.geometry else { throw .failure("\(label) has no geometry") }
    guard !geometry.coordinates.isEmpty else { throw .failure("\(label) has an empty geometry (nothing to buffer)") }
    return geometry
}

/// Refuses the first invalid polygon among features to buffer, planar or geodesic alike, naming its feature and
/// checked in the input's own coordinates, so that the place GEOS names is where the user looks (a geodesic buffer
/// once said only "invalid geometry: Hole lies outside shell[-90 10]").
/// - Parameters:
///   - geometries: The features' geometries, in the input's spatial reference.
///   - labels: How messages name feature `i`.
/// - Throws: `CommandError.failure` naming the feature, GEOS's reason and where.
func refuseInvalidPolygons(_ geometries: [Geometry], labels: FeatureLabels) throws(CommandError) {
    for (i, g) in geometries.enumerated() {
        guard case .polygon = g, let reason = try engine({ () throws(EngineError) in try GeometryEngine.invalidityReason(g) })
        else { continue }
        throw .failure("\(labels[i]): invalid polygon: \(reason) (GeometryEngine.makeValid can repair it)")
    }
}
