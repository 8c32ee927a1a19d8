import Foundation
import MeridianCore

/// A PostGIS connection string as OGR takes it, `PG:"dbname=… host=… port=… user=… password=…"` (libpq's
/// keyword/value form, with GDAL's own `active_schema`, `schemas` and `tables` options) or `PG:postgresql://…` (a URI),
/// and the version of it that is safe to print.
///
/// The string is read by libpq's own parser (`PQconninfoParse`, from the libpq GDAL's driver calls), never by a
/// second one: libpq says which options it holds and which of them are secret (`password`, `sslpassword`). A password
/// never appears in a message: ``redacted`` replaces each secret value where the string writes it (quoted, escaped or
/// percent-encoded) with `***`, and ``scrub(_:)`` removes every secret, as written and as libpq decodes it, from any
/// text (GDAL's or the server's message) before it is shown. A string libpq cannot read is refused and never shown.
///
/// GDAL is given the options libpq read, rebuilt as the keyword form (`openString`), with `connect_timeout=10`
/// added when neither the string nor `PGCONNECT_TIMEOUT` sets one, so a server that does not answer fails in seconds.
public struct PostGISConnection: Sendable, Hashable, CustomStringConvertible {
    /// The full string, with its `PG:` prefix, as given; holds the password.
    let string: String
    /// What libpq made of it.
    let reading: Reading

    /// Creates a connection from a `PG:` string, read at once by libpq (loading libgdal and its libpq if needed).
    /// - Parameter string: `PG:` followed by libpq connection parameters or a URI.
    /// - Returns: `nil` when `string` does not start with `PG:` (any case).
    public init?(_ string: String) {
        guard PostGISConnection.isConnectionString(string) else { return nil }
        self.string = string
        reading = PostGISConnection.read(string)
    }

    /// Whether a path is a PostGIS connection string (`PG:` in any case).
    /// - Parameter path: A source or destination as a user gave it.
    public static func isConnectionString(_ path: String) -> Bool { path.prefix(3).uppercased() == "PG:" }

    /// The string with every password replaced by `***`: what messages show. A string libpq cannot read is shown
    /// as `unreadableName` (where its secrets are cannot be known).
    public var redacted: String {
        switch reading {
        case .refused: PostGISConnection.unreadableName
        case .read(let read):
            scrub(String(decoding: PostGISConnection.replacing(read.secretSpans, in: Array(string.utf8)), as: UTF8.self))
        }
    }

    /// The redacted string.
    public var description: String { redacted }

    /// How messages name a connection string libpq cannot read.
    static let unreadableName = "PG:(connection string not shown)"

    /// The seconds GDAL's connection waits for a server when the string does not say.
    static let defaultConnectTimeout = 10

    /// Why libpq cannot read the string (its message, with every part of the string elided), or `nil` when it can.
    var refusal: String? {
        if case .refused(let reason) = reading { return reason }
        return nil
    }

