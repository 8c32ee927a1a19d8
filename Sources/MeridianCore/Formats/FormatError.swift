/// Why an input format (GeoJSON, WKT, WKB, CSV, JSON, KML) could not be read: what is wrong and where.
public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format being read, e.g. "GeoJSON", "WKT", "CSV".
    public let format: String
    /// What is wrong, e.g. "expected ',' or ']'".
    public let message: String
    /// 1-based line of the problem, when known.
    public let line: Int?
    /// 1-based column (in characters) of the problem, when known.
    public let column: Int?
    /// The feature (0-based index) the problem is in, when known.
    public let feature: Int?
    /// 0-based byte offset of the problem in a binary input (WKB), when known.
    public let offset: Int?

    /// Creates a format error in a text input.
    /// - Parameters:
    ///   - format: The format's name.
    ///   - message: What is wrong.
    ///   - line: 1-based line, if known.
    ///   - column: 1-based column, if known.
    ///   - feature: 0-based feature index, if known.
    public init(format: String, message: String, line: Int? = nil, column: Int? = nil, feature: Int? = nil) {
        self.init(format: format, message: message, offset: nil, line: line, column: column, feature: feature)
    }

    /// Creates a format error in a binary input (or in a text that encodes one, such as hexadecimal WKB).
    /// - Parameters:
    ///   - format: The format's name.
    ///   - message: What is wrong.
    ///   - offset: 0-based byte offset, if known.
    ///   - line: 1-based line, if known.
    ///   - column: 1-based column, if known.
    ///   - feature: 0-based feature index, if known.
    public init(
        format: String, message: String, offset: Int?, line: Int? = nil, column: Int? = nil, feature: Int? = nil
    ) {
        self.format = format
        self.message = message
        self.line = line
        self.column = column
        self.feature = feature
        self.offset = offset
    }

    public var description: String {
        var place: [String] = []
        if let line { place.append("line \(line)") }
        if let column { place.append("column \(column)") }
        if let feature { place.append("feature \(feature)") }
        if let offset { place.append("byte \(offset)") }
        return "\(format)\(place.isEmpty ? "" : " " + place.joined(separator: ", ")): \(message)"
    }
}
