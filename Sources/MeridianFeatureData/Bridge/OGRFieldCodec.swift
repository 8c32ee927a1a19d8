import CGDAL
import Foundation
import MeridianCore

/// How one field of an OGR layer is read: its Meridian type and its OGR type, looked up once per table.
struct OGRFieldReader {
    /// The field as Meridian describes it.
    let field: Field
    /// OGR's type (lists are read as JSON arrays).
    let ogrType: OGRFieldType

    /// The reader for field `index` of a layer definition.
    init(_ definition: OGRFieldDefnH) {
        let name = String(cString: gdal.OGR_Fld_GetNameRef(definition)!)
        let type = gdal.OGR_Fld_GetType(definition)
        let subtype = gdal.OGR_Fld_GetSubType(definition)
        let width = Int(gdal.OGR_Fld_GetWidth(definition))
        let fieldType: FieldType
        switch type {
        case OFTInteger: fieldType = subtype == OFSTBoolean ? .boolean : subtype == OFSTInt16 ? .int16 : .int32
        case OFTInteger64: fieldType = .int64
        case OFTReal: fieldType = subtype == OFSTFloat32 ? .float32 : .float64
        case OFTString: fieldType = subtype == OFSTJSON ? .json : .text
        case OFTDate: fieldType = .dateOnly
        case OFTTime: fieldType = .timeOnly
        case OFTDateTime: fieldType = .date
        case OFTBinary: fieldType = .blob
        default: fieldType = .json  // lists
        }
        field = Field(name: name, type: fieldType, length: fieldType == .text && width > 0 ? width : nil)
        ogrType = type
    }

    /// The largest integer a double (a GeoJSON number) holds exactly: 2^53.
    static let exactIntegerLimit: Int64 = 1 << 53

    /// The value of this field (index `index`) of a feature, as a GeoJSON property value.
    /// - Throws: A reason (for `FeatureDataError.unreadableFeature`) for an integer beyond ±2^53.
    func value(of feature: OGRFeatureH, at index: Int32) throws(FieldValueError) -> JSONValue {
        guard gdal.OGR_F_IsFieldSetAndNotNull(feature, index) != 0 else { return .null }
        switch field.type {
        case .boolean: return .bool(gdal.OGR_F_GetFieldAsInteger(feature, index) != 0)
        case .int16, .int32: return .number(Double(gdal.OGR_F_GetFieldAsInteger(feature, index)))
        case .int64: return try integer(gdal.OGR_F_GetFieldAsInteger64(feature, index))
        case .float32, .float64: return OGRFieldReader.real(gdal.OGR_F_GetFieldAsDouble(feature, index))
        case .text: return .string(String(cString: gdal.OGR_F_GetFieldAsString(feature, index)!))
        case .date, .dateOnly, .timeOnly: return .string(dateText(feature, index))
        case .blob:
            var count: Int32 = 0
            guard let bytes = gdal.OGR_F_GetFieldAsBinary(feature, index, &count), count > 0 else { return .string("") }
            return .string(Data(bytes: bytes, count: Int(count)).base64EncodedString())
        case .json: return try jsonValue(feature, index)
        }
    }

    /// A 64-bit integer as a number, refused beyond ±2^53 (a double would round it).
    func integer(_ v: Int64) throws(FieldValueError) -> JSONValue {
        guard v.magnitude <= OGRFieldReader.exactIntegerLimit.magnitude else {
            throw FieldValueError("field '\(field.name)' holds \(v), beyond the ±2^53 that a GeoJSON number carries exactly")
        }
        return .number(Double(v))
    }

    /// A real as a number; NaN and infinities (no-data markers; JSON has no spelling for them) as null.
    static func real(_ v: Double) -> JSONValue { v.isFinite ? .number(v) : .null }

    /// `YYYY-MM-DD`.
    static func dateText(year: Int, month: Int, day: Int) -> String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// A JSON field's value, or a list field's elements as an array.
    private func jsonValue(_ feature: OGRFeatureH, _ index: Int32) throws(FieldValueError) -> JSONValue {
        var count: Int32 = 0
        switch ogrType {
        case OFTIntegerList:
            guard let list = gdal.OGR_F_GetFieldAsIntegerList(feature, index, &count) else { return .array([]) }
            return .array((0..<Int(count)).map { .number(Double(list[$0])) })
        case OFTInteger64List:
            guard let list = gdal.OGR_F_GetFieldAsInteger64List(feature, index, &count) else { return .array([]) }
            var values: [JSONValue] = []
            for i in 0..<Int(count) { values.append(try integer(list[i])) }
            return .array(values)
        case OFTRealList:
            guard let list = gdal.OGR_F_GetFieldAsDoubleList(feature, index, &count) else { return .array([]) }
            return .array((0..<Int(count)).map { OGRFieldReader.real(list[$0]) })
        case OFTStringList:
            guard let list = gdal.OGR_F_GetFieldAsStringList(feature, index) else { return .array([]) }
            var values: [JSONValue] = []
            var i = 0
            while let s = list[i] { values.append(.string(String(cString: s))); i += 1 }
            return .array(values)
        default:
            let text = String(cString: gdal.OGR_F_GetFieldAsString(feature, index)!)
            return (try? JSONValue.decode(Data(text.utf8))) ?? .string(text)
        }
    }

