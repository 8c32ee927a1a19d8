import Foundation
import Meridian

/// A GeoPackage, a shapefile (or a zip of shapefiles), a FlatGeobuf or a PostGIS table as a command's input, read
/// through GDAL/OGR (`FeatureDataSource` of MeridianFeatureData) and recognised by its content or its `PG:` prefix.
/// The layer is `--layer` (required when the source has several); the spatial reference is the source's (`.prj`,
/// `gpkg_spatial_ref_sys`, SRID) unless `--in-srs` says otherwise; the features keep their typed attributes (`fields`).
/// Features are streamed from the source: a batch at a time when the command asks for batches, as bare points for a
/// union of buffers around a point table.
public enum FeatureDataInput {
    /// The format of a source GDAL reads, or nil (standard input, or another format).
    public static func format(of path: String?) -> FeatureDataFormat? {
        guard let path, path != "-" else { return nil }
        return FeatureDataFormat.recognize(source: path)
    }

    /// Reads the source's table.
    /// - Parameters:
    ///   - path: The file or `PG:` string.
    ///   - layer: `--layer`.
    ///   - inputSpatialReference: `--in-srs`: replaces the source's spatial reference (or gives a `.prj`-less
    ///     shapefile one).
    ///   - options: What the command wants: batches (`batchSize`), or bare points (`featureTablePoints`).
    ///   - progress: Where to count the features read.
    ///   - batch: Receives the batches.
    /// - Throws: `CommandError.failure` with the source's one-line error (a missing layer lists those there are).
    public static func read(
        _ path: String, layer: String?, inputSpatialReference: SpatialReference?, options: FeatureInput.CSVOptions,
        progress: ProgressLine?, batch: (FeatureInput) throws(CommandError) -> Void
    ) throws(CommandError) -> FeatureInput {
        let table = try open(path, layer: layer, inputSpatialReference: inputSpatialReference)
        var reader = TableReader(table: table, progress: progress, allowsEmpty: options.allowsEmpty)
        if options.featureTablePoints, table.geometryType == .point {
            return try reader.points(numericColumn: options.numericColumn)
        }
        if let size = options.batchSize {
            return try reader.batches(of: size, asColumns: options.featureTableColumns, batch)
        }
        return options.featureTableColumns ? try reader.allColumns() : try reader.all()
    }

    /// Opens the table and settles its spatial reference.
    private static func open(_ path: String, layer: String?, inputSpatialReference: SpatialReference?)
        throws(CommandError) -> FeatureTable
    {
        let table: FeatureTable
        do {
            table = try FeatureDataSource(path: path).featureTable(named: layer)
        } catch {
            throw .failure(error.description)
        }
        if let given = inputSpatialReference { table.spatialReference = given }
        guard table.spatialReference != nil else {
            if table.format == .shapefile {
                throw .failure("\(table.sourceName) has no .prj, so its coordinates' spatial reference is unknown: give --in-srs")
            }
            throw .failure("\(table.sourceName), layer '\(table.tableName)' has no spatial reference: give --in-srs")
        }
        return table
    }
}

/// The reading of one table into `FeatureInput`s, with the checks every input gets: at least one feature, at least
/// one geometry, latitudes within ±90° in longitude/latitude.
private struct TableReader {
    let table: FeatureTable
    let progress: ProgressLine?
    /// How messages name the features: the source, and the layer when the source is a database or has several.
    let name: String
    let format: FeatureInput.Format
    /// Whether a table without features is accepted (`FeatureInput.CSVOptions.allowsEmpty`).
    let allowsEmpty: Bool
    var count = 0
    var sawGeometry = false

    init(table: FeatureTable, progress: ProgressLine?, allowsEmpty: Bool) {
        self.table = table
        self.progress = progress
        self.allowsEmpty = allowsEmpty
        name = table.format.declaration.holdsSeveralTables
            ? "\(table.sourceName), layer '\(table.tableName)'" : table.sourceName
        format = FeatureInput.Format(table.format)
        progress?.begin("reading", unit: "features", total: table.numberOfFeatures)
    }

    private var spatialReference: SpatialReference { table.spatialReference ?? .unspecified }

    /// Every feature.
    mutating func all() throws(CommandError) -> FeatureInput {
        var features: [Feature] = []
        _ = try batches(of: 65_536) { (part: FeatureInput) throws(CommandError) in features += part.features }
        return FeatureInput(features: features, spatialReference: spatialReference,
                            labels: FeatureLabels(name: name, count: features.count), format: format, fields: table.fields)
    }

