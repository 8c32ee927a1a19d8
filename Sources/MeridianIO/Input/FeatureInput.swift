import Foundation
import Meridian

/// Features read from a command's input, with where each came from (for error messages).
public struct FeatureInput: Sendable {
    /// The features, in input order.
    public var features: [Feature]
    /// The spatial reference of every feature's geometry.
    public var spatialReference: SpatialReference
    /// How to name feature `i` in a message, e.g. "feature 3 (line 5)".
    public var labels: FeatureLabels
    /// The input's format.
    public var format: Format
    /// For CSV input read with `CSVOptions.keepTable`: the header and the rows, so outputs can keep the other columns.
    public var table: CSVTable?
    /// For CSV input: the indices of the coordinate columns.
    public var coordinateColumns: (x: Int, y: Int)?
    /// For CSV input read with `CSVOptions.tableWithoutCoordinates`: every column's name (`table` then holds the
    /// other columns only).
    public var header: [String]? = nil
    /// For CSV input read with `CSVOptions.pointsOnly`: each row's coordinates (and `features` is empty).
    public var points: [Coordinate]?
    /// For CSV input read with `CSVOptions.pointsOnly` and a `numericColumn`: each row's value of that column.
    public var columnValues: [Double]?
    /// For a GeoPackage, shapefile, FlatGeobuf or PostGIS input: the table's fields, with their types (the
    /// properties of `features` are keyed by their names), so that a feature table output keeps them.
    public var fields: [Field]?
    /// For a feature table (or a batch of one) read with `CSVOptions.featureTableColumns`: the features as columns
    /// (and `features` is empty). Read the features through `geometry(at:)`, `properties(at:)`, `id(at:)` and
    /// `feature(at:)`, which serve either form.
    public var columns: FeatureColumns?

    /// The number of features (or of points, for CSV read as points only; or of all rows, when read in batches).
    public var count: Int { labels.count }

    /// How a command wants CSV input: only what it needs is kept, so memory grows with what must be held.
    public struct CSVOptions: Sendable {
        /// Keep the rows' text (`table`), for outputs that copy the other columns.
        public var keepTable = false
        /// With `keepTable`: leave the coordinate columns out of `table` (for outputs that write new coordinates in
        /// their place: their text is never made), and give every column's name in `header`.
        public var tableWithoutCoordinates = false
        /// Keep only the coordinates (`points`) and `numericColumn`'s values, no features and no properties.
        public var pointsOnly = false
        /// With `pointsOnly`: a column read as numbers into `columnValues` (e.g. `--distance-field`).
        public var numericColumn: String?
        /// Hand the features to `read`'s `batch` closure this many at a time instead of keeping them all (CSV and
        /// GeoJSON input is then parsed batch by batch, so only one batch of features is ever held besides the
        /// input's bytes; WKT input is parsed whole first).
        public var batchSize: Int?
        /// Read a point table of a GeoPackage, shapefile, FlatGeobuf or PostGIS input as bare points too (`points`
        /// and `numericColumn`'s `columnValues`, no features), as `pointsOnly` reads CSV.
        public var featureTablePoints = false
        /// Hand a feature table's features over as columns (`FeatureInput.columns`; whole, or in batches with
        /// `batchSize`), without a dictionary of properties per feature; other inputs come as features still.
        public var featureTableColumns = false
        /// Accept an input without features (a CSV header alone, an empty FeatureCollection or table): `near`'s
        /// RIGHT, where nothing to search is an answer (no pairs), not a mistake.
        public var allowsEmpty = false

