import CGDAL
import MeridianCore

/// A table description fitted to one output format before anything is written: each field's name and OGR type in
/// that format, and notes on what was adapted. What the format cannot hold at all is refused here.
///
/// Shapefile (the `.dbf` of dBase III, as GDAL writes it): names of at most 10 bytes (longer ones are shortened, made
/// unique, and each renaming noted); integers as numbers of 6, 11 or 18 characters (GDAL reads a width of 10 to 18
/// back as a 64-bit integer, so a 32-bit field returns as `int64`); reals as N(24,15); text of at most 254 bytes
/// (UTF-8, declared in a `.cpg`); dates without time; date-times and times as text, booleans as 1 and 0 (noted);
/// blobs refused; one geometry type. GeoPackage and FlatGeobuf: times as text; FlatGeobuf: dates as date-times at
/// midnight (noted), and no feature without a geometry or with an empty one (GDAL 3.6's writer leaves such a feature
/// out without a word, so the writer refuses it). JSON values are written as their JSON text in every format
/// (noted). PostGIS: every other type as it is.
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
        if format == .shapefile, table.geometryType == nil {
            throw FieldValueError("a shapefile holds one geometry type (points, multipoints, polylines or polygons); these features have several")
        }
        var columns: [Column] = []
        var used = Set<String>()
        for field in table.fields {
            let written = try OutputSchema.writtenType(field, format: format, notes: &notes)
            var name = field.name
            if format == .shapefile {
                name = OutputSchema.uniqueShortName(field.name, used: used)
                if name != field.name {
                    notes.append("field '\(field.name)' is written as '\(name)': shapefile field names are at most 10 bytes")
                }
            }
            used.insert(name.lowercased())
            columns.append(Column(field: field, outputName: name, writtenType: written))
        }
        self.columns = columns
        let names = Set(columns.map { $0.outputName.lowercased() })
        geometryColumn = ["geom", "geometry", "shape", "geom_1"].first { !names.contains($0) } ?? "geom_meridian"
        fidColumn = ["fid", "ogc_fid", "fid_1"].first { !names.contains($0) } ?? "fid_meridian"
        self.notes = notes
    }

    /// The type a field is written as in a format: its own where the format has it, else the nearest one that keeps
    /// the values (noted); a blob in a shapefile is refused.
    private static func writtenType(_ field: Field, format: FeatureDataFormat, notes: inout [String])
        throws(FieldValueError) -> FieldType
    {
        let adapted: (FieldType, String)?
        switch (format, field.type) {
        case (.shapefile, .blob):
            throw FieldValueError("field '\(field.name)' holds bytes (a blob), which a shapefile's .dbf cannot")
        case (.shapefile, .date), (.shapefile, .timeOnly):
            adapted = (.text, "a shapefile's .dbf has dates without time")
        case (.shapefile, .boolean): adapted = (.int16, "a shapefile's .dbf has no booleans (written as 1 and 0)")
        case (.geoPackage, .timeOnly), (.flatGeobuf, .timeOnly): adapted = (.text, "the format has no time type")
        case (.flatGeobuf, .dateOnly): adapted = (.date, "FlatGeobuf has no date type (written as midnight)")
        case (_, .json): adapted = (.text, "written as its JSON text")
        default: adapted = nil
        }
        guard let (type, why) = adapted else { return field.type }
        notes.append("field '\(field.name)' (\(field.type.rawValue)) is written as \(type.rawValue): \(why)")
        return type
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
        case .json: (OFTString, OFSTNone)
        case .date: (OFTDateTime, OFSTNone)
        case .dateOnly: (OFTDate, OFSTNone)
        case .timeOnly: (OFTTime, OFSTNone)
        case .blob: (OFTBinary, OFSTNone)
        }
        guard let definition = gdal.OGR_Fld_Create(column.outputName, type) else { return nil }
        gdal.OGR_Fld_SetSubType(definition, subtype)
        if format == .shapefile {
            switch column.writtenType {
            case .int16: gdal.OGR_Fld_SetWidth(definition, 6)
            case .int32: gdal.OGR_Fld_SetWidth(definition, 11)
            case .int64: gdal.OGR_Fld_SetWidth(definition, 18)
            case .float32, .float64:
                gdal.OGR_Fld_SetWidth(definition, 24)
                gdal.OGR_Fld_SetPrecision(definition, 15)
            case .text: gdal.OGR_Fld_SetWidth(definition, Int32(min(column.field.length ?? OutputSchema.shapefileTextBytes,
                                                               OutputSchema.shapefileTextBytes)))
            default: break
            }
        } else if column.writtenType == .text, let length = column.field.length, length > 0 {
            gdal.OGR_Fld_SetWidth(definition, Int32(length))
        }
        return definition
    }

    /// The OGR layer geometry type: polylines and polygons as their multi types except in a shapefile (whose
    /// polyline and polygon records hold any number of parts); with the 2.5D flag for z.
    func layerGeometryType(_ table: TableDescription) -> OGRwkbGeometryType {
        guard let type = table.geometryType else { return table.hasZ ? gdal.OGR_GT_SetZ(wkbUnknown) : wkbUnknown }
        let flat: OGRwkbGeometryType = switch type {
        case .point: wkbPoint
        case .multipoint: wkbMultiPoint
        case .polyline: format == .shapefile ? wkbLineString : wkbMultiLineString
        case .polygon: format == .shapefile ? wkbPolygon : wkbMultiPolygon
        }
        return table.hasZ ? gdal.OGR_GT_SetZ(flat) : flat
    }

    /// Whether the format holds a feature without a geometry, or with an empty one (all but FlatGeobuf).
    var holdsFeaturesWithoutGeometry: Bool { format != .flatGeobuf }

    /// Why a feature with `what` ("no geometry", "an empty geometry") is refused by a format that cannot hold it.
    static func noGeometryReason(_ what: String) -> String {
        "it has \(what), which a FlatGeobuf cannot hold (GDAL would leave the feature out); write a GeoPackage (.gpkg) or GeoJSON instead"
    }

    /// Whether one-part polylines and polygons are promoted to multi-geometries.
    var promotesToMulti: Bool { format != .shapefile }
}
