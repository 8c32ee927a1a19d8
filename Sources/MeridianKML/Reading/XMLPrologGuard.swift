import Foundation

/// Inspects the start of an XML document for a DOCTYPE declaring entities or attribute defaults, before any parser
/// sees it.
///
/// Entity declarations have no use in KML and are the vehicle of "billion laughs" expansion and external-entity
/// (XXE) attacks, so a document declaring any is refused outright rather than parsed with limits. Attribute
/// defaults (`<!ATTLIST>`) have no use in KML either, and libxml2 adds each to every element it names, checking it
/// against all the element's other attributes: 20,000 defaults made three placemarks take five seconds.
enum XMLPrologGuard {
    /// What the inspected bytes tell.
    enum Verdict: Equatable {
        /// No DOCTYPE with entities before the root element: parse.
        case safe
        /// Entity declarations found, at a 1-based line.
        case refused(line: Int)
        /// Attribute-list declarations found, at a 1-based line.
        case refusedAttributeDefaults(line: Int)
        /// The prolog is not finished within the bytes given; more are needed.
        case needMore
    }

    /// Inspects a prefix of the document.
    /// - Parameters:
    ///   - bytes: The first bytes of the document.
    ///   - isComplete: Whether `bytes` is the whole document.
    static func inspect(_ bytes: [UInt8], isComplete: Bool) -> Verdict {
        var b = bytes
        let marked = b.starts(with: [0xFF, 0xFE]) || b.starts(with: [0xFE, 0xFF])
        if marked || b.starts(with: [0x3C, 0, 0x3F, 0]) || b.starts(with: [0, 0x3C, 0, 0x3F]) {
            // UTF-16, with or without a byte-order mark (as libxml2 detects it): transcode the prefix (an odd
            // trailing byte is dropped) and inspect it as UTF-8.
            let bigEndian = b[0] == 0xFE || b[0] == 0
            var units: [UInt16] = []
            var i = marked ? 2 : 0
            while i + 1 < b.count {
                units.append(bigEndian ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i]))
                i += 2
            }
            b = Array(String(decoding: units, as: UTF16.self).utf8)
        }
        var i = 0
        let n = b.count
        func starts(_ s: String, at j: Int) -> Bool {
            let u = Array(s.utf8)
            guard j + u.count <= n else { return false }
            for k in 0..<u.count where b[j + k] != u[k] { return false }
            return true
        }
        func line(at j: Int) -> Int { 1 + b[0..<min(j, n)].reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
        /// The index after the first occurrence of `end` from `j`, or nil.
        func skip(past end: String, from j: Int) -> Int? {
            let u = Array(end.utf8)
            var k = j
            while k + u.count <= n {
                if b[k] == u[0] && starts(end, at: k) { return k + u.count }
                k += 1
            }
            return nil
        }
        if starts("\u{FEFF}", at: 0) { i = 3 }
        while i < n {
            let c = b[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1; continue }
            if c != UInt8(ascii: "<") { return .safe }  // not XML; the parser reports it
            if starts("<?", at: i) {
                guard let j = skip(past: "?>", from: i + 2) else { return isComplete ? .safe : .needMore }
                i = j
            } else if starts("<!--", at: i) {
                guard let j = skip(past: "-->", from: i + 4) else { return isComplete ? .safe : .needMore }
                i = j
            } else if starts("<!DOCTYPE", at: i) {
                // Walk to the DOCTYPE's closing '>', outside quotes, comments and the internal subset.
                var j = i + 9
                var depth = 0
                var quote: UInt8? = nil
                while j < n {
                    let d = b[j]
                    if let q = quote {
                        if d == q { quote = nil }
                    } else if d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") {
                        quote = d
                    } else if starts("<!--", at: j) {
                        guard let k = skip(past: "-->", from: j + 4) else { return isComplete ? .safe : .needMore }
                        j = k
                        continue
                    } else if starts("<!ENTITY", at: j) {
                        return .refused(line: line(at: j))
                    } else if starts("<!ATTLIST", at: j) {
                        return .refusedAttributeDefaults(line: line(at: j))
                    } else if d == UInt8(ascii: "[") {
                        depth += 1
                    } else if d == UInt8(ascii: "]") {
                        depth -= 1
                    } else if d == UInt8(ascii: ">") && depth <= 0 {
                        break
                    }
                    j += 1
                }
                if j >= n { return isComplete ? .safe : .needMore }
                i = j + 1
            } else {
                return .safe  // the root element starts
            }
        }
        return isComplete ? .safe : .needMore
    }

    /// Whether the document's bytes are UTF-8 as the parser will read them: no UTF-16/32 byte-order mark and no
    /// XML declaration naming another encoding (which libxml2 converts to UTF-8 itself).
    static func isUTF8(_ b: [UInt8]) -> Bool {
        if b.count >= 2, (b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF) { return false }
        if b.count >= 4, b[0] == 0, b[1] == 0 || b[1] == 0x3C { return false }
        if b.count >= 2, b[0] == 0x3C, b[1] == 0 { return false }
        var start = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { start = 3 }
        guard let name = declaredEncoding(b, from: start) else { return true }
        // Only an encoding libxml2 converts to UTF-8 itself turns the UTF-8 check off. For anything else (a garbled
        // declaration `encoding\u{B0}="UTF-8"`, an unknown name `utf-res`, both found by fuzzing) libxml2 falls back
        // to UTF-8 and would hand invalid bytes to XMLParser, which traps on them.
        // Exact names only: a family's prefix alone (`cp125`, found by fuzzing) is unknown to libxml2 too.
        return !Self.convertedEncodings.contains(name)
    }

    /// The encoding (lower-cased) named by the XML declaration at `start`, read by the XML 1.0 grammar:
    /// `<?xml` S `version` Eq quoted-version S `encoding` Eq quoted-name, where Eq is `=` with optional white space
    /// around it and the version is a digit, a dot and digits. Nil when there is no declaration, it names no encoding, or it strays from the grammar before the
    /// name: libxml2 then does not take the name either and reads UTF-8 (`<?xml v\x9B…encoding="Shift_JIS"?>`,
    /// found by fuzzing, turned the UTF-8 check off while libxml2 read the bytes as UTF-8, and XMLParser trapped).
    static func declaredEncoding(_ b: [UInt8], from start: Int) -> String? {
        var i = start
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func skipSpace() -> Bool {
            let from = i
            while i < b.count, isSpace(b[i]) { i += 1 }
            return i > from
        }
        func word(_ w: String) -> Bool {
            let u = Array(w.utf8)
            guard i + u.count <= b.count, Array(b[i..<i + u.count]) == u else { return false }
            i += u.count
            return true
        }
        func equals() -> Bool {
            _ = skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "=") else { return false }
            i += 1
            _ = skipSpace()
            return true
        }
        /// A quoted value of letters, digits, `.`, `_`, `-` (VersionNum and EncName), or nil.
        func quoted() -> String? {
            guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return nil }
            let quote = b[i]
            var j = i + 1
            while j < b.count, b[j] != quote {
                let c = b[j]
                let ok = (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) || c == 0x2E || c == 0x5F
                    || c == 0x2D
                guard ok else { return nil }
                j += 1
            }
            guard j < b.count, j > i + 1 else { return nil }
            defer { i = j + 1 }
            return String(decoding: b[(i + 1)..<j], as: UTF8.self)
        }
        // The version as libxml2 reads one (a digit, a dot, digits; `version="180"` was found by fuzzing: libxml2
        // then ignored the encoding too): anything else leaves the UTF-8 check on.
        guard word("<?xml"), skipSpace(), word("version"), equals(), let version = quoted(),
              version.utf8.count >= 3, version.utf8.dropFirst().first == UInt8(ascii: "."),
              version.utf8.enumerated().allSatisfy({ $0.offset == 1 || ($0.element >= 0x30 && $0.element <= 0x39) }),
              skipSpace(), word("encoding"), equals(), let name = quoted()
        else { return nil }
        return name.lowercased()
    }

    /// Encodings (lower-cased) that libxml2 converts to UTF-8 (built in, or through glibc's iconv): a short list,
    /// and the families `iso-8859-1` … `iso-8859-16` (there is no 12), `windows-1250` … `windows-1258` and
    /// `cp1250` … `cp1258`, each name spelled exactly.
    static let convertedEncodings: Set<String> = Set([
        "iso-8859-1", "latin1", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be", "ucs-2", "ucs-4",
        "iso-10646-ucs-2", "iso-10646-ucs-4", "shift_jis", "euc-jp", "euc-kr", "gb2312", "gbk", "big5", "koi8-r",
        "iso-2022-jp",
    ]).union((1...16).filter { $0 != 12 }.map { "iso-8859-\($0)" })
        .union((0...8).flatMap { ["windows-125\($0)", "cp125\($0)"] })
}