        /// Options; each defaults to reading every feature whole, with its properties.
        /// - Parameters:
        ///   - keepTable: Keep the rows' text.
        ///   - tableWithoutCoordinates: With `keepTable`, leave the coordinate columns out of it.
        ///   - pointsOnly: Keep only the coordinates (and `numericColumn`'s values).
        ///   - numericColumn: With `pointsOnly`, a column read as numbers.
        ///   - batchSize: Hand the features over this many at a time.
        ///   - featureTablePoints: Read a point feature table as bare points too.
        ///   - featureTableColumns: Hand a feature table's features over as columns.
        ///   - allowsEmpty: Accept an input without features.
        public init(keepTable: Bool = false, tableWithoutCoordinates: Bool = false, pointsOnly: Bool = false,
                    numericColumn: String? = nil, batchSize: Int? = nil, featureTablePoints: Bool = false,
                    featureTableColumns: Bool = false, allowsEmpty: Bool = false) {
            self.keepTable = keepTable
            self.tableWithoutCoordinates = tableWithoutCoordinates
            self.pointsOnly = pointsOnly
            self.numericColumn = numericColumn
            self.batchSize = batchSize
            self.featureTablePoints = featureTablePoints
            self.featureTableColumns = featureTableColumns
            self.allowsEmpty = allowsEmpty
        }
    }

    /// Features `first ..< first + count` of the input as their own input (labels keep their numbers).
    public func slice(_ range: Range<Int>) -> FeatureInput {
        var part = FeatureInput(features: columns == nil ? Array(features[range]) : [], spatialReference: spatialReference,
                                labels: labels.slice(range), format: format, table: nil,
                                coordinateColumns: coordinateColumns)
        part.columns = columns?.slice(range)
        return part
    }

    /// Feature `i`'s geometry (`nil` for none), whether the input holds features or columns.
    /// - Parameter i: The feature's index, 0 ..< `count`.
    public func geometry(at i: Int) -> Geometry? {
        // Each accessor reads through the optional in place: `columns.map` copied the columns (a retain of each
        // array) per call.
        if let geometry = columns?.geometries[i] { return geometry }
        return features[i].geometry
    }

    /// The coordinates of features `range` when every one of them is a point (`nil` otherwise), read in place:
    /// neither a geometry nor its spatial reference is copied per feature.
    /// - Parameter range: Features, within 0 ..< `count`.
    public func pointCoordinates(in range: Range<Int>) -> [Coordinate]? {
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(range.count)
        if let geometries = columns?.geometries {
            return geometries.withUnsafeBufferPointer { all in
                for i in range {
                    guard let c = all[i]?.pointCoordinate else { return nil }
                    coordinates.append(c)
                }
                return coordinates
            }
        }
        return features.withUnsafeBufferPointer { all in
            for i in range {
                guard let c = all[i].geometry?.pointCoordinate else { return nil }
                coordinates.append(c)
            }
            return coordinates
        }
    }

    /// Feature `i`'s properties, whether the input holds features or columns.
    /// - Parameter i: The feature's index, 0 ..< `count`.
    public func properties(at i: Int) -> [String: JSONValue] {
        if let properties = columns?.properties(at: i) { return properties }
        return features[i].properties
    }

    /// Feature `i`'s value of the property `name`, `nil` when it has none.
    /// - Parameters:
    ///   - name: The property's name.
    ///   - i: The feature's index, 0 ..< `count`.
    public func property(_ name: String, at i: Int) -> JSONValue? {
        if let value = columns?.value(named: name, row: i) { return value }
        return features[i].properties[name]
    }

    /// Feature `i`'s identifier, whether the input holds features or columns.
    /// - Parameter i: The feature's index, 0 ..< `count`.
    public func id(at i: Int) -> JSONValue? {
        if let id = columns?.ids[i] { return id }
        return features[i].id
    }

    /// Feature `i`, whether the input holds features or columns.
    /// - Parameter i: The feature's index, 0 ..< `count`.
    public func feature(at i: Int) -> Feature {
        if let feature = columns?.feature(at: i) { return feature }
        return features[i]
    }

    /// Every feature's geometry, in order.
    public var geometries: [Geometry?] {
        columns?.geometries ?? features.map { $0.geometry }
    }

    /// Input formats the CLI reads.
    public enum Format: Hashable, Sendable {
        /// GeoJSON: a document, an RFC 8142 text sequence or newline-delimited GeoJSON.
        case geoJSON
        /// Comma-separated values with a header naming lon,lat (or longitude,latitude, lng,lat) or x,y columns.
        case csv
        /// One WKT geometry per line.
        case wkt
        /// A feature table read through GDAL/OGR: a GeoPackage table, a shapefile (alone or in a zip), a FlatGeobuf,
        /// a PostGIS table named by a `PG:` connection string, or any other format `FeatureDataFormat` declares.
        case table(FeatureDataFormat)

