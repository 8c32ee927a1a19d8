import CGDAL
import Foundation
import MeridianCore

extension OutputSchema.Column {
    /// Sets field `index` of an OGR feature from a property value; no value or `null` leaves the field null.
    /// - Throws: A reason when the value does not fit the field's type (text in an integer field, an integer beyond
    ///   the type's range, a date that is not ISO 8601, text longer than a shapefile holds).
    func set(_ value: JSONValue?, on feature: OGRFeatureH, at index: Int32, format: FeatureDataFormat)
        throws(FieldValueError)
    {
        guard let value, !value.isNull else {
            gdal.OGR_F_SetFieldNull(feature, index)
            return
        }
        switch writtenType {
        case .int16, .int32, .int64:
            gdal.OGR_F_SetFieldInteger64(feature, index, try integer(value, format: format))
        case .boolean:
            guard let b = value.boolValue ?? value.intValue.flatMap({ $0 == 0 || $0 == 1 ? $0 == 1 : nil }) else {
                throw mismatch(value, "true or false")
            }
            gdal.OGR_F_SetFieldInteger(feature, index, b ? 1 : 0)
        case .float32, .float64:
            guard let d = value.doubleValue else { throw mismatch(value, "a number") }
            gdal.OGR_F_SetFieldDouble(feature, index, d)
        case .text, .json:
            let text = self.text(value)
            if format == .shapefile, text.utf8.count > OutputSchema.shapefileTextBytes {
                throw FieldValueError("field '\(field.name)' holds \(text.utf8.count) bytes of text; a shapefile's .dbf holds at most 254")
            }
            gdal.OGR_F_SetFieldString(feature, index, text)
        case .date, .dateOnly, .timeOnly:
            guard let s = value.stringValue, let p = ISODate.parse(s, as: writtenType) else {
                throw mismatch(value, writtenType == .dateOnly ? "a date (YYYY-MM-DD)" : writtenType == .timeOnly
                               ? "a time (HH:MM:SS)" : "an ISO 8601 date and time")
            }
            gdal.OGR_F_SetFieldDateTimeEx(feature, index, Int32(p.year), Int32(p.month), Int32(p.day), Int32(p.hour),
                                     Int32(p.minute), p.second, Int32(p.zone))
        case .blob:
            guard let s = value.stringValue, let bytes = Data(base64Encoded: s) else { throw mismatch(value, "base64 text") }
            bytes.withUnsafeBytes { gdal.OGR_F_SetFieldBinary(feature, index, Int32($0.count), $0.baseAddress) }
        }
    }

    /// An integer value within the field type's range.
    private func integer(_ value: JSONValue, format: FeatureDataFormat) throws(FieldValueError) -> Int64 {
        if field.type == .boolean, let b = value.boolValue { return b ? 1 : 0 }
        guard let d = value.doubleValue, d.rounded(.towardZero) == d, let i = Int64(exactly: d) else {
            throw mismatch(value, "an integer")
        }
        let range: ClosedRange<Int64> = switch writtenType {
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        default: format == .shapefile ? -99_999_999_999_999_999...999_999_999_999_999_999 : Int64.min...Int64.max
        }
        guard range.contains(i) else {
            throw FieldValueError("field '\(field.name)' (\(writtenType.rawValue)) cannot hold \(i)")
        }
        return i
    }

    /// A value as text: strings as they are, anything else as its JSON text.
    private func text(_ value: JSONValue) -> String {
        if let s = value.stringValue { return s }
        return String(decoding: value.encoded(), as: UTF8.self)
    }

    private func mismatch(_ value: JSONValue, _ expected: String) -> FieldValueError {
        let shown = String(String(decoding: value.encoded(), as: UTF8.self).prefix(40))
        return FieldValueError("field '\(field.name)' (\(field.type.rawValue)) holds \(shown), not \(expected)")
    }
}
