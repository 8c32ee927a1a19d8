import Foundation
import Meridian

/// What a file is, judged by its first bytes rather than its name: every command that reads a file recognises its
/// format this way, so a KML document saved as `.xml` or a KMZ saved as `.zip` reads like any other. File names
/// choose only the output format.
public enum InputFormat: Equatable {
    /// A ZIP archive (a KMZ, or another archive that the KML reader will refuse for holding no KML).
    case kmz
    /// XML whose root element is `<kml>`.
    case kml
    /// JSON text (an object or an array), or a GeoJSON text sequence (records starting with 0x1E): GeoJSON.
    case geoJSON
    /// Text starting with a WKT geometry keyword.
    case wkt
    /// Other text: read as comma-separated values with a header by the commands that take CSV.
    case csv
    /// A GeoPackage, a shapefile's `.shp` or a FlatGeobuf: read through GDAL/OGR from its file
    /// (`FeatureDataInput`), never from standard input.
    case featureTable(FeatureDataFormat)
    /// None of the above; the associated text says what was found, e.g. "XML whose root element is <svg>".
    case unrecognized(String)

    /// How many leading bytes `sniff` looks at at most.
    public static let headLength = 4096

    /// The name a message uses for the format.
    public var name: String {
        switch self {
        case .kmz: return "KMZ"
        case .kml: return "KML"
        case .geoJSON: return "GeoJSON"
        case .wkt: return "WKT"
        case .csv: return "plain text"
        case .featureTable(let format): return "a \(format.rawValue)"
        case .unrecognized(let found): return found
        }
    }

    /// Whether this is text of features that `FeatureInput` reads from its bytes: GeoJSON, CSV or WKT.
    public var isFeatureText: Bool {
        switch self {
        case .geoJSON, .csv, .wkt: true
        case .kmz, .kml, .featureTable, .unrecognized: false
        }
    }

    /// Whether this is KML or KMZ.
    public var isKML: Bool { self == .kml || self == .kmz }