    /// The string GDAL is given: `PG:` and the options libpq read, each single-quoted (`\` and `'` escaped), then
    /// GDAL's own options, then `connect_timeout='10'` when libpq got no connect timeout (neither from the string nor
    /// from `PGCONNECT_TIMEOUT`); `nil` for a string libpq cannot read. A URI becomes the same keyword form.
    var openString: String? {
        guard case .read(let read) = reading else { return nil }
        var parts = read.options.map { "\($0.keyword)=\(PostGISConnection.quoted($0.value))" }
        parts += read.gdalOptions.map { "\($0.keyword)=\(PostGISConnection.quoted($0.value))" }
        let environment = ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] ?? ""
        if !read.options.contains(where: { $0.keyword == "connect_timeout" }), environment.isEmpty {
            parts.append("connect_timeout=\(PostGISConnection.quoted(String(PostGISConnection.defaultConnectTimeout)))")
        }
        return "PG:" + parts.joined(separator: " ")
    }

    /// `text` with the secrets of this connection replaced by `***` wherever they occur: each as written in the
    /// string, as libpq decoded it and as quoted in `openString` (a message quoting the connection string, or a
    /// server echoing a value).
    /// - Parameter text: Any message.
    public func scrub(_ text: String) -> String {
        guard case .read(let read) = reading else { return text }
        var out = text
        for secret in read.secrets { out = out.replacingOccurrences(of: secret, with: "***") }
        return out
    }

    // MARK: - Reading

    /// What libpq made of a connection string.
    enum Reading: Sendable, Hashable {
        /// libpq read it.
        case read(Read)
        /// libpq refused it (or is unavailable); the reason quotes nothing of the string.
        case refused(reason: String)
    }

    /// A connection string libpq read.
    struct Read: Sendable, Hashable {
        /// The options libpq read, in its order.
        let options: [LibPQ.Option]
        /// GDAL's own options of the keyword form (`active_schema`, `schemas`, `tables`), which GDAL takes out of the
        /// string before libpq sees it.
        let gdalOptions: [LibPQ.Option]
        /// Where the string writes a secret value: byte offsets into its UTF-8.
        let secretSpans: [Range<Int>]
        /// Every form of every secret (as written, unquoted, decoded, as quoted for GDAL), longest first.
        let secrets: [String]
    }

    /// The keywords GDAL's PostGIS driver takes out of a keyword/value string before handing the rest to libpq.
    static let gdalKeywords: Set<String> = ["active_schema", "schemas", "tables"]

    /// One `keyword=value` of the keyword/value form, located as libpq's tokenizer reads it.
    struct Token {
        /// The keyword as written.
        let keyword: String
        /// The whole `keyword = value`, byte offsets.
        let span: Range<Int>
        /// The value as written (with its quotes), byte offsets.
        let valueSpan: Range<Int>
        /// The value as libpq reads it (unquoted, backslash escapes resolved).
        let value: String
    }

    /// Reads a `PG:` string with libpq: a URI as a whole; the keyword form without GDAL's options (as GDAL does). The
    /// places of the secrets in the string are found by following libpq's grammar, and accepted only when they hold
    /// exactly the values libpq read; otherwise the string is refused.
    static func read(_ string: String) -> Reading {
        let bytes = Array(string.utf8)
        let body = 3..<bytes.count
        let text = { (range: Range<Int>) in String(decoding: bytes[range], as: UTF8.self) }
        let options: [LibPQ.Option]
        var gdalOptions: [LibPQ.Option] = []
        var located: [(keyword: String, span: Range<Int>, value: String)] = []
        if uriPrefixLength(bytes, at: body.lowerBound) > 0 {
            switch LibPQ.parse(text(body)) {
            case .failure(let failure): return .refused(reason: refusalReason(failure))
            case .success(let parsed): options = parsed
            }
            let secretKeywords = Set(options.filter { $0.isSecret }.map { $0.keyword })
            guard let spans = uriValueSpans(bytes, from: body.lowerBound) else {
                return .refused(reason: "libpq read the URI but its secrets could not be located")
            }
            located = spans.filter { secretKeywords.contains($0.keyword) || $0.keyword == "password" }
        } else {
            guard let tokens = keywordTokens(bytes, in: body) else {
                // libpq refuses what its tokenizer refuses: its own message says why.
                if case .failure(let failure) = LibPQ.parse(text(body)) {
                    return .refused(reason: refusalReason(failure))
                }
                return .refused(reason: "the connection string is not read the same way by libpq and Meridian")
            }
            let gdal = tokens.filter { gdalKeywords.contains($0.keyword.lowercased()) }
            gdalOptions = gdal.map { LibPQ.Option(keyword: $0.keyword.lowercased(), value: $0.value, isSecret: false) }
            var rest = Array(bytes[body])
            for token in gdal.reversed() {
                rest.replaceSubrange((token.span.lowerBound - 3)..<(token.span.upperBound - 3), with: [UInt8(ascii: " ")])
            }
            switch LibPQ.parse(String(decoding: rest, as: UTF8.self)) {
            case .failure(let failure): return .refused(reason: refusalReason(failure))
            case .success(let parsed): options = parsed
            }
            let secretKeywords = Set(options.filter { $0.isSecret }.map { $0.keyword })
            located = tokens.filter { secretKeywords.contains($0.keyword) }.map { ($0.keyword, $0.valueSpan, $0.value) }
        }
        // Each secret libpq holds must be the value of the last place it is written in.
        for option in options where option.isSecret && !option.value.isEmpty {
            guard located.last(where: { $0.keyword == option.keyword })?.value == option.value else {
                return .refused(reason: "the connection string is not read the same way by libpq and Meridian")
            }
        }
        var secrets: Set<String> = []
        for place in located {
            let written = text(place.span)
            secrets.formUnion([written, place.value, quoted(place.value), escaped(place.value)])
            if written.count >= 2, written.hasPrefix("'"), written.hasSuffix("'") {
                secrets.insert(String(written.dropFirst().dropLast()))
            }
        }
        for option in options where option.isSecret {
            secrets.formUnion([option.value, quoted(option.value), escaped(option.value)])
        }
        secrets = secrets.filter { !$0.isEmpty && $0 != "''" }
        let ordered = secrets.sorted { $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1 }
        return .read(Read(options: options, gdalOptions: gdalOptions,
                          secretSpans: located.map { $0.span }.filter { !$0.isEmpty }, secrets: ordered))
    }

    /// C's `isspace` in the "C" locale, as libpq's tokenizer tests bytes.
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// The tokens of the keyword/value form, as libpq's `conninfo_parse` reads them: a keyword up to white space or
    /// `=`, then `=`, then a value, single-quoted or up to white space, with `\` escaping the next byte in both;
    /// `nil` where libpq would refuse the string (no `=`, an unterminated quote).
    static func keywordTokens(_ bytes: [UInt8], in range: Range<Int>) -> [Token]? {
        var tokens: [Token] = []
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            if isSpace(bytes[i]) { i += 1; continue }
            let start = i
            while i < end, bytes[i] != UInt8(ascii: "="), !isSpace(bytes[i]) { i += 1 }
            let keyword = String(decoding: bytes[start..<i], as: UTF8.self)
            while i < end, isSpace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == UInt8(ascii: "=") else { return nil }
            i += 1
            while i < end, isSpace(bytes[i]) { i += 1 }
            let valueStart = i
            var value: [UInt8] = []
            if i < end, bytes[i] == UInt8(ascii: "'") {
                i += 1
                while true {
                    guard i < end else { return nil }
                    if bytes[i] == UInt8(ascii: "\\") {
                        i += 1
                        if i < end { value.append(bytes[i]); i += 1 }
                    } else if bytes[i] == UInt8(ascii: "'") {
                        i += 1
                        break
                    } else {
                        value.append(bytes[i]); i += 1
                    }
                }
            } else {
                while i < end, !isSpace(bytes[i]) {
                    if bytes[i] == UInt8(ascii: "\\") {
                        i += 1
                        if i < end { value.append(bytes[i]); i += 1 }
                    } else {
                        value.append(bytes[i]); i += 1
                    }
                }
            }
            tokens.append(Token(keyword: keyword, span: start..<i, valueSpan: valueStart..<i,
                                value: String(decoding: value, as: UTF8.self)))
        }
        return tokens
    }

    /// The length of libpq's URI prefix (`postgresql://` or `postgres://`, exact case) at `offset`, or 0.
    static func uriPrefixLength(_ bytes: [UInt8], at offset: Int) -> Int {
        for prefix in ["postgresql://", "postgres://"] {
            let p = Array(prefix.utf8)
            if bytes.count - offset >= p.count, Array(bytes[offset..<(offset + p.count)]) == p { return p.count }
        }
        return 0
    }

    /// The values of a URI that may hold secrets, as libpq's `conninfo_uri_parse_options` finds them: the password of
    /// `user:password@` (the first `@` before any `/`) and every query parameter (after the first `?` past the
    /// credentials, `&`-separated), keyword and value percent-decoded; `nil` for a percent-encoding libpq refuses.
    static func uriValueSpans(_ bytes: [UInt8], from offset: Int) -> [(keyword: String, span: Range<Int>, value: String)]? {
        var found: [(keyword: String, span: Range<Int>, value: String)] = []
        let start = offset + uriPrefixLength(bytes, at: offset)
        var p = start
        while p < bytes.count, bytes[p] != UInt8(ascii: "@"), bytes[p] != UInt8(ascii: "/") { p += 1 }
        var rest = start
        if p < bytes.count, bytes[p] == UInt8(ascii: "@") {
            if let colon = bytes[start..<p].firstIndex(of: UInt8(ascii: ":")) {
                guard let value = percentDecoded(bytes[(colon + 1)..<p]) else { return nil }
                found.append(("password", (colon + 1)..<p, value))
            }
            rest = p + 1
        }
        guard let question = bytes[rest...].firstIndex(of: UInt8(ascii: "?")) else { return found }
        var q = question + 1
        while q < bytes.count {
            let end = bytes[q...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if let equals = bytes[q..<end].firstIndex(of: UInt8(ascii: "=")) {
                guard let keyword = percentDecoded(bytes[q..<equals]),
                      let value = percentDecoded(bytes[(equals + 1)..<end]) else { return nil }
                found.append((keyword, (equals + 1)..<end, value))
            }
            q = end + 1
        }
        return found
    }

    /// libpq's percent-decoding of a URI part: `%XX` is a byte, `%00` and a malformed `%` are refused (`nil`).
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, let high = HexDigit.value(bytes[i + 1]), let low = HexDigit.value(bytes[i + 2]), high | low != 0 else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i]); i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes` with each span replaced by `***`.
    static func replacing(_ spans: [Range<Int>], in bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        for span in spans.sorted(by: { $0.lowerBound > $1.lowerBound }) {
            out.replaceSubrange(span, with: Array("***".utf8))
        }
        return out
    }

    /// A value as libpq reads a single-quoted one: `'`, with `\` and `'` escaped by `\`, `'`.
    static func quoted(_ value: String) -> String { "'" + escaped(value) + "'" }

    /// A value with `\` and `'` escaped by `\` (the inside of ``quoted(_:)``).
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    /// libpq's message about a string it refused, on one line (or why libpq is unavailable, as it is), with every part of the string it quotes elided: from
    /// the first double quote that does not open one of libpq's own quoted tokens (`"="`, `"]"`, `":"`, `"/"`) to
    /// the last double quote, the text is replaced by `"…"` (a password with a space written unquoted would
    /// otherwise be quoted as an unknown keyword).
    static func refusalReason(_ failure: LibPQ.ParseFailure) -> String {
        guard failure.isLibPQMessage else { return failure.message }
        let line = failure.message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        let scalars = Array(line.unicodeScalars)
        let own: Set<String> = ["\"=\"", "\"]\"", "\":\"", "\"/\""]
        var first: Int?
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\"" {
                if i + 2 < scalars.count, scalars[i + 2] == "\"",
                   own.contains(String(String.UnicodeScalarView(scalars[i...(i + 2)]))) {
                    i += 3
                    continue
                }
                first = i
                break
            }
            i += 1
        }
        var reason = line
        if let first, let last = scalars.lastIndex(of: "\""), last > first {
            reason = String(String.UnicodeScalarView(scalars[..<first])) + "\"…\""
                + String(String.UnicodeScalarView(scalars[(last + 1)...]))
        } else if let first {
            reason = String(String.UnicodeScalarView(scalars[..<first])) + "\"…"
        }
        return "libpq cannot read the connection string: \(reason)"
    }
}