        /// The format of a GDAL/OGR source.
        public init(_ format: FeatureDataFormat) { self = .table(format) }

        /// The format's name, e.g. "GeoJSON" or "GeoPackage".
        public var name: String {
            switch self {
            case .geoJSON: "GeoJSON"
            case .csv: "CSV"
            case .wkt: "WKT"
            case .table(let format): format.rawValue
            }
        }

        /// Whether the input is a feature table read through GDAL/OGR (typed fields, its own spatial reference).
        public var isFeatureTable: Bool {
            if case .table = self { return true }
            return false
        }
    }

    /// Reads GeoJSON, CSV or WKT from a path or stdin (`-`/nil), recognised by its content (`InputFormat`), never
    /// by its file name; or a GeoPackage, shapefile, FlatGeobuf or PostGIS table (`FeatureDataInput`).
    /// - Parameters:
    ///   - path: A file path, a `PG:` connection string, `-` or nil for stdin.
    ///   - layer: `--layer`: the layer of a source that has several.
    ///   - inputSpatialReference: `--in-srs`/`--from`: the spatial reference of CSV/WKT coordinates.
    ///   - defaultXYSpatialReference: Used for CSV `x,y` columns and WKT when `inputSpatialReference` is nil.
    ///   - io: The command's streams.
    ///   - csv: What to keep of CSV input (everything as features by default).
    ///   - progress: Where to show how far reading has come.
    ///   - batch: With `csv.batchSize`: receives the features a batch at a time (the returned input then holds no
    ///     features, only their count).
    /// - Throws: `CommandError.failure` naming the input when it cannot be read, is not one of the formats, has no
    ///   feature, has no feature with a non-empty geometry (nothing to work on is an error, never success), or
    ///   has a latitude beyond ±90° or a longitude beyond ±180° in longitude/latitude coordinates.
    public static func read(
        _ path: String?, layer: String? = nil, inputSpatialReference: SpatialReference?,
        defaultXYSpatialReference: SpatialReference?, io: CommandIO, csv: CSVOptions = CSVOptions(),
        progress: ProgressLine? = nil, batch: (FeatureInput) throws(CommandError) -> Void = { _ throws(CommandError) in }
    ) throws(CommandError) -> FeatureInput {
        if let path, FeatureDataInput.format(of: path) != nil {
            return try FeatureDataInput.read(path, layer: layer, inputSpatialReference: inputSpatialReference,
                                             options: csv, progress: progress, batch: batch)
        }
        if layer != nil {
            throw .usage("--layer chooses a layer of \(FeatureDataFormat.layeredSources), not of \(path ?? "standard input")")
        }
        progress?.begin("reading")
        let data = try io.read(path)
        return try read(data, origin: origin(of: path, io: io), inputSpatialReference: inputSpatialReference,
                        defaultXYSpatialReference: defaultXYSpatialReference, csv: csv, progress: progress,
                        batch: batch)
    }

    /// How messages name a path's input: the path, or "stdin" (or the origin `meridian internal` gives it).
    public static func origin(of path: String?, io: CommandIO) -> InputOrigin {
        path == nil || path == "-" ? io.inputOrigin ?? InputOrigin(name: "stdin") : InputOrigin(name: path!)
    }

