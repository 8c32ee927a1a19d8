// JSON text output into a byte buffer, shared by `JSONValue.encoded` and the GeoJSON writer.

/// Appends JSON text to `bytes` (the shared output buffer, which may stream to a file).
struct JSONWriter: ~Copyable {
    /// The output so far (UTF-8).
    var bytes: ByteBuffer
    /// Whether to indent (two spaces) and break lines.
    let pretty: Bool
    /// Current indentation level (pretty mode).
    private var level = 0

    init(pretty: Bool, capacity: Int = 256) {
        self.pretty = pretty
        bytes = ByteBuffer(capacity: capacity)
    }

    /// A writer appending to an existing buffer (`finish()` gives it back).
    init(pretty: Bool, into bytes: consuming ByteBuffer) {
        self.pretty = pretty
        self.bytes = bytes
    }

    /// Ends writing and returns the buffer.
    consuming func finish() -> ByteBuffer { bytes }

    // MARK: Scalars

    /// Writes `null`.
    mutating func writeNull() { append("null") }

    /// Writes `true` or `false`.
    mutating func writeBool(_ b: Bool) { append(b ? "true" : "false") }

    /// Writes a number: the shortest text that reads back to the same double (Swift's `description`), integral values
    /// below 10^16 in magnitude without a fraction, −0 as `0`, and NaN/±infinity as `null`.
    mutating func writeNumber(_ d: Double) {
        Self.appendNumber(d, to: &bytes)
    }

    /// Appends a number as `writeNumber(_:)` writes it, to bytes without a writer (`GeoJSON`'s positions).
    @inline(__always)
    static func appendNumber(_ d: Double, to bytes: inout ByteBuffer) {
        if !d.isFinite {
            bytes.append("null" as StaticString)
        } else if d == 0 {
            bytes.append(ASCII.zero)
        } else if d.magnitude < 1e16 && Double(Int64(d)) == d {  // a whole number (tested without a libm call)
            bytes.appendInteger(Int(d))
        } else {
            bytes.appendNumber(d)
        }
    }

    /// Writes a string with the escapes JSON requires (quote, backslash, control characters); other characters,
    /// including non-ASCII ones, are written as UTF-8.
    mutating func writeString(_ s: String) {
        Self.appendString(s, to: &bytes)
    }

    /// Appends a string as `writeString(_:)` writes it, to bytes without a writer (`ByteBuffer.appendJSONString`).
    static func appendString(_ s: String, to bytes: inout ByteBuffer) {
        bytes.append(ASCII.quote)
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let b = utf8[i]
                guard b < 0x20 || b == ASCII.quote || b == ASCII.backslash else { continue }
                bytes.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[runStart..<i]))
                runStart = i + 1
                bytes.append(ASCII.backslash)
                switch b {
                case ASCII.quote: bytes.append(ASCII.quote)
                case ASCII.backslash: bytes.append(ASCII.backslash)
                case ASCII.lineFeed: bytes.append(ASCII.lowerN)
                case ASCII.carriageReturn: bytes.append(0x72)  // r
                case ASCII.tab: bytes.append(ASCII.lowerT)
                case 0x08: bytes.append(0x62)  // b
                case 0x0C: bytes.append(ASCII.lowerF)
                default:
                    let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
                    for u in [0x75, ASCII.zero, ASCII.zero, hex[Int(b >> 4)], hex[Int(b & 0xF)]] { bytes.append(u) }
                }
            }
            bytes.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[runStart..<utf8.count]))
        }
        bytes.append(ASCII.quote)
    }

    /// Appends ASCII text verbatim.
    mutating func append(_ text: StaticString) {
        bytes.append(text)
    }

    // MARK: Structure

    /// Writes `{` and increases the indentation.
    mutating func beginObject() {
        bytes.append(ASCII.leftBrace)
        level += 1
    }

    /// Writes the separator (if not `first`), a line break in pretty mode, the quoted key and the colon.
    mutating func key(_ k: String, first: inout Bool) {
        if !first { bytes.append(ASCII.comma) }
        first = false
        newline()
        writeString(k)
        bytes.append(ASCII.colon)
        if pretty { bytes.append(ASCII.space) }
    }

    /// Writes `}`, on its own line in pretty mode unless the object was empty.
    mutating func endObject(empty: Bool) {
        level -= 1
        if !empty { newline() }
        bytes.append(ASCII.rightBrace)
    }

    /// Writes `[` and increases the indentation.
    mutating func beginArray() {
        bytes.append(ASCII.leftBracket)
        level += 1
    }

    /// Writes the separator before an element: a comma (unless `first`) and, if `multiline` in pretty mode, a line
    /// break; inline elements are separated by ", " in pretty mode.
    mutating func element(first: inout Bool, multiline: Bool) {
        if !first { bytes.append(ASCII.comma) }
        if pretty {
            if multiline { newline() } else if !first { bytes.append(ASCII.space) }
        }
        first = false
    }

    /// Writes `]`, on its own line if `multiline` in pretty mode and the array was not empty.
    mutating func endArray(empty: Bool, multiline: Bool) {
        level -= 1
        if multiline && !empty { newline() }
        bytes.append(ASCII.rightBracket)
    }

    private mutating func newline() {
        guard pretty else { return }
        bytes.append(ASCII.lineFeed)
        bytes.append(repeating: ASCII.space, count: 2 * level)
    }

    // MARK: Values

    /// Writes any value; object keys are sorted by Unicode code point. In pretty mode, arrays holding only scalars
    /// are written on one line.
    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let b): writeBool(b)
        case .number(let d): writeNumber(d)
        case .string(let s): writeString(s)
        case .array(let a):
            let multiline = a.contains {
                if case .array = $0 { true } else if case .object = $0 { true } else { false }
            }
            beginArray()
            var first = true
            for v in a {
                element(first: &first, multiline: multiline)
                write(v)
            }
            endArray(empty: a.isEmpty, multiline: multiline)
        case .object(let o):
            writeObject(o)
        }
    }

    /// Writes an object with its keys sorted by Unicode code point.
    mutating func writeObject(_ o: [String: JSONValue]) {
        beginObject()
        var first = true
        for k in JSONWriter.sortedKeys(o) {
            key(k, first: &first)
            write(o[k]!)
        }
        endObject(empty: o.isEmpty)
    }

    /// Keys in Unicode code-point order (the order of their UTF-8 bytes).
    static func sortedKeys(_ o: [String: JSONValue]) -> [String] {
        o.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

extension ByteBuffer {
    /// Appends a number as MeridianCore's JSON writers (`JSONValue`, GeoJSON) write it: the shortest decimal that
    /// reads back as the same double, whole numbers below 10^16 in magnitude without a fraction (`12`, not `12.0`),
    /// −0 as `0`, exponent notation as Swift's `description` uses it (`1e-05`, `1e+16`), and NaN and ±infinity as
    /// `null` (a writer that must not write them checks first).
    /// - Parameter value: Any double.
    public mutating func appendJSONNumber(_ value: Double) {
        JSONWriter.appendNumber(value, to: &self)
    }

    /// Appends a string as MeridianCore's JSON writers write it: quoted, with the escapes JSON requires (quote,
    /// backslash, control characters); other characters, non-ASCII ones included, as UTF-8.
    /// - Parameter value: Any string.
    public mutating func appendJSONString(_ value: String) {
        JSONWriter.appendString(value, to: &self)
    }
}
