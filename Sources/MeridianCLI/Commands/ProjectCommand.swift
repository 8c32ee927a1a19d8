import Foundation
import Meridian

/// `meridian project`: coordinates from one spatial reference to another, reporting PROJ's operation and accuracy.
public enum ProjectCommand: Command {
    /// The subcommand name.
    public static let name = "project"
    /// One line for `meridian --help`.
    public static let summary = "project coordinates between spatial references"
    /// The `--help` text.
    public static let help = """
        Usage: meridian project [INPUT] --to SRS [--from SRS] [--allow-outside-area] [-o OUTPUT]

        Projects every coordinate of INPUT into SRS and prints on stderr which operation PROJ used and its
        accuracy (e.g. NAD27 to WGS 84 without the NADCON grid is a Helmert shift accurate to about 7 m).
        A vertex outside the area of use of the source or target spatial reference is refused (as by buffer), and
        so is one outside the projection's own domain (projected back, it does not return where it started).

        INPUT               a path or - (stdin, the default): CSV with lon,lat (or longitude,latitude) or x,y
                            columns, GeoJSON, or WKT (one geometry per line)
        --to SRS            the target spatial reference (EPSG:n, ESRI:n, WKT or a PROJ string)
        --from SRS          the source of CSV/WKT coordinates (default WGS84 for lon,lat columns; required for x,y)
        -o, --output OUTPUT CSV in: CSV out, the coordinate columns replaced by x,y (projected target) or lon,lat
                            (geographic target), other columns kept. GeoJSON/WKT in: .geojson (only for a WGS84
                            target) or .wkt (the default on stdout for any other target)
        --allow-outside-area project vertices outside the areas of use anyway (never those outside the domain)

        Example: meridian project points.csv --to EPSG:32038 -o points_tx.csv
        """

    /// Projects the input's coordinates and writes them to the output (stdout by default).
    /// - Throws: `CommandError.usage` for bad options, `.failure` for unreadable input, an unknown spatial
    ///   reference, a failed transformation or an unwritable output.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        guard let toText = try arguments.option("--to") else { throw .usage("missing --to SRS") }
        let fromText = try arguments.option("--from")
        let allowOutside = arguments.flag("--allow-outside-area")
        let output = OutputFile(try arguments.option("--output", "-o"))
        let positionals = try arguments.finish(maximumPositionals: 1)
        let target = try parseSpatialReference(toText)
        let source = try fromText.map { (t: String) throws(CommandError) in try parseSpatialReference(t) }

