import Foundation
import Meridian

/// Where a command's result goes: a file (written atomically) or standard output.
struct OutputFile {
    /// The path, or nil for standard output.
    let path: String?

    /// The lower-cased extension ("geojson", "wkt", "svg", "kml", "kmz", "csv"), or "" for stdout.
    var format: String {
        guard let path else { return "" }
        return URL(fileURLWithPath: path).pathExtension.lowercased()
    }

    /// Creates an output from `-o`; `-` or nil means standard output.
    init(_ path: String?) { self.path = (path == "-") ? nil : path }

    /// Writes the complete result: atomically to the file (temp + rename; a failure leaves nothing), or to stdout.
    func write(_ data: Data, io: CommandIO) throws(CommandError) {
        guard let path else {
            io.output(data)
            return
        }
        do { try AtomicFile.write(data, to: URL(fileURLWithPath: path)) } catch { throw .failure(error.description) }
    }
}

/// Encodings shared by the commands that write geometries.
enum FeatureEncoding {
    /// Features as a GeoJSON FeatureCollection, projected to WGS84 first (RFC 7946 allows no other).
    static func geoJSON(_ features: [Feature]) throws(CommandError) -> Data {
        var projected = features
        // One PROJ call per source spatial reference (usually one in all).
        let indices = projected.indices.filter { projected[$0].geometry.map { $0.spatialReference != .wgs84 } ?? false }
        for group in Dictionary(grouping: indices, by: { projected[$0].geometry!.spatialReference }).values {
            let lonLat = try engine { () throws(EngineError) in
                try GeometryEngine.project(group.map { projected[$0].geometry! }, into: .wgs84)
            }
            for (i, g) in zip(group, lonLat) { projected[i].geometry = g }
        }
        return GeoJSON.encode(projected, pretty: false) + Data("\n".utf8)
    }

    /// One WKT geometry per line, in the geometries' own spatial reference.
    static func wkt(_ geometries: [Geometry]) -> Data {
        Data(geometries.map { WKT.encode($0) + "\n" }.joined().utf8)
    }
}

/// Runs engine work, turning its errors into command failures.
func engine<T>(_ body: () throws(EngineError) -> T) throws(CommandError) -> T {
    do { return try body() } catch { throw .failure(error.description) }
}
