import Foundation
import Meridian

/// GeoJSON text sequences: RFC 8142 (`.geojsons`, what `meridian buffer` writes: each record a record separator
/// 0x1E, a GeoJSON text, a line feed) and newline-delimited GeoJSON (one GeoJSON text per line, GDAL's GeoJSONSeq
/// without separators). Each record is read as a GeoJSON document of its own; a Feature gives one feature, a
/// FeatureCollection its features, a bare geometry a feature without properties.
public enum GeoJSONSequence {
    /// Whether the text starts (after white space) with a record separator.
    public static func startsWithSeparator(_ data: Data) -> Bool {
        data.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } == 0x1E
    }

    /// Whether a failure to read a text as one GeoJSON document says that a second text starts a line: the text is
    /// then newline-delimited GeoJSON.
    public static func isNewlineDelimited(_ error: FormatError) -> Bool {
        error.column == 1 && error.message.hasPrefix("unexpected '{' after the end of the JSON value")
    }

    /// Reads every record's features.
    /// - Parameters:
    ///   - data: The sequence: records separated by 0x1E, or (`newlineDelimited`) one per non-blank line.
    ///   - newlineDelimited: Whether records are lines rather than separated by 0x1E.
    /// - Returns: The features in order, with the 1-based line on which each one's record starts.
    /// - Throws: `FormatError` located in the whole text (line, column, and the feature's index).
    public static func decode(_ data: Data, newlineDelimited: Bool) throws(FormatError) -> (features: [Feature], lines: [Int]) {
        var features: [Feature] = []
        var lines: [Int] = []
        let bytes = [UInt8](data)
        var line = 1, start = 0
        // Record k: bytes[start..<end], beginning on `line` at `column`.
        while start < bytes.count {
            var end = start
            let separator: UInt8 = newlineDelimited ? 0x0A : 0x1E
            if bytes[start] == 0x1E { end += 1 }  // the record's own separator
            while end < bytes.count, bytes[end] != separator { end += 1 }
            let body = bytes[start..<end].drop { $0 == 0x1E || $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            if let first = body.first.map({ _ in body.startIndex }) {
                let firstLine = line + bytes[start..<first].count(where: { $0 == 0x0A })
                let lineStart = bytes[..<first].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
                do {
                    let decoded = try GeoJSON.decodeFeatures(Data(body))
                    features += decoded
                    lines += Array(repeating: firstLine, count: decoded.count)
                } catch {
                    throw FormatError(
                        format: error.format, message: error.message, line: error.line.map { $0 + firstLine - 1 },
                        column: error.line == 1 ? error.column.map { $0 + first - lineStart } : error.column,
                        feature: features.count + (error.feature ?? 0))
                }
            }
            line += bytes[start..<min(end + (newlineDelimited ? 1 : 0), bytes.count)].count(where: { $0 == 0x0A })
            start = newlineDelimited ? end + 1 : end
        }
        return (features, lines)
    }
}
