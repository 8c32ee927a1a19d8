import Foundation
import Meridian

/// The viewer's one JSON writer: every JSON answer of the API (the `Encodable` response types beside each endpoint,
/// and `{"error": …}`) is written by it, through `HTTPResponse.json(_:status:)`.
///
/// An `Encoder` that writes as it goes into a `ByteBuffer`, with MeridianCore's JSON text rules (`appendJSONNumber`,
/// `appendJSONString`: the shortest decimal that reads back as the same double, whole numbers without a fraction,
/// strings with the escapes JSON requires). Object keys come in the order the type encodes them. Polygons with
/// millions of vertices are the bulk of the answers: `CoordinateList` writes its numbers straight into the buffer
/// when it is encoded here, which keeps the writer about three times faster than `JSONEncoder` on them (and faster
/// than the hand-written writer it replaced).
///
/// A number that is not finite is never written: encoding fails (`EncodingError.invalidValue`) and the answer is a
/// 500, where `JSONEncoder` would fail too.
///
/// Streaming needs what every synthesized `encode(to:)` (and the viewer's own) does: a value's containers are used
/// one after the other, each finished before its parent writes its next element, and one container per encoder.
enum ViewerJSON {
    /// The JSON text of a value.
    /// - Parameter value: The value to write.
    /// - Throws: `EncodingError.invalidValue` for a number that is not finite, or a value that writes nothing.
    static func encode(_ value: some Encodable) throws -> Data {
        let writer = Writer()
        try writer.write(value, depth: 0, codingPath: [])
        writer.close(downTo: 0)
        return writer.bytes.withBytes { Data($0) }
    }

    /// The output and the containers open in it.
    final class Writer {
        var bytes = ByteBuffer(capacity: 1024)
        /// The open containers, outermost first: whether each is an object, and whether it holds an element yet.
        private var open: [(isObject: Bool, hasElements: Bool)] = []

        /// Closes the containers deeper than `depth` (those of values already finished).
        func close(downTo depth: Int) {
            while open.count > depth {
                bytes.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            }
        }

        /// Opens an object or array as the value at `depth`.
        func begin(object: Bool, depth: Int) {
            close(downTo: depth)
            bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
            open.append((object, false))
        }

        /// Starts the next element of the container at `depth` (finishing its previous element): a comma when it
        /// is not the first, then the key for an object.
        func element(of depth: Int, key: String?) {
            close(downTo: depth + 1)
            if open[depth].hasElements { bytes.append(UInt8(ascii: ",")) }
            open[depth].hasElements = true
            if let key {
                bytes.appendJSONString(key)
                bytes.append(UInt8(ascii: ":"))
            }
        }


        /// A finite number, or `EncodingError.invalidValue`.
        func number(_ d: Double, codingPath: [CodingKey]) throws {
            guard d.isFinite else {
                throw EncodingError.invalidValue(d, EncodingError.Context(
                    codingPath: codingPath, debugDescription: "\(d) is not a number JSON can hold"))
            }
            bytes.appendJSONNumber(d)
        }

