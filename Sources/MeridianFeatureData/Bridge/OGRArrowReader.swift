import CGDAL
import Foundation
import MeridianCore

/// Reads a layer through GDAL's Arrow C stream (`OGR_L_GetArrowStream`): a batch of features at a time as columns,
/// for the drivers that produce it natively (GeoPackage and FlatGeobuf, `OLCFastGetArrowStream`), which skips GDAL's
/// per-feature objects and is 2–4 times faster than `OGR_L_GetNextFeature` for points.
///
/// Used only where the two give the same features: the fields read are of types whose Arrow form carries the same
/// value (integers, reals, text, booleans, dates, blobs; not date-times, times or lists, which `FeatureQueryResult`
/// reads feature by feature). Columns are matched by name: the feature ID column, the geometry column (ISO WKB) and
/// each field.
final class OGRArrowReader {
    private var stream = ArrowArrayStream()
    private var schema = ArrowSchema()
    /// Where each requested value is in a batch: the child column, per role.
    private let fidColumn: Int?
    private let geometryColumn: Int?
    private let fieldColumns: [(column: Int, reader: OGRFieldReader)]
    /// Each child column's Arrow format string.
    private let formats: [String]

    /// The field types read the same through Arrow as feature by feature. Not booleans: GDAL 3.6's GeoPackage stream
    /// sets only the first value's bit of a boolean column (ArrowPathTests found it against the feature path).
    static let supportedTypes: Set<FieldType> = [.int16, .int32, .int64, .float32, .float64, .text, .dateOnly, .blob]

    /// The most columns (the feature ID, the geometry and the fields) of a GeoPackage table read through the stream.
    /// GDAL 3.6 fills a GeoPackage's batch with one SQL function call that takes every column as an argument, and
    /// SQLite allows a function 127 (`SQLITE_MAX_FUNCTION_ARG`): a wider table fails with "too many arguments on
    /// function OGR_GPKG_FillArrowArray_INTERNAL" and is read feature by feature instead.
    static let maximumGeoPackageColumns = 127

    /// The most values (rows times columns) of one batch: GDAL allocates a batch's columns for its whole row count,
    /// so a wide table gets fewer rows per batch (65,536 rows of up to 64 columns).
    static let maximumBatchValues = 1 << 22

    /// Opens the stream, or returns `nil` when the layer has no native Arrow stream, a field read is of a type the
    /// stream would represent differently, or a GeoPackage table has more columns than GDAL's stream can pass.
    init?(layer: OGRLayerH, format: FeatureDataFormat, readers: [OGRFieldReader], returnsGeometry: Bool, batchSize: Int) {
        let width = 2 + Int(gdal.OGR_FD_GetFieldCount(gdal.OGR_L_GetLayerDefn(layer)))
        guard gdal.OGR_L_TestCapability(layer, OLCFastGetArrowStream) != 0,
              format != .geoPackage || width <= OGRArrowReader.maximumGeoPackageColumns,
              readers.allSatisfy({ OGRArrowReader.supportedTypes.contains($0.field.type) }) else { return nil }
        let rows = max(1, min(batchSize, 65_536, OGRArrowReader.maximumBatchValues / width))
        let options = ["INCLUDE_FID=YES", "MAX_FEATURES_IN_BATCH=\(rows)"]
        // The C stream interface lets its structures be moved: filled here, then kept in the reader.
        var stream = ArrowArrayStream()
        var schema = ArrowSchema()
        let opened = withCStringList(options) { gdal.OGR_L_GetArrowStream(layer, &stream, $0.base) }
        guard opened, let getSchema = stream.get_schema, getSchema(&stream, &schema) == 0 else {
            if stream.release != nil { stream.release?(&stream) }
            return nil
        }
        self.stream = stream
        self.schema = schema
        var names: [String: Int] = [:]
        var formats: [String] = []
        for i in 0..<Int(schema.n_children) {
            let child = schema.children?[i]?.pointee
            if let name = child?.name { names[String(cString: name)] = i }
            formats.append(child?.format.map { String(cString: $0) } ?? "")
        }
        self.formats = formats
        let fidName = gdal.OGR_L_GetFIDColumn(layer).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "OGC_FID"
        let geometryName = gdal.OGR_L_GetGeometryColumn(layer).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? "wkb_geometry"
        fidColumn = names[fidName]
        geometryColumn = returnsGeometry ? names[geometryName] : nil
        var columns: [(Int, OGRFieldReader)] = []
        for reader in readers {
            guard let column = names[reader.field.name] else { break }
            columns.append((column, reader))
        }
        fieldColumns = columns
        guard columns.count == readers.count, !returnsGeometry || geometryColumn != nil,
              OGRArrowReader.formatsMatch(schema, fid: fidColumn, geometry: geometryColumn, fields: columns) else {
            return nil  // deinit releases the schema and the stream
        }
    }

