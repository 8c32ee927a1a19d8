import Foundation

/// The check of a request's head — its request line and header fields, up to the empty line — that the server's
/// front door (`FrontDoor`) makes before libmicrohttpd reads a byte of the connection, so that every head
/// libmicrohttpd parses is one it frames the way the server does, and every refusal is the server's own response.
///
/// The rules (RFC 9112 §2.2, §3, §5, §6):
/// - lines end in CRLF (a bare LF is taken as one); a CR anywhere else, or any other control character but a tab in a
///   header line, is refused; up to `maximumLeadingEmptyLines` empty lines before the request line are skipped;
/// - the request line is `METHOD SP TARGET SP HTTP/1.x`, single spaces, the method a token; the target holds no
///   control character, raw or percent-encoded (`targetHasControlCharacter`); HTTP/2 and later are answered 505;
/// - a header line is `name:value`, the name a token with nothing before the colon; a line starting with white space
///   (obsolete line folding) is refused;
/// - at most `maximumSize` bytes and `maximumFields` header fields (431 beyond);
/// - `Host`, `Origin`, `Content-Type`, `Content-Length` and `Transfer-Encoding` at most once each (`singleHeaders`);
/// - framing, each value read as libmicrohttpd reads it (without its leading white space, but with any trailing white
///   space, which libmicrohttpd would take as part of the value): `Content-Length` is digits only and at most the server's body limit (413 beyond); `Transfer-Encoding`
///   is `chunked` alone (501 for any other coding), never beside a `Content-Length` and never in HTTP/1.0.
enum RequestHead {
    /// The largest head accepted, in bytes (the empty line included).
    static let maximumSize = 16 << 10
    /// The most header fields a head may hold.
    static let maximumFields = 100
    /// The most empty lines skipped before the request line (a client may send a CRLF after a body; more is no
    /// request, and each would make the front door read the head again).
    static let maximumLeadingEmptyLines = 2

    /// Headers a request may carry once: two `Host`s must be answered 400 (RFC 9110 §7.2), and two of the others
    /// could be read differently by the admission checks, by libmicrohttpd and by what answers the request.
    static let singleHeaders: Set<String> = ["host", "origin", "content-type", "content-length", "transfer-encoding"]

    /// The message of the 413 answer to a body larger than `limit` bytes (declared here, or counted while read).
    static func bodyTooLargeMessage(limit: Int) -> String { "request body too large (limit \(limit) bytes)" }

    /// A refused head: the status and message of the answer, and the method and path it answers (for its headers).
    struct Refusal: Error, Equatable {
        /// The HTTP status, e.g. 400.
        var status: Int
        /// The one-line message sent as `{"error": …}`.
        var message: String
        /// The request's method, when its line could be read ("" otherwise).
        var method = ""
        /// The request's path without the query ("/" when its line could not be read).
        var path = "/"

        /// The response: a JSON error with the security headers for `path`.
        var response: HTTPResponse { SecurityHeaders.applied(to: .jsonError(status, message), path: path) }
    }

    /// What the check found.
    enum Verdict: Equatable {
        /// The empty line that ends the head has not arrived, and nothing so far is wrong.
        case incomplete
        /// A complete head (its length in bytes, the empty line included) that libmicrohttpd may read.
        case accepted(length: Int)
        /// A head the server answers itself.
        case refused(Refusal)
    }