/// Checks that bytes are well-formed UTF-8 (no overlongs, surrogates or values above U+10FFFF), chunk by chunk.
///
/// FoundationXML traps (crashes the process) on element or attribute names that are not valid UTF-8, so
/// Meridian validates the bytes before the parser sees them.
struct UTF8Validator {
    private var need = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    /// 1-based line of the next byte.
    private(set) var line = 1
    /// 1-based byte column of the next byte.
    private(set) var column = 1

    /// Validates the next chunk; returns `false` at the first invalid byte (then `line`/`column` point at it).
    mutating func validate(_ p: UnsafePointer<UInt8>, count: Int) -> Bool {
        // The state in locals for the loop, stored back on every exit.
        var need = self.need, lower = self.lower, upper = self.upper, line = self.line, column = self.column
        defer {
            self.need = need
            self.lower = lower
            self.upper = upper
            self.line = line
            self.column = column
        }
        let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
        var i = 0
        while i < count {
            if need == 0, i + 8 <= count {
                // Eight ASCII bytes without a line feed at once (the usual case).
                let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                let x = w ^ (ones &* 0x0A)  // a zero byte where w has a line feed
                if w & high == 0, (x &- ones) & ~x & high == 0 {
                    column += 8
                    i += 8
                    continue
                }
            }
            let b = p[i]
            if need == 0 {
                if b < 0x80 {
                    if b == 0x0A { line += 1; column = 1 } else { column += 1 }
                    i += 1
                    continue
                }
                switch b {
                case 0xC2...0xDF: need = 1; lower = 0x80; upper = 0xBF
                case 0xE0: need = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE, 0xEF: need = 2; lower = 0x80; upper = 0xBF
                case 0xED: need = 2; lower = 0x80; upper = 0x9F
                case 0xF0: need = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: need = 3; lower = 0x80; upper = 0xBF
                case 0xF4: need = 3; lower = 0x80; upper = 0x8F
                default: return false
                }
                column += 1
            } else {
                guard b >= lower && b <= upper else { return false }
                need -= 1
                lower = 0x80
                upper = 0xBF
            }
            i += 1
        }
        return true
    }

    /// Whether the input ended in the middle of a sequence.
    var isIncomplete: Bool { need > 0 }
}
