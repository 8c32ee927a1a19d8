import Foundation
import Meridian

/// `meridian project` once its options are checked: reads the input, refuses what is outside the areas of use,
/// projects CSV points in one PROJ call or features one by one, refuses vertices outside the projection's domain,
/// writes the output and reports PROJ's operations on standard error.
struct ProjectionRun {
    /// `--to`.
    let target: SpatialReference
    /// `--transformation` as typed.
    let transformation: String?
    /// `--allow-outside-area`.
    let allowOutsideArea: Bool

    /// Projects the input into the output.
    func run(input options: InputOptions, output: OutputOptions, io: CommandIO) throws(CommandError) {
        let progress = io.progress(ProjectCommand.name)
        defer { progress?.finish() }
        let input = try FeatureInput.read(options.path, layer: options.layer, inputSpatialReference: options.spatialReference,
                                          defaultXYSpatialReference: nil, io: io,
                                          csv: FeatureInput.CSVOptions(keepTable: true, tableWithoutCoordinates: true,
                                                                       pointsOnly: true),
                                          progress: progress)
        let file = try outputFile(output, for: input.format)
        let chosen = try transformation.map { (t: String) throws(CommandError) in
            try TransformationList(from: input.spatialReference, to: target).choose(t)
        }
        // The horizon check runs on another thread while the input is projected (first, on this thread, with one
        // thread); its error comes first, and nothing is written before it has passed.
        let check = SharedCheck(run: self, input: input)
        let areaCheck = BackgroundTask(inline: allowOutsideArea || Parallelism.threadCount == 1) { () throws(CommandError) in
            if !check.run.allowOutsideArea { try check.run.refuseOutsideAreasOfUse(check.input) }
        }
        defer { try? areaCheck.wait() }
        progress?.begin("projecting", unit: input.format == .csv ? "points" : "features",
                        total: input.format == .csv ? input.points?.count : input.features.count)
        let operations: Set<ProjectionOperation>
        do throws(CommandError) {
            let checked = { () throws(CommandError) in try areaCheck.wait() }
            if input.format == .csv {
                operations = try projectPoints(input, transformation: chosen, to: file, io: io, progress: progress,
                                               checked: checked)
            } else {
                operations = try projectFeatures(input, transformation: chosen, to: file, io: io, progress: progress,
                                                 checked: checked)
            }
        } catch {
            try areaCheck.wait()  // the check's error first, as when it ran before everything else
            throw error
        }
        progress?.finish()
        report(operations, from: input.spatialReference, io: io)
    }

    /// The output file, refused before any work when the input cannot be written as it: CSV in is CSV out;
    /// GeoJSON, WKT or a feature table in is .geojson (WGS84 targets only), .wkt or a feature table (.gpkg, .shp, .fgb,
    /// PG:…), WKT on standard output for any target but WGS84.
    func outputFile(_ output: OutputOptions, for input: FeatureInput.Format) throws(CommandError) -> OutputFile {
        let standardOutput: OutputFormat = input == .csv ? .csv : target == .wgs84 ? .geoJSON : .wkt
        let file = try output.file(standardOutput: standardOutput)
        let ext = file.path.flatMap(OutputFormat.fileExtension) ?? ""
        switch (input, file.format) {
        case (.csv, .csv), (.csv, .text):
            return file
        case (.csv, _):
            throw .usage("CSV input is written as CSV (the coordinate columns replaced); use -o OUT.csv, not '.\(ext)'")
        case (_, .wkt), (_, .geoPackage), (_, .shapefile), (_, .flatGeobuf), (_, .postGIS):
            return file
        case (_, .geoJSON):
            guard target == .wgs84 else { throw .usage("GeoJSON output is WGS84 only (RFC 7946); write .wkt for \(target.name)") }
            return file
        default:
            throw .usage("unknown output format '.\(ext)' for \(input.rawValue) input (use .geojson, .wkt, .gpkg, .shp, .fgb or PG:…)")
        }
    }

