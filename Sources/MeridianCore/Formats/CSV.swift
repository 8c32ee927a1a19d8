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
            var reader = CSVRecordReader(raw.bindMemory(to: UInt8.self))
            do throws(FormatError) {
                guard try reader.next() else {
                    throw FormatError(format: "CSV", message: "empty input (no header record)", line: 1)
                }
                let header = try reader.strings()
                var rows: [[String]] = []
                var lineNumbers: [Int] = []
                while try reader.next() {
                    try reader.requireFieldCount(header.count)
                    rows.append(try reader.strings())
                    lineNumbers.append(reader.recordLine)
                }
                return .success(CSVTable(header: header, rows: rows, lineNumbers: lineNumbers))
            } catch {
                return .failure(error)
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
        var out = ByteBuffer(capacity: 64 * (rows.count + 1))
        appendRecord(header, to: &out)
        for row in rows { appendRecord(row, to: &out) }
        return out.data()
    }

    // MARK: - Writing

    /// Appends one record (the quoting rules of `encode(header:rows:)`, CRLF line end), then lets a streaming buffer
    /// drain.
    /// - Parameters:
    ///   - fields: The record's fields.
    ///   - out: The output.
    public static func appendRecord(_ fields: [String], to out: inout ByteBuffer) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(comma) }
            appendField(field, alone: fields.count == 1, to: &out)
        }
        endRecord(&out)
    }

    /// Appends one field, quoted when it must be (see `encode(header:rows:)`).
    /// - Parameters:
    ///   - field: The text.
    ///   - alone: Whether it is its record's only field (an empty one is then quoted).
    ///   - out: The output.
    public static func appendField(_ field: String, alone: Bool = false, to out: inout ByteBuffer) {
        let utf8 = field.utf8
        let needsQuotes =
            (alone && field.isEmpty)
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
            out.append(field)
        }
    }

    /// Appends one field given as UTF-8 bytes, quoted when it must be: the same bytes as `appendField(_:alone:to:)`
    /// of the text they spell, without making the text.
    /// - Parameters:
    ///   - field: The text's UTF-8 bytes.
    ///   - alone: Whether it is its record's only field (an empty one is then quoted).
    ///   - out: The output.
    public static func appendField(bytes field: UnsafeRawBufferPointer, alone: Bool = false, to out: inout ByteBuffer) {
        let needsQuotes =
            (alone && field.isEmpty)
            || field.starts(with: [0xEF, 0xBB, 0xBF])
            || field.contains { $0 == comma || $0 == quote || $0 == ASCII.lineFeed || $0 == ASCII.carriageReturn }
        guard needsQuotes else {
            out.append(field)
            return
        }
        out.append(quote)
        for b in field {
            out.append(b)
            if b == quote { out.append(quote) }
        }
        out.append(quote)
    }

    /// Ends a record written field by field: CRLF, then lets a streaming buffer drain.
    /// - Parameter out: The output.
    public static func endRecord(_ out: inout ByteBuffer) {
        out.append(ASCII.carriageReturn)
        out.append(ASCII.lineFeed)
        out.flushIfFull()
    }

    static let quote: UInt8 = 0x22
    static let comma: UInt8 = 0x2C
}

/// Reads CSV records one at a time straight from bytes (RFC 4180: quoted fields may hold commas, doubled quotes and
/// line breaks; CRLF, LF or CR line ends; a leading byte-order mark is skipped; blank lines are skipped). A field is
/// a range of the input, or of a scratch buffer for a quoted field with doubled quotes, so reading numbers makes no
/// `String`. Use it within the lifetime of the bytes.
///
/// Bounds: a field longer than `maximumFieldBytes` and a NUL byte (CSV is text) are refused with their line and
/// column, before any field becomes a `String` (a 2 GB field once made a 3.9 GB peak, a 3.5 GB one an abort).
public struct CSVRecordReader {
    /// The longest field accepted: 16 MiB.
    public static let maximumFieldBytes = 16 << 20
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the text read ends: `bytes.count`, or the end of the range given to `init(_:range:line:)`.
    private let end: Int
    private var pos = 0
    /// The 1-based line the reader is on: the line on which its next record (or blank line) starts.
    public private(set) var line = 1
    /// The 1-based line on which the current record starts.
    public private(set) var recordLine = 0
    // Field i: bytes[starts[i]..<ends[i]], or scratch[...] when fromScratch[i]; offsets[i] is where it starts in
    // the input (for messages).
    private var starts: [Int] = []
    private var ends: [Int] = []
    private var fromScratch: [Bool] = []
    private var offsets: [Int] = []
    private var scratch: [UInt8] = []

