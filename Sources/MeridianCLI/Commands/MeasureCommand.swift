import Foundation
import Meridian

/// `meridian measure`: length, area and perimeter of every feature, planar or geodesic.
public enum MeasureCommand: Command {
    /// The subcommand name.
    public static let name = "measure"
    /// One line for `meridian --help`.
    public static let summary = "length, area and perimeter of each feature (planar or --geodesic)"
    /// The `--help` text.
    public static let help = """
        Usage: meridian measure [INPUT] [--geodesic] [--json] [--in-srs SRS]

        Measures every feature of INPUT: the length of lines, the area and perimeter of polygons (holes subtracted
        from the area, their rings counted in the perimeter), in meters and square meters.

        INPUT         a path or - (stdin, the default): GeoJSON (WGS84), CSV or WKT (one geometry per line)
        --geodesic    measure on the ellipsoid (edges are geodesics; PROJ's implementation of Karney's
                      algorithms, accurate to nanometers); works in any spatial reference, across ±180° and at the
                      poles. Without it the measures are planar in the input's own projected spatial reference
                      (refused for longitude/latitude input, whose planar measures would be in degrees)
        --json        one JSON object: {"features": [{"index", "id", "type", "length_m", "area_m2",
                      "perimeter_m"}], "total": {...}, "geodesic": true|false}
        --in-srs SRS  spatial reference of CSV x,y / WKT input (default WGS84)
        Example: meridian measure parcels.geojson --geodesic --json
        """

    /// Measures every feature of the input and prints one line (or JSON object) per feature.
    /// - Throws: `CommandError.usage` for bad options, `.failure` for unreadable input.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        let geodesic = arguments.flag("--geodesic")
        let json = arguments.flag("--json")
        let inSRS = try (try arguments.option("--in-srs")).map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        let positionals = try arguments.finish(maximumPositionals: 1)
        let input = try FeatureInput.read(positionals.first, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: inSRS ?? .wgs84, io: io)

        struct Row { var type: String; var length: Double; var area: Double; var perimeter: Double; var id: JSONValue? }
        var rows: [Row] = []
        for (i, feature) in input.features.enumerated() {
            guard let g = feature.geometry else {
                rows.append(Row(type: "null", length: 0, area: 0, perimeter: 0, id: feature.id))
                continue
            }
            do {
                rows.append(try measure(g, geodesic: geodesic, id: feature.id))
            } catch {
                throw .failure("\(input.labels[i]): \(error.description)")
            }
        }

        func measure(_ g: Geometry, geodesic: Bool, id: JSONValue?) throws(EngineError) -> Row {
            let isArea: Bool
            switch g {
            case .polygon, .envelope: isArea = true
            default: isArea = false
            }
            if geodesic {
                let length = try GeometryEngine.geodeticLength(of: g)
                let area = try GeometryEngine.geodeticArea(of: g)
                return Row(type: g.typeName, length: isArea ? 0 : length, area: area, perimeter: isArea ? length : 0, id: id)
            }
            guard !g.spatialReference.isGeographic else {
                throw .geographicCoordinatesRefused(operation: "a planar measurement (use --geodesic)")
            }
            let m = g.spatialReference.unit?.metersPerUnit ?? 1
            let length = try GeometryEngine.length(of: g) * m
            let area = try GeometryEngine.area(of: g) * m * m
            return Row(type: g.typeName, length: isArea ? 0 : length, area: area, perimeter: isArea ? length : 0, id: id)
        }

        let total = Row(type: "total", length: rows.reduce(0) { $0 + $1.length }, area: rows.reduce(0) { $0 + $1.area },
                        perimeter: rows.reduce(0) { $0 + $1.perimeter }, id: nil)
        if json {
            func object(_ r: Row, index: Int?) -> JSONValue {
                var o: [String: JSONValue] = ["type": .string(r.type), "length_m": .number(r.length),
                                              "area_m2": .number(r.area), "perimeter_m": .number(r.perimeter)]
                if let index { o["index"] = .number(Double(index)) }
                if let id = r.id { o["id"] = id }
                return .object(o)
            }
            let document = JSONValue.object([
                "features": .array(rows.enumerated().map { object($1, index: $0) }),
                "total": object(total, index: nil),
                "geodesic": .bool(geodesic),
            ])
            io.output(document.encoded(pretty: true) + Data("\n".utf8))
            return
        }
        io.print("feature\ttype\tlength_m\tarea_m2\tperimeter_m")
        for (i, r) in rows.enumerated() {
            io.print(String(format: "%d\t%@\t%.3f\t%.3f\t%.3f", i, r.type, r.length, r.area, r.perimeter))
        }
        io.print(String(format: "total\t\t%.3f\t%.3f\t%.3f", total.length, total.area, total.perimeter))
    }
}
