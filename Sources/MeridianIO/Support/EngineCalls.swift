import Foundation
import Meridian

/// Runs engine work, turning its errors into command failures.
public func engine<T>(_ body: () throws(EngineError) -> T) throws(CommandError) -> T {
    do { return try body() } catch { throw .failure(describe(error)) }
}

/// An engine error as the command line says it: the work bound's refusal names the option that sets it, and the
/// item the error is located at is named by `name` where it gives a name (a feature's label; see
/// `FeatureLabels.label(of:list:)`), by its position otherwise.
/// - Parameters:
///   - error: The engine's error.
///   - name: The name of the item at a location, nil to name it by position.
public func describe(_ error: EngineError, naming name: (EngineError.Location) -> String? = { _ in nil }) -> String {
    let description = error.description(naming: name)
    guard case .limitExceeded = error.unlocated else { return description }
    return description + " (--max-vertices; raise it to allow more)"
}

extension FeatureLabels {
    /// The label of the feature an engine error is located at, when the operation's geometries (in `list`) were
    /// these features in order ("geometry 3" → "cities.csv: feature 3 (line 5)"); nil for a location in another
    /// list or outside these features.
    /// - Parameters:
    ///   - location: The error's location.
    ///   - list: The operation's list these features were.
    public func label(of location: EngineError.Location, list: EngineError.Location.List = .geometries) -> String? {
        guard location.list == list, let i = location.geometry, indices.contains(i) else { return nil }
        return self[i]
    }

    /// The label of the feature whose point an engine error is located at, when the operation's coordinates were
    /// these features' points in order (CSV rows read as bare points: "vertex 3" → "cities.csv: feature 3 (line 5)").
    /// - Parameter location: The error's location.
    public func label(ofVertex location: EngineError.Location) -> String? {
        guard location.geometry == nil, let i = location.vertex, indices.contains(i) else { return nil }
        return self[i]
    }
}

/// Projects geometries of one spatial reference in a single PROJ call; when a vertex cannot be projected, the error
/// names its feature and the vertex's index in it ("cities.csv: feature 3 (line 5): projection failed: vertex 0
/// (…) cannot be transformed …").
/// - Parameters:
///   - geometries: The features' geometries, in order.
///   - target: The spatial reference wanted.
///   - labels: The features' labels.
public func projectFeatures(_ geometries: [Geometry], into target: SpatialReference, labels: FeatureLabels)
    throws(CommandError) -> [Geometry]
{
    do {
        return try GeometryEngine.project(geometries, into: target)
    } catch {
        guard let location = error.location, let label = labels.label(of: location) else {
            throw .failure(error.description)
        }
        let inFeature = location.vertex.map { error.at(EngineError.Location(vertex: $0)) } ?? error.unlocated
        throw .failure("\(label): \(inFeature.description)")
    }
}