    /// Reads GeoJSON, CSV or WKT bytes already read (`read(_:layer:…)` for a path), for a command that looks at
    /// the input's format before it reads it; the same checks, batches and errors.
    /// - Parameters:
    ///   - data: The input's bytes.
    ///   - origin: How messages name the input.
    ///   - inputSpatialReference: `--in-srs`/`--from`: the spatial reference of CSV/WKT coordinates.
    ///   - defaultXYSpatialReference: Used for CSV `x,y` columns and WKT when `inputSpatialReference` is nil.
    ///   - csv: What to keep of CSV input, and the batch size.
    ///   - progress: Where to show how far reading has come.
    ///   - batch: With `csv.batchSize`: receives the features a batch at a time.
    /// - Throws: As `read(_:layer:inputSpatialReference:defaultXYSpatialReference:io:csv:progress:batch:)`.
    public static func read(
        _ data: Data, origin: InputOrigin, inputSpatialReference: SpatialReference?,
        defaultXYSpatialReference: SpatialReference?, csv: CSVOptions = CSVOptions(), progress: ProgressLine? = nil,
        batch: (FeatureInput) throws(CommandError) -> Void = { _ throws(CommandError) in }
    ) throws(CommandError) -> FeatureInput {
        let name = origin.name
        progress?.begin("parsing", unit: "bytes", total: data.count)
        if let size = csv.batchSize, InputFormat.sniff(data) == .geoJSON, !GeoJSONSequence.startsWithSeparator(data) {
            if let sr = inputSpatialReference, sr != .wgs84 {
                throw .usage("GeoJSON coordinates are WGS84 longitude/latitude (RFC 7946); --in-srs \(sr.definition) does not apply")
            }
            if let read = try readGeoJSONBatches(data, origin: origin, size: size, progress: progress, batch: batch) {
                return read
            }  // (else newline-delimited GeoJSON: read whole below, then handed over in batches)
        }
        var input = try parse(data, origin: origin, inputSpatialReference: inputSpatialReference,
                              defaultXYSpatialReference: defaultXYSpatialReference, csv: csv, progress: progress,
                              batch: batch)
        if input.count == 0, csv.allowsEmpty { return input }
        guard input.count > 0 else { throw .failure("\(name): the input has no features") }
        // CSV rows are points with finite coordinates, their latitudes checked as they are read.
        if input.format != .csv {
            guard input.features.contains(where: { !($0.geometry?.coordinates.isEmpty ?? true) }) else {
                throw .failure("\(name): no feature has a geometry (\(input.features.count) feature(s), each null or empty)")
            }
            if input.spatialReference.isGeographic {
                for (i, feature) in input.features.enumerated() {
                    if let g = feature.geometry, let problem = ReadBack.longitudeLatitudeProblem(g) {
                        throw .failure("\(input.labels[i]): \(problem)")
                    }
                }
            }
        }
        // WKT is parsed whole; its features are then handed over in batches too.
        if let size = csv.batchSize, input.format != .csv {
            var start = 0
            progress?.begin("buffering", unit: "features", total: input.features.count)
            while start < input.features.count {
                let end = min(start + size, input.features.count)
                try batch(input.slice(start..<end))
                start = end
                progress?.update(start)
            }
            input.features = []
        }
        return input
    }

    /// A GeoJSON document read in batches (`GeoJSON.forEachFeature`): at most `size` features are held at a time,
    /// each checked (longitude/latitude) as it is read, handed to `batch` with its labels; the returned input holds
    /// only the count. Nil for newline-delimited GeoJSON (found at its second record, before any batch was handed
    /// over), which `GeoJSONSequence` reads.
    private static func readGeoJSONBatches(
        _ data: Data, origin: InputOrigin, size: Int, progress: ProgressLine?,
        batch: (FeatureInput) throws(CommandError) -> Void
    ) throws(CommandError) -> FeatureInput? {
        let name = origin.name
        var features: [Feature] = [], lines: [Int] = []
        var count = 0, first = 0, withGeometry = false
        func handOver() throws(CommandError) {
            guard !features.isEmpty else { return }
            try batch(FeatureInput(features: features, spatialReference: .wgs84,
                                   labels: origin.labels(count: features.count, lines: lines, first: first),
                                   format: .geoJSON))
            first += features.count
            features.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
        }
        do {
            try GeoJSON.forEachFeature(data) { feature, line, offset in
                if let g = feature.geometry {
                    if let problem = ReadBack.longitudeLatitudeProblem(g) {
                        throw CommandError.failure("\(name): \(origin.place(feature: count, line: line)): \(problem)")
                    }
                    withGeometry = withGeometry || !g.coordinates.isEmpty
                }
                features.append(feature)
                lines.append(line)
                count += 1
                if count & 4095 == 0 { progress?.update(offset) }
                if features.count == size { try handOver() }
            }
            try handOver()
        } catch let error as CommandError {
            throw error
        } catch let error as FormatError {
            if first == 0, GeoJSONSequence.isNewlineDelimited(error) { return nil }
            throw .failure("\(name): \(origin.relocated(error).description)")
        } catch {
            throw .failure("\(name): \(error)")
        }
        guard count > 0 else { throw .failure("\(name): the input has no features") }
        guard withGeometry else { throw .failure("\(name): no feature has a geometry (\(count) feature(s), each null or empty)") }
        return FeatureInput(features: [], spatialReference: .wgs84, labels: origin.labels(count: count, lines: nil),
                            format: .geoJSON)
    }