    deinit {
        if schema.release != nil { schema.release?(&schema) }
        if stream.release != nil { stream.release?(&stream) }
    }

    /// The ID of the feature `nextPoints(into:)` last refused for having no geometry at all (null in the stream).
    private(set) var pointlessFID: Int64?

    /// The next batch of features, appended to `columns` (named by the fields read, in their order), and the IDs of
    /// those the stream gives no geometry (null, rather than empty) to `withoutGeometry`; `false` at the end of the
    /// stream.
    /// - Throws: The stream's error, or a reason naming the feature's ID.
    func next(into columns: inout FeatureColumns, withoutGeometry: inout [Int64], codec: inout OGRGeometryCodec)
        throws(FieldValueError) -> Bool
    {
        try withNextBatch { batch, count throws(FieldValueError) in
            columns.geometries.reserveCapacity(columns.count + count)
            columns.ids.reserveCapacity(columns.count + count)
            for c in columns.values.indices { columns.values[c].reserveCapacity(columns.count + count) }
            // The batch's columns and the fields' readers looked up once, not per row.
            let fids = fidColumn.map { batch[$0] }, wkbs = geometryColumn.map { batch[$0] }
            let fields = fieldColumns.map { (column: batch[$0.column], type: $0.reader.field.type) }
            for row in 0..<count {
                let fid = fids?.int64(row)
                do throws(FieldValueError) {
                    var geometry: Geometry?
                    if let wkbs {
                        if let wkb = wkbs.bytes(row) {
                            geometry = try codec.geometry(wkb: wkb)
                        } else if let fid {
                            withoutGeometry.append(fid)
                        }
                    }
                    for c in fields.indices {
                        let (column, type) = fields[c]
                        if let value = column.value(row, type: type) {
                            columns.values[c].append(value)
                        } else {  // an integer beyond ±2^53, which the field's reader refuses by name
                            columns.values[c].append(try fieldColumns[c].reader.integer(column.int64(row) ?? 0))
                        }
                    }
                    columns.geometries.append(consume geometry)
                    columns.ids.append(fid.map { .number(Double($0)) })
                } catch {
                    // The read ends here: `columns` is not used after a failure.
                    throw FieldValueError(error.reason, feature: fid)
                }
            }
        }
    }

    /// The coordinates of the next batch's point geometries, appended to `coordinates`; `false` at the end.
    /// - Throws: The stream's error, or a reason naming a feature that has no point.
    func nextPoints(into coordinates: inout [Coordinate]) throws(FieldValueError) -> Bool {
        try withNextBatch { columns, count throws(FieldValueError) in
            guard let g = geometryColumn else { throw FieldValueError("the query reads no geometries") }
            coordinates.reserveCapacity(coordinates.count + count)
            for row in 0..<count {
                guard let wkb = columns[g].bytes(row), let c = try OGRGeometryCodec.pointCoordinate(wkb) else {
                    let fid = fidColumn.flatMap { columns[$0].int64(row) }
                    if columns[g].bytes(row) == nil { pointlessFID = fid }
                    throw FieldValueError("its geometry is not a point", feature: fid)
                }
                coordinates.append(c)
            }
        }
    }

    /// Runs `body` on the next batch's columns and its row count; `false` at the end of the stream.
    private func withNextBatch(
        _ body: ([ArrowColumn], Int) throws(FieldValueError) -> Void
    ) throws(FieldValueError) -> Bool {
        var array = ArrowArray()
        guard let getNext = stream.get_next else { return false }
        guard getNext(&stream, &array) == 0 else {
            let message = stream.get_last_error?(&stream).map { String(cString: $0) }
            throw FieldValueError(message ?? "GDAL's Arrow stream failed")
        }
        guard array.release != nil else { return false }
        defer { array.release?(&array) }
        // GDAL ends a stream with a released array; an empty batch is no progress either (GDAL 3.6's GeoPackage
        // stream gives one again and again after SQLite found the file malformed): the end, never a retry.
        guard array.length > 0 else { return false }
        guard Int(array.n_children) == formats.count, let children = array.children else {
            throw FieldValueError("GDAL's Arrow stream gave a batch of another shape than its schema")
        }
        let columns = (0..<formats.count).compactMap { i in children[i].map { ArrowColumn($0.pointee, format: formats[i]) } }
        guard columns.count == formats.count else { throw FieldValueError("GDAL's Arrow stream gave a batch without a column") }
        try body(columns, Int(array.length))
        return true
    }