        /// Writes an `Encodable` as the value at `depth`.
        func write(_ value: some Encodable, depth: Int, codingPath: [CodingKey]) throws {
            let start = bytes.count
            try value.encode(to: Node(writer: self, depth: depth, codingPath: codingPath))
            close(downTo: depth)
            guard bytes.count > start else {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: codingPath, debugDescription: "\(type(of: value)) wrote no value"))
            }
        }
    }

    /// The encoder of one value at a depth.
    struct Node: Encoder {
        let writer: Writer
        let depth: Int
        let codingPath: [CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            writer.begin(object: true, depth: depth)
            return KeyedEncodingContainer(Keyed<Key>(writer: writer, depth: depth, codingPath: codingPath))
        }

        func unkeyedContainer() -> UnkeyedEncodingContainer {
            writer.begin(object: false, depth: depth)
            return Unkeyed(writer: writer, depth: depth, codingPath: codingPath)
        }

        func singleValueContainer() -> SingleValueEncodingContainer {
            Single(writer: writer, depth: depth, codingPath: codingPath)
        }
    }

    /// An object's container.
    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: Writer
        let depth: Int
        let codingPath: [CodingKey]

        private func start(_ key: Key) { writer.element(of: depth, key: key.stringValue) }

        mutating func encodeNil(forKey key: Key) throws { start(key); writer.bytes.append("null" as StaticString) }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            start(key)
            writer.bytes.append(value ? "true" as StaticString : "false")
        }
        mutating func encode(_ value: String, forKey key: Key) throws { start(key); writer.bytes.appendJSONString(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            start(key)
            try writer.number(value, codingPath: codingPath + [key])
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { start(key); writer.bytes.appendInteger(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try encode(Double(value), forKey: key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { start(key); writer.bytes.append(String(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { start(key); writer.bytes.append(String(value)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            start(key)
            try writer.write(value, depth: depth + 1, codingPath: codingPath + [key])
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            start(key)
            return Node(writer: writer, depth: depth + 1, codingPath: codingPath + [key]).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            start(key)
            return Node(writer: writer, depth: depth + 1, codingPath: codingPath + [key]).unkeyedContainer()
        }
        mutating func superEncoder() -> Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
        mutating func superEncoder(forKey key: Key) -> Encoder {
            start(key)
            return Node(writer: writer, depth: depth + 1, codingPath: codingPath + [key])
        }
    }

    /// An array's container.
    struct Unkeyed: UnkeyedEncodingContainer {
        let writer: Writer
        let depth: Int
        let codingPath: [CodingKey]
        private(set) var count = 0

        init(writer: Writer, depth: Int, codingPath: [CodingKey]) {
            self.writer = writer
            self.depth = depth
            self.codingPath = codingPath
        }

        private mutating func start() {
            writer.element(of: depth, key: nil)
            count += 1
        }

        private var index: CodingKey { IndexKey(intValue: count) }

        mutating func encodeNil() throws { start(); writer.bytes.append("null" as StaticString) }
        mutating func encode(_ value: Bool) throws { start(); writer.bytes.append(value ? "true" as StaticString : "false") }
        mutating func encode(_ value: String) throws { start(); writer.bytes.appendJSONString(value) }
        mutating func encode(_ value: Double) throws {
            let key = index
            start()
            try writer.number(value, codingPath: codingPath + [key])
        }
        mutating func encode(_ value: Int) throws { start(); writer.bytes.appendInteger(value) }
        mutating func encode(_ value: Float) throws { try encode(Double(value)) }
        mutating func encode(_ value: Int8) throws { try encode(Int(value)) }
        mutating func encode(_ value: Int16) throws { try encode(Int(value)) }
        mutating func encode(_ value: Int32) throws { try encode(Int(value)) }
        mutating func encode(_ value: Int64) throws { try encode(Int(value)) }
        mutating func encode(_ value: UInt) throws { start(); writer.bytes.append(String(value)) }
        mutating func encode(_ value: UInt8) throws { try encode(Int(value)) }
        mutating func encode(_ value: UInt16) throws { try encode(Int(value)) }
        mutating func encode(_ value: UInt32) throws { try encode(Int(value)) }
        mutating func encode(_ value: UInt64) throws { start(); writer.bytes.append(String(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let key = index
            start()
            try writer.write(value, depth: depth + 1, codingPath: codingPath + [key])
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let key = index
            start()
            return Node(writer: writer, depth: depth + 1, codingPath: codingPath + [key]).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
            let key = index
            start()
            return Node(writer: writer, depth: depth + 1, codingPath: codingPath + [key]).unkeyedContainer()
        }
        mutating func superEncoder() -> Encoder {
            let key = index
            start()
            return Node(writer: writer, depth: depth + 1, codingPath: codingPath + [key])
        }
    }

    /// A single value, written where its parent put the key or comma.
    struct Single: SingleValueEncodingContainer {
        let writer: Writer
        let depth: Int
        let codingPath: [CodingKey]

        mutating func encodeNil() throws { writer.bytes.append("null" as StaticString) }
        mutating func encode(_ value: Bool) throws { writer.bytes.append(value ? "true" as StaticString : "false") }
        mutating func encode(_ value: String) throws { writer.bytes.appendJSONString(value) }
        mutating func encode(_ value: Double) throws { try writer.number(value, codingPath: codingPath) }
        mutating func encode(_ value: Float) throws { try writer.number(Double(value), codingPath: codingPath) }
        mutating func encode(_ value: Int) throws { writer.bytes.appendInteger(value) }
        mutating func encode(_ value: Int8) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: Int16) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: Int32) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: Int64) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: UInt) throws { writer.bytes.append(String(value)) }
        mutating func encode(_ value: UInt8) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: UInt16) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: UInt32) throws { writer.bytes.appendInteger(Int(value)) }
        mutating func encode(_ value: UInt64) throws { writer.bytes.append(String(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            // A value's own encoding in place of this one: its containers open at this value's depth.
            try value.encode(to: Node(writer: writer, depth: depth, codingPath: codingPath))
        }
    }

    /// An array index as a coding key (for error messages).
    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue ?? 0)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