    /// A date, time or date-time field as ISO 8601 text.
    private func dateText(_ feature: OGRFeatureH, _ index: Int32) -> String {
        var year: Int32 = 0, month: Int32 = 0, day: Int32 = 0, hour: Int32 = 0, minute: Int32 = 0, zone: Int32 = 0
        var second: Float = 0
        _ = gdal.OGR_F_GetFieldAsDateTimeEx(feature, index, &year, &month, &day, &hour, &minute, &second, &zone)
        let date = OGRFieldReader.dateText(year: Int(year), month: Int(month), day: Int(day))
        let seconds = Double(second)
        let millis = Int((seconds * 1000).rounded())
        let time = millis % 1000 == 0
            ? String(format: "%02d:%02d:%02d", hour, minute, millis / 1000)
            : String(format: "%02d:%02d:%06.3f", hour, minute, Double(millis) / 1000)
        switch field.type {
        case .dateOnly: return date
        case .timeOnly: return time
        default: return date + "T" + time + ISODate.zoneSuffix(ogrFlag: Int(zone))
        }
    }
}

/// Why one value cannot be read or written; the caller adds the source, table and feature.
struct FieldValueError: Error {
    let reason: String
    /// The ID of the feature it is about, when a reader of many features knows it.
    let feature: Int64?
    init(_ reason: String, feature: Int64? = nil) {
        self.reason = reason
        self.feature = feature
    }
}

/// ISO 8601 dates, times and date-times as Meridian carries them, and OGR's time zone flag (0 unknown, 1 local time,
/// 100 UTC, 100 ± n for n quarter hours east or west).
enum ISODate {
    /// The broken-down value OGR's setters take.
    struct Parts: Equatable {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0
        var second: Float = 0
        var zone = 0
    }

    /// `Z`, `+HH:MM`, `-HH:MM`, or nothing for an unknown or local zone.
    static func zoneSuffix(ogrFlag flag: Int) -> String {
        guard flag > 1 else { return "" }
        if flag == 100 { return "Z" }
        let quarters = flag - 100
        let minutes = abs(quarters) * 15
        return (quarters < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// Parses `YYYY-MM-DD` (date), `HH:MM[:SS[.fff]]` (time) or a date, `T` or a space, a time and an optional zone
    /// (`Z`, `±HH`, `±HHMM`, `±HH:MM`), as the type asks; `nil` when the text is not one.
    static func parse(_ text: String, as type: FieldType) -> Parts? {
        var scanner = Substring(text)
        var parts = Parts()
        if type != .timeOnly {
            guard let y = number(&scanner, digits: 4), skip(&scanner, "-"), let m = number(&scanner, digits: 2),
                  skip(&scanner, "-"), let d = number(&scanner, digits: 2), (1...12).contains(m), (1...31).contains(d)
            else { return nil }
            (parts.year, parts.month, parts.day) = (y, m, d)
            if type == .dateOnly { return scanner.isEmpty ? parts : nil }
            if scanner.isEmpty { return parts }
            guard skip(&scanner, "T") || skip(&scanner, " ") else { return nil }
        }
        guard let h = number(&scanner, digits: 2), skip(&scanner, ":"), let mi = number(&scanner, digits: 2),
              h < 24, mi < 60 else { return nil }
        (parts.hour, parts.minute) = (h, mi)
        if skip(&scanner, ":") {
            let digits = scanner.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard let s = Float(digits), s >= 0, s < 61 else { return nil }
            parts.second = s
            scanner = scanner.dropFirst(digits.count)
        }
        if type == .timeOnly { return scanner.isEmpty ? parts : nil }
        return zone(&scanner, into: &parts) ? parts : nil
    }

    private static func zone(_ scanner: inout Substring, into parts: inout Parts) -> Bool {
        if scanner.isEmpty { return true }
        if skip(&scanner, "Z") { parts.zone = 100; return scanner.isEmpty }
        guard let sign = scanner.first, sign == "+" || sign == "-" else { return false }
        scanner = scanner.dropFirst()
        guard let hours = number(&scanner, digits: 2) else { return false }
        _ = skip(&scanner, ":")
        let minutes = scanner.isEmpty ? 0 : number(&scanner, digits: 2)
        guard let minutes, scanner.isEmpty, minutes % 15 == 0, hours <= 14 else { return false }
        let quarters = hours * 4 + minutes / 15
        parts.zone = 100 + (sign == "-" ? -quarters : quarters)
        return true
    }

    private static func number(_ scanner: inout Substring, digits: Int) -> Int? {
        let head = scanner.prefix(digits)
        guard head.count == digits, head.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(head) else { return nil }
        scanner = scanner.dropFirst(digits)
        return n
    }

    private static func skip(_ scanner: inout Substring, _ c: Character) -> Bool {
        guard scanner.first == c else { return false }
        scanner = scanner.dropFirst()
        return true
    }
}
