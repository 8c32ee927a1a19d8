import Foundation
import Meridian

/// Runs engine work, turning its errors into command failures.
public func engine<T>(_ body: () throws(EngineError) -> T) throws(CommandError) -> T {
    do { return try body() } catch { throw .failure(describe(error)) }
}

/// An engine error as the command line says it: the work bound's refusal names the option that sets it.
public func describe(_ error: EngineError) -> String {
    guard case .limitExceeded = error else { return error.description }
    return error.description + " (--max-vertices; raise it to allow more)"
}

/// Engine messages name items by index ("geometry 3", "vertex 3"); users know them by the input's labels
/// ("feature 3 (line 5)"). Replaces the first such mention.
/// - Parameters:
///   - message: The engine's message.
///   - word: "geometry" or "vertex".
///   - labels: The input's labels by index.
public func relabel(_ message: String, _ word: String, labels: FeatureLabels) -> String {
    relabel(message, word) { labels.indices.contains($0) ? labels[$0] : nil }
}

/// `relabel(_:_:labels:)` with the labels given by a function (nil: the index is not a feature's).
public func relabel(_ message: String, _ word: String, label: (Int) -> String?) -> String {
    guard let range = message.range(of: word + #" \d+"#, options: .regularExpression),
          let index = Int(message[range].dropFirst(word.count + 1)), let name = label(index)
    else { return message }
    return message.replacingCharacters(in: range, with: name)
}

/// Projects geometries of one spatial reference in a single PROJ call; when a vertex cannot be projected, the error
/// names its feature.
public func projectEach(_ geometries: [Geometry], into target: SpatialReference, labels: FeatureLabels) throws(CommandError)
    -> [Geometry]
{
    do {
        return try GeometryEngine.project(geometries, into: target)
    } catch {
        for (i, g) in geometries.enumerated() {
            do { _ = try GeometryEngine.project(g, into: target) } catch { throw .failure("\(labels[i]): \(error.description)") }
        }
        throw .failure(error.description)
    }
}