    private static func parse(
        _ data: Data, origin: InputOrigin, inputSpatialReference: SpatialReference?,
        defaultXYSpatialReference: SpatialReference?, csv: CSVOptions, progress: ProgressLine?,
        batch: (FeatureInput) throws(CommandError) -> Void
    ) throws(CommandError) -> FeatureInput {
        let name = origin.name
        guard !data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            throw .failure("\(name): the input is empty")
        }
        let format: Format
        switch InputFormat.sniff(data) {
        case .kml, .kmz:
            throw .failure("\(name) is KML/KMZ, which this command does not read (GeoJSON, CSV or WKT); convert it first: meridian kml convert \(name) OUT.geojson")
        case .unrecognized(let found):
            throw .failure("\(name): not GeoJSON, CSV or WKT: found \(found)")
        case .featureTable(let table):
            throw .failure("\(name) is a \(table.rawValue), which is read from its file (GDAL reads it in place), not from standard input: give its path")
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
                let (features, lines) = try readGeoJSON(data)
                return FeatureInput(
                    features: features, spatialReference: .wgs84,
                    labels: origin.labels(count: features.count, lines: lines), format: .geoJSON)
            case .csv:
                return try readCSV(data, origin: origin, inputSpatialReference: inputSpatialReference,
                                   defaultXYSpatialReference: defaultXYSpatialReference, options: csv,
                                   progress: progress, batch: batch)
            case .wkt:
                guard let sr = inputSpatialReference ?? defaultXYSpatialReference else {
                    throw CommandError.usage("WKT input needs its spatial reference: give --in-srs")
                }
                return try readWKT(data, origin: origin, spatialReference: sr)
            case .table:
                throw CommandError.failure("\(name): \(format.name) is read through GDAL, from a file")  // not sniffed here
            }
        } catch let error as CommandError {
            throw error
        } catch let error as FormatError {
            throw .failure("\(name): \(origin.relocated(error).description)")
        } catch {
            throw .failure("\(name): \(error)")
        }
    }

    /// A GeoJSON document, or a GeoJSON text sequence (`GeoJSONSequence`): the features and, for a sequence, the
    /// line each feature's record starts on.
    private static func readGeoJSON(_ data: Data) throws(FormatError) -> (features: [Feature], lines: [Int]?) {
        if GeoJSONSequence.startsWithSeparator(data) {
            let (features, lines) = try GeoJSONSequence.decode(data, newlineDelimited: false)
            return (features, lines)
        }
        do {
            let (features, lines) = try GeoJSON.decodeFeaturesWithLines(data)
            return (features, lines)
        } catch where GeoJSONSequence.isNewlineDelimited(error) {
            let (features, lines) = try GeoJSONSequence.decode(data, newlineDelimited: true)
            return (features, lines)
        }
    }

    /// One geometry per line, parsed straight from the bytes (no `String` per line); blank lines are skipped, white
    /// space around a geometry is ignored.
    private static func readWKT(_ data: Data, origin: InputOrigin, spatialReference sr: SpatialReference)
        throws(CommandError) -> FeatureInput
    {
        let name = origin.name
        let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<FeatureInput, CommandError> in
            let bytes = raw.bindMemory(to: UInt8.self)
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
            var features: [Feature] = []
            var lines: [Int] = []
            var start = 0, line = 0
            while start < bytes.count {
                line += 1
                var end = start
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                var a = start, b = end
                while a < b, isSpace(bytes[a]) { a += 1 }
                while b > a, isSpace(bytes[b - 1]) { b -= 1 }
                if a < b {
                    do throws(FormatError) {
                        let g = try WKT.decode(UnsafeBufferPointer(rebasing: bytes[a..<b]), spatialReference: sr)
                        features.append(Feature(geometry: g, properties: [:], id: nil))
                    } catch {
                        // Located in the file: the decoder saw one trimmed line, so its line is always 1.
                        let located = FormatError(format: error.format, message: error.message, line: line,
                                                  column: error.column.map { $0 + a - start })
                        return .failure(.failure("\(name): \(origin.relocated(located).description)"))
                    }
                    lines.append(line)
                }
                start = end + 1
            }
            return .success(FeatureInput(features: features, spatialReference: sr,
                                         labels: origin.labels(count: features.count, lines: lines),
                                         format: .wkt))
        }
        return try result.get()
    }

    private static func readCSV(
        _ data: Data, origin: InputOrigin, inputSpatialReference: SpatialReference?,
        defaultXYSpatialReference: SpatialReference?, options: CSVOptions, progress: ProgressLine?,
        batch: (FeatureInput) throws(CommandError) -> Void
    ) throws -> FeatureInput {
        try data.withUnsafeBytes { raw throws -> FeatureInput in
            let bytes = raw.bindMemory(to: UInt8.self)
            var reader = CSVRecordReader(bytes)
            guard try reader.next() else {
                throw FormatError(format: "CSV", message: "empty input (no header record)", line: 1 - origin.lineOffset)
            }
            var csv = try CSVFeatureReader(
                header: try reader.strings(), origin: origin, inputSpatialReference: inputSpatialReference,
                defaultXYSpatialReference: defaultXYSpatialReference, options: options,
                capacity: options.batchSize ?? raw.count / 24)  // rows of a few numbers
            if try !csv.readInParallel(bytes, after: reader, threads: Parallelism.threadCount, progress: progress,
                                       batch: batch) {
                while try reader.next() { try csv.read(&reader, progress: progress, batch: batch) }
            }
            return try csv.finish(batch: batch)
        }
    }
}