        let input = try FeatureInput.read(positionals.first, inputSpatialReference: source,
                                          defaultXYSpatialReference: nil, io: io,
                                          csv: FeatureInput.CSVOptions(keepTable: true, pointsOnly: true))
        try checkOutput(output, input: input.format, target: target)
        if !allowOutside {
            // CSV input is read as bare points (no features): one multipoint, its vertices the features.
            let geometries = input.points.map { [Geometry.multipoint(Multipoint($0, spatialReference: input.spatialReference))] }
                ?? input.features.compactMap(\.geometry)
            let featureOf = input.features.indices.filter { input.features[$0].geometry != nil }
            for sr in [input.spatialReference, target] {
                try refuseOutsideAreaOfUse(geometries, of: sr, label: { geometry, vertex in
                    input.labels[input.points != nil ? vertex : featureOf[geometry]]
                }, override: "--allow-outside-area", verb: "project")
            }
        }
        var operations = Set<ProjectionOperation>()
        var projected: [Feature] = []
        projected.reserveCapacity(input.features.count)
        if input.format == .csv {
            // Points only: one bulk PROJ call.
            var coordinates = input.points ?? []
            let original = coordinates
            do {
                if let op = try GeometryEngine.project(&coordinates, from: input.spatialReference, into: target) {
                    operations.insert(op)
                }
            } catch {
                throw .failure(relabel(error.description, "vertex", labels: input.labels))
            }
            try refuseOutsideDomain(original, coordinates, from: input.spatialReference, into: target) {
                input.labels[$0]
            }
            try output.stream(io: io) { out throws(CommandError) in csv(input, coordinates, target: target, to: &out) }
            report(operations, from: input.spatialReference, to: target, io: io)
            return
        }
        var original: [Coordinate] = [], result: [Coordinate] = [], firstVertex: [(feature: Int, start: Int)] = []
        for (i, feature) in input.features.enumerated() {
            guard let g = feature.geometry else { projected.append(feature); continue }
            do {
                let result = try GeometryEngine.projectReportingOperations(g, into: target)
                operations.formUnion(result.operations)
                projected.append(Feature(geometry: result.geometry, properties: feature.properties, id: feature.id))
            } catch {
                throw .failure("\(input.labels[i]): \(error.description)")
            }
            firstVertex.append((i, original.count))
            original += g.coordinates
            result += projected[projected.count - 1].geometry!.coordinates
        }
        try refuseOutsideDomain(original, result, from: input.spatialReference, into: target) { k in
            let f = firstVertex.last { $0.start <= k }!
            return "\(input.labels[f.feature]) vertex \(k - f.start)"
        }
        if output.format == "wkt" || (output.format == "" && target != .wgs84) {
            try output.stream(io: io) { out throws(CommandError) in
                FeatureEncoding.writeWKT(projected.compactMap(\.geometry), to: &out)
            }
        } else {
            try output.stream(io: io) { out throws(CommandError) in try FeatureEncoding.writeGeoJSON(projected, to: &out) }
        }
        report(operations, from: input.spatialReference, to: target, io: io)
    }

    /// Refuses, before any work, an output the input cannot be written as: CSV in is CSV out; GeoJSON/WKT in is
    /// .geojson (WGS84 targets only) or .wkt.
    private static func checkOutput(
        _ output: OutputFile, input: FeatureInput.Format, target: SpatialReference
    ) throws(CommandError) {
        if input == .csv {
            guard ["", "csv", "txt"].contains(output.format) else {
                throw .usage("CSV input is written as CSV (the coordinate columns replaced); use -o OUT.csv, not '.\(output.format)'")
            }
            return
        }
        switch output.format {
        case "geojson", "json":
            guard target == .wgs84 else {
                throw .usage("GeoJSON output is WGS84 only (RFC 7946); write .wkt for \(target.name)")
            }
        case "wkt", "":
            break
        default:
            throw .usage("unknown output format '.\(output.format)' for \(input.rawValue) input (use .geojson or .wkt)")
        }
    }

    /// Refuses the first vertex outside the projection's own domain (see
    /// `GeometryEngine.firstVertexOutsideProjectionDomain`), named by its label and in the input's coordinates.
    private static func refuseOutsideDomain(
        _ original: [Coordinate], _ projected: [Coordinate], from source: SpatialReference,
        into target: SpatialReference, label: (Int) -> String
    ) throws(CommandError) {
        guard let i = try engine({ () throws(EngineError) in
            try GeometryEngine.firstVertexOutsideProjectionDomain(original, projected, from: source, into: target)
        }) else { return }
        throw .failure(String(format: "%@ (%.17g, %.17g) is outside the domain of the projection from %@ to %@ (a singularity, or a point that does not project back to itself)",
                              label(i), original[i].x, original[i].y, source.name, target.name))
    }

    private static func report(_ operations: Set<ProjectionOperation>, from: SpatialReference, to: SpatialReference,
                               io: CommandIO) {
        if from == to {
            io.note("operation: none (\(from.name) and \(to.name) are the same)")
        }
        for op in operations.sorted(by: { $0.name < $1.name }) {
            let accuracy = op.accuracy.map { "\($0) m" } ?? "unknown (ballpark: no datum shift information)"
            io.note("operation: \(op.name)\naccuracy: \(accuracy)")
        }
    }

    /// The CSV with the coordinate columns replaced (9 decimals for degrees, 4 for projected units), streamed row by
    /// row; the other columns are copied.
    private static func csv(_ input: FeatureInput, _ coordinates: [Coordinate], target: SpatialReference,
                            to out: inout ByteBuffer) {
        guard let table = input.table, let (xi, yi) = input.coordinateColumns else { return }
        var header = table.header
        header[xi] = target.isGeographic ? "lon" : "x"
        header[yi] = target.isGeographic ? "lat" : "y"
        CSV.appendRecord(header, to: &out)
        let decimals = target.isGeographic ? 9 : 4
        for (r, row) in table.rows.enumerated() {
            for (c, field) in row.enumerated() {
                if c > 0 { out.append(UInt8(ascii: ",")) }
                if c == xi {
                    out.appendFixed(coordinates[r].x, decimals: decimals)
                } else if c == yi {
                    out.appendFixed(coordinates[r].y, decimals: decimals)
                } else {
                    CSV.appendField(field, alone: row.count == 1, to: &out)
                }
            }
            CSV.endRecord(&out)
        }
    }
}
