import Foundation

/// A file name for a download, made safe for `Content-Disposition` (RFC 6266) from a name the user gave.
///
/// The header carries it twice: `filename="…"`, a sanitised ASCII fallback for clients that know no other, and
/// `filename*=UTF-8''…` (RFC 8187), the whole name percent-encoded, which every current browser prefers. In both,
/// path separators, quotes, control and format characters (bidi overrides among them) and the characters Windows
/// refuses in file names become `_`, leading dots and spaces are dropped, and the name is at most
/// ``maximumUTF8Bytes`` long with its extension kept — so `a/../../etc/passwd` is never echoed, and
/// `quote"name Überprüfung 東京.kmz` downloads as `quote_name Überprüfung 東京.kmz`.
public struct DownloadName: Sendable, Hashable {
    /// The name as saved (Unicode, sanitised).
    public let unicode: String
    /// The ASCII fallback: `unicode` with accents stripped and other non-ASCII characters as `_`.
    public let ascii: String

    /// The longest name, in UTF-8 bytes (file systems allow 255).
    public static let maximumUTF8Bytes = 200

    /// Sanitises a name.
    /// - Parameters:
    ///   - name: The name the user gave, e.g. `Trip.kmz` (any characters).
    ///   - fallback: The name used when nothing is left of `name` (default `download`).
    public init(_ name: String, fallback: String = "download") {
        var safe = String(String.UnicodeScalarView(name.unicodeScalars.map(Self.replacement)))
        safe = String(safe.drop { $0 == "." || $0 == " " })
        while safe.hasSuffix(" ") || safe.hasSuffix(".") { safe.removeLast() }
        safe = Self.truncated(safe)
        if safe.isEmpty || safe.hasPrefix(".") { safe = fallback + safe }
        unicode = safe
        ascii = Self.asciiFallback(safe)
    }

    /// The `Content-Disposition` value: `attachment; filename="…"; filename*=UTF-8''…`.
    public var contentDisposition: String {
        "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(Self.percentEncoded(unicode))"
    }

    /// Characters never kept in a file name: path separators, quotes and those Windows refuses.
    private static let refused: Set<Unicode.Scalar> = ["/", "\\", "\"", ":", "*", "?", "<", ">", "|"]

    private static func replacement(_ s: Unicode.Scalar) -> Unicode.Scalar {
        switch s.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned: "_"
        default: refused.contains(s) ? "_" : s
        }
    }

    /// The name cut to `maximumUTF8Bytes`, keeping its extension (a final `.xyz` of at most 10 characters).
    private static func truncated(_ name: String) -> String {
        guard name.utf8.count > maximumUTF8Bytes else { return name }
        var stem = name
        var ext = ""
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 10 {
            stem = String(name[..<dot])
            ext = String(name[dot...])
        }
        while !stem.isEmpty && stem.utf8.count + ext.utf8.count > maximumUTF8Bytes { stem.removeLast() }
        return stem + ext
    }

    /// Accents stripped (Ü → U), other non-ASCII characters and `%` as `_` (a run of them as one `_`).
    private static func asciiFallback(_ name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        var result = ""
        for s in folded.unicodeScalars {
            let keep = s.isASCII && s.value >= 0x20 && s.value < 0x7F && s != "%"
            if keep {
                result.unicodeScalars.append(s)
            } else if !result.hasSuffix("_") {
                result += "_"
            }
        }
        return result
    }

    /// RFC 8187's `attr-char`s as they are, every other UTF-8 byte as `%XX`.
    private static func percentEncoded(_ name: String) -> String {
        let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~".utf8)
        var result = ""
        for byte in name.utf8 {
            if plain.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }
}
