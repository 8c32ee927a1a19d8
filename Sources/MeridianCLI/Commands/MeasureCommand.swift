import Foundation
import Meridian
import MeridianIO

/// `meridian measure`: length, area and perimeter of every feature, planar or geodesic.
public struct MeasureCommand: Command {
    /// "measure".
    public static let name = "measure"
    /// One line for `meridian --help`.
    public static let summary = "length, area and perimeter of each feature (planar or --geodesic)"
    /// What `--help` says before the options.
    public static let discussion = """
        Measures every feature of INPUT: the length of lines, the area and perimeter of polygons (holes subtracted
        from the area, their rings counted in the perimeter), in meters and square meters, one tab-separated line per
        feature and a total, each written as it is measured (memory holds the input's bytes and one batch of
        features).
        """
    /// Examples for `--help`.
    public static let examples = ["meridian measure parcels.geojson --geodesic --json"]

    var input = InputOptions()

    @Flag("--geodesic", help: "measure on the ellipsoid (edges are geodesics; PROJ's implementation of Karney's algorithms, accurate to nanometers); works in any spatial reference, across ±180° and at the poles. Without it the measures are planar in the input's own projected spatial reference (refused for longitude/latitude input, whose planar measures would be in degrees)")
    var geodesic: Bool

    @Flag("--json", help: "one JSON object: {\"features\": [{\"index\", \"id\", \"type\", \"length_m\", \"area_m2\", \"perimeter_m\"}], \"total\": {...}, \"geodesic\": true|false}")
    var json: Bool

    /// A command with every option at its default.
    public init() {}

    /// The measures of one feature (or of all, for the total).
    struct Row {
        var type: String
        var length: Double
        var area: Double
        var perimeter: Double
        var id: JSONValue?
    }

    /// Measures every feature of the input and prints one line (or JSON object) per feature, as they are read: a
    /// batch of features at a time (memory holds the input's bytes and one batch, whatever the number of features).
    /// Nothing is printed before the first feature with a geometry: an input without one is an error and prints
    /// nothing.
    /// - Throws: `CommandError.failure` for unreadable input or a feature that cannot be measured.
    public func run(io: CommandIO) throws(CommandError) {
        var total = Row(type: "total", length: 0, area: 0, perimeter: 0, id: nil)
        var index = 0
        var out = HeldOutput(io: io)
        out.write(json ? Data("{\n  \"features\": [".utf8) : Data("feature\ttype\tlength_m\tarea_m2\tperimeter_m\n".utf8))
        _ = try FeatureInput.read(input.path, layer: input.layer, inputSpatialReference: input.spatialReference,
                                  defaultXYSpatialReference: input.spatialReference ?? .wgs84, io: io,
                                  csv: FeatureInput.CSVOptions(batchSize: FeatureEncoding.batchSize)) { batch throws(CommandError) in
            for (i, feature) in batch.features.enumerated() {
                var row = Row(type: "null", length: 0, area: 0, perimeter: 0, id: feature.id)
                if let g = feature.geometry {
                    do throws(EngineError) { row = try measure(g, id: feature.id) } catch {
                        throw .failure("\(batch.labels[i]): \(error.description)")
                    }
                    if out.isHolding, !g.coordinates.isEmpty { out.release() }
                }
                total.length += row.length
                total.area += row.area
                total.perimeter += row.perimeter
                out.write(text(row, index: index))
                index += 1
            }
        }
        if json {
            // The rest of the document as `JSONValue` writes one: keys sorted, two spaces an indent.
            out.write(Data("\n  ],\n  \"geodesic\": \(geodesic),\n  \"total\": ".utf8) + indented(object(total, index: nil))
                      + Data("\n}\n".utf8))
        } else {
            out.write(Data(String(format: "total\t\t%.3f\t%.3f\t%.3f\n", total.length, total.area, total.perimeter).utf8))
        }
        out.release()
    }

    /// Standard output held until the first feature with a geometry has been measured, then written as it comes.
    private struct HeldOutput {
        let io: CommandIO
        private var held: Data? = Data()
        init(io: CommandIO) { self.io = io }
        /// Whether output is still held.
        var isHolding: Bool { held != nil }
        /// Writes, or holds while nothing is released.
        mutating func write(_ data: Data) {
            if held == nil { io.output(data) } else { held?.append(data) }
        }
        /// Writes what is held; from now on everything is written as it comes.
        mutating func release() {
            guard let data = held else { return }
            held = nil
            io.output(data)
        }
    }

    /// One feature's line, or its JSON object in the features array.
    private func text(_ row: Row, index: Int) -> Data {
        guard json else {
            return Data(String(format: "%d\t%@\t%.3f\t%.3f\t%.3f\n", index, row.type, row.length, row.area, row.perimeter).utf8)
        }
        return Data((index == 0 ? "\n    " : ",\n    ").utf8) + indented(object(row, index: index), by: 4)
    }

    /// A row as the JSON object `--json` writes.
    private func object(_ r: Row, index: Int?) -> JSONValue {
        var o: [String: JSONValue] = ["type": .string(r.type), "length_m": .number(r.length),
                                      "area_m2": .number(r.area), "perimeter_m": .number(r.perimeter)]
        if let index { o["index"] = .number(Double(index)) }
        if let id = r.id { o["id"] = id }
        return .object(o)
    }

    /// A JSON value encoded pretty, its lines after the first indented by `spaces` more.
    private func indented(_ value: JSONValue, by spaces: Int = 2) -> Data {
        let text = String(decoding: value.encoded(pretty: true), as: UTF8.self)
        return Data(text.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: spaces)).utf8)
    }

    /// One geometry's measures, in meters.
    func measure(_ g: Geometry, id: JSONValue?) throws(EngineError) -> Row {
        let isArea: Bool
        switch g {
        case .polygon, .envelope: isArea = true
        default: isArea = false
        }
        let length: Double, area: Double
        if geodesic {
            length = try GeometryEngine.geodeticLength(of: g)
            area = try GeometryEngine.geodeticArea(of: g)
        } else {
            guard !g.spatialReference.isGeographic else {
                throw .geographicCoordinatesRefused(operation: "a planar measurement (use --geodesic)")
            }
            let m = g.spatialReference.unit?.metersPerUnit ?? 1
            length = try GeometryEngine.length(of: g) * m
            area = try GeometryEngine.area(of: g) * m * m
        }
        return Row(type: g.typeName, length: isArea ? 0 : length, area: area, perimeter: isArea ? length : 0, id: id)
    }
}