    /// Refuses a vertex outside the area of use of the input's spatial reference or of the target.
    fileprivate func refuseOutsideAreasOfUse(_ input: FeatureInput) throws(CommandError) {
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

    /// CSV input: every point in one bulk PROJ call, written back as the CSV with its coordinate columns replaced.
    /// - Parameter checked: Waits for the horizon check (before anything is written).
    private func projectPoints(
        _ input: FeatureInput, transformation chosen: DatumTransformation?, to file: OutputFile, io: CommandIO,
        progress: ProgressLine?, checked: () throws(CommandError) -> Void
    ) throws(CommandError) -> Set<ProjectionOperation> {
        var operations = Set<ProjectionOperation>()
        var coordinates = input.points ?? []
        let original = coordinates
        do {
            if let chosen {
                operations.insert(try GeometryEngine.project(&coordinates, from: input.spatialReference,
                                                             into: target, datumTransformation: chosen))
            } else if let op = try GeometryEngine.project(&coordinates, from: input.spatialReference, into: target,
                                                          printedWith: ProjectedCSV.decimals(for: target)) {
                operations.insert(op)  // (the CSV's text is that of PROJ's own results)
            }
        } catch {
            throw .failure(relabel(error.description, "vertex", labels: input.labels))
        }
        try refuseOutsideDomain(original, coordinates, from: input.spatialReference, transformation: chosen) {
            input.labels[$0]
        }
        try checked()
        try file.stream(io: io, progress: progress) { out throws(CommandError) in
            ProjectedCSV(input: input, coordinates: coordinates, target: target).write(to: &out)
        }
        return operations
    }

    /// GeoJSON, WKT or feature table input: feature by feature, written as WKT, GeoJSON or a feature table (with the
    /// input's attributes).
    /// - Parameter checked: Waits for the horizon check (before anything is written).
    private func projectFeatures(
        _ input: FeatureInput, transformation chosen: DatumTransformation?, to file: OutputFile, io: CommandIO,
        progress: ProgressLine?, checked: () throws(CommandError) -> Void
    ) throws(CommandError) -> Set<ProjectionOperation> {
        var operations = Set<ProjectionOperation>()
        var projected: [Feature] = []
        projected.reserveCapacity(input.features.count)
        var original: [Coordinate] = [], result: [Coordinate] = [], firstVertex: [(feature: Int, start: Int)] = []
        for (i, feature) in input.features.enumerated() {
            if i & 1023 == 0 { progress?.update(i) }
            guard let g = feature.geometry else { projected.append(feature); continue }
            let geometry: Geometry
            do {
                if let chosen {
                    geometry = try GeometryEngine.project(g, into: target, datumTransformation: chosen)
                    operations.insert(ProjectionOperation(name: chosen.name, accuracy: chosen.accuracy))
                } else {
                    let result = try GeometryEngine.projectReportingOperations(g, into: target)
                    operations.formUnion(result.operations)
                    geometry = result.geometry
                }
            } catch {
                throw .failure("\(input.labels[i]): \(error.description)")
            }
            projected.append(Feature(geometry: geometry, properties: feature.properties, id: feature.id))
            firstVertex.append((i, original.count))
            original += g.coordinates
            result += geometry.coordinates
        }
        try refuseOutsideDomain(original, result, from: input.spatialReference, transformation: chosen) { k in
            guard let f = firstVertex.last(where: { $0.start <= k }) else { return "vertex \(k)" }
            return "\(input.labels[f.feature]) vertex \(k - f.start)"
        }
        try checked()
        if file.format.isFeatureTable {
            progress?.begin("writing")
            try FeatureTableOutput.write(
                projected, to: file, spatialReference: target, geometryType: FeatureTableOutput.geometryType(of: projected),
                hasZ: projected.contains { $0.geometry?.coordinates.contains { $0.z != nil } ?? false },
                fields: input.fields, io: io)
            return operations
        }
        try file.stream(io: io, progress: progress) { out throws(CommandError) in
            if file.format == .wkt {
                FeatureEncoding.writeWKT(projected.compactMap(\.geometry), to: &out)
            } else {
                try FeatureEncoding.writeGeoJSON(projected, to: &out)
            }
        }
        return operations
    }

    /// Refuses the first vertex outside the projection's own domain (see
    /// `GeometryEngine.firstVertexOutsideProjectionDomain`), named by its label and in the input's coordinates.
    private func refuseOutsideDomain(
        _ original: [Coordinate], _ projected: [Coordinate], from source: SpatialReference,
        transformation: DatumTransformation?, label: (Int) -> String
    ) throws(CommandError) {
        guard let i = try engine({ () throws(EngineError) in
            try GeometryEngine.firstVertexOutsideProjectionDomain(original, projected, from: source, into: target,
                                                                  datumTransformation: transformation)
        }) else { return }
        throw .failure(String(format: "%@ (%.17g, %.17g) is outside the domain of the projection from %@ to %@ (a singularity, or a point that does not project back to itself)",
                              label(i), original[i].x, original[i].y, source.name, target.name))
    }

    /// Says on standard error which operations PROJ ran and their accuracy.
    private func report(_ operations: Set<ProjectionOperation>, from source: SpatialReference, io: CommandIO) {
        if source == target {
            io.note("operation: none (\(source.name) and \(target.name) are the same)")
        }
        for op in operations.sorted(by: { $0.name < $1.name }) {
            let accuracy = op.accuracy.map { "\($0) m" } ?? "unknown (ballpark: no datum shift information)"
            io.note("operation: \(op.name)\naccuracy: \(accuracy)")
        }
    }
}

/// The CSV `project` writes: the input's rows with the coordinate columns replaced (9 decimals for degrees, 4 for
/// projected units) and renamed (lon,lat or x,y), the other columns copied, streamed row by row.
struct ProjectedCSV {
    /// The CSV input, read with its other columns' table (`CSVOptions.tableWithoutCoordinates`).
    let input: FeatureInput
    /// Each row's projected coordinates.
    let coordinates: [Coordinate]
    /// The spatial reference they are in.
    let target: SpatialReference

    /// The decimals of the coordinates written: 9 for degrees (about 0.1 mm), 4 for projected units.
    static func decimals(for target: SpatialReference) -> Int { target.isGeographic ? 9 : 4 }

    /// Writes the header and the rows.
    func write(to out: inout ByteBuffer) {
        guard let others = input.table, var header = input.header, let (xi, yi) = input.coordinateColumns else { return }
        header[xi] = target.isGeographic ? "lon" : "x"
        header[yi] = target.isGeographic ? "lat" : "y"
        CSV.appendRecord(header, to: &out)
        let decimals = Self.decimals(for: target)
        for (r, row) in others.rows.enumerated() {
            var field = row.startIndex  // the next of the other columns
            for c in header.indices {
                if c > 0 { out.append(UInt8(ascii: ",")) }
                if c == xi {
                    out.appendFixed(coordinates[r].x, decimals: decimals)
                } else if c == yi {
                    out.appendFixed(coordinates[r].y, decimals: decimals)
                } else {
                    CSV.appendField(row[field], alone: header.count == 1, to: &out)
                    field += 1
                }
            }
            CSV.endRecord(&out)
        }
    }
}

/// What the horizon check of `ProjectionRun` reads on its own thread while the input is projected (read only).
private struct SharedCheck: @unchecked Sendable {
    let run: ProjectionRun
    let input: FeatureInput
}
