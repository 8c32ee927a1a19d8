import Foundation
import Meridian

/// Features read from a command's input, with where each came from (for error messages).
struct FeatureInput {
    /// The features, in input order.
    var features: [Feature]
    /// The spatial reference of every feature's geometry.
    var spatialReference: SpatialReference
    /// How to name feature `i` in a message, with the input's name, e.g. "cities.csv: feature 3 (line 5)".
    var labels: [String]
    /// The input's format.
    var format: Format
    /// For CSV input: the header and the rows, so outputs can keep the other columns.
    var table: CSVTable?
    /// For CSV input: the indices of the coordinate columns.
    var coordinateColumns: (x: Int, y: Int)?

    /// Input formats the CLI reads.
    enum Format: String {
        case geoJSON = "GeoJSON"
        case csv = "CSV"
        case wkt = "WKT"
    }

    /// Reads GeoJSON, CSV or WKT from a path or stdin (`-`/nil), recognised by its content (`InputFormat`), never
    /// by its file name.
    /// - Parameters:
    ///   - path: A file path, `-` or nil for stdin.
    ///   - inputSpatialReference: `--in-srs`/`--from`: the spatial reference of CSV/WKT coordinates.
    ///   - defaultXYSpatialReference: Used for CSV `x,y` columns and WKT when `inputSpatialReference` is nil.
    ///   - io: The command's streams.
    /// - Throws: `CommandError.failure` naming the input when it cannot be read, is not one of the formats, has no
    ///   feature, has no feature with a non-empty geometry (nothing to work on is an error, never success), or
    ///   has a latitude beyond ±90° in longitude/latitude coordinates.
    static func read(
        _ path: String?, inputSpatialReference: SpatialReference?, defaultXYSpatialReference: SpatialReference?,
        io: CommandIO
    ) throws(CommandError) -> FeatureInput {
        let name = (path == nil || path == "-") ? "stdin" : path!
        let input = try parse(try io.read(path), name: name, inputSpatialReference: inputSpatialReference,
                              defaultXYSpatialReference: defaultXYSpatialReference)
        guard !input.features.isEmpty else { throw .failure("\(name): the input has no features") }
        guard input.features.contains(where: { !($0.geometry?.coordinates.isEmpty ?? true) }) else {
            throw .failure("\(name): no feature has a geometry (\(input.features.count) feature(s), each null or empty)")
        }
        if input.spatialReference.isGeographic {
            for (i, feature) in input.features.enumerated() {
                if let c = feature.geometry?.coordinates.first(where: { !(abs($0.y) <= 90) }) {
                    throw .failure("\(input.labels[i]): latitude \(c.y) is outside -90…90")
                }
            }
        }
        return input
    }

