import Meridian

/// Where the text a command reads comes from, for its messages: the input's name and, when the text is a piece of a
/// larger file (`meridian-dask` hands a command one chunk of a file on standard input, see `InternalCommand`), the
/// numbers of the piece's first line and first feature in that file, so that messages name the place in the file
/// the user gave.
public struct InputOrigin: Sendable, Hashable {
    /// The input's name in messages: its path, or "stdin".
    public var name: String
    /// Added to the piece's own 1-based line numbers.
    public var lineOffset: Int
    /// Added to the piece's own 0-based feature numbers.
    public var featureOffset: Int
    /// Whether messages give lines (false for text made from a file that has none, such as GeoParquet rows).
    public var lineNumbers: Bool

    /// An origin.
    /// - Parameters:
    ///   - name: The input's name in messages.
    ///   - lineOffset: Added to line numbers (the piece's line 1 is the file's line 1 + `lineOffset`).
    ///   - featureOffset: Added to feature numbers.
    ///   - lineNumbers: Whether messages give lines.
    public init(name: String, lineOffset: Int = 0, featureOffset: Int = 0, lineNumbers: Bool = true) {
        self.name = name
        self.lineOffset = lineOffset
        self.featureOffset = featureOffset
        self.lineNumbers = lineNumbers
    }

    /// The labels of `count` features of the piece, with their lines in the piece (when known), the first being the
    /// piece's feature `first`.
    /// - Parameters:
    ///   - count: The number of features, 0 or more.
    ///   - lines: Each feature's 1-based line in the piece, or nil.
    ///   - first: The 0-based number of the first feature in the piece.
    public func labels(count: Int, lines: [Int]?, first: Int = 0) -> FeatureLabels {
        FeatureLabels(name: name, count: count, lines: lineNumbers ? lines : nil, first: first + featureOffset,
                      lineOffset: lineOffset)
    }

    /// How a message names a feature or a line of the piece: "feature 3 (line 5)", "line 5" or "feature 3".
    /// - Parameters:
    ///   - feature: The feature's 0-based number in the piece, or nil for a line that is no feature's.
    ///   - line: The 1-based line in the piece.
    public func place(feature: Int?, line: Int) -> String {
        guard lineNumbers else { return feature.map { "feature \($0 + featureOffset)" } ?? "a record" }
        guard let feature else { return "line \(line + lineOffset)" }
        return "feature \(feature + featureOffset) (line \(line + lineOffset))"
    }

    /// A reader's error located in the piece, located in the file.
    public func relocated(_ error: FormatError) -> FormatError {
        FormatError(format: error.format, message: error.message, offset: error.offset,
                    line: lineNumbers ? error.line.map { $0 + lineOffset } : nil,
                    column: lineNumbers ? error.column : nil, feature: error.feature.map { $0 + featureOffset })
    }
}