    /// Recognises a format from the first bytes of a file (at most `headLength` are looked at).
    public static func sniff(_ data: Data) -> InputFormat {
        let head = [UInt8](data.prefix(headLength))
        if head.isEmpty { return .unrecognized("an empty file") }
        if let format = FeatureDataFormat.recognize(header: head) { return .featureTable(format) }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .kmz }
        var i = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        // Byte-order marks: UTF-32's first, since UTF-32LE's (FF FE 00 00) begins with UTF-16LE's (FF FE).
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            return .unrecognized("UTF-32 text (save it as UTF-8)")
        }
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
            return .unrecognized("UTF-16 text (save it as UTF-8)")
        }
        while i < head.count, isSpace(head[i]) { i += 1 }
        guard i < head.count else { return .unrecognized("nothing but white space") }
        if let nul = head[i...].firstIndex(of: 0) {
            let line = 1 + head[..<nul].filter { $0 == 0x0A }.count
            let column = nul - (head[..<nul].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
            return .unrecognized("binary data: a NUL byte at line \(line), column \(column) (\(hexPrefix(head)))")
        }
        switch head[i] {
        case UInt8(ascii: "<"):
            guard let root = rootElement(head, from: i) else {
                return .unrecognized("markup without a root element in its first \(head.count) bytes")
            }
            let local = root.split(separator: ":").last.map(String.init) ?? root
            return local == "kml" ? .kml : .unrecognized("XML whose root element is <\(root.prefix(40))>")
        case UInt8(ascii: "{"), UInt8(ascii: "["), 0x1E:  // 0x1E: a GeoJSON text sequence (RFC 8142)
            return .geoJSON
        default:
            var word = ""
            for b in head[i...] {
                guard (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) else { break }
                word.append(Character(UnicodeScalar(b)))
                if word.count > 20 { break }
            }
            let keywords: Set<String> = ["POINT", "MULTIPOINT", "LINESTRING", "MULTILINESTRING", "POLYGON",
                                         "MULTIPOLYGON", "GEOMETRYCOLLECTION", "LINEARRING"]
            if keywords.contains(word.uppercased()) { return .wkt }
            if let unsupported = unsupportedGeometryText(head, from: i, word: word.uppercased()) { return .unrecognized(unsupported) }
            if String(bytes: head[i...], encoding: .utf8) == nil, !endsInsideCharacter(head[i...]) {
                return .unrecognized("binary data (\(hexPrefix(head)))")
            }
            return .csv
        }
    }

    /// What the first line is when it is geometry text Meridian does not read — a curved or surface WKT type, EWKT
    /// with an `SRID=` prefix, or hex-encoded WKB — said with what to do; `nil` for anything else (which is then read
    /// as CSV, whose header check would only say the columns are missing).
    private static func unsupportedGeometryText(_ head: [UInt8], from i: Int, word: String) -> String? {
        let curved: Set<String> = ["CIRCULARSTRING", "COMPOUNDCURVE", "CURVEPOLYGON", "MULTICURVE", "MULTISURFACE",
                                   "CURVE", "SURFACE", "TRIANGLE", "TIN", "POLYHEDRALSURFACE"]
        let supported = "it reads POINT, MULTIPOINT, LINESTRING, MULTILINESTRING, POLYGON and MULTIPOLYGON"
        if curved.contains(word) { return "WKT \(word) at line 1, which is not supported (\(supported))" }
        let line = head[i...].prefix { $0 != 0x0A && $0 != 0x0D }
        if word == "SRID", line.dropFirst(4).first == UInt8(ascii: "=") {
            return "EWKT (a line starting SRID=) at line 1, which is not supported: remove the SRID=…; prefix and give the spatial reference with --in-srs"
        }
        let isHex = line.count >= 18 && line.count % 2 == 0 && line.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
        if isHex, line.starts(with: Array("00".utf8)) || line.starts(with: Array("01".utf8)) {
            return "hex-encoded WKB at line 1, which is not supported: convert it to WKT or GeoJSON"
        }
        return nil
    }

    /// The name of the first element after the XML declaration, comments, processing instructions and DOCTYPE.
    private static func rootElement(_ head: [UInt8], from start: Int) -> String? {
        var i = start
        func skip(past terminator: [UInt8]) -> Bool {
            while i + terminator.count <= head.count {
                if Array(head[i..<i + terminator.count]) == terminator { i += terminator.count; return true }
                i += 1
            }
            return false
        }
        while i < head.count {
            if isSpace(head[i]) { i += 1; continue }
            guard head[i] == UInt8(ascii: "<"), i + 1 < head.count else { return nil }
            let rest = head[(i + 1)...]
            if rest.starts(with: Array("!--".utf8)) {
                guard skip(past: Array("-->".utf8)) else { return nil }
            } else if rest.first == UInt8(ascii: "!") {
                // <!DOCTYPE name [internal subset]>: the subset may hold '>' of its own.
                let end = rest.firstIndex { $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "[") }
                if let end, head[end] == UInt8(ascii: "[") {
                    i = end
                    guard skip(past: [UInt8(ascii: "]")]) else { return nil }
                }
                guard skip(past: [UInt8(ascii: ">")]) else { return nil }
            } else if rest.first == UInt8(ascii: "?") {
                guard skip(past: Array("?>".utf8)) else { return nil }
            } else {
                let name = rest.prefix { !isSpace($0) && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "/") }
                return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
            }
        }
        return nil
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// Whether bytes fail to decode as UTF-8 only because the cut at `headLength` split a character.
    private static func endsInsideCharacter(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= headLength - 4 else { return false }
        for cut in 1...3 where bytes.count > cut {
            if String(bytes: bytes.dropLast(cut), encoding: .utf8) != nil { return true }
        }
        return false
    }

    /// The first bytes in hexadecimal, e.g. "starts with 89 50 4E 47".
    private static func hexPrefix(_ head: [UInt8]) -> String {
        "starts with " + head.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " ")
    }
}
