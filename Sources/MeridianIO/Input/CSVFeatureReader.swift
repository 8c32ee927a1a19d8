import Foundation
import Meridian

/// CSV input read record by record (`FeatureInput.read`): each row a point feature with the other columns as
/// properties, or only its point (and one numeric column) for commands that need no more, handed over in batches
/// when the caller asks for them.
struct CSVFeatureReader {
    /// The input's name and the numbers of its first line and feature, for messages.
    let origin: InputOrigin
    /// The input's name, for messages.
    var name: String { origin.name }
    /// The header record.
    let header: [String]
    /// The coordinate columns.
    let x: Int, y: Int
    /// The coordinates' spatial reference.
    let spatialReference: SpatialReference
    /// What to keep.
    let options: FeatureInput.CSVOptions
    /// The column of `options.numericColumn`, if the header has it.
    private let valueColumn: Int?
    private var features: [Feature] = []
    private var points: [Coordinate] = []
    private var values: [Double] = []
    private var rows: [[String]] = []
    private var lines: [Int] = []
    private var rowCount = 0, batchStart = 0

    /// Finds the coordinate columns in the header (lon,lat, longitude,latitude, lng,lat or x,y) and their spatial
    /// reference: the one given, WGS84 for longitude/latitude columns, else the command's default for x,y.
    /// - Parameter capacity: How many rows to make room for.
    /// - Throws: `CommandError.failure` for a header without coordinate columns, `.usage` for x,y columns without
    ///   a spatial reference.
    init(header: [String], origin: InputOrigin, inputSpatialReference: SpatialReference?,
         defaultXYSpatialReference: SpatialReference?, options: FeatureInput.CSVOptions, capacity: Int) throws(CommandError) {
        let lower = header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        // A column named twice: which one holds the coordinates (or the property) would be a guess.
        for (k, column) in lower.enumerated() {
            if let first = lower.firstIndex(of: column), first < k {
                throw .failure("\(origin.name): line 1: the CSV header names '\(header[k])' twice (columns \(first + 1) and \(k + 1)); rename one")
            }
        }
        let pairs: [(String, String, Bool)] = [("lon", "lat", true), ("longitude", "latitude", true),
                                               ("lng", "lat", true), ("x", "y", false)]
        guard let (xName, yName, geographic) = pairs.first(where: { lower.contains($0.0) && lower.contains($0.1) }),
              let xi = lower.firstIndex(of: xName), let yi = lower.firstIndex(of: yName)
        else {
            throw .failure("\(origin.name): line 1: the CSV header needs lon,lat (or longitude,latitude) or x,y columns; it has \(header.joined(separator: ","))")
        }
        if let given = inputSpatialReference {
            spatialReference = given
        } else if geographic {
            spatialReference = .wgs84
        } else if let fallback = defaultXYSpatialReference {
            spatialReference = fallback
        } else {
            throw .usage("CSV x,y columns need their spatial reference: give --in-srs (or --from)")
        }
        (self.origin, self.header, x, y, self.options) = (origin, header, xi, yi, options)
        valueColumn = options.numericColumn.flatMap { header.firstIndex(of: $0) }
        reserve(capacity)
    }

    /// Makes room for `capacity` rows (their lines and, with `pointsOnly`, points and values).
    private mutating func reserve(_ capacity: Int) {
        lines.reserveCapacity(capacity)
        guard options.pointsOnly else { return features.reserveCapacity(capacity) }
        points.reserveCapacity(capacity)
        if options.numericColumn != nil { values.reserveCapacity(capacity) }
    }

    /// A reader of the same header and options without rows, with room for `capacity`: for a part of the input
    /// read on another thread, then added with `append(_:lineOffset:)`.
    func emptyPart(capacity: Int) -> CSVFeatureReader {
        var part = self
        (part.features, part.points, part.values, part.rows, part.lines) = ([], [], [], [], [])
        (part.rowCount, part.batchStart) = (0, 0)
        part.reserve(capacity)
        return part
    }

    /// Adds the rows of `part`, a reader of the records that follow this one's (`emptyPart`), its line numbers
    /// moved on by `lineOffset` (for a part that numbered its own lines from 1).
    mutating func append(_ part: CSVFeatureReader, lineOffset: Int) {
        features.append(contentsOf: part.features)
        points.append(contentsOf: part.points)
        values.append(contentsOf: part.values)
        rows.append(contentsOf: part.rows)
        lines.append(contentsOf: part.lines.lazy.map { $0 + lineOffset })
        rowCount += part.rowCount
    }

