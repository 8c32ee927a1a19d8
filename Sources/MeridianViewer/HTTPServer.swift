import CMicroHTTPD
import Foundation

/// One HTTP request as the viewer's handlers see it: method, path, query, headers and the complete body.
public struct HTTPRequest: Sendable {
    /// The method, upper case ("GET", "POST", …).
    public var method: String
    /// The path without the query string, e.g. "/api/buffer".
    public var path: String
    /// The query arguments (the last value wins for repeated names).
    public var query: [String: String]
    /// The request headers, with lower-case names.
    public var headers: [String: String]
    /// The body (empty for GET).
    public var body: Data

    /// Creates a request (the server builds them; tests build them directly).
    /// - Parameters:
    ///   - method: The method, e.g. "POST".
    ///   - path: The path without the query.
    ///   - query: Query arguments.
    ///   - headers: Headers, names in lower case.
    ///   - body: The body.
    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: a status, headers and a body.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Response headers (names as they should be sent).
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a response.
    /// - Parameters:
    ///   - status: The HTTP status code, 100…599.
    ///   - headers: Response headers.
    ///   - body: The body.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header, compared case-insensitively.
    /// - Parameter name: The header's name.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Why the HTTP server could not start.
public enum HTTPServerError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The host is not an IPv4 or IPv6 address (or "localhost").
    case invalidHost(String)
    /// libmicrohttpd refused to start, typically because the address is in use or not local.
    case startFailed(host: String, port: Int, reason: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidHost(let h): "invalid host '\(h)': give an IP address such as 127.0.0.1 or ::1"
        case .startFailed(let h, let p, let r): "cannot listen on \(h):\(p): \(r)"
        }
    }
}

/// A small HTTP/1.1 server on GNU libmicrohttpd.
///
/// The daemon runs its own threads (one per connection, `MHD_USE_THREAD_PER_CONNECTION` with an internal polling
/// thread), so `handler` is called concurrently and must be thread-safe. Request bodies are accumulated up to
/// `maximumBodySize`: a larger declared `Content-Length` is answered with 413 before the body is read, a larger
/// chunked body is drained and then answered with 413. Connections are limited in number and time out when idle.
///
/// The C callbacks reach this object through an `Unmanaged` pointer passed as libmicrohttpd's closure argument; the
/// object stays alive while the daemon runs because `stop()` (also called by `deinit`) stops the daemon first.
public final class HTTPServer: @unchecked Sendable {
    /// A request handler; called on libmicrohttpd's threads.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The largest accepted request body, in bytes.
    public let maximumBodySize: Int
    /// The most simultaneous connections; more are refused by libmicrohttpd.
    public let connectionLimit: Int
    /// Seconds after which an idle connection is closed.
    public let idleTimeout: Int

    let handler: Handler
    private let lock = NSLock()
    private var daemon: OpaquePointer?  // guarded by lock
    private var boundPort: Int = 0  // guarded by lock

    /// Creates a stopped server.
    /// - Parameters:
    ///   - maximumBodySize: The largest request body accepted (default 8 MiB).
    ///   - connectionLimit: The most simultaneous connections (default 256).
    ///   - idleTimeout: Seconds before an idle connection is closed (default 30).
    ///   - handler: Answers each request; must be thread-safe and must not block indefinitely.
    public init(maximumBodySize: Int = 8 << 20, connectionLimit: Int = 256, idleTimeout: Int = 30,
                handler: @escaping Handler) {
        self.maximumBodySize = max(0, maximumBodySize)
        self.connectionLimit = max(1, connectionLimit)
        self.idleTimeout = max(1, idleTimeout)
        self.handler = handler
    }

    deinit { stop() }

    /// The port the server listens on, or `nil` when stopped.
    public var port: Int? {
        lock.withLock { daemon == nil ? nil : boundPort }
    }

    /// Whether the daemon is running.
    public var isRunning: Bool { lock.withLock { daemon != nil } }