    /// A reader at the start of the text.
    /// - Parameter bytes: UTF-8 CSV text.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        end = bytes.count
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { pos = 3 }
    }

    /// A reader of `range` of the text only, numbering its lines from `line`, for reading a text's parts on several
    /// threads. When the range starts and ends where a line does, outside any quoted field, it reads the records a
    /// reader of the whole text reads there, with the same fields and with the same lines if `line` is where that
    /// reader comes to the range; errors located by their offset (a stray quote, a NUL byte, invalid UTF-8) give
    /// their line and column in the whole text.
    /// - Parameters:
    ///   - bytes: The whole UTF-8 CSV text.
    ///   - range: The part to read.
    ///   - line: The 1-based line on which the part starts (or 1, to number the part's own lines).
    public init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>, line: Int) {
        self.bytes = bytes
        end = range.upperBound
        pos = range.lowerBound
        self.line = line
    }

    /// How far the reader has come, in bytes from the start of the input.
    public var offset: Int { pos }

    /// The number of fields of the current record.
    public var fieldCount: Int { starts.count }

    private func failure(_ message: String, at offset: Int) -> FormatError {
        let place = TextPosition.lineAndColumn(ofOffset: offset, in: bytes)
        return FormatError(format: "CSV", message: message, line: place.line, column: place.column)
    }

    /// Reads the next record, skipping blank lines.
    /// - Returns: false at the end of the input.
    /// - Throws: `FormatError` for an unterminated quoted field or a stray quote, with line and column.
    public mutating func next() throws(FormatError) -> Bool {
        let n = end
        let quote = CSV.quote, comma = CSV.comma
        while pos < n, bytes[pos] == ASCII.lineFeed || bytes[pos] == ASCII.carriageReturn {  // blank lines
            let b = bytes[pos]
            pos += 1
            if b == ASCII.carriageReturn, pos < n, bytes[pos] == ASCII.lineFeed { pos += 1 }
            line += 1
        }
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        fromScratch.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        guard pos < n else { return false }
        recordLine = line
        while true {
            if pos < n, bytes[pos] == quote {
                let start = pos
                pos += 1
                let scratchStart = scratch.count
                var run = pos
                var doubled = false
                while true {
                    guard pos < n else { throw failure("unterminated quoted field", at: start) }
                    let c = bytes[pos]
                    if c == 0 { throw failure("a NUL byte inside a quoted field (CSV is text: is this binary data?)", at: pos) }
                    if c == quote {
                        if pos + 1 < n, bytes[pos + 1] == quote {
                            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...pos]))
                            doubled = true
                            pos += 2
                            run = pos
                            continue
                        }
                        break
                    }
                    if c == ASCII.lineFeed {
                        line += 1
                    } else if c == ASCII.carriageReturn, pos + 1 >= n || bytes[pos + 1] != ASCII.lineFeed {
                        line += 1
                    }
                    pos += 1
                }
                try requireFieldSize(pos - start - 1, at: start)
                if doubled {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<pos]))
                    starts.append(scratchStart)
                    ends.append(scratch.count)
                    fromScratch.append(true)
                } else {
                    starts.append(start + 1)
                    ends.append(pos)
                    fromScratch.append(false)
                }
                offsets.append(start)
                pos += 1  // the closing quote
                if pos < n {
                    let c = bytes[pos]
                    guard c == comma || c == ASCII.lineFeed || c == ASCII.carriageReturn else {
                        throw failure(
                            "unexpected \(ASCII.describe(c)) after a closing quote (expected ',' or a line end)",
                            at: pos)
                    }
                }
            } else {
                let start = pos
                while pos < n {
                    let c = bytes[pos]
                    if c == comma || c == ASCII.lineFeed || c == ASCII.carriageReturn { break }
                    if c == quote {
                        throw failure(
                            "quote inside an unquoted field (quote the whole field and double the quote)", at: pos)
                    }
                    if c == 0 { throw failure("a NUL byte (CSV is text: is this binary data?)", at: pos) }
                    pos += 1
                }
                try requireFieldSize(pos - start, at: start)
                starts.append(start)
                ends.append(pos)
                fromScratch.append(false)
                offsets.append(start)
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
            return true
        }
    }

    /// Refuses a field longer than `maximumFieldBytes`.
    private func requireFieldSize(_ size: Int, at start: Int) throws(FormatError) {
        guard size <= Self.maximumFieldBytes else {
            throw failure("a field of \(size) bytes, more than the \(Self.maximumFieldBytes) (16 MiB) a field may hold", at: start)
        }
    }

    /// Refuses a record whose field count differs from the header's.
    /// - Parameter count: The header's field count (1 or more).
    /// - Throws: `FormatError` naming the record's line.
    public func requireFieldCount(_ count: Int) throws(FormatError) {
        guard fieldCount == count else {
            throw FormatError(
                format: "CSV",
                message: "the row has \(fieldCount) field\(fieldCount == 1 ? "" : "s"), the header has \(count)",
                line: recordLine)
        }
    }

    /// The bytes of field `i` of the current record (unquoted), valid during the call.
    /// - Parameters:
    ///   - i: The field's index, 0 ..< `fieldCount`.
    ///   - body: Reads the bytes.
    public func withField<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if fromScratch[i] {
            return try scratch.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[starts[i]..<ends[i]])) }
        }
        return try body(UnsafeBufferPointer(rebasing: bytes[starts[i]..<ends[i]]))
    }

    /// Field `i` as text.
    /// - Parameter i: The field's index, 0 ..< `fieldCount`.
    /// - Throws: `FormatError` for invalid UTF-8, with line and column.
    public func string(_ i: Int) throws(FormatError) -> String {
        guard let s = withField(i, { String(validating: $0, as: UTF8.self) }) else {
            throw failure("invalid UTF-8 in field", at: offsets[i])
        }
        return s
    }

    /// Every field of the current record as text.
    /// - Throws: `FormatError` for invalid UTF-8.
    public func strings() throws(FormatError) -> [String] {
        var out: [String] = []
        out.reserveCapacity(fieldCount)
        for i in 0..<fieldCount { out.append(try string(i)) }
        return out
    }

    /// Field `i` as a finite number (spaces and tabs around it ignored; decimal notation only, see
    /// `DecimalText.parse`), or nil.
    /// - Parameter i: The field's index, 0 ..< `fieldCount`.
    public func number(_ i: Int) -> Double? {
        withField(i) { f in
            var a = 0, b = f.count
            while a < b, f[a] == ASCII.space || f[a] == ASCII.tab { a += 1 }
            while b > a, f[b - 1] == ASCII.space || f[b - 1] == ASCII.tab { b -= 1 }
            return DecimalText.parse(f, a, b)
        }
    }
}
