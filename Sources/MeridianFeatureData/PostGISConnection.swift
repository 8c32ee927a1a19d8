/// A PostGIS connection string as OGR takes it, `PG:"dbname=… host=… port=… user=… password=…"` (libpq's
/// keyword/value form, or a `postgresql://` URI after `PG:`), and the version of it that is safe to print.
///
/// A password never appears in a message: ``redacted`` replaces the value of every `password` keyword (quoted or
/// not) and the password of a URI's `user:password@` with `***`, and ``scrub(_:)`` removes the password from any
/// text (a server's or GDAL's message) before it is shown.
public struct PostGISConnection: Sendable, Hashable, CustomStringConvertible {
    /// The full string, with its `PG:` prefix, as given; holds the password.
    let string: String

    /// Creates a connection from a `PG:` string.
    /// - Parameter string: `PG:` followed by libpq connection parameters or a URI.
    /// - Returns: `nil` when `string` does not start with `PG:` (any case).
    public init?(_ string: String) {
        guard PostGISConnection.isConnectionString(string) else { return nil }
        self.string = string
    }

    /// Whether a path is a PostGIS connection string (`PG:` in any case).
    /// - Parameter path: A source or destination as a user gave it.
    public static func isConnectionString(_ path: String) -> Bool { path.prefix(3).uppercased() == "PG:" }

    /// The string with every password replaced by `***`: what messages show.
    public var redacted: String { PostGISConnection.redact(string) }

    /// The redacted string.
    public var description: String { redacted }

    /// The string GDAL is given: the original, with `connect_timeout=10` added to the keyword form when it sets
    /// none, so a server that does not answer fails in seconds rather than hanging.
    var openString: String {
        let body = string.dropFirst(3)
        let isURI = body.hasPrefix("postgresql://") || body.hasPrefix("postgres://")
        if isURI || string.contains("connect_timeout") { return string }
        return string + " connect_timeout=10"
    }

    /// `text` with the passwords of this connection replaced by `***` wherever they occur (a message quoting the
    /// connection string, or a server echoing a value).
    /// - Parameter text: Any message.
    public func scrub(_ text: String) -> String {
        var out = PostGISConnection.redact(text)
        for secret in PostGISConnection.passwords(in: string) where secret.count >= 1 {
            out = out.replacingOccurrences(of: secret, with: "***")
        }
        return out
    }

    /// The spans of password values in a connection string: after `password=` (libpq keyword form, spaces allowed
    /// around `=`, value single-quoted with backslash escapes or ending at white space or `&`) and in a URI's
    /// `scheme://user:password@`.
    static func passwordRanges(in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var search = text.startIndex
        while let found = text.range(of: "password", options: .caseInsensitive, range: search..<text.endIndex) {
            var i = found.upperBound
            search = found.upperBound
            while i < text.endIndex, text[i] == " " { i = text.index(after: i) }
            guard i < text.endIndex, text[i] == "=" else { continue }
            i = text.index(after: i)
            while i < text.endIndex, text[i] == " " { i = text.index(after: i) }
            let start = i
            if i < text.endIndex, text[i] == "'" {
                i = text.index(after: i)
                while i < text.endIndex, text[i] != "'" {
                    if text[i] == "\\", text.index(after: i) < text.endIndex { i = text.index(after: i) }
                    i = text.index(after: i)
                }
                if i < text.endIndex { i = text.index(after: i) }
            } else {
                while i < text.endIndex, !text[i].isWhitespace, text[i] != "&", text[i] != "\"" {
                    i = text.index(after: i)
                }
            }
            if start < i { ranges.append(start..<i) }
            search = i
        }
        var scan = text.startIndex
        while let scheme = text.range(of: "://", range: scan..<text.endIndex) {
            scan = scheme.upperBound
            let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0.isWhitespace }
                ?? text.endIndex
            guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
                  let colon = text[scheme.upperBound..<at].firstIndex(of: ":") else { continue }
            let start = text.index(after: colon)
            if start < at { ranges.append(start..<at) }
        }
        return ranges
    }

    /// `text` with every password span replaced by `***`.
    static func redact(_ text: String) -> String {
        var out = text
        for range in passwordRanges(in: text).sorted(by: { $0.lowerBound > $1.lowerBound }) {
            out.replaceSubrange(range, with: "***")
        }
        return out
    }

    /// The password values of a connection string, unquoted as libpq reads them and as written.
    static func passwords(in text: String) -> [String] {
        passwordRanges(in: text).flatMap { range -> [String] in
            let raw = String(text[range])
            guard raw.hasPrefix("'") else { return [raw] }
            let inner = raw.dropFirst().dropLast(raw.count > 1 && raw.hasSuffix("'") ? 1 : 0)
            var unescaped = ""
            var escaping = false
            for c in inner {
                if escaping || c != "\\" { unescaped.append(c); escaping = false } else { escaping = true }
            }
            return [raw, unescaped]
        }
    }
}