    /// Checks the bytes received so far on a connection.
    /// - Parameters:
    ///   - bytes: The connection's first bytes (more than the head is fine: only the head is looked at).
    ///   - maximumBodySize: The largest body the server accepts, in bytes.
    /// - Returns: `.incomplete` while the head may still be completed by more bytes, else the verdict.
    static func check(_ bytes: [UInt8], maximumBodySize: Int) -> Verdict {
        var start = 0
        // Up to `maximumLeadingEmptyLines` empty lines before the request line are skipped (RFC 9112 §2.2).
        var emptyLines = 0
        while start < bytes.count, bytes[start] == cr || bytes[start] == lf {
            if bytes[start] == cr, start + 1 < bytes.count, bytes[start + 1] != lf { return .refused(malformedLine) }
            if bytes[start] == lf { emptyLines += 1 }
            guard emptyLines <= maximumLeadingEmptyLines else { return .refused(malformedLine) }
            start += 1
        }
        var line = 0
        var fields = 0
        var method = "", path = "/", version = ""
        var seen: Set<String> = []
        var contentLength: String?, transferEncoding: String?
        var position = start
        while let newline = bytes[position...].firstIndex(of: lf) {
            let end = newline > position && bytes[newline - 1] == cr ? newline - 1 : newline
            let content = bytes[position..<end]
            line += 1
            position = newline + 1
            guard position <= maximumSize else { return .refused(tooLarge(method, path)) }
            if line == 1 {
                switch requestLine(content) {
                case .failure(let refusal): return .refused(refusal)
                case .success(let parsed): (method, path, version) = parsed
                }
                continue
            }
            func refuse(_ status: Int, _ message: String) -> Verdict {
                .refused(Refusal(status: status, message: message, method: method, path: path))
            }
            if content.isEmpty {
                let framing = framingRefusal(contentLength: contentLength, transferEncoding: transferEncoding,
                                             version: version, maximumBodySize: maximumBodySize)
                if let (status, message) = framing { return refuse(status, message) }
                return .accepted(length: position)
            }
            if content.first == space || content.first == tab {
                return refuse(400, "line \(line) of the request head is folded (starts with white space), which HTTP/1.1 forbids")
            }
            if content.contains(where: { ($0 < 0x20 && $0 != tab) || $0 == 0x7F }) {
                return refuse(400, "line \(line) of the request head holds a control character")
            }
            guard let colon = content.firstIndex(of: UInt8(ascii: ":")), colon > content.startIndex,
                content[..<colon].allSatisfy(isTokenCharacter)
            else {
                return refuse(400, "line \(line) of the request head is not a header field (name: value)")
            }
            fields += 1
            guard fields <= maximumFields else {
                return refuse(431, "the request has more than \(maximumFields) header fields")
            }
            let name = String(decoding: content[..<colon], as: UTF8.self).lowercased()
            guard singleHeaders.contains(name) else { continue }
            guard seen.insert(name).inserted else { return refuse(400, "the request has more than one \(displayName(name)) header") }
            let value = String(decoding: content[(colon + 1)...].drop { $0 == space || $0 == tab }, as: UTF8.self)
            if name == "content-length" { contentLength = value }
            if name == "transfer-encoding" { transferEncoding = value }
        }
        // No empty line yet: wait for more, unless the head is already too large or its first line is bad.
        if bytes.count >= maximumSize { return .refused(tooLarge(method, path)) }
        return .incomplete
    }

    // MARK: - Parts

    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    private static let malformedLine = Refusal(status: 400, message: "the request line is malformed (expected METHOD TARGET HTTP/1.1)")

    private static func tooLarge(_ method: String, _ path: String) -> Refusal {
        Refusal(status: 431, message: "the request head is larger than \(maximumSize) bytes", method: method, path: path)
    }

    /// `METHOD SP TARGET SP HTTP/1.x` as (method, path without the query, version), or the refusal.
    private static func requestLine(_ content: ArraySlice<UInt8>) -> Result<(String, String, String), Refusal> {
        let parts = content.split(separator: space, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenCharacter), !parts[1].isEmpty else {
            return .failure(malformedLine)
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = Array(parts[1])
        let path = String(decoding: target.prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        if targetHasControlCharacter(target) {
            return .failure(Refusal(status: 400, message: "the request path contains a control character", method: method))
        }
        if version == "HTTP/1.1" || version == "HTTP/1.0" { return .success((method, path, version)) }
        let digits = Array(parts[2].dropFirst("HTTP/".count))
        if version.hasPrefix("HTTP/"), digits.count == 3, digits[1] == UInt8(ascii: "."),
            (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(digits[0]), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digits[2])
        {
            return .failure(Refusal(status: 505, message: "HTTP version \(version) is not supported: use HTTP/1.1",
                                    method: method, path: path))
        }
        return .failure(Refusal(status: 400, message: malformedLine.message, method: method, path: path))
    }

    /// The refusal (status, message) of the head's body framing, or `nil` when it is sound.
    private static func framingRefusal(contentLength: String?, transferEncoding: String?, version: String,
                                       maximumBodySize: Int) -> (Int, String)? {
        if let coding = transferEncoding {
            if contentLength != nil { return (400, "the request has both a Content-Length and a Transfer-Encoding header") }
            if version == "HTTP/1.0" { return (400, "the request has a Transfer-Encoding header, which HTTP/1.0 does not allow") }
            if coding.lowercased() != "chunked" {
                return (501, "the request's Transfer-Encoding '\(clip(coding))' is not supported: send a Content-Length or 'chunked'")
            }
        }
        if let length = contentLength {
            guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return (400, "the request's Content-Length '\(clip(length))' is not a number of bytes")
            }
            // Leading zeros are allowed; more significant digits than an Int holds is too large as well.
            let significant = length.drop { $0 == "0" }
            if significant.count > 18 || (Int(significant) ?? 0) > maximumBodySize {
                return (413, bodyTooLargeMessage(limit: maximumBodySize))
            }
        }
        return nil
    }

    /// Whether a byte may appear in a token (RFC 9110 §5.6.2): a method or a field name.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A header name as messages spell it ("Content-Length").
    private static func displayName(_ lowercased: String) -> String {
        lowercased.split(separator: "-").map { $0.capitalized }.joined(separator: "-")
    }

    /// At most 80 characters of client input, for messages (JSON-escaped when sent).
    private static func clip(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}
