import Foundation

/// Any JSON value (RFC 8259), as read from or written to GeoJSON properties and other JSON documents.
///
/// Numbers are IEEE 754 doubles: integers beyond ±2^53 lose precision, as in JavaScript. Objects are unordered;
/// `JSONValue.encoded(pretty:)` writes their keys sorted by Unicode code point so output is deterministic.
/// NaN and ±infinity cannot be read (JSON has no spelling for them); if a value holds one it is written as `null`.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (finite when read from JSON).
    case number(Double)
    /// A string (any Unicode text; escapes are resolved).
    case string(String)
    /// An ordered array.
    case array([JSONValue])
    /// An object; when a document repeats a key, the last value wins.
    case object([String: JSONValue])

    // MARK: Accessors

    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The boolean, or `nil` when this is not `.bool`.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }

    /// The number, or `nil` when this is not `.number`.
    public var doubleValue: Double? { if case .number(let d) = self { d } else { nil } }

    /// The number as an `Int` when it is integral and within `Int`'s range, else `nil` (e.g. for 1.5 or for strings).
    public var intValue: Int? {
        guard case .number(let d) = self, d.rounded(.towardZero) == d, let i = Int(exactly: d) else { return nil }
        return i
    }

    /// The string, or `nil` when this is not `.string`.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// The elements, or `nil` when this is not `.array`.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// The members, or `nil` when this is not `.object`.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }

    /// The member named `key` of an object; `nil` when absent or when this is not an object.
    /// - Parameter key: A member name.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { o[key] } else { nil }
    }

    /// The element at `index` (0-based) of an array; `nil` when out of range or when this is not an array.
    /// - Parameter index: A 0-based position.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }

    // MARK: Reading and writing JSON text

    /// Parses a complete JSON document (UTF-8, optionally with a byte-order mark).
    ///
    /// Nesting is limited to 512 arrays/objects; numbers that overflow a double are rejected.
    /// - Parameter data: The document.
    /// - Returns: The value.
    /// - Throws: `FormatError` (format "JSON") with the 1-based line and column (in Unicode scalars) of the problem.
    public static func decode(_ data: Data) throws(FormatError) -> JSONValue {
        let result: Result<JSONValue, JSONFailure> = data.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            do throws(JSONFailure) {
                try scanner.skipBOMAndWhitespace()
                guard scanner.position < scanner.bytes.count else { throw JSONFailure("empty input", at: 0) }
                let value = try scanner.parseValue()
                try scanner.expectEnd()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let v): return v
        case .failure(let f): throw data.withUnsafeBytes { f.formatError("JSON", in: $0.bindMemory(to: UInt8.self)) }
        }
    }

    /// The value as compact (or indented) JSON text, UTF-8, keys sorted by Unicode code point.
    ///
    /// Numbers use the shortest text that reads back to the same double; integral values below 10^16 in magnitude are
    /// written without a fraction ("3", not "3.0"), −0 is written "0", and NaN/±infinity are written `null`.
    /// - Parameter pretty: Indent with two spaces and put each array element and object member on its own line.
    public func encoded(pretty: Bool = false) -> Data {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self)
        return writer.finish().data()
    }

    // MARK: Codable

    /// Decodes any JSON value from a single-value container (null, bool, number, string, array or object).
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.typeMismatch` when the content is none of these.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? c.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.typeMismatch(
                JSONValue.self, .init(codingPath: decoder.codingPath, debugDescription: "not a JSON value"))
        }
    }

    /// Encodes the value into a single-value container.
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text (see `encoded(pretty:)`).
    public var description: String { String(decoding: encoded(), as: UTF8.self) }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `nil` is `.null`.
    /// - Parameter nilLiteral: Nothing.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `true`/`false` are `.bool`.
    /// - Parameter value: The literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer literal is a `.number` (exact up to ±2^53).
    /// - Parameter value: The literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is a `.number`.
    /// - Parameter value: The literal.
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string literal is a `.string`.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array literal is an `.array`.
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// A dictionary literal is an `.object`; a repeated key keeps its last value.
    /// - Parameter elements: The members.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
