// A hand-written JSON (RFC 8259) scanner over UTF-8 bytes, shared by `JSONValue.decode` and the GeoJSON reader.
//
// It never builds per-character Strings: it walks an `UnsafeBufferPointer<UInt8>` and remembers byte offsets only;
// the 1-based line and column of an error are computed from the offset once, when the error is reported.

/// A problem found while reading JSON text: what and at which byte offset (and in which feature, for GeoJSON).
struct JSONFailure: Error {
    /// What is wrong.
    var message: String
    /// Byte offset of the problem in the input (may equal the input's length for "unexpected end of input").
    var offset: Int
    /// The 0-based feature index, for GeoJSON.
    var feature: Int?

    init(_ message: String, at offset: Int, feature: Int? = nil) {
        self.message = message
        self.offset = offset
        self.feature = feature
    }

    /// The public error, with the offset turned into a line and column.
    func formatError(_ format: String, in bytes: UnsafeBufferPointer<UInt8>) -> FormatError {
        let place = TextPosition.lineAndColumn(ofOffset: offset, in: bytes)
        return FormatError(format: format, message: message, line: place.line, column: place.column, feature: feature)
    }
}

/// Line/column arithmetic over UTF-8 text.
enum TextPosition {
    /// The 1-based line and column (counted in Unicode scalars) of a byte offset.
    ///
    /// LF, CRLF and a lone CR each end a line. A leading UTF-8 byte-order mark is not counted as a column.
    static func lineAndColumn(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var column = 1
        var i = 0
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < end {
            let b = bytes[i]
            if b == ASCII.lineFeed {
                line += 1
                column = 1
            } else if b == ASCII.carriageReturn {
                if i + 1 >= bytes.count || bytes[i + 1] != ASCII.lineFeed {
                    line += 1
                    column = 1
                }
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    /// The 1-based lines of ascending byte offsets, in one pass (line ends as `lineAndColumn(ofOffset:in:)` counts
    /// them).
    static func lines(ofOffsets offsets: [Int], in bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(offsets.count)
        var line = 1
        var i = 0
        for offset in offsets {
            let end = min(max(offset, i), bytes.count)
            while i < end {
                let b = bytes[i]
                if b == ASCII.lineFeed || (b == ASCII.carriageReturn && (i + 1 >= bytes.count || bytes[i + 1] != ASCII.lineFeed)) {
                    line += 1
                }
                i += 1
            }
            result.append(line)
        }
        return result
    }
}

/// Byte values of the ASCII characters the scanners look for.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let colon: UInt8 = 0x3A
    static let upperE: UInt8 = 0x45
    static let upperI: UInt8 = 0x49
    static let upperN: UInt8 = 0x4E
    static let leftBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let rightBracket: UInt8 = 0x5D
    static let lowerE: UInt8 = 0x65
    static let lowerF: UInt8 = 0x66
    static let lowerN: UInt8 = 0x6E
    static let lowerT: UInt8 = 0x74
    static let leftBrace: UInt8 = 0x7B
    static let rightBrace: UInt8 = 0x7D

    /// A short, printable description of a byte for error messages.
    static func describe(_ b: UInt8) -> String {
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        if b == space { return "a space" }
        if b >= 0x80 { return "a non-ASCII character" }
        let hex = String(b, radix: 16, uppercase: true)
        return "control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex)"
    }
}

/// Exact powers of ten for the number fast paths.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
]

#if arch(x86_64) && !os(Windows)
    /// 10^0 … 10^27, all exact in Float80's 64-bit significand (5^27 < 2^63).
    private let exactPowersOfTen80: [Float80] = {
        var p: [Float80] = [1]
        for _ in 1...27 { p.append(p[p.count - 1] * 10) }
        return p
    }()
#endif

/// A cursor over JSON text. Offsets are byte offsets into `bytes`.
struct JSONScanner {
    /// The whole document.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var position = 0
    /// How many arrays/objects enclose `position`.
    var depth = 0
    /// The deepest nesting accepted; deeper input is an error, not a stack overflow.
    static let maxDepth = 512

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Whitespace and punctuation

    /// Skips a UTF-8 byte-order mark at the start, then whitespace.
    mutating func skipBOMAndWhitespace() throws(JSONFailure) {
        if position == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
    }

