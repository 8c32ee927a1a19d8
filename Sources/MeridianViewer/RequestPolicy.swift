import Foundation

/// What the viewer admits, decided from a request's head before its body is read (`HTTPServer.Admission`).
///
/// A server on 127.0.0.1 is reachable by every web page the user opens, so:
/// - **Host**: only the addresses the viewer is reached at — `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT` and
///   the `--host` address given — are served; anything else (a DNS-rebinding page's own name) gets 421;
/// - **Origin**: a request other than GET/HEAD carrying an `Origin` must come from one of those same addresses
///   (`http://127.0.0.1:PORT`, …); a foreign or `null` origin gets 403;
/// - **Content-Type**: a POST must say `application/json`, or for `POST /api/kml/open` one of the upload types
///   (`application/octet-stream`, `application/vnd.google-earth.kmz`, `application/vnd.google-earth.kml+xml`);
///   anything else (the `text/plain`, form and multipart types a cross-site page may send without a CORS
///   preflight) gets 415.
///
/// The viewer sends no CORS headers, so browsers never let another origin read its answers.
public struct RequestPolicy: Sendable, Hashable {
    /// The accepted `Host` values (`host:port`, lower case, IPv6 addresses in brackets).
    public let allowedHosts: Set<String>

    /// The types `POST /api/kml/open` accepts.
    public static let uploadTypes: Set<String> = [
        "application/octet-stream", "application/vnd.google-earth.kmz", "application/vnd.google-earth.kml+xml",
    ]

    /// A policy admitting nothing (before the server knows its port).
    public init() { allowedHosts = [] }

    /// The policy for a viewer listening on `host:port`.
    /// - Parameters:
    ///   - host: The address the server listens on (the `--host` option), e.g. "127.0.0.1" or "::1".
    ///   - port: The bound TCP port, 1…65535.
    public init(host: String, port: Int) {
        var names = ["127.0.0.1", "localhost", "[::1]"]
        let given = host.lowercased()
        names.append(given.contains(":") && !given.hasPrefix("[") ? "[\(given)]" : given)
        var hosts = Set(names.map { "\($0):\(port)" })
        if port == 80 { hosts.formUnion(names) }
        allowedHosts = hosts
    }

    /// A refusal for a request the viewer must not serve, or `nil` to admit it.
    /// - Parameter request: The request's method, path and headers (its body is not needed).
    public func refusal(for request: HTTPRequest) -> HTTPResponse? {
        let host = (request.header("Host") ?? "").lowercased()
        guard allowedHosts.contains(host) else {
            return .jsonError(421, "this viewer answers only at its loopback address "
                + "(\(allowedHosts.sorted().first ?? "none")), not at Host '\(Self.clip(host))'")
        }
        guard request.method != "GET", request.method != "HEAD" else { return nil }
        if let origin = request.header("Origin") {
            let lower = origin.lowercased()
            guard lower.hasPrefix("http://"), allowedHosts.contains(String(lower.dropFirst("http://".count))) else {
                return .jsonError(403, "requests from another origin ('\(Self.clip(origin))') are refused")
            }
        }
        guard request.method == "POST" else { return nil }
        let type = (request.header("Content-Type") ?? "").split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if request.path == "/api/kml/open" {
            guard Self.uploadTypes.contains(type) else {
                return .jsonError(415, "send the KML or KMZ file as application/octet-stream, got '\(Self.clip(type))'")
            }
        } else if type != "application/json" {
            return .jsonError(415, "send the request as application/json, got '\(Self.clip(type))'")
        }
        return nil
    }

    /// At most 80 characters of client input, for messages (JSON-escaped when sent).
    private static func clip(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}