    /// The features a batch at a time, as features or as columns (`FeatureInput.columns`); the input returned holds
    /// none, only their count.
    mutating func batches(of size: Int, asColumns: Bool = false, _ batch: (FeatureInput) throws(CommandError) -> Void)
        throws(CommandError) -> FeatureInput
    {
        // Columns are asked of GDAL's Arrow stream in batches of `size`, so that each is taken whole.
        let result = table.queryFeatures(using: QueryParameters(batchSize: asColumns ? size : nil))
        while true {
            var part = FeatureInput(features: [], spatialReference: spatialReference,
                                    labels: FeatureLabels(name: name, count: 0), format: format, fields: table.fields)
            if asColumns {
                part.columns = try next { () throws(FeatureDataError) in try result.nextColumns(maximumCount: size) }
            } else {
                part.features = try next { () throws(FeatureDataError) in try result.nextBatch(maximumCount: size) }
            }
            let read = part.columns?.count ?? part.features.count
            if read == 0 { break }
            if let columns = part.columns {
                try check(columns.geometries)
            } else {
                try check(part.features.lazy.map { $0.geometry })
            }
            part.labels = FeatureLabels(name: name, count: read, first: count)
            try batch(part)
            count += read
            progress?.update(count)
        }
        try checkAll()
        return FeatureInput(features: [], spatialReference: spatialReference,
                            labels: FeatureLabels(name: name, count: count), format: format, fields: table.fields)
    }

    /// Every feature, as columns (`FeatureInput.columns`).
    mutating func allColumns() throws(CommandError) -> FeatureInput {
        var columns = FeatureColumns(names: table.fields.map { $0.name })
        _ = try batches(of: 65_536, asColumns: true) { (part: FeatureInput) throws(CommandError) in
            if let more = part.columns { columns.append(contentsOf: more) }
        }
        var input = FeatureInput(features: [], spatialReference: spatialReference,
                                 labels: FeatureLabels(name: name, count: columns.count), format: format,
                                 fields: table.fields)
        input.columns = columns
        return input
    }

    /// A point table as bare points (and a numeric column's values), for the union of buffers around them.
    mutating func points(numericColumn: String?) throws(CommandError) -> FeatureInput {
        let result = table.queryFeatures(using: QueryParameters(outFields: numericColumn.map { [$0] } ?? []))
        var points: [Coordinate] = [], values: [Double] = []
        while true {
            if let column = numericColumn {
                let features = try next { () throws(FeatureDataError) in try result.nextBatch(maximumCount: 65_536) }
                if features.isEmpty { break }
                try check(features.lazy.map { $0.geometry })
                for f in features {
                    guard let p = f.geometry?.point else { continue }
                    points.append(p.coordinate)
                    values.append(try number(column, of: f, index: points.count - 1))
                }
            } else {
                let batch = try next { () throws(FeatureDataError) in try result.nextPoints() }
                if batch.isEmpty { break }
                try checkLatitudes(batch, first: points.count)
                points += batch
            }
            progress?.update(points.count)
        }
        count = points.count
        sawGeometry = !points.isEmpty
        try checkAll()
        var input = FeatureInput(features: [], spatialReference: spatialReference,
                                 labels: FeatureLabels(name: name, count: points.count), format: format,
                                 fields: table.fields)
        input.points = points
        if numericColumn != nil { input.columnValues = values }
        return input
    }

    /// What a read of the source gives, its error as the command's.
    private func next<T>(_ read: () throws(FeatureDataError) -> T) throws(CommandError) -> T {
        do { return try read() } catch { throw .failure(error.description) }
    }

    /// A feature's value of a numeric column (`--distance-field`).
    private func number(_ column: String, of feature: Feature, index: Int) throws(CommandError) -> Double {
        guard let value = feature.attributes[column] else {
            throw .failure("\(name): feature \(index) has no '\(column)' field")
        }
        guard let d = value.doubleValue, d.isFinite else {
            throw .failure("\(name): feature \(index): '\(column)' is \(value), not a number")
        }
        return d
    }

    /// Notes geometries and checks latitudes (of a batch's features, in order).
    private mutating func check(_ geometries: some Collection<Geometry?>) throws(CommandError) {
        let geographic = spatialReference.isGeographic
        for (i, geometry) in geometries.enumerated() {
            guard let g = geometry else { continue }
            // A point's one coordinate is read in place: no coordinate array per feature of a point table.
            if case .point(let p) = g {
                sawGeometry = true
                if geographic, !(abs(p.coordinate.y) <= 90) {
                    try checkLatitudes([p.coordinate], first: count + i, oneFeature: true)
                }
                continue
            }
            let coordinates = g.coordinates
            guard !coordinates.isEmpty else { continue }
            sawGeometry = true
            if geographic { try checkLatitudes(coordinates, first: count + i, oneFeature: true) }
        }
    }

    /// Refuses a latitude beyond ±90° in longitude/latitude coordinates.
    private func checkLatitudes(_ coordinates: [Coordinate], first: Int, oneFeature: Bool = false) throws(CommandError) {
        guard spatialReference.isGeographic, let k = coordinates.firstIndex(where: { !(abs($0.y) <= 90) }) else { return }
        let feature = oneFeature ? first : first + k
        throw .failure("\(name): feature \(feature): latitude \(coordinates[k].y) is outside -90…90")
    }

    /// Refuses an input without features or without any geometry (nothing to work on is an error, never success).
    private func checkAll() throws(CommandError) {
        if count == 0, allowsEmpty { return }
        guard count > 0 else { throw .failure("\(name): the input has no features") }
        guard sawGeometry else { throw .failure("\(name): no feature has a geometry (\(count) feature(s), each null or empty)") }
    }
}
