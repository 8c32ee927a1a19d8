import Foundation

/// A CSV table as read: the header record, the data records (each with exactly as many fields as the header) and
/// where each data record starts in the source.
public struct CSVTable: Sendable, Hashable {
    /// The first record's fields (column names), in order.
    public let header: [String]
    /// The data records; every row has `header.count` fields.
    public let rows: [[String]]
    /// The 1-based source line on which each row starts (same count as `rows`; a quoted field spanning lines makes
    /// the next row start further down).
    public let lineNumbers: [Int]

    /// Creates a table.
    /// - Parameters:
    ///   - header: Column names.
    ///   - rows: Records, each with `header.count` fields.
    ///   - lineNumbers: The 1-based source line of each row (same count as `rows`).
    public init(header: [String], rows: [[String]], lineNumbers: [Int]) {
        self.header = header
        self.rows = rows
        self.lineNumbers = lineNumbers
    }

    /// The 0-based index of the first column with exactly this name (case-sensitive), or `nil`.
    /// - Parameter name: A column name.
    public func columnIndex(named name: String) -> Int? { header.firstIndex(of: name) }
}

/// Comma-separated values (RFC 4180) reading and writing.
///
/// Reading accepts UTF-8 with or without a byte-order mark; records end with CRLF, LF or a lone CR; fields may be
/// quoted with `"`, with `""` standing for a quote inside, and quoted fields may contain commas and line breaks.
/// Fields are not trimmed. Completely empty lines are skipped. The first record is the header. Strictly per RFC 4180,
/// a quote inside an unquoted field, or text after a closing quote, is an error.
public enum CSV {
    /// Reads a table.
    /// - Parameter data: UTF-8 CSV text.
    /// - Returns: The header and rows.
    /// - Throws: `FormatError` (format "CSV") with the 1-based line (and column, in Unicode scalars, where it helps):
    ///   empty input, an unterminated quoted field, a stray quote, invalid UTF-8, or a row whose field count differs
    ///   from the header's (line only).
    public static func decode(_ data: Data) throws(FormatError) -> CSVTable {
        let result: Result<CSVTable, FormatError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do throws(CSVFailure) {
                return .success(try parse(bytes))
            } catch {
                if let offset = error.offset {
                    let place = TextPosition.lineAndColumn(ofOffset: offset, in: bytes)
                    return .failure(
                        FormatError(format: "CSV", message: error.message, line: place.line, column: place.column))
                }
                return .failure(FormatError(format: "CSV", message: error.message, line: error.line))
            }
        }
        return try result.get()
    }

    /// Writes a table: one record per line, CRLF line ends (also after the last record), fields quoted when they hold
    /// a comma, a quote, CR or LF, start with a byte-order mark, or are the only, empty field of a record (so that
    /// the line is not blank).
    /// - Parameters:
    ///   - header: Column names; should not be empty.
    ///   - rows: Records; each should have `header.count` fields for `decode` to read the result back.
    /// - Returns: UTF-8 CSV text without a byte-order mark.
    public static func encode(header: [String], rows: [[String]]) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(64 * (rows.count + 1))
        writeRecord(header, to: &out)
        for row in rows { writeRecord(row, to: &out) }
        return Data(out)
    }

    // MARK: - Reading

    private struct CSVFailure: Error {
        var message: String
        var offset: Int?
        var line: Int?
    }

    private static let quote: UInt8 = 0x22
    private static let comma: UInt8 = 0x2C

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(CSVFailure) -> CSVTable {
        let n = bytes.count
        var pos = 0
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { pos = 3 }
        var line = 1
        var header: [String]?
        var rows: [[String]] = []
        var lineNumbers: [Int] = []
        var buffer: [UInt8] = []

        func string(_ slice: UnsafeBufferPointer<UInt8>, at offset: Int) throws(CSVFailure) -> String {
            guard let s = String(validating: slice, as: UTF8.self) else {
                throw CSVFailure(message: "invalid UTF-8 in field", offset: offset)
            }
            return s
        }

        while pos < n {
            let b = bytes[pos]
            if b == ASCII.lineFeed || b == ASCII.carriageReturn {  // a blank line
                pos += 1
                if b == ASCII.carriageReturn, pos < n, bytes[pos] == ASCII.lineFeed { pos += 1 }
                line += 1
                continue
            }
            let recordLine = line
            var fields: [String] = []
            fields.reserveCapacity(header?.count ?? 8)
            while true {
                if pos < n, bytes[pos] == quote {
                    let start = pos
                    pos += 1
                    buffer.removeAll(keepingCapacity: true)
                    var run = pos
                    while true {
                        guard pos < n else { throw CSVFailure(message: "unterminated quoted field", offset: start) }
                        let c = bytes[pos]
                        if c == quote {
                            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<pos]))
                            if pos + 1 < n, bytes[pos + 1] == quote {
                                buffer.append(quote)
                                pos += 2
                                run = pos
                                continue
                            }
                            pos += 1
                            break
                        }
                        if c == ASCII.lineFeed {
                            line += 1
                        } else if c == ASCII.carriageReturn, pos + 1 >= n || bytes[pos + 1] != ASCII.lineFeed {
                            line += 1
                        }
                        pos += 1
                    }
                    fields.append(
                        try buffer.withUnsafeBufferPointer { b throws(CSVFailure) in try string(b, at: start) })
                    if pos < n {
                        let c = bytes[pos]
                        guard c == comma || c == ASCII.lineFeed || c == ASCII.carriageReturn else {
                            throw CSVFailure(
                                message:
                                    "unexpected \(ASCII.describe(c)) after a closing quote (expected ',' or a line end)",
                                offset: pos)
                        }
                    }
                } else {
                    let start = pos
                    while pos < n {
                        let c = bytes[pos]
                        if c == comma || c == ASCII.lineFeed || c == ASCII.carriageReturn { break }
                        if c == quote {
                            throw CSVFailure(
                                message: "quote inside an unquoted field (quote the whole field and double the quote)",
                                offset: pos)
                        }
                        pos += 1
                    }
                    fields.append(try string(UnsafeBufferPointer(rebasing: bytes[start..<pos]), at: start))
                }
                if pos < n, bytes[pos] == comma {
                    pos += 1
                    continue
                }
                if pos < n {  // a line end
                    if bytes[pos] == ASCII.carriageReturn, pos + 1 < n, bytes[pos + 1] == ASCII.lineFeed { pos += 1 }
                    pos += 1
                    line += 1
                }
                break
            }
            if let header {
                guard fields.count == header.count else {
                    throw CSVFailure(
                        message: "the row has \(fields.count) field\(fields.count == 1 ? "" : "s"), "
                            + "the header has \(header.count)",
                        line: recordLine)
                }
                rows.append(fields)
                lineNumbers.append(recordLine)
            } else {
                header = fields
            }
        }
        guard let header else { throw CSVFailure(message: "empty input (no header record)", line: 1) }
        return CSVTable(header: header, rows: rows, lineNumbers: lineNumbers)
    }

    // MARK: - Writing

    private static func writeRecord(_ fields: [String], to out: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(comma) }
            let utf8 = field.utf8
            let needsQuotes =
                (fields.count == 1 && field.isEmpty)
                || utf8.starts(with: [0xEF, 0xBB, 0xBF])
                || utf8.contains { $0 == comma || $0 == quote || $0 == ASCII.lineFeed || $0 == ASCII.carriageReturn }
            if needsQuotes {
                out.append(quote)
                for b in utf8 {
                    out.append(b)
                    if b == quote { out.append(quote) }
                }
                out.append(quote)
            } else {
                out.append(contentsOf: utf8)
            }
        }
        out.append(ASCII.carriageReturn)
        out.append(ASCII.lineFeed)
    }
}
