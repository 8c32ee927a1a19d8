import Foundation
import Meridian
import MeridianIO

/// The distance rules of the tool, planar and geodesic alike: a point or line needs a positive distance (the
/// library answers any other with an empty polygon, which in a tool is the user's mistake), and a non-zero |distance|
/// must pass the library's one rule, `GeometryEngine.bufferDistanceProblem` (at least 1 µm; zero is allowed for
/// polygons: nothing to buffer by).
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
        if let problem = GeometryEngine.bufferDistanceProblem(d, metersPerUnit: metersPerUnit) {
            throw .failure("invalid distance: \(label(i)): \(problem)")
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

/// Refuses a planar buffer distance finer than the coordinates resolve where a feature lies: a double near x steps
/// by ulp(x), and a buffer needs its circle's chords (0.1 % of the distance at 16 segments) to be many such steps,
/// so a distance under 1,000 steps is refused (a false easting of 1e17 once made every 1 m buffer `POLYGON EMPTY`,
/// written with exit 0).
/// - Parameters:
///   - geometries: The features' geometries in the buffer's spatial reference.
///   - distances: One distance for all, or one per geometry, in its unit.
///   - unit: That unit's name, for the message.
///   - label: How messages name feature `i`.
/// - Throws: `CommandError.failure` naming the feature, the distance and the coordinates' step there.
func refuseUnresolvableDistances(_ geometries: [Geometry], distances: [Double], unit: String,
                                 label: (Int) -> String) throws(CommandError) {
    for (i, g) in geometries.enumerated() {
        let d = abs(distances.count == 1 ? distances[0] : distances[i])
        guard d > 0, let scale = g.coordinates.lazy.map({ max(abs($0.x), abs($0.y)) }).max(), scale.isFinite else { continue }
        let step = scale.ulp
        guard d < 1000 * step else { continue }
        throw .failure(String(format: "%@: a distance of %.6g %@ is finer than the coordinates resolve there (about %.3g in the spatial reference, where doubles step by %.3g %@); the buffer would be empty or distorted", label(i), d, unit, scale, step, unit))
    }
}

/// Refuses buffers that came out empty though their features were not and their distances positive (a scale GEOS
/// cannot compute at, e.g. a unit of 1e300 m): written, they would be `POLYGON EMPTY` with exit 0.
/// - Parameters:
///   - buffers: The buffers, one per geometry (or one union).
///   - distances: One distance for all, or one per geometry.
///   - label: How messages name buffer `i` (the union: all the features).
/// - Throws: `CommandError.failure` naming the feature.
func refuseEmptyBuffers(_ buffers: [Polygon], distances: [Double], label: (Int) -> String) throws(CommandError) {
    for (i, b) in buffers.enumerated() where b.parts.isEmpty || b.vertexCount == 0 {
        let d = distances.count == 1 ? distances[0] : distances[i]
        guard d > 0 else { continue }  // a polygon shrunk to nothing is a right answer
        throw .failure("\(label(i)): the buffer came out empty though the distance is positive: the coordinates are at a scale the buffer cannot be computed at (check the spatial reference's unit and false easting/northing)")
    }
}