    /// Whether each column has the Arrow format the reader expects of it (GDAL 3.6's mapping).
    private static func formatsMatch(
        _ schema: ArrowSchema, fid: Int?, geometry: Int?, fields: [(column: Int, reader: OGRFieldReader)]
    ) -> Bool {
        func format(_ i: Int) -> String { schema.children?[i]?.pointee.format.map { String(cString: $0) } ?? "" }
        if let fid, format(fid) != "l" { return false }
        if let geometry, !["z", "Z"].contains(format(geometry)) { return false }
        return fields.allSatisfy { column, reader in
            let f = format(column)
            switch reader.field.type {
            case .int16: return f == "s" || f == "i"
            case .int32: return f == "i"
            case .int64: return f == "l"
            case .float32: return f == "f"
            case .float64: return f == "g"
            case .text: return f == "u" || f == "U"
            case .dateOnly: return f == "tdD"
            case .blob: return f == "z" || f == "Z"
            default: return false
            }
        }
    }
}

/// One column of an Arrow batch (the C data interface's layout): a validity bitmap, then values, or 32- or 64-bit
/// offsets and bytes for text and binary.
private struct ArrowColumn {
    let array: ArrowArray
    /// Whether a binary or text column has 64-bit offsets (`Z`, `U`), decided once rather than per value (and no
    /// format string kept: a column is copied per value read, and a string would be retained each time).
    let wideOffsets: Bool

    init(_ array: ArrowArray, format: String) {
        self.array = array
        wideOffsets = format == "Z" || format == "U"
    }

    private func buffer(_ i: Int) -> UnsafeRawPointer? { array.buffers?[i] }

    func isNull(_ row: Int) -> Bool {
        guard array.null_count != 0, let validity = buffer(0) else { return false }
        let i = row + Int(array.offset)
        return validity.load(fromByteOffset: i >> 3, as: UInt8.self) & (1 << UInt8(i & 7)) == 0
    }

    private func value<T>(_ row: Int, _ type: T.Type) -> T? {
        guard !isNull(row), let values = buffer(1) else { return nil }
        return values.loadUnaligned(fromByteOffset: (row + Int(array.offset)) * MemoryLayout<T>.stride, as: T.self)
    }

    func int64(_ row: Int) -> Int64? { value(row, Int64.self) }

    /// The bytes of a binary or text value (32-bit offsets for `z`/`u`, 64-bit for `Z`/`U`).
    func bytes(_ row: Int) -> UnsafeRawBufferPointer? {
        guard !isNull(row), let offsets = buffer(1), let data = buffer(2) else { return nil }
        let i = row + Int(array.offset)
        let (start, end) = wideOffsets
            ? (Int(offsets.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self)),
               Int(offsets.loadUnaligned(fromByteOffset: 8 * i + 8, as: Int64.self)))
            : (Int(offsets.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)),
               Int(offsets.loadUnaligned(fromByteOffset: 4 * i + 4, as: Int32.self)))
        guard start >= 0, end >= start else { return nil }
        return UnsafeRawBufferPointer(start: data + start, count: end - start)
    }

    /// A field's value, as `OGRFieldReader.value(of:at:)` gives it for a feature; nil for a 64-bit integer beyond
    /// ±2^53 (which `OGRFieldReader.integer(_:)` refuses, naming the field).
    func value(_ row: Int, type: FieldType) -> JSONValue? {
        guard !isNull(row) else { return .null }
        switch type {
        case .int16:
            if let v = value(row, Int16.self) { return .number(Double(v)) }
        case .int32:
            if let v = value(row, Int32.self) { return .number(Double(v)) }
        case .int64:
            if let v = value(row, Int64.self) {
                return v.magnitude <= OGRFieldReader.exactIntegerLimit.magnitude ? .number(Double(v)) : nil
            }
        case .float32:
            if let v = value(row, Float.self) { return OGRFieldReader.real(Double(v)) }
        case .float64:
            if let v = value(row, Double.self) { return OGRFieldReader.real(v) }
        case .dateOnly:
            if let days = value(row, Int32.self) { return .string(ArrowDates.civilDate(days: Int(days))) }
        case .text:
            if let b = bytes(row) { return .string(String(decoding: b, as: UTF8.self)) }
        case .blob:
            if let b = bytes(row) { return .string(Data(b).base64EncodedString()) }
        default: break
        }
        return .null
    }
}

/// Arrow's `date32` values.
enum ArrowDates {
    /// `YYYY-MM-DD` of a day count from 1970-01-01 (proleptic Gregorian; Howard Hinnant's civil_from_days).
    static func civilDate(days: Int) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return OGRFieldReader.dateText(year: yoe + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }
}
