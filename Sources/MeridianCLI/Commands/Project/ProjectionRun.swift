import Foundation
import Meridian
import MeridianIO

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

    /// Projects the input into the output. GeoJSON, CSV and WKT go a batch of features (or CSV rows) at a time:
    /// each batch is read, checked against the horizons (on another thread while it is projected), projected and
    /// written before the next is read, so memory holds the input's bytes and one batch; the output is the same
    /// bytes as when the whole input was projected at once. A feature table, in or out, is projected whole (its
    /// writer takes every feature with the input's fields).
    func run(input options: InputOptions, output: OutputOptions, io: CommandIO) throws(CommandError) {
        let progress = io.progress(ProjectCommand.name)
        defer { progress?.finish() }
        if let path = options.path, FeatureDataInput.format(of: path) != nil {
            let input = try FeatureInput.read(path, layer: options.layer, inputSpatialReference: options.spatialReference,
                                              defaultXYSpatialReference: nil, io: io, progress: progress)
            try projectWhole(input, into: try outputFile(output, for: input.format), io: io, progress: progress)
            return
        }
        if options.layer != nil {
            throw .usage("--layer chooses a layer of \(FeatureDataFormat.layeredSources), not of \(options.path ?? "standard input")")
        }
        progress?.begin("reading")
        let data = try io.read(options.path)
        let origin = FeatureInput.origin(of: options.path, io: io)
        let format: FeatureInput.Format
        switch InputFormat.sniff(data) {
        case .csv: format = .csv
        case .wkt: format = .wkt
        case .geoJSON: format = .geoJSON
        default:  // the reader says what it is
            _ = try FeatureInput.read(data, origin: origin, inputSpatialReference: options.spatialReference,
                                      defaultXYSpatialReference: nil)
            throw .failure("\(origin.name): not GeoJSON, CSV or WKT")
        }
        let file = try outputFile(output, for: format)
        let csv = FeatureInput.CSVOptions(keepTable: true, tableWithoutCoordinates: true, pointsOnly: true,
                                          batchSize: format == .csv ? Self.pointsPerBatch : FeatureEncoding.batchSize)
        if file.format.isFeatureTable {
            // CSV rows become point features, the other columns their attributes (typed as `buffer` types them).
            let input = try FeatureInput.read(data, origin: origin, inputSpatialReference: options.spatialReference,
                                              defaultXYSpatialReference: nil, csv: FeatureInput.CSVOptions(),
                                              progress: progress)
            try projectWhole(input, into: file, io: io, progress: progress)
            return
        }
        var operations = Set<ProjectionOperation>()
        var source: (sr: SpatialReference, transformation: DatumTransformation?)?
        var written = 0
        try file.stream(io: io, progress: progress) { out throws(CommandError) in
            var writer = FeatureStreamWriter(format: file.format)
            writer.begin(&out)
            _ = try FeatureInput.read(data, origin: origin, inputSpatialReference: options.spatialReference,
                                      defaultXYSpatialReference: nil, csv: csv, progress: progress) { batch throws(CommandError) in
                if source == nil {
                    source = (batch.spatialReference, try transformation.map { (t: String) throws(CommandError) in
                        try TransformationList(from: batch.spatialReference, to: target).choose(t)
                    })
                }
                operations.formUnion(try project(batch, transformation: source?.transformation, first: written == 0,
                                                 writer: &writer, to: &out))
                written += batch.count
            }
            writer.end(&out)
        }
        progress?.finish()
        report(operations, from: source?.sr ?? target, io: io)
    }

    /// CSV rows projected at once (one bulk PROJ call; features go `FeatureEncoding.batchSize` at a time).
    static let pointsPerBatch = 65_536

    /// One batch: checked against the horizons on another thread while it is projected (first, on this thread,
    /// with one thread; its error first), then written (CSV rows after the header for the first batch, WKT lines or
    /// GeoJSON features).
    /// - Returns: The operations PROJ ran.
    private func project(
        _ batch: FeatureInput, transformation chosen: DatumTransformation?, first: Bool,
        writer: inout FeatureStreamWriter, to out: inout ByteBuffer
    ) throws(CommandError) -> Set<ProjectionOperation> {
        try checkingHorizons(of: batch) { (checked: () throws(CommandError) -> Void) throws(CommandError) in
            if batch.format == .csv {
                let (operations, coordinates) = try projectPoints(batch, transformation: chosen, checked: checked)
                ProjectedCSV(input: batch, coordinates: coordinates, target: target).write(to: &out, header: first)
                return operations
            }
            let (operations, projected) = try projectFeatures(batch, transformation: chosen, progress: nil,
                                                              checked: checked)
            try writer.write(projected[...], to: &out)
            return operations
        }
    }

    /// The whole input projected and written at once (a feature table in or out).
    private func projectWhole(_ input: FeatureInput, into file: OutputFile, io: CommandIO, progress: ProgressLine?)
        throws(CommandError)
    {
        let chosen = try transformation.map { (t: String) throws(CommandError) in
            try TransformationList(from: input.spatialReference, to: target).choose(t)
        }
        progress?.begin("projecting", unit: input.points != nil ? "points" : "features",
                        total: input.points?.count ?? input.features.count)
        let operations = try checkingHorizons(of: input) { (checked: () throws(CommandError) -> Void) throws(CommandError) in
            if input.points != nil {
                let (operations, coordinates) = try projectPoints(input, transformation: chosen, checked: checked)
                try file.stream(io: io, progress: progress) { out throws(CommandError) in
                    ProjectedCSV(input: input, coordinates: coordinates, target: target).write(to: &out, header: true)
                }
                return operations
            }
            let (operations, projected) = try projectFeatures(input, transformation: chosen, progress: progress,
                                                              checked: checked)
            try write(projected, of: input, to: file, io: io, progress: progress)
            return operations
        }
        progress?.finish()
        report(operations, from: input.spatialReference, io: io)
    }

    /// Runs `body` while the input is checked against the horizons of the source and the target on another thread
    /// (first, on this thread, with one thread, or not at all with `--allow-outside-area`); `body` waits for the
    /// check (`checked`) before it writes anything, and the check's error comes first, as when it ran before
    /// everything else.
    private func checkingHorizons<T>(
        of input: FeatureInput, _ body: (_ checked: () throws(CommandError) -> Void) throws(CommandError) -> T
    ) throws(CommandError) -> T {
        let check = SharedCheck(run: self, input: input)
        let areaCheck = BackgroundTask(inline: allowOutsideArea || Parallelism.threadCount == 1) { () throws(CommandError) in
            if !check.run.allowOutsideArea { try check.run.refuseOutsideAreasOfUse(check.input) }
        }
        defer { try? areaCheck.wait() }
        do throws(CommandError) {
            return try body { () throws(CommandError) in try areaCheck.wait() }
        } catch {
            try areaCheck.wait()
            throw error
        }
    }

    /// The output file, refused before any work when the input cannot be written as it: CSV in is CSV out or a
    /// feature table (.gpkg, .shp, .fgb, PG:…); GeoJSON, WKT or a feature table in is .geojson (WGS84 targets only),
    /// .wkt or a feature table, WKT on standard output for any target but WGS84.
    func outputFile(_ output: OutputOptions, for input: FeatureInput.Format) throws(CommandError) -> OutputFile {
        let standardOutput: OutputFormat = input == .csv ? .csv : target == .wgs84 ? .geoJSON : .wkt
        let file = try output.file(standardOutput: standardOutput)
        let ext = file.path.flatMap(OutputFormat.fileExtension) ?? ""
        let format = file.format
        if format.isFeatureTable || (input == .csv && format.writesCSVRows) { return file }
        if input == .csv {
            throw .usage("CSV input is written as CSV (the coordinate columns replaced) or as a feature table (\(OutputFormat.spellings(OutputFormat.featureTables).joined(separator: ", "))); use -o OUT.csv, not '.\(ext)'")
        }
        if format.writesCSVRows {  // (rows need CSV input: features are not rows)
            throw .usage("unknown output format '.\(ext)' for \(input.name) input (use \(MessageText.list([".geojson", ".wkt"] + OutputFormat.spellings(OutputFormat.featureTables), conjunction: "or")))")
        }
        if !format.writesInWorkingSpatialReference, target != .wgs84 {
            throw .usage("GeoJSON output is WGS84 only (RFC 7946); write .wkt for \(target.name)")
        }
        return file
    }

    /// Refuses a vertex outside the area of use of the input's spatial reference or of the target.
    fileprivate func refuseOutsideAreasOfUse(_ input: FeatureInput) throws(CommandError) {
        // CSV input is read as bare points (no features): one multipoint, its vertices the features.
        let geometries = input.points.map { [Geometry.multipoint(Multipoint($0, spatialReference: input.spatialReference))] }
            ?? input.features.compactMap { $0.geometry }
        let featureOf = input.features.indices.filter { input.features[$0].geometry != nil }
        for sr in [input.spatialReference, target] {
            try refuseOutsideAreaOfUse(geometries, of: sr, label: { geometry, vertex in
                input.labels[input.points != nil ? vertex : featureOf[geometry]]
            }, override: "--allow-outside-area", verb: "project")
        }
    }

    /// CSV rows: every point in one bulk PROJ call, refused outside the projection's domain.
    /// - Parameter checked: Waits for the horizon check (before the caller writes anything).
    /// - Returns: The operations PROJ ran and each row's projected coordinates.
    private func projectPoints(
        _ input: FeatureInput, transformation chosen: DatumTransformation?, checked: () throws(CommandError) -> Void
    ) throws(CommandError) -> (Set<ProjectionOperation>, [Coordinate]) {
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
            throw .failure(error.description(naming: { input.labels.label(ofVertex: $0) }))
        }
        try refuseOutsideDomain(original, coordinates, from: input.spatialReference, transformation: chosen) {
            input.labels[$0]
        }
        try checked()
        return (operations, coordinates)
    }

    /// GeoJSON, WKT or feature table features, projected one by one and refused outside the projection's domain.
    /// - Parameter checked: Waits for the horizon check (before the caller writes anything).
    /// - Returns: The operations PROJ ran and the projected features.
    private func projectFeatures(
        _ input: FeatureInput, transformation chosen: DatumTransformation?, progress: ProgressLine?,
        checked: () throws(CommandError) -> Void
    ) throws(CommandError) -> (Set<ProjectionOperation>, [Feature]) {
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
        return (operations, projected)
    }

    /// Writes a whole input's projected features: a feature table (with the input's attributes), WKT or GeoJSON.
    private func write(_ projected: [Feature], of input: FeatureInput, to file: OutputFile, io: CommandIO,
                       progress: ProgressLine?) throws(CommandError) {
        if file.format.isFeatureTable {
            progress?.begin("writing")
            try FeatureTableOutput.write(
                projected, to: file, spatialReference: target, geometryType: FeatureTableOutput.geometryType(of: projected.map { $0.geometry }),
                hasZ: projected.contains { $0.geometry?.coordinates.contains { $0.z != nil } ?? false },
                fields: input.fields, io: io)
            return
        }
        try file.stream(io: io, progress: progress) { out throws(CommandError) in
            try FeatureStreamWriter.write(projected, as: file.format, to: &out)
        }
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

    /// Rows formatted at a time by one thread (about 0.5 MB of text).
    static let rowsPerChunk = 8_192

    /// Writes the rows, after the header when `header` (the first batch): chunks of `rowsPerChunk` rows formatted by
    /// whichever of `threads` threads is free (`OrderedWorkSharing`) and written in order, the same bytes as one
    /// thread's.
    func write(to out: inout ByteBuffer, header writesHeader: Bool, threads: Int = Parallelism.threadCount) {
        guard let others = input.table, var header = input.header, let (xi, yi) = input.coordinateColumns else { return }
        header[xi] = target.isGeographic ? "lon" : "x"
        header[yi] = target.isGeographic ? "lat" : "y"
        if writesHeader { CSV.appendRecord(header, to: &out) }
        let rows = others.rows, coordinates = coordinates, decimals = Self.decimals(for: target), names = header
        let count = rows.count, step = Self.rowsPerChunk
        OrderedWorkSharing.run(count: (count + step - 1) / step, window: 2 * threads, helpers: threads - 1) {
            (k: Int) -> Data in
            var text = ByteBuffer(capacity: step * 48)
            for r in (k * step)..<min(count, (k + 1) * step) {
                Self.appendRow(rows[r], at: coordinates[r], columns: names, xi: xi, yi: yi, decimals: decimals,
                               to: &text)
            }
            return text.data()  // no copy
        } consume: { (text: Data, _: Int) in
            text.withUnsafeBytes { out.append($0) }
            out.flushIfFull()
        }
    }

    /// Appends one row: the projected coordinates in columns `xi` and `yi`, the row's other fields in the others.
    private static func appendRow(_ row: [String], at c: Coordinate, columns: [String], xi: Int, yi: Int,
                                  decimals: Int, to out: inout ByteBuffer) {
        var field = row.startIndex  // the next of the other columns
        for k in columns.indices {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            if k == xi {
                out.appendFixed(c.x, decimals: decimals)
            } else if k == yi {
                out.appendFixed(c.y, decimals: decimals)
            } else {
                CSV.appendField(row[field], alone: columns.count == 1, to: &out)
                field += 1
            }
        }
        CSV.endRecord(&out)
    }
}

/// What the horizon check of `ProjectionRun` reads on its own thread while the input is projected (read only).
private struct SharedCheck: @unchecked Sendable {
    let run: ProjectionRun
    let input: FeatureInput
}
