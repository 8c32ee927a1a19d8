import Foundation

/// How a document's bytes group into characters, as libxml2 will decode them: what `MarkupScanner` needs to see
/// the markup characters (`<`, `>`, quotes, `=`) exactly where the parser will.
///
/// libxml2 decodes whatever encoding the XML declaration names, through iconv if need be. An encoding in which
/// markup can hide (UTF-7 writes `=` as `+AD0-`; a Shift_JIS character's second byte can be `]`; a declaration in a
/// UTF-16 document can switch the rest to another encoding) would let a document show the scanner one thing and
/// the parser another, so only the encodings below are read and any other is refused (`XMLPrologGuard.layout`).
enum XMLCharacterLayout: Equatable {
    /// A byte below 0x80 is always that ASCII character: UTF-8, ISO-8859-x, windows-125x, KOI8-R, EUC-JP,
    /// EUC-KR, GB2312.
    case bytes
    /// A lead byte takes the next byte with it, which may look like ASCII: Shift_JIS (leads 0x81–0x9F and
    /// 0xE0–0xFC) or Big5 and GBK (leads 0x81–0xFE).
    case doubleByte(shiftJIS: Bool)
    /// ISO-2022-JP: ASCII until `ESC $ @` or `ESC $ B` switches to two-byte characters, `ESC ( B` or `ESC ( J` back.
    case iso2022JP
    /// UTF-16, two bytes a unit (with or without a byte-order mark).
    case utf16(bigEndian: Bool)

    /// ASCII-compatible encodings (lower-cased) libxml2 converts, whose bytes below 0x80 are always ASCII.
    static let asciiCompatible: Set<String> = Set(["utf-8", "utf8", "iso-8859-1", "latin1", "us-ascii", "ascii",
                                                   "koi8-r", "euc-jp", "euc-kr", "gb2312"])
        .union((1...16).filter { $0 != 12 }.map { "iso-8859-\($0)" })
        .union((0...8).flatMap { ["windows-125\($0)", "cp125\($0)"] })
}

extension XMLPrologGuard {
    /// The character layout of a document whose prolog is in `bytes`, or why its encoding is refused: the layout
    /// libxml2 detects from the first bytes, changed by the encoding the XML declaration names exactly as libxml2
    /// changes it (UTF-8 and UTF-16 names keep the detected layout; any other name switches the decoder).
    /// - Parameter b: The first bytes of the document (its prolog, or all of it).
    /// - Returns: The layout, and whether the document starts with an XML declaration (`MarkupScanner` needs both).
    /// - Throws: `KMLError.unsupportedEncoding` for UCS-4, for an encoding outside `XMLCharacterLayout`'s, for a
    ///   UTF-16 document naming another encoding, and for a declaration naming `encoding` twice or not ending
    ///   within 4,096 characters, so that no reading of it can differ from libxml2's.
    static func layout(of b: [UInt8]) throws(KMLError) -> (layout: XMLCharacterLayout, startsWithDeclaration: Bool) {
        let ucs4: [[UInt8]] = [[0, 0, 0, 0x3C], [0x3C, 0, 0, 0], [0, 0, 0x3C, 0], [0, 0x3C, 0, 0]]
        if ucs4.contains(where: { b.starts(with: $0) }) {
            throw .unsupportedEncoding("UCS-4 (four bytes a character); save the file as UTF-8")
        }
        var detected = XMLCharacterLayout.bytes
        var start = 0
        if b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0, 0x3C, 0, 0x3F]) {
            detected = .utf16(bigEndian: true)
        } else if b.starts(with: [0xFF, 0xFE]) || b.starts(with: [0x3C, 0, 0x3F, 0]) {
            detected = .utf16(bigEndian: false)
        } else if b.starts(with: [0xEF, 0xBB, 0xBF]) {
            start = 3
        }
        if case .utf16 = detected, b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE]) { start = 2 }
        guard let declaration = try declaration(b, from: start, layout: detected) else { return (detected, false) }
        if declaration.ranges(of: Array("encoding".utf8)).count > 1 {
            throw .unsupportedEncoding("an XML declaration naming \"encoding\" more than once")
        }
        guard let name = encoding(in: declaration)?.lowercased() else { return (detected, true) }
        if name == "utf-8" || name == "utf8" || name == "utf-16" || name == "utf16" { return (detected, true) }
        if case .utf16 = detected {
            throw .unsupportedEncoding("a UTF-16 document declaring encoding \"\(name)\"; save the file as UTF-8")
        }
        if XMLCharacterLayout.asciiCompatible.contains(name) { return (.bytes, true) }
        switch name {
        case "shift_jis": return (.doubleByte(shiftJIS: true), true)
        case "big5", "gbk": return (.doubleByte(shiftJIS: false), true)
        case "iso-2022-jp": return (.iso2022JP, true)
        default: throw .unsupportedEncoding("\"\(name)\" (declared in the XML declaration); save the file as UTF-8")
        }
    }

    /// The XML declaration at `start` (`<?xml` and a blank, as libxml2 requires it there), up to its first `>`
    /// (where libxml2 resumes after a broken one), one byte a character (0x80 for any outside ASCII); `nil` when
    /// the document does not start with one.
    /// - Throws: `KMLError.unsupportedEncoding` for a declaration that does not end within 4,096 characters.
    static func declaration(_ b: [UInt8], from start: Int, layout: XMLCharacterLayout) throws(KMLError) -> [UInt8]? {
        var text: [UInt8] = []
        var i = start
        var ended = false
        while i < b.count, text.count < 4096 {
            var c = UInt32(b[i])
            if case .utf16(let bigEndian) = layout {
                guard i + 1 < b.count else { break }
                c = bigEndian ? c << 8 | UInt32(b[i + 1]) : UInt32(b[i + 1]) << 8 | c
                i += 1
            }
            i += 1
            if c == UInt32(UInt8(ascii: ">")) { ended = true; break }
            text.append(c < 0x80 ? UInt8(c) : 0x80)
        }
        guard text.count > 5, text.starts(with: Array("<?xml".utf8)), blanks.contains(text[5]) else { return nil }
        guard ended || i >= b.count else {
            throw .unsupportedEncoding("an XML declaration longer than 4,096 characters")
        }
        return text
    }

    /// XML's blank characters.
    private static let blanks: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]

    /// The encoding an XML declaration names, parsed as libxml2 parses it (`encoding`, `=` and a quoted
    /// `[A-Za-z][A-Za-z0-9._-]*`); `nil` without `encoding` or when it is malformed (libxml2 then switches
    /// nothing and reports an error).
    static func encoding(in text: [UInt8]) -> String? {
        guard let key = text.firstRange(of: Array("encoding".utf8)) else { return nil }
        var rest = text[key.upperBound...].drop { blanks.contains($0) }
        guard rest.first == UInt8(ascii: "=") else { return nil }
        rest = rest.dropFirst().drop { blanks.contains($0) }
        guard let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        rest = rest.dropFirst()
        let name = rest.prefix { $0 != quote }
        func isLetter(_ c: UInt8) -> Bool { (0x61...0x7A).contains(c | 0x20) }
        guard name.count < rest.count, let first = name.first, isLetter(first), name.allSatisfy({
            isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                || $0 == UInt8(ascii: "-")
        }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}
