import Foundation

/// The headers every response of the viewer carries, whatever answers it (a page, the API, the documentation, or
/// the server's own refusals): `HTTPServer` adds them as it sends each response, so no handler can leave them out.
///
/// - `X-Content-Type-Options: nosniff`: browsers take each body as its `Content-Type` says (an error message in
///   `text/plain` that quotes a request is never run as HTML or script).
/// - `Content-Security-Policy`: the viewer's pages load their scripts, styles, images and data from the viewer
///   itself only — no inline script or style, no plugins — but for images from `data:` URLs (the icons packed in
///   an opened KMZ, which `/api/kml/open` sends inline, PNG, JPEG or GIF only: an image cannot run script), and no
///   page may frame them (`frame-ancestors 'none'`, with `X-Frame-Options: DENY` for browsers without CSP level
///   2). The DocC
///   documentation under `/docs/` is the one exception: DocC's page starts with an inline script (`var baseUrl =
///   "/docs/"`) and its renderer uses inline styles and `data:` images, so its policy allows those, still only from
///   the viewer itself and never framed. Its files are the ones `scripts/docs.sh` built; nothing in them comes from
///   a request.
/// - `Referrer-Policy: no-referrer`: the viewer's URLs are not sent to other sites.
public enum SecurityHeaders {
    /// The policy of the viewer's pages and API: everything from the viewer itself (images also from `data:`
    /// URLs), nothing inline, never framed.
    public static let viewerPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
        + "frame-ancestors 'none'"

    /// The policy of the DocC documentation under `/docs/`: its inline bootstrap script, inline styles and `data:`
    /// images allowed, everything else from the viewer itself, never framed.
    public static let documentationPolicy = "default-src 'self'; script-src 'self' 'unsafe-inline'; "
        + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; "
        + "base-uri 'self'; form-action 'none'; frame-ancestors 'none'"

    /// The headers for a response to a request for `path`.
    /// - Parameter path: The request's path without the query, e.g. "/buffers.html" or "/docs/documentation/".
    /// - Returns: `Content-Security-Policy`, `X-Content-Type-Options`, `X-Frame-Options` and `Referrer-Policy`.
    public static func headers(forPath path: String) -> [String: String] {
        let documentation = path == "/docs" || path.hasPrefix("/docs/")
        return [
            "Content-Security-Policy": documentation ? documentationPolicy : viewerPolicy,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
        ]
    }

    /// `response` with the headers for `path` (replacing any of the same names, compared case-insensitively).
    /// - Parameters:
    ///   - response: A response about to be sent.
    ///   - path: The request's path.
    public static func applied(to response: HTTPResponse, path: String) -> HTTPResponse {
        var out = response
        for (name, value) in headers(forPath: path) {
            for key in out.headers.keys where key.caseInsensitiveCompare(name) == .orderedSame { out.headers[key] = nil }
            out.headers[name] = value
        }
        return out
    }
}