/// How messages name the features of an input, with the input's name: "cities.csv: feature 3", or
/// "cities.csv: feature 3 (line 5)" when lines are known. Kept as line numbers, not strings, so a million features
/// cost 8 MB, not a million strings.
public struct FeatureLabels: Sendable {
    /// The input's name: its path, or "stdin".
    public let name: String
    /// The number of features.
    public let count: Int
    /// Each feature's 1-based line in the input, when known.
    public var lines: [Int]?
    /// The number of the first feature (for a batch of a larger input).
    public var first = 0
    /// Added to `lines` (for a piece of a larger file, see `InputOrigin`).
    public var lineOffset = 0

    /// Labels of `count` features of the input `name`.
    /// - Parameters:
    ///   - name: The input's name: its path, or "stdin".
    ///   - count: The number of features.
    ///   - lines: Each feature's 1-based line in the input, when known.
    ///   - first: The number of the first feature.
    ///   - lineOffset: Added to `lines`.
    public init(name: String, count: Int, lines: [Int]? = nil, first: Int = 0, lineOffset: Int = 0) {
        self.name = name
        self.count = count
        self.lines = lines
        self.first = first
        self.lineOffset = lineOffset
    }

    /// The valid indices.
    public var indices: Range<Int> { 0..<count }

    /// The label of feature `i`.
    /// - Parameter i: The feature's index in this set, 0 ..< `count`.
    public subscript(i: Int) -> String {
        if let lines, lines.indices.contains(i) { return "\(name): feature \(first + i) (line \(lines[i] + lineOffset))" }
        return "\(name): feature \(first + i)"
    }

    /// The labels of features `range` (indices of this set), keeping their numbers.
    public func slice(_ range: Range<Int>) -> FeatureLabels {
        FeatureLabels(name: name, count: range.count, lines: lines.map { Array($0[range]) },
                      first: first + range.lowerBound, lineOffset: lineOffset)
    }
}