    /// Starts listening.
    /// - Parameters:
    ///   - host: An IPv4 or IPv6 address, or "localhost" (127.0.0.1).
    ///   - port: The TCP port; 0 picks a free one (read it back from `port`).
    /// - Returns: The port actually bound.
    /// - Throws: `HTTPServerError`.
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int) throws(HTTPServerError) -> Int {
        guard (0...65535).contains(port) else {
            throw .startFailed(host: host, port: port, reason: "the port must be in 0…65535")
        }
        lock.lock()
        defer { lock.unlock() }
        guard daemon == nil else { return boundPort }
        let address = host == "localhost" ? "127.0.0.1" : host
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue)
            | UInt32(MHD_USE_POLL.rawValue)
        let closure = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer?
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            started = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    meridian_mhd_start(flags, $0, accessHandler, closure, completedHandler,
                                       UInt32(connectionLimit), UInt32(idleTimeout))
                }
            }
        } else if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            flags |= UInt32(MHD_USE_IPv6.rawValue)
            started = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    meridian_mhd_start(flags, $0, accessHandler, closure, completedHandler,
                                       UInt32(connectionLimit), UInt32(idleTimeout))
                }
            }
        } else {
            throw .invalidHost(host)
        }
        guard let started else {
            let reason = errno == 0 ? "libmicrohttpd could not start" : String(cString: strerror(errno))
            throw .startFailed(host: host, port: port, reason: reason)
        }
        daemon = started
        boundPort = Int(meridian_mhd_bound_port(started))
        return boundPort
    }

    /// Stops listening, closes every connection and waits for libmicrohttpd's threads to finish. Idempotent.
    public func stop() {
        let running: OpaquePointer? = lock.withLock {
            let d = daemon
            daemon = nil
            return d
        }
        if let running { MHD_stop_daemon(running) }
    }

    /// Answers a complete request; never throws.
    func respond(to request: HTTPRequest) -> HTTPResponse { handler(request) }
}

// MARK: - libmicrohttpd callbacks

/// What the server keeps for one request between libmicrohttpd's calls: the body so far.
private final class PendingRequest {
    var body = Data()
    var tooLarge = false
}

/// The access handler: called first with the headers, then once per body chunk, then once with no data.
private let accessHandler: MHD_AccessHandlerCallback = { closure, connection, url, method, _, uploadData, uploadSize,
    state in
    guard let closure, let connection, let state, let uploadSize else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(closure).takeUnretainedValue()
    guard let pointer = state.pointee else {
        // First call: headers only. Refuse a declared oversized body before reading it.
        if let length = lookup(connection, .HEADER_KIND, "Content-Length"), let n = Int(length),
            n > server.maximumBodySize
        {
            return queue(connection, tooLargeResponse(server.maximumBodySize))
        }
        state.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
        return MHD_Result.YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        if !pending.tooLarge, let uploadData {
            if pending.body.count + count > server.maximumBodySize {
                pending.tooLarge = true
                pending.body = Data()
            } else {
                pending.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: count)
            }
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    if pending.tooLarge { return queue(connection, tooLargeResponse(server.maximumBodySize)) }
    let rawPath = url.map { String(cString: $0) } ?? "/"
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET",
        path: rawPath,
        query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
        headers: values(connection, .HEADER_KIND, lowercased: true),
        body: pending.body)
    pending.body = Data()
    return queue(connection, server.respond(to: request))
}

/// Releases the per-request state when libmicrohttpd is done with a request (also on errors and timeouts).
private let completedHandler: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let pointer = state.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pointer).release()
    state.pointee = nil
}

private func tooLargeResponse(_ limit: Int) -> HTTPResponse {
    .jsonError(413, "request body too large (limit \(limit) bytes)")
}

private func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
}

/// Collects every value of one kind (headers or query arguments) into a dictionary.
private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    final class Box {
        var values: [String: String] = [:]
        let lowercased: Bool
        init(lowercased: Bool) { self.lowercased = lowercased }
    }
    let box = Box(lowercased: lowercased)
    withExtendedLifetime(box) {
        _ = MHD_get_connection_values(connection, kind, { closure, _, key, value in
            guard let closure, let key else { return MHD_Result.YES }
            let box = Unmanaged<Box>.fromOpaque(closure).takeUnretainedValue()
            let name = String(cString: key)
            box.values[box.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return MHD_Result.YES
        }, Unmanaged.passUnretained(box).toOpaque())
    }
    return box.values
}

/// Sends a response on a connection.
private func queue(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
    let made: OpaquePointer? = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                        .RESPMEM_MUST_COPY)
    }
    guard let made else { return MHD_Result.NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
    return MHD_queue_response(connection, UInt32(clamping: response.status), made)
}
