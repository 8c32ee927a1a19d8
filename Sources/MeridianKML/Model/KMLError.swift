import Foundation

/// Why a KML or KMZ file could not be read or written. Every failure of `MeridianKML` is one of these cases;
/// nothing it does crashes or leaves a partial file behind.
public enum KMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The XML is not well-formed (truncated, mismatched tags, bad characters); with the 1-based line and column
    /// where the parser stopped.
    case malformedXML(message: String, line: Int, column: Int)
    /// The document declares entities in a DOCTYPE (`<!ENTITY …>`): refused up front, before any expansion, to
    /// rule out "billion laughs" expansion and external-entity attacks.
    case entityDeclarationsRefused(line: Int)
    /// The document declares attribute defaults in a DOCTYPE (`<!ATTLIST …>`): refused up front, because the
    /// parser adds every default to every element it names, checking each against all the others.
    case attributeListDeclarationsRefused(line: Int)
    /// An element has more attributes (namespace declarations included) than the reader accepts.
    case tooManyAttributes(limit: Int, line: Int, column: Int)
    /// The document is in an encoding Meridian does not read (UCS-4, UTF-7, EBCDIC, …), or its XML declaration
    /// names its encoding in a way that could be read two ways; the text says which.
    case unsupportedEncoding(String)
    /// The XML is well-formed but its root element is not `<kml>` (nor a bare KML feature).
    case notKML(rootElement: String)
    /// The file is not a readable ZIP archive (bad signature, broken central directory, CRC error, …).
    case corruptArchive(path: String, reason: String)
    /// The KMZ archive holds no `.kml` entry (at a safe path).
    case noKMLInArchive(path: String, entries: [String])
    /// An archive entry is larger than the reader's limit, or inflates to more than its header announced.
    case entryTooLarge(entry: String, bytes: UInt64, limit: UInt64)
    /// An archive entry's uncompressed/compressed size ratio exceeds the reader's limit (a zip bomb).
    case compressionRatioExceeded(entry: String, ratio: Double, limit: Double)
    /// The archive holds more entries, or more uncompressed bytes in total, than the reader's limits allow.
    case archiveTooLarge(reason: String)
    /// An archive entry name is absolute or climbs out of the archive (`../`); it is never read or extracted.
    case unsafeEntryPath(String)
    /// A file could not be read or written; the reason comes from the operating system or libzip.
    case io(path: String, reason: String)
    /// The target file exists and overwriting was not requested.
    case fileExists(path: String)
    /// The file name has an extension other than `.kml` or `.kmz`.
    case unsupportedExtension(path: String)
    /// A local icon file named by a document built in code (a `file:` or absolute href) cannot be packed into a
    /// KMZ: it does not exist, is not a regular file, cannot be read or is larger than the limit; `reason` says which.
    case missingResource(href: String, reason: String)
    /// Reading was stopped by the caller's `WorkBudget` (its deadline passed or it was cancelled).
    case interrupted(String)
    /// A placemark's `<coordinates>` cannot be read: a value that is not a finite number (`nan`, `inf`, `1e400`, a
    /// word), a comma without a number, or a position of one number. `placemark` is its 0-based position among the
    /// file's placemarks, `line` the 1-based line where its start tag ends.
    case unreadableCoordinates(placemark: Int, line: Int, reason: String)
    /// A geometry could not be turned into KML (empty, non-finite, or not projectable to WGS84).
    case invalidGeometry(String)

    /// A one-line explanation for users.
    public var description: String {
        switch self {
        case .malformedXML(let m, let l, let c): "malformed XML at line \(l), column \(c): \(m)"
        case .entityDeclarationsRefused(let l):
            "the document declares XML entities (DOCTYPE with <!ENTITY> at line \(l)); refused to prevent entity-expansion attacks"
        case .attributeListDeclarationsRefused(let l):
            "the document declares attribute defaults (DOCTYPE with <!ATTLIST> at line \(l)); refused, as KML needs none"
        case .tooManyAttributes(let limit, let l, let c):
            "an element at line \(l), column \(c) has more than \(limit) attributes, the most one element may have"
        case .unsupportedEncoding(let what): "unsupported encoding: \(what)"
        case .notKML(let r): "not a KML document: the root element is <\(r)>"
        case .corruptArchive(let p, let r): "\(p) is not a readable KMZ/ZIP archive: \(r)"
        case .noKMLInArchive(let p, let e):
            "\(p) contains no .kml file (entries: \(e.prefix(10).joined(separator: ", "))\(e.count > 10 ? ", …" : ""))"
        case .entryTooLarge(let e, let b, let l): "archive entry \(e) is too large: \(b) bytes (limit \(l))"
        case .compressionRatioExceeded(let e, let r, let l):
            "archive entry \(e) inflates \(Int(r)):1 (limit \(Int(l)):1); refusing a possible zip bomb"
        case .archiveTooLarge(let r): "archive too large: \(r)"
        case .unsafeEntryPath(let p): "unsafe archive entry path \(p) (absolute or outside the archive)"
        case .io(let p, let r): "\(p): \(r)"
        case .fileExists(let p): "\(p) already exists (overwriting was not requested)"
        case .unsupportedExtension(let p): "\(p): expected a .kml or .kmz file name"
        case .missingResource(let h, let r): "the icon file \(h) cannot be packed: \(r)"
        case .invalidGeometry(let m): "invalid geometry: \(m)"
        case .interrupted(let m): "reading was stopped: \(m)"
        case .unreadableCoordinates(let p, let l, let r): "placemark \(p) (line \(l)): \(r)"
        }
    }
}