    /// Skips JSON whitespace (space, tab, LF, CR).
    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            let b = bytes[position]
            guard b == ASCII.space || b == ASCII.lineFeed || b == ASCII.carriageReturn || b == ASCII.tab else { return }
            position += 1
        }
    }

    /// The next non-whitespace byte, not consumed; `nil` at the end.
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// A failure at `position` saying what was expected and what was found.
    func unexpected(_ expected: String) -> JSONFailure {
        guard position < bytes.count else {
            return JSONFailure("unexpected end of input, expected \(expected)", at: position)
        }
        return JSONFailure("expected \(expected), found \(ASCII.describe(bytes[position]))", at: position)
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws(JSONFailure) {
        skipWhitespace()
        if position < bytes.count {
            throw JSONFailure(
                "unexpected \(ASCII.describe(bytes[position])) after the end of the JSON value", at: position)
        }
    }

    @inline(__always)
    private mutating func enter() throws(JSONFailure) {
        depth += 1
        if depth > JSONScanner.maxDepth {
            throw JSONFailure("nesting deeper than \(JSONScanner.maxDepth) arrays/objects", at: position)
        }
    }

    // MARK: Objects and arrays

    /// Consumes the `{` at the current position (after whitespace).
    mutating func beginObject() throws(JSONFailure) {
        guard peek() == ASCII.leftBrace else { throw unexpected("'{'") }
        try enter()
        position += 1
    }

    /// The next member's key and the key's offset, leaving the position at the member's value; `nil` after
    /// consuming the closing `}`. Start with `first = true`.
    mutating func nextKey(first: inout Bool) throws(JSONFailure) -> (key: String, offset: Int)? {
        guard try atNextKey(first: &first) else { return nil }
        let offset = position
        let key = try parseString()
        try expectColon()
        skipWhitespace()
        return (key, offset)
    }

    /// Moves to the next member's key (past the `,` before it), or consumes the closing `}` and returns `false`.
    @inline(__always)
    private mutating func atNextKey(first: inout Bool) throws(JSONFailure) -> Bool {
        guard let b = peek() else { throw unexpected(first ? "a string key or '}'" : "',' or '}'") }
        if b == ASCII.rightBrace {
            position += 1
            depth -= 1
            return false
        }
        if first {
            guard b == ASCII.quote else { throw unexpected("a string key or '}'") }
            first = false
        } else {
            guard b == ASCII.comma else { throw unexpected("',' or '}'") }
            position += 1
            guard peek() == ASCII.quote else { throw unexpected("a string key") }
        }
        return true
    }

    /// Consumes the `:` after a member's key.
    @inline(__always)
    private mutating func expectColon() throws(JSONFailure) {
        guard peek() == ASCII.colon else { throw unexpected("':'") }
        position += 1
    }

    /// Consumes the `[` at the current position (after whitespace).
    mutating func beginArray() throws(JSONFailure) {
        guard peek() == ASCII.leftBracket else { throw unexpected("'['") }
        try enter()
        position += 1
    }

    /// Whether another element follows (the position is then at it); `false` after consuming the closing `]`.
    /// Start with `first = true`.
    mutating func nextElement(first: inout Bool) throws(JSONFailure) -> Bool {
        guard let b = peek() else { throw unexpected(first ? "a value or ']'" : "',' or ']'") }
        if b == ASCII.rightBracket {
            position += 1
            depth -= 1
            return false
        }
        if first {
            first = false
            return true
        }
        guard b == ASCII.comma else { throw unexpected("',' or ']'") }
        position += 1
        guard let c = peek(), c != ASCII.rightBracket else { throw unexpected("a value") }
        return true
    }

    // MARK: Values

    /// Parses any value into a `JSONValue`.
    mutating func parseValue() throws(JSONFailure) -> JSONValue {
        guard let b = peek() else { throw unexpected("a value") }
        switch b {
        case ASCII.leftBrace:
            try beginObject()
            var object: [String: JSONValue] = [:]
            var first = true
            while let member = try nextKey(first: &first) { object[member.key] = try parseValue() }
            return .object(object)
        case ASCII.leftBracket:
            try beginArray()
            var array: [JSONValue] = []
            var first = true
            while try nextElement(first: &first) { array.append(try parseValue()) }
            return .array(array)
        case ASCII.quote:
            return .string(try parseString())
        case ASCII.lowerT:
            try literal("true")
            return .bool(true)
        case ASCII.lowerF:
            try literal("false")
            return .bool(false)
        case ASCII.lowerN:
            try literal("null")
            return .null
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return .number(try parseNumber())
        case ASCII.upperN, ASCII.upperI:
            throw JSONFailure("NaN and Infinity are not valid JSON numbers", at: position)
        default:
            throw unexpected("a value")
        }
    }

    /// Checks the syntax of any value and moves past it without building it.
    mutating func skipValue() throws(JSONFailure) {
        guard let b = peek() else { throw unexpected("a value") }
        switch b {
        case ASCII.leftBrace:
            try beginObject()
            var first = true
            while try nextKeySkippingKey(first: &first) { try skipValue() }
        case ASCII.leftBracket:
            try beginArray()
            var first = true
            while try nextElement(first: &first) { try skipValue() }
        case ASCII.quote:
            try skipString()
        case ASCII.lowerT:
            try literal("true")
        case ASCII.lowerF:
            try literal("false")
        case ASCII.lowerN:
            try literal("null")
        case ASCII.minus, ASCII.zero...ASCII.nine:
            _ = try scanNumber(evaluate: false)
        case ASCII.upperN, ASCII.upperI:
            throw JSONFailure("NaN and Infinity are not valid JSON numbers", at: position)
        default:
            throw unexpected("a value")
        }
    }

    /// `nextKey` without building the key.
    private mutating func nextKeySkippingKey(first: inout Bool) throws(JSONFailure) -> Bool {
        guard try atNextKey(first: &first) else { return false }
        try skipString()
        try expectColon()
        return true
    }

    private mutating func literal(_ word: StaticString) throws(JSONFailure) {
        let start = position
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<n where position + k >= bytes.count || bytes[position + k] != w[k] {
            throw JSONFailure("invalid literal (expected '\(word)')", at: start)
        }
        position += n
    }

    // MARK: Strings

    /// Parses the string at the current position (which must be at its opening quote).
    mutating func parseString() throws(JSONFailure) -> String {
        let start = position
        position += 1
        var i = position
        var ascii = true
        while i < bytes.count {
            let b = bytes[i]
            if b == ASCII.quote {
                let slice = UnsafeBufferPointer(rebasing: bytes[position..<i])
                position = i + 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw JSONFailure("invalid UTF-8 in string", at: start)
                }
                return s
            }
            if b == ASCII.backslash { break }
            if b < 0x20 { throw JSONFailure("unescaped \(ASCII.describe(b)) in string", at: i) }
            if b >= 0x80 { ascii = false }
            i += 1
        }
        guard i < bytes.count else { throw JSONFailure("unterminated string", at: start) }
        // Slow path: the string has escapes.
        var buffer = [UInt8](UnsafeBufferPointer(rebasing: bytes[position..<i]))
        position = i
        while true {
            guard position < bytes.count else { throw JSONFailure("unterminated string", at: start) }
            let b = bytes[position]
            if b == ASCII.quote {
                position += 1
                guard let s = String(validating: buffer, as: UTF8.self) else {
                    throw JSONFailure("invalid UTF-8 in string", at: start)
                }
                return s
            } else if b == ASCII.backslash {
                let scalar = try escape()
                UTF8.encode(scalar) { buffer.append($0) }
            } else if b < 0x20 {
                throw JSONFailure("unescaped \(ASCII.describe(b)) in string", at: position)
            } else {
                buffer.append(b)
                position += 1
            }
        }
    }

    /// Checks the string at the current position and moves past it.
    mutating func skipString() throws(JSONFailure) {
        let start = position
        position += 1
        var ascii = true
        while position < bytes.count {
            let b = bytes[position]
            if b == ASCII.quote {
                if !ascii,
                    String(validating: UnsafeBufferPointer(rebasing: bytes[start + 1..<position]), as: UTF8.self)
                        == nil
                {
                    throw JSONFailure("invalid UTF-8 in string", at: start)
                }
                position += 1
                return
            }
            if b == ASCII.backslash {
                _ = try escape()
                continue
            }
            if b < 0x20 { throw JSONFailure("unescaped \(ASCII.describe(b)) in string", at: position) }
            if b >= 0x80 { ascii = false }
            position += 1
        }
        throw JSONFailure("unterminated string", at: start)
    }

    /// Reads the escape sequence at the current position (a backslash) and returns the character it stands for.
    private mutating func escape() throws(JSONFailure) -> Unicode.Scalar {
        let start = position
        guard position + 1 < bytes.count else { throw JSONFailure("unterminated string", at: start) }
        let e = bytes[position + 1]
        position += 2
        switch e {
        case ASCII.quote: return "\""
        case ASCII.backslash: return "\\"
        case ASCII.slash: return "/"
        case 0x62: return "\u{08}"  // b
        case ASCII.lowerF: return "\u{0C}"
        case ASCII.lowerN: return "\n"
        case 0x72: return "\r"  // r
        case ASCII.lowerT: return "\t"
        case 0x75:  // u
            let unit = try hex4(escapeStart: start)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JSONFailure("unpaired low surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: start)
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard position + 1 < bytes.count, bytes[position] == ASCII.backslash, bytes[position + 1] == 0x75 else {
                    throw JSONFailure(
                        "unpaired high surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: start)
                }
                let lowStart = position
                position += 2
                let low = try hex4(escapeStart: lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw JSONFailure(
                        "unpaired high surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: start)
                }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                return Unicode.Scalar(value)!  // in 0x10000...0x10FFFF by construction
            }
            return Unicode.Scalar(unit)!  // not a surrogate
        default:
            throw JSONFailure("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: start)
        }
    }

    /// Four hex digits at the current position.
    private mutating func hex4(escapeStart: Int) throws(JSONFailure) -> UInt16 {
        var v: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw JSONFailure("unterminated string", at: escapeStart) }
            let b = bytes[position]
            let d: UInt8
            switch b {
            case ASCII.zero...ASCII.nine: d = b - ASCII.zero
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw JSONFailure("invalid \\u escape (expected 4 hex digits)", at: escapeStart)
            }
            v = v << 4 | UInt16(d)
            position += 1
        }
        return v
    }

    // MARK: Numbers

    /// Parses the number at the current position; NaN, infinities and values beyond ±1.8e308 are errors.
    @inline(__always)
    mutating func parseNumber() throws(JSONFailure) -> Double {
        try scanNumber(evaluate: true)
    }

    /// Checks the JSON number grammar at the current position, moves past it and (if `evaluate`) returns its
    /// correctly rounded value. Without `evaluate` the value is only computed when it might overflow.
    mutating func scanNumber(evaluate: Bool) throws(JSONFailure) -> Double {
        let start = position
        let n = bytes.count
        var i = position
        var negative = false
        if bytes[i] == ASCII.minus {
            negative = true
            i += 1
        }
        guard i < n, bytes[i] &- ASCII.zero < 10 else {
            if i < n, bytes[i] == ASCII.upperI || bytes[i] == ASCII.upperN {
                throw JSONFailure("NaN and Infinity are not valid JSON numbers", at: start)
            }
            position = i
            throw unexpected("a digit")
        }
        var mantissa: UInt64 = 0  // up to 19 significant digits
        var digits = 0  // significant digits in `mantissa`
        var exponent = 0  // value = mantissa × 10^exponent (when not truncated)
        var truncated = false  // a non-zero digit did not fit in `mantissa`
        if bytes[i] == ASCII.zero {
            i += 1
            if i < n, bytes[i] &- ASCII.zero < 10 {
                throw JSONFailure("leading zeros are not allowed in numbers", at: start)
            }
        } else {
            while i < n {
                let d = bytes[i] &- ASCII.zero
                guard d < 10 else { break }
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                } else {
                    if d != 0 { truncated = true }
                    exponent += 1
                }
                i += 1
            }
        }
        if i < n, bytes[i] == ASCII.dot {
            i += 1
            guard i < n, bytes[i] &- ASCII.zero < 10 else {
                position = i
                throw unexpected("a digit after '.'")
            }
            while i < n {
                let d = bytes[i] &- ASCII.zero
                guard d < 10 else { break }
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    if mantissa != 0 { digits += 1 }
                    exponent -= 1
                } else if d != 0 {
                    truncated = true
                }
                i += 1
            }
        }
        if i < n, bytes[i] == ASCII.lowerE || bytes[i] == ASCII.upperE {
            i += 1
            var expNegative = false
            if i < n, bytes[i] == ASCII.plus || bytes[i] == ASCII.minus {
                expNegative = bytes[i] == ASCII.minus
                i += 1
            }
            guard i < n, bytes[i] &- ASCII.zero < 10 else {
                position = i
                throw unexpected("a digit in the exponent")
            }
            var e = 0
            while i < n {
                let d = bytes[i] &- ASCII.zero
                guard d < 10 else { break }
                if e < 1_000_000 { e = e * 10 + Int(d) }
                i += 1
            }
            exponent += expNegative ? -e : e
        }
        position = i
        if mantissa == 0 && !truncated { return negative ? -0.0 : 0.0 }
        // Magnitude is below 10^(digits + exponent); only evaluate skipped numbers that may overflow.
        if !evaluate && digits + exponent < 300 { return 0 }
        if !truncated && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            // Clinger's fast path: both operands are exact, so one rounding gives the correctly rounded result.
            let m = Double(mantissa)
            let v = exponent >= 0 ? m * exactPowersOfTen[exponent] : m / exactPowersOfTen[-exponent]
            return negative ? -v : v
        }
        #if arch(x86_64) && !os(Windows)
            if !truncated && exponent >= -27 && exponent <= 27 {
                // Float80 holds the mantissa (< 10^19 < 2^64) and 10^|exponent| exactly, so the product/quotient is
                // rounded once to 64 bits. Rounding that to 53 bits is correct unless the 11 discarded bits sit within
                // one unit of the half-way pattern 0x400, in which case the slow path decides.
                let m = Float80(mantissa)
                let v = exponent >= 0 ? m * exactPowersOfTen80[exponent] : m / exactPowersOfTen80[-exponent]
                let low = v.significandBitPattern & 0x7FF
                if low < 0x3FF || low > 0x401 {
                    let d = Double(v)
                    return negative ? -d : d
                }
            }
        #endif
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            throw JSONFailure("number out of range (beyond ±1.8e308)", at: start)
        }
        return v
    }
}
