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
        Usage: meridian project [INPUT] --to SRS [--from SRS] [--transformation N|NAME] [--allow-outside-area]
                                [-o OUTPUT]
               meridian project --list-transformations --from SRS --to SRS [--json]

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
        --allow-outside-area project vertices outside the horizons anyway (each SRS's area of use widened by 5°,
                            where PROJ's projection returns the point); never those outside the domain
        --transformation N|NAME
                            run this datum transformation instead of the one PROJ would pick: its number or its
                            exact name in the list --list-transformations prints for the same --from and --to
        --list-transformations
                            list the transformations PROJ knows from --from to --to, most suitable first (number,
                            accuracy, whether it can run here or needs a grid that is not installed, area of use,
                            PROJ pipeline); --json prints them as a JSON array

        Examples: meridian project points.csv --to EPSG:32038 -o points_tx.csv
                  meridian project --list-transformations --from EPSG:4267 --to EPSG:4326
                  meridian project nad27.csv --from EPSG:4267 --to EPSG:4326 --transformation 2 -o wgs84.csv
        """

    /// Projects the input's coordinates and writes them to the output (stdout by default).
    /// - Throws: `CommandError.usage` for bad options, `.failure` for unreadable input, an unknown spatial
    ///   reference, a failed transformation or an unwritable output.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        guard let toText = try arguments.option("--to") else { throw .usage("missing --to SRS") }
        let fromText = try arguments.option("--from")
        let allowOutside = arguments.flag("--allow-outside-area")
        let transformationText = try arguments.option("--transformation")
        let list = arguments.flag("--list-transformations")
        let json = arguments.flag("--json")
        let outputPath = try arguments.option("--output", "-o")
        let output = OutputFile(outputPath)
        let positionals = try arguments.finish(maximumPositionals: list ? 0 : 1)
        let target = try parseSpatialReference(toText)
        let source = try fromText.map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        if list {
            guard let source else { throw .usage("--list-transformations needs --from SRS") }
            if transformationText != nil || outputPath != nil || allowOutside {
                throw .usage("--list-transformations takes only --from, --to and --json")
            }
            try listTransformations(from: source, to: target, json: json, io: io)
            return
        }
        if json { throw .usage("--json goes with --list-transformations") }

        let progress = io.progress(name)
        defer { progress?.finish() }
        let input = try FeatureInput.read(positionals.first, inputSpatialReference: source,
                                          defaultXYSpatialReference: nil, io: io,
                                          csv: FeatureInput.CSVOptions(keepTable: true, pointsOnly: true),
                                          progress: progress)
        try checkOutput(output, input: input.format, target: target)
        let chosen = try transformationText.map { (t: String) throws(CommandError) in
            try transformation(t, from: input.spatialReference, to: target)
        }
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
        progress?.begin("projecting", unit: input.format == .csv ? "points" : "features",
                        total: input.format == .csv ? input.points?.count : input.features.count)
        var operations = Set<ProjectionOperation>()
        var projected: [Feature] = []
        projected.reserveCapacity(input.features.count)
        if input.format == .csv {
            // Points only: one bulk PROJ call.
            var coordinates = input.points ?? []
            let original = coordinates
            do {
                if let chosen {
                    operations.insert(try GeometryEngine.project(&coordinates, from: input.spatialReference,
                                                                 into: target, datumTransformation: chosen))
                } else if let op = try GeometryEngine.project(&coordinates, from: input.spatialReference, into: target) {
                    operations.insert(op)
                }
            } catch {
                throw .failure(relabel(error.description, "vertex", labels: input.labels))
            }
            try refuseOutsideDomain(original, coordinates, from: input.spatialReference, into: target, datumTransformation: chosen) {
                input.labels[$0]
            }
            try output.stream(io: io, progress: progress) { out throws(CommandError) in
                csv(input, coordinates, target: target, to: &out)
            }
            progress?.finish()
            report(operations, from: input.spatialReference, to: target, io: io)
            return
        }
        var original: [Coordinate] = [], result: [Coordinate] = [], firstVertex: [(feature: Int, start: Int)] = []
        for (i, feature) in input.features.enumerated() {
            if i & 1023 == 0 { progress?.update(i) }
            guard let g = feature.geometry else { projected.append(feature); continue }
            do {
                let geometry: Geometry
                if let chosen {
                    geometry = try GeometryEngine.project(g, into: target, datumTransformation: chosen)
                    operations.insert(ProjectionOperation(name: chosen.name, accuracy: chosen.accuracy))
                } else {
                    let result = try GeometryEngine.projectReportingOperations(g, into: target)
                    operations.formUnion(result.operations)
                    geometry = result.geometry
                }
                projected.append(Feature(geometry: geometry, properties: feature.properties, id: feature.id))
            } catch {
                throw .failure("\(input.labels[i]): \(error.description)")
            }
            firstVertex.append((i, original.count))
            original += g.coordinates
            result += projected[projected.count - 1].geometry!.coordinates
        }
        try refuseOutsideDomain(original, result, from: input.spatialReference, into: target, datumTransformation: chosen) { k in
            let f = firstVertex.last { $0.start <= k }!
            return "\(input.labels[f.feature]) vertex \(k - f.start)"
        }
        if output.format == "wkt" || (output.format == "" && target != .wgs84) {
            try output.stream(io: io, progress: progress) { out throws(CommandError) in
                FeatureEncoding.writeWKT(projected.compactMap(\.geometry), to: &out)
            }
        } else {
            try output.stream(io: io, progress: progress) { out throws(CommandError) in
                try FeatureEncoding.writeGeoJSON(projected, to: &out)
            }
        }
        progress?.finish()
        report(operations, from: input.spatialReference, to: target, io: io)
    }

    /// The transformation `text` names among those from `source` to `target`: its 1-based number in the list
    /// `--list-transformations` prints, or its exact name.
    private static func transformation(_ text: String, from source: SpatialReference, to target: SpatialReference)
        throws(CommandError) -> DatumTransformation
    {
        let candidates = try engine { () throws(EngineError) in try GeometryEngine.transformations(from: source, to: target) }
        let found: DatumTransformation?
        if let n = Int(text), text.allSatisfy(\.isASCII) {
            found = n >= 1 && n <= candidates.count ? candidates[n - 1] : nil
        } else {
            found = candidates.first { $0.name == text }
        }
        guard let found else {
            throw .usage("no transformation '\(text)' from \(source.name) to \(target.name) (there are \(candidates.count); list them with --list-transformations)")
        }
        guard found.isAvailable else {
            throw .failure("transformation '\(text)', \(found.name), needs a grid file that is not installed under PROJ_DATA")
        }
        return found
    }

    /// Prints the transformations PROJ knows from `source` to `target`, numbered, most suitable first.
    private static func listTransformations(from source: SpatialReference, to target: SpatialReference, json: Bool,
                                            io: CommandIO) throws(CommandError) {
        let candidates = try engine { () throws(EngineError) in try GeometryEngine.transformations(from: source, to: target) }
        if json {
            struct Area: Encodable { let name: String, west: Double, south: Double, east: Double, north: Double }
            struct Listed: Encodable {
                let number: Int, name: String, accuracy: Double?, available: Bool, pipeline: String, areaOfUse: Area?
                enum CodingKeys: CodingKey { case number, name, accuracy, available, pipeline, areaOfUse }
                func encode(to encoder: Encoder) throws {  // unknown accuracy and area as null, not left out
                    var c = encoder.container(keyedBy: CodingKeys.self)
                    try c.encode(number, forKey: .number)
                    try c.encode(name, forKey: .name)
                    try c.encode(accuracy, forKey: .accuracy)
                    try c.encode(available, forKey: .available)
                    try c.encode(pipeline, forKey: .pipeline)
                    try c.encode(areaOfUse, forKey: .areaOfUse)
                }
            }
            let listed = candidates.enumerated().map { i, t in
                Listed(number: i + 1, name: t.name, accuracy: t.accuracy, available: t.isAvailable,
                       pipeline: t.pipeline, areaOfUse: t.areaOfUse.map {
                           Area(name: $0.name, west: $0.west, south: $0.south, east: $0.east, north: $0.north)
                       })
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(listed) else { throw .failure("could not encode JSON") }
            io.output(data + Data("\n".utf8))
            return
        }
        guard !candidates.isEmpty else {
            io.print("no transformation from \(source.name) to \(target.name)")
            return
        }
        var lines: [String] = []
        for (i, t) in candidates.enumerated() {
            let accuracy = t.accuracy.map { "accuracy \($0) m" } ?? "accuracy unknown (ballpark)"
            let state = t.isAvailable ? "available" : "needs a grid that is not installed"
            // Area names run to hundreds of characters (every state of the CONUS): the start, and --json for all.
            let area = t.areaOfUse.map { a in
                "; area of use: " + (a.name.count > 80 ? a.name.prefix(79) + "…" : a.name)
            } ?? ""
            lines.append("\(i + 1). \(t.name)\n   \(accuracy); \(state)\(area)\n   \(t.pipeline)")
        }
        io.print(lines.joined(separator: "\n"))
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
        into target: SpatialReference, datumTransformation transformation: DatumTransformation?, label: (Int) -> String
    ) throws(CommandError) {
        guard let i = try engine({ () throws(EngineError) in
            try GeometryEngine.firstVertexOutsideProjectionDomain(original, projected, from: source, into: target,
                                                                  datumTransformation: transformation)
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
