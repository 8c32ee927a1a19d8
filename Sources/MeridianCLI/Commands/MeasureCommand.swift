import Foundation
import Meridian

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
        feature and a total.
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

        /// The sum of rows.
        static func total(_ rows: [Row]) -> Row {
            Row(type: "total", length: rows.reduce(0) { $0 + $1.length }, area: rows.reduce(0) { $0 + $1.area },
                perimeter: rows.reduce(0) { $0 + $1.perimeter }, id: nil)
        }
    }

    /// Measures every feature of the input and prints one line (or JSON object) per feature.
    /// - Throws: `CommandError.failure` for unreadable input or a feature that cannot be measured.
    public func run(io: CommandIO) throws(CommandError) {
        let features = try FeatureInput.read(input.path, inputSpatialReference: input.spatialReference,
                                             defaultXYSpatialReference: input.spatialReference ?? .wgs84, io: io)
        var rows: [Row] = []
        for (i, feature) in features.features.enumerated() {
            guard let g = feature.geometry else {
                rows.append(Row(type: "null", length: 0, area: 0, perimeter: 0, id: feature.id))
                continue
            }
            do { rows.append(try measure(g, id: feature.id)) } catch {
                throw .failure("\(features.labels[i]): \(error.description)")
            }
        }
        if json { writeJSON(rows, io: io) } else { writeTable(rows, io: io) }
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

    /// `--json`: the features, the total and whether the measures are geodesic.
    private func writeJSON(_ rows: [Row], io: CommandIO) {
        func object(_ r: Row, index: Int?) -> JSONValue {
            var o: [String: JSONValue] = ["type": .string(r.type), "length_m": .number(r.length),
                                          "area_m2": .number(r.area), "perimeter_m": .number(r.perimeter)]
            if let index { o["index"] = .number(Double(index)) }
            if let id = r.id { o["id"] = id }
            return .object(o)
        }
        let document = JSONValue.object([
            "features": .array(rows.enumerated().map { object($1, index: $0) }),
            "total": object(Row.total(rows), index: nil),
            "geodesic": .bool(geodesic),
        ])
        io.output(document.encoded(pretty: true) + Data("\n".utf8))
    }

    /// The tab-separated table: a header, a line per feature, the total.
    private func writeTable(_ rows: [Row], io: CommandIO) {
        io.print("feature\ttype\tlength_m\tarea_m2\tperimeter_m")
        for (i, r) in rows.enumerated() {
            io.print(String(format: "%d\t%@\t%.3f\t%.3f\t%.3f", i, r.type, r.length, r.area, r.perimeter))
        }
        let total = Row.total(rows)
        io.print(String(format: "total\t\t%.3f\t%.3f\t%.3f", total.length, total.area, total.perimeter))
    }
}