    /// Reads the record the reader is on (after handing over a full batch).
    mutating func read(_ reader: inout CSVRecordReader, progress: ProgressLine?,
                       batch: (FeatureInput) throws(CommandError) -> Void) throws {
        try reader.requireFieldCount(header.count)
        let line = reader.recordLine
        if let batchSize = options.batchSize, lines.count == batchSize { try handOver(batch) }  // (batchStart = this row)
        let row = rowCount
        rowCount += 1
        if row & 4095 == 0 { progress?.update(reader.offset) }
        guard let px = reader.number(x), let py = reader.number(y) else {
            throw CommandError.failure("\(name): \(origin.place(feature: nil, line: line)): '\(try reader.string(x))','\(try reader.string(y))' is not a finite coordinate pair")
        }
        if spatialReference.isGeographic, let problem = ReadBack.longitudeLatitudeProblem(Coordinate(x: px, y: py)) {
            throw CommandError.failure("\(name): \(origin.place(feature: row, line: line)): \(problem)")
        }
        lines.append(line)
        if options.keepTable { rows.append(options.tableWithoutCoordinates ? try otherFields(reader) : try reader.strings()) }
        guard options.pointsOnly else {
            features.append(Feature(geometry: .point(Point(x: px, y: py, spatialReference: spatialReference)),
                                    properties: try properties(reader), id: nil))
            return
        }
        points.append(Coordinate(x: px, y: py))
        if let column = options.numericColumn {
            guard let c = valueColumn else {
                throw CommandError.failure("\(name): \(origin.place(feature: row, line: line)) has no '\(column)' property")
            }
            guard let v = reader.number(c) else {
                throw CommandError.failure("\(name): \(origin.place(feature: row, line: line)): '\(column)' is '\(try reader.string(c))', not a number")
            }
            values.append(v)
        }
    }

    /// The record's fields but the coordinates (none, without an allocation, for a CSV of coordinates only).
    private func otherFields(_ reader: CSVRecordReader) throws -> [String] {
        guard header.count > 2 else { return [] }
        return try header.indices.filter { $0 != x && $0 != y }.map { try reader.string($0) }
    }

    /// The table kept (`options.keepTable`): every column, or the columns other than the coordinates.
    private func table() -> CSVTable? {
        guard options.keepTable else { return nil }
        let columns = options.tableWithoutCoordinates ? header.indices.filter { $0 != x && $0 != y }.map { header[$0] }
            : header
        return CSVTable(header: columns, rows: rows, lineNumbers: lines)
    }

    /// The other columns of the record as properties: numbers where they read as numbers, else text.
    private func properties(_ reader: CSVRecordReader) throws -> [String: JSONValue] {
        var properties: [String: JSONValue] = [:]
        for (c, column) in header.enumerated() where c != x && c != y {
            if let d = reader.number(c) {
                properties[column] = .number(d)
            } else {
                properties[column] = .string(try reader.string(c))
            }
        }
        return properties
    }

    /// Hands the rows read since the last batch to `batch`, as an input of their own (labels keep their numbers; for
    /// `pointsOnly`, their points and column values).
    mutating func handOver(_ batch: (FeatureInput) throws(CommandError) -> Void) throws {
        guard !lines.isEmpty else { return }
        var part = FeatureInput(
            features: features, spatialReference: spatialReference,
            labels: origin.labels(count: lines.count, lines: lines, first: batchStart), format: .csv,
            table: table(), coordinateColumns: (x, y), header: header)
        if options.pointsOnly {
            part.points = points
            if options.numericColumn != nil { part.columnValues = values }
        }
        try batch(part)
        features.removeAll(keepingCapacity: true)
        points.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        batchStart = rowCount
    }

    /// The input read: every row (or, read in batches, the last batch handed over and only the count kept).
    mutating func finish(batch: (FeatureInput) throws(CommandError) -> Void) throws -> FeatureInput {
        if options.batchSize != nil {
            if !lines.isEmpty { try handOver(batch) }
            return FeatureInput(features: [], spatialReference: spatialReference, labels: origin.labels(count: rowCount, lines: nil),
                                format: .csv, table: nil, coordinateColumns: (x, y))
        }
        var input = FeatureInput(
            features: features, spatialReference: spatialReference,
            labels: origin.labels(count: lines.count, lines: lines),
            format: .csv, table: table(), coordinateColumns: (x, y), header: header)
        if options.pointsOnly {
            input.points = points
            if options.numericColumn != nil { input.columnValues = values }
        }
        return input
    }
}
