import CGDAL
import MeridianCore

/// A table description fitted to one output format before anything is written: each field's name and OGR type in
/// that format, and notes on what was adapted. What the format cannot hold at all is refused here.
///
/// Shapefile (the `.dbf` of dBase III, as GDAL writes it): names of at most 10 bytes (longer ones are shortened, made
/// unique, and each renaming noted); integers as numbers of 6, 11 or 20 digits; reals as N(24,15); text of at most
/// 254 bytes (UTF-8, declared in a `.cpg`); dates without time; date-times, times and JSON as text (noted); booleans
/// as logical fields; blobs refused; one geometry type. GeoPackage, FlatGeobuf, PostGIS: every type as it is.
struct OutputSchema {
    /// One field as written.
    struct Column {
        /// The field as described (its name is the property key read from features).
        let field: Field
        /// The name in the output.
        let outputName: String
        /// The type the values are written as (a date-time written to a shapefile becomes `.text`).
        let writtenType: FieldType
    }

    let format: FeatureDataFormat
    let columns: [Column]
    /// What was adapted, one sentence each (empty when nothing was).
    let notes: [String]
    /// The geometry column's name (GeoPackage, PostGIS), chosen not to clash with a field.
    let geometryColumn: String
    /// The feature ID column's name (GeoPackage, PostGIS), chosen not to clash with a field.
    let fidColumn: String

    /// The longest field name of a shapefile, in bytes.
    static let shapefileNameBytes = 10
    /// The longest text of a shapefile field, in bytes.
    static let shapefileTextBytes = 254

    /// Fits a description to a format.
    /// - Throws: A reason when the format cannot hold the description.
    init(_ table: TableDescription, format: FeatureDataFormat) throws(FieldValueError) {
        self.format = format
        var notes: [String] = []
        var seen = Set<String>()
        for field in table.fields {
            guard !field.name.isEmpty else { throw FieldValueError("a field has an empty name") }
            guard seen.insert(field.name.lowercased()).inserted else {
                throw FieldValueError("two fields are named '\(field.name)' (names are compared ignoring case)")
            }
        }
        if format == .shapefile {
            guard table.geometryType != nil else {
                throw FieldValueError("a shapefile holds one geometry type (points, multipoints, polylines or polygons); these features have several")
            }
            columns = try OutputSchema.shapefileColumns(table.fields, notes: &notes)
        } else {
            columns = table.fields.map { Column(field: $0, outputName: $0.name, writtenType: $0.type) }
        }
        let names = Set(columns.map { $0.outputName.lowercased() })
        geometryColumn = ["geom", "geometry", "shape", "geom_1"].first { !names.contains($0) } ?? "geom_meridian"
        fidColumn = ["fid", "ogc_fid", "fid_1"].first { !names.contains($0) } ?? "fid_meridian"
        self.notes = notes
    }

    private static func shapefileColumns(_ fields: [Field], notes: inout [String]) throws(FieldValueError) -> [Column] {
        var used = Set<String>()
        var columns: [Column] = []
        for field in fields {
            let written: FieldType
            switch field.type {
            case .blob: throw FieldValueError("field '\(field.name)' holds bytes (a blob), which a shapefile's .dbf cannot")
            case .date, .timeOnly, .json:
                written = .text
                notes.append("field '\(field.name)' (\(field.type.rawValue)) is written as text: a shapefile's .dbf has dates without time and no JSON")
            default: written = field.type
            }
            let name = uniqueShortName(field.name, used: used)
            used.insert(name.lowercased())
            if name != field.name {
                notes.append("field '\(field.name)' is written as '\(name)': shapefile field names are at most 10 bytes")
            }
            columns.append(Column(field: field, outputName: name, writtenType: written))
        }
        return columns
    }

    /// The name cut to 10 bytes at a character boundary, then, if taken, with `_1`, `_2`, … in its last bytes.
    static func uniqueShortName(_ name: String, used: Set<String>) -> String {
        func cut(_ s: String, bytes: Int) -> String {
            var out = ""
            for c in s where out.utf8.count + String(c).utf8.count <= bytes { out.append(c) }
            return out
        }
        let base = cut(name, bytes: shapefileNameBytes)
        if !used.contains(base.lowercased()) { return base }
        for n in 1... {
            let suffix = "_\(n)"
            let candidate = cut(name, bytes: shapefileNameBytes - suffix.utf8.count) + suffix
            if !used.contains(candidate.lowercased()) { return candidate }
        }
        return base
    }

    /// The OGR field definition of a column (the caller destroys it).
    func definition(_ column: Column) -> OGRFieldDefnH? {
        let (type, subtype): (OGRFieldType, OGRFieldSubType) = switch column.writtenType {
        case .int16: (OFTInteger, OFSTInt16)
        case .int32: (OFTInteger, OFSTNone)
        case .boolean: (OFTInteger, OFSTBoolean)
        case .int64: (OFTInteger64, OFSTNone)
        case .float32: (OFTReal, OFSTFloat32)
        case .float64: (OFTReal, OFSTNone)
        case .text: (OFTString, OFSTNone)
        case .json: (OFTString, OFSTJSON)
        case .date: (OFTDateTime, OFSTNone)
        case .dateOnly: (OFTDate, OFSTNone)
        case .timeOnly: (OFTTime, OFSTNone)
        case .blob: (OFTBinary, OFSTNone)
        }
        guard let definition = OGR_Fld_Create(column.outputName, type) else { return nil }
        OGR_Fld_SetSubType(definition, subtype)
        if format == .shapefile {
            switch column.writtenType {
            case .int16: OGR_Fld_SetWidth(definition, 6)
            case .int32: OGR_Fld_SetWidth(definition, 11)
            case .int64: OGR_Fld_SetWidth(definition, 20)
            case .float32, .float64:
                OGR_Fld_SetWidth(definition, 24)
                OGR_Fld_SetPrecision(definition, 15)
            case .text: OGR_Fld_SetWidth(definition, Int32(min(column.field.length ?? OutputSchema.shapefileTextBytes,
                                                               OutputSchema.shapefileTextBytes)))
            default: break
            }
        } else if column.writtenType == .text, let length = column.field.length, length > 0 {
            OGR_Fld_SetWidth(definition, Int32(length))
        }
        return definition
    }

    /// The OGR layer geometry type: polylines and polygons as their multi types except in a shapefile (whose
    /// polyline and polygon records hold any number of parts); with the 2.5D flag for z.
    func layerGeometryType(_ table: TableDescription) -> OGRwkbGeometryType {
        guard let type = table.geometryType else { return table.hasZ ? OGR_GT_SetZ(wkbUnknown) : wkbUnknown }
        let flat: OGRwkbGeometryType = switch type {
        case .point: wkbPoint
        case .multipoint: wkbMultiPoint
        case .polyline: format == .shapefile ? wkbLineString : wkbMultiLineString
        case .polygon: format == .shapefile ? wkbPolygon : wkbMultiPolygon
        }
        return table.hasZ ? OGR_GT_SetZ(flat) : flat
    }

    /// Whether one-part polylines and polygons are promoted to multi-geometries.
    var promotesToMulti: Bool { format != .shapefile }
}