    private static func parse(
        _ data: Data, name: String, inputSpatialReference: SpatialReference?,
        defaultXYSpatialReference: SpatialReference?
    ) throws(CommandError) -> FeatureInput {
        guard !data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            throw .failure("\(name): the input is empty")
        }
        let format: Format
        switch InputFormat.sniff(data) {
        case .kml, .kmz:
            throw .failure("\(name) is KML/KMZ, which this command does not read (GeoJSON, CSV or WKT); convert it first: meridian kml convert \(name) OUT.geojson")
        case .unrecognized(let found):
            throw .failure("\(name): not GeoJSON, CSV or WKT: found \(found)")
        case .geoJSON: format = .geoJSON
        case .wkt: format = .wkt
        case .csv: format = .csv
        }
        do {
            switch format {
            case .geoJSON:
                if let sr = inputSpatialReference, sr != .wgs84 {
                    throw CommandError.usage("GeoJSON coordinates are WGS84 longitude/latitude (RFC 7946); --in-srs \(sr.definition) does not apply")
                }
                let features = try GeoJSON.decodeFeatures(data)
                return FeatureInput(
                    features: features, spatialReference: .wgs84,
                    labels: features.indices.map { "\(name): feature \($0)" }, format: .geoJSON)
            case .csv:
                return try readCSV(data, name: name, inputSpatialReference: inputSpatialReference,
                                   defaultXYSpatialReference: defaultXYSpatialReference)
            case .wkt:
                guard let sr = inputSpatialReference ?? defaultXYSpatialReference else {
                    throw CommandError.usage("WKT input needs its spatial reference: give --in-srs")
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    throw CommandError.failure("\(name): WKT input is not UTF-8 text")
                }
                var features: [Feature] = []
                var labels: [String] = []
                for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    if trimmed.isEmpty { continue }
                    do {
                        features.append(Feature(geometry: try WKT.decode(trimmed, spatialReference: sr), properties: [:], id: nil))
                    } catch {
                        // Located in the file: the decoder saw one trimmed line, so its line is always 1.
                        let indent = line.prefix { $0 == " " || $0 == "\t" }.count
                        let located = FormatError(format: error.format, message: error.message, line: i + 1,
                                                  column: error.column.map { $0 + indent })
                        throw CommandError.failure("\(name): \(located.description)")
                    }
                    labels.append("\(name): feature \(features.count - 1) (line \(i + 1))")
                }
                return FeatureInput(features: features, spatialReference: sr, labels: labels, format: .wkt)
            }
        } catch let error as CommandError {
            throw error
        } catch let error as FormatError {
            throw .failure("\(name): \(error.description)")
        } catch {
            throw .failure("\(name): \(error)")
        }
    }

    private static func readCSV(
        _ data: Data, name: String, inputSpatialReference: SpatialReference?,
        defaultXYSpatialReference: SpatialReference?
    ) throws -> FeatureInput {
        let table = try CSV.decode(data)
        let lower = table.header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let pairs: [(String, String, Bool)] = [("lon", "lat", true), ("longitude", "latitude", true),
                                               ("lng", "lat", true), ("x", "y", false)]
        guard let (xName, yName, geographic) = pairs.first(where: { lower.contains($0.0) && lower.contains($0.1) }),
              let xi = lower.firstIndex(of: xName), let yi = lower.firstIndex(of: yName)
        else {
            throw CommandError.failure("\(name): line 1: the CSV header needs lon,lat (or longitude,latitude) or x,y columns; it has \(table.header.joined(separator: ","))")
        }
        let sr: SpatialReference
        if let given = inputSpatialReference {
            sr = given
        } else if geographic {
            sr = .wgs84
        } else if let fallback = defaultXYSpatialReference {
            sr = fallback
        } else {
            throw CommandError.usage("CSV x,y columns need their spatial reference: give --in-srs (or --from)")
        }
        var features: [Feature] = []
        var labels: [String] = []
        features.reserveCapacity(table.rows.count)
        for (r, row) in table.rows.enumerated() {
            let line = table.lineNumbers[r]
            guard let x = Double(row[xi].trimmingCharacters(in: .whitespaces)),
                  let y = Double(row[yi].trimmingCharacters(in: .whitespaces)), x.isFinite, y.isFinite
            else {
                throw CommandError.failure("\(name): line \(line): '\(row[xi])','\(row[yi])' is not a finite coordinate pair")
            }
            var properties: [String: JSONValue] = [:]
            for (c, column) in table.header.enumerated() where c != xi && c != yi {
                let value = row[c]
                if let d = Double(value.trimmingCharacters(in: .whitespaces)), d.isFinite {
                    properties[column] = .number(d)
                } else {
                    properties[column] = .string(value)
                }
            }
            features.append(Feature(geometry: .point(Point(x: x, y: y, spatialReference: sr)), properties: properties, id: nil))
            labels.append("\(name): feature \(r) (line \(line))")
        }
        return FeatureInput(features: features, spatialReference: sr, labels: labels, format: .csv, table: table,
                            coordinateColumns: (xi, yi))
    }
}
