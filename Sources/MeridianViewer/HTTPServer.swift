import CMicroHTTPD
import Foundation
import MeridianCore

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
    /// The body (empty for GET, and while the server asks `HTTPServer.Admission` about the head).
    public var body: Data
    /// Whether the client has gone away (closed its connection) while the request is being answered; long work
    /// polls it to stop early. Always `false` for requests built without a connection.
    public var isClientGone: @Sendable () -> Bool

    /// Creates a request (the server builds them; tests build them directly).
    /// - Parameters:
    ///   - method: The method, e.g. "POST".
    ///   - path: The path without the query.
    ///   - query: Query arguments.
    ///   - headers: Headers, names in lower case.
    ///   - body: The body.
    ///   - isClientGone: Polled by long work; `true` once the client has closed the connection.
    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: Data = Data(), isClientGone: @escaping @Sendable () -> Bool = { false }) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.isClientGone = isClientGone
    }

    /// The value of a header, compared case-insensitively.
    /// - Parameter name: The header's name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
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
/// The server accepts connections itself: a front door (`FrontDoor`, one thread) listens, waits for each request's
/// head without consuming it (`MSG_PEEK`), checks it (`RequestHead`) and hands the connection to libmicrohttpd, which
/// has no listening socket of its own (`MHD_add_connection`), only when libmicrohttpd will parse the head as the
/// server does; a refused head is answered by the front door. libmicrohttpd 0.9.75 would answer some heads itself
/// (and a malformed `Content-Length` with its status line and headers twice), without the security headers.
/// A connection carries one request (every response says `Connection: close`): a second request on it, kept alive or
/// pipelined behind the first, would reach libmicrohttpd without passing the front door.
///
/// libmicrohttpd runs its own threads (one per connection, `MHD_USE_THREAD_PER_CONNECTION` with an internal polling
/// thread), so `handler` is called concurrently and must be thread-safe.
///
/// Every response, the server's own refusals included, carries `SecurityHeaders` (a content security policy,
/// `nosniff`, no framing), added as it is sent. libmicrohttpd reads a chunked body itself and refuses bad framing
/// with an answer of its own (400, or 413 for a chunk size beyond 64 bits) to which no header can be added; it logs
/// that answer just before making it, on the connection's thread, and the server answers there first
/// (`OwnErrorAnswers`), so the client reads the server's answer and libmicrohttpd's finds the socket shut.
///
/// Bounds, each enforced as soon as it is crossed:
/// - the head, at the front door (`RequestHead`): a malformed request line or header line, a control character in
///   the request target (raw or percent-encoded), a `Host`, `Origin`, `Content-Type`, `Content-Length` or
///   `Transfer-Encoding` header given twice, a `Content-Length` that is not digits only, a `Transfer-Encoding` other
///   than `chunked` or beside a `Content-Length` are answered 400 (501 for an unknown coding, 505 for HTTP/2 and
///   later); a head over 16 KiB or 100 fields 431; a declared `Content-Length` above `maximumBodySize` 413 — all
///   before admission sees the request and before any body byte is read;
/// - `admission` sees the method, path and headers before any body byte is read and may answer instead (the viewer
///   refuses foreign `Host`s, foreign `Origin`s and wrong `Content-Type`s there);
/// - the body: a chunked body larger than `maximumBodySize` is drained and then answered 413;
/// - time: a request's line, headers and body must all arrive within `requestDeadline` seconds of the connection
///   opening, however slowly the bytes trickle in: a connection whose head is still incomplete then is closed by
///   the front door, and one still receiving its body is shut down. Connections idle for `idleTimeout` are closed;
/// - connections: at most `connectionLimit` wait at the front door for their heads (a new one closes the
///   longest-waiting one when all are taken), and at most `connectionLimit` handed to libmicrohttpd are not shut
///   down; when all but `reservedSlots` of those are taken, the connection that has been receiving its request the
///   longest (at least 0.25 s) is shut down, and when all are taken the longest-receiving one is shut down whatever
///   its age, so a new client always finds a slot unless every connection is being answered. libmicrohttpd itself
///   admits `closingHeadroom` more, for connections shut down whose threads have not closed them yet.
///
/// The C callbacks reach this object through an `Unmanaged` pointer passed as libmicrohttpd's closure argument; the
/// object stays alive while the daemon runs because `stop()` (also called by `deinit`) stops the front door and then
/// the daemon first.
public final class HTTPServer: @unchecked Sendable {
    /// A request handler; called on libmicrohttpd's threads.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Called with a request's head (its `body` empty) before the body is read: a response refuses the request,
    /// `nil` admits it.
    public typealias Admission = @Sendable (HTTPRequest) -> HTTPResponse?

    /// The largest accepted request body, in bytes.
    public let maximumBodySize: Int
    /// The most connections waiting at the front door for their heads, and the most being read or answered.
    public let connectionLimit: Int
    /// Seconds after which an idle connection is closed.
    public let idleTimeout: Int
    /// Seconds within which a request's line, headers and body must have arrived.
    public let requestDeadline: Double
    /// Connection slots kept free for new clients by shutting down the slowest receiving connection.
    public let reservedSlots: Int
    /// Connections libmicrohttpd admits beyond `connectionLimit`: room for those shut down and still closing.
    public static let closingHeadroom = 64

    let handler: Handler
    let admission: Admission?
    let connections: ConnectionTracker
    /// The requests being received, by the thread reading each: where libmicrohttpd's own error answers are
    /// answered by the server instead.
    let ownErrors = OwnErrorAnswers()
    /// What libmicrohttpd's logger calls (`meridian_mhd_logger`): freed when the server is.
    private let errorHook: UnsafeMutablePointer<meridian_error_hook>
    private let lock = NSLock()
    private var daemon: OpaquePointer?  // guarded by lock
    private var boundPort: Int = 0  // guarded by lock
    private var watchdog: DispatchSourceTimer?  // guarded by lock
    private var frontDoor: FrontDoor?  // guarded by lock

    /// Creates a stopped server.
    /// - Parameters:
    ///   - maximumBodySize: The largest request body accepted, in bytes (default 8 MiB).
    ///   - connectionLimit: The most simultaneous connections, ≥ 1 (default 256).
    ///   - idleTimeout: Seconds before an idle connection is closed, ≥ 1 (default 30).
    ///   - requestDeadline: Seconds, > 0, within which a request's line, headers and body must arrive (default 10).
    ///   - reservedSlots: Connection slots, 0 ..< `connectionLimit`, kept free for new clients (default 4).
    ///   - admission: Sees each request's head before its body is read; a response refuses it (default none).
    ///   - handler: Answers each request; must be thread-safe and must not block indefinitely.
    public init(maximumBodySize: Int = 8 << 20, connectionLimit: Int = 256, idleTimeout: Int = 30,
                requestDeadline: Double = 10, reservedSlots: Int = 4, admission: Admission? = nil,
                handler: @escaping Handler) {
        self.maximumBodySize = max(0, maximumBodySize)
        self.connectionLimit = max(1, connectionLimit)
        self.idleTimeout = max(1, idleTimeout)
        self.requestDeadline = requestDeadline > 0 ? requestDeadline : 10
        self.reservedSlots = min(max(0, reservedSlots), max(1, connectionLimit) - 1)
        self.admission = admission
        self.handler = handler
        connections = ConnectionTracker(
            evictionThreshold: max(1, connectionLimit) - self.reservedSlots, limit: max(1, connectionLimit),
            deadlineNanoseconds: UInt64(self.requestDeadline * 1e9))
        errorHook = UnsafeMutablePointer<meridian_error_hook>.allocate(capacity: 1)
        errorHook.initialize(to: meridian_error_hook(callback: ownErrorHandler, closure: nil))
    }

    deinit {
        stop()
        errorHook.deallocate()
    }

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
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let listener: Int32
        errno = 0
        if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            listener = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    meridian_listen($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            listener = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    meridian_listen($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            throw .invalidHost(host)
        }
        func failure(_ fallback: String) -> HTTPServerError {
            .startFailed(host: host, port: port, reason: errno == 0 ? fallback : String(cString: strerror(errno)))
        }
        guard listener >= 0 else { throw failure("the socket could not be opened") }
        let flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue)
            | UInt32(MHD_USE_POLL.rawValue)
        let closure = Unmanaged.passUnretained(self).toOpaque()
        errorHook.pointee.closure = closure
        // The pool holds the head libmicrohttpd parses: room for the largest head the front door lets through.
        guard let started = meridian_mhd_start(flags, accessHandler, closure, completedHandler, connectionHandler,
                                               UInt32(connectionLimit + Self.closingHeadroom), UInt32(idleTimeout),
                                               4 * RequestHead.maximumSize, errorHook)
        else {
            let error = failure("libmicrohttpd could not start")
            close(listener)
            throw error
        }
        let tracker = connections
        let door = FrontDoor(listener: listener, maximumBodySize: maximumBodySize,
                             deadlineNanoseconds: UInt64(requestDeadline * 1e9), capacity: connectionLimit) {
            fd, address, length, acceptedAt in
            // libmicrohttpd reports the connection started from within MHD_add_connection, on this thread.
            tracker.expect(fd: fd, since: acceptedAt)
            if MHD_add_connection(started, fd, address, length) != MHD_Result.YES { tracker.forget(fd: fd) }
        }
        guard let door else {
            let error = failure("the front door could not be opened")
            MHD_stop_daemon(started)
            close(listener)
            throw error
        }
        door.start()
        frontDoor = door
        daemon = started
        boundPort = Int(meridian_bound_port(listener))
        // Shuts down connections that are still receiving their request after the deadline, 4 times a second.
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "meridian.http.watchdog"))
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { tracker.shutDownExpired() }
        timer.resume()
        watchdog = timer
        return boundPort
    }

    /// Stops listening, closes every connection and waits for the front door's and libmicrohttpd's threads to finish.
    /// Idempotent.
    public func stop() {
        let (running, timer, door): (OpaquePointer?, DispatchSourceTimer?, FrontDoor?) = lock.withLock {
            let d = daemon, t = watchdog, f = frontDoor
            daemon = nil
            watchdog = nil
            frontDoor = nil
            return (d, t, f)
        }
        timer?.cancel()
        // The door first: it hands connections to the daemon until its thread has stopped.
        door?.stop()
        if let running { MHD_stop_daemon(running) }
    }

    /// Answers a complete request; never throws.
    func respond(to request: HTTPRequest) -> HTTPResponse { handler(request) }
}

// MARK: - Connection deadlines

/// The server's open connections and when each started receiving its current request; shuts down (with
/// `shutdown(2)`, which wakes the connection's thread) those past the deadline, and the oldest receiving one when
/// the server is nearly full.
///
/// Entries are added when libmicrohttpd reports a connection started and removed when it reports it closed, both
/// under `lock`, and libmicrohttpd closes a socket only after that report, so a descriptor shut down here is never
/// one reused by a newer connection.
final class ConnectionTracker: @unchecked Sendable {
    private struct Entry {
        var fd: Int32
        var since: UInt64
        var receiving = true
        var shutDown = false
    }

    private let lock = NSLock()
    private var entries: [OpaquePointer: Entry] = [:]  // guarded by lock
    private var expected: [Int32: UInt64] = [:]  // guarded by lock: accept times of connections being handed over
    private let evictionThreshold: Int
    /// Live connections at which the oldest receiving one is shut down whatever its age.
    private let limit: Int
    private let deadline: UInt64
    /// A connection must have been receiving at least this long to be shut down for a new client.
    private let minimumAgeForEviction: UInt64 = 250_000_000

    /// A tracker that shuts connections down from `evictionThreshold` live ones (those receiving for at least
    /// 0.25 s) and from `limit` (any receiving one), and those receiving longer than the deadline.
    init(evictionThreshold: Int, limit: Int, deadlineNanoseconds: UInt64) {
        self.evictionThreshold = evictionThreshold
        self.limit = max(limit, evictionThreshold)
        deadline = deadlineNanoseconds
    }

    /// The number of open connections.
    var count: Int { lock.withLock { entries.count } }

    /// The connection on `fd` is about to be handed to libmicrohttpd: its request deadline runs from `since` (when it
    /// was accepted), not from when libmicrohttpd reports it started.
    func expect(fd: Int32, since: UInt64) { lock.withLock { expected[fd] = since } }

    /// The connection on `fd` was not taken by libmicrohttpd (which closed it).
    func forget(fd: Int32) { lock.withLock { _ = expected.removeValue(forKey: fd) } }

    func started(_ connection: OpaquePointer, fd: Int32) {
        // The clock is read under the lock: another thread's `answered` may not store a later `since` in between.
        lock.withLock {
            let now = DispatchTime.now().uptimeNanoseconds
            started(connection, fd: fd, now: now)
            if let since = expected.removeValue(forKey: fd) { entries[connection]?.since = min(since, now) }
        }
    }

    /// `started` at the given time (uptime nanoseconds). Caller holds `lock`; tests call it directly.
    func started(_ connection: OpaquePointer, fd: Int32, now: UInt64) {
        entries[connection] = Entry(fd: fd, since: now)
        keepSlotsFree(now: now)
    }

    /// How long the entry has been in its current state at `now`: 0 when `now` is before `since`.
    private func age(_ e: Entry, at now: UInt64) -> UInt64 { now >= e.since ? now - e.since : 0 }

    /// Shuts down the longest-receiving connections while the connections not yet shut down reach the eviction
    /// threshold (those at least `minimumAgeForEviction` old) or exceed the limit (any). Caller holds `lock`.
    private func keepSlotsFree(now: UInt64) {
        var live = entries.values.filter { !$0.shutDown }.count
        guard live >= evictionThreshold else { return }
        let candidates = entries.filter { $0.value.receiving && !$0.value.shutDown }.sorted { $0.value.since < $1.value.since }
        for (connection, entry) in candidates where live >= evictionThreshold {
            guard live > limit || age(entry, at: now) >= minimumAgeForEviction else { break }
            shutDown(connection)
            live -= 1
        }
    }

    func closed(_ connection: OpaquePointer) { lock.withLock { _ = entries.removeValue(forKey: connection) } }

    /// The request has fully arrived: the deadline no longer applies while it is answered.
    func answering(_ connection: OpaquePointer) { lock.withLock { entries[connection]?.receiving = false } }

    /// The response has been sent: the deadline starts again for the next request on this connection.
    func answered(_ connection: OpaquePointer) {
        lock.withLock { answered(connection, now: DispatchTime.now().uptimeNanoseconds) }
    }

    /// `answered` at the given time (uptime nanoseconds). Caller holds `lock`; tests call it directly.
    func answered(_ connection: OpaquePointer, now: UInt64) {
        entries[connection]?.receiving = true
        entries[connection]?.since = now
    }

    func shutDownExpired() {
        lock.withLock { shutDownExpired(now: DispatchTime.now().uptimeNanoseconds) }
    }

    /// `shutDownExpired` at the given time (uptime nanoseconds). Caller holds `lock`; tests call it directly.
    func shutDownExpired(now: UInt64) {
        for (connection, e) in entries where e.receiving && !e.shutDown && age(e, at: now) > deadline {
            shutDown(connection)
        }
        keepSlotsFree(now: now)
    }

    /// Whether the connection has been shut down (false when unknown).
    func isShutDown(_ connection: OpaquePointer) -> Bool { lock.withLock { entries[connection]?.shutDown ?? false } }

    /// Caller holds `lock`.
    private func shutDown(_ connection: OpaquePointer) {
        guard let fd = entries[connection]?.fd, fd >= 0 else { return }
        entries[connection]?.shutDown = true
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }
}

/// Tells whether a connection's client has closed it, while (and only while) its request is being answered.
final class ClientProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var fd: Int32  // guarded by lock; -1 once the answer is done

    init(fd: Int32) { self.fd = fd }

    /// `true` when the peer has closed the connection (or it failed).
    func isGone() -> Bool {
        lock.withLock {
            guard fd >= 0 else { return false }
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if n == 0 { return true }
            if n < 0 { return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) }
            return false
        }
    }

    func invalidate() { lock.withLock { fd = -1 } }
}

// MARK: - libmicrohttpd callbacks

/// What the server keeps for one request between libmicrohttpd's calls: the body so far.
private final class PendingRequest {
    var headRead = false
    var body = Data()
    var tooLarge = false
}

/// Whether a raw request target holds a control character, literally or percent-encoded (%00–%1F, %7F).
func targetHasControlCharacter(_ raw: [UInt8]) -> Bool {
    var i = 0
    while i < raw.count {
        let b = raw[i]
        if b < 0x20 || b == 0x7F { return true }
        if b == UInt8(ascii: "%"), i + 2 < raw.count, let high = HexDigit.value(raw[i + 1]), let low = HexDigit.value(raw[i + 2]) {
            let decoded = high << 4 | low
            if decoded < 0x20 || decoded == 0x7F { return true }
            i += 3
            continue
        }
        i += 1
    }
    return false
}

/// The access handler: called first with the headers, then once per body chunk, then once with no data.
private let accessHandler: MHD_AccessHandlerCallback = { closure, connection, url, method, _, uploadData, uploadSize,
    state in
    guard let closure, let connection, let state, let uploadSize else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(closure).takeUnretainedValue()
    if state.pointee == nil { state.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque() }
    guard let pointer = state.pointee else { return MHD_Result.NO }
    let pending = Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
    let path = url.map { String(cString: $0) } ?? "/"
    func queue(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        send(connection, SecurityHeaders.applied(to: response, path: path))
    }
    if !pending.headRead {
        // First call: the head only (its syntax and framing already checked by the front door, `RequestHead`).
        // Refuse before reading any of the body.
        pending.headRead = true
        server.ownErrors.receiving(connection, fd: meridian_mhd_connection_fd(connection), path: path,
                                   method: method.map { String(cString: $0) } ?? "GET")
        if let admission = server.admission, let refusal = admission(makeRequest(connection, url, method, body: Data(), probe: nil)) {
            return queue(connection, refusal)
        }
        return MHD_Result.YES
    }
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
    server.ownErrors.finished(connection)
    if pending.tooLarge { return queue(connection, tooLargeResponse(server.maximumBodySize)) }
    server.connections.answering(connection)
    let probe = ClientProbe(fd: meridian_mhd_connection_fd(connection))
    defer { probe.invalidate() }
    let complete = makeRequest(connection, url, method, body: pending.body, probe: probe)
    pending.body = Data()
    return queue(connection, server.respond(to: complete))
}

/// Releases the per-request state when libmicrohttpd is done with a request (also on errors and timeouts), and
/// restarts the connection's request deadline.
private let completedHandler: MHD_RequestCompletedCallback = { closure, connection, state, _ in
    if let closure, let connection {
        let server = Unmanaged<HTTPServer>.fromOpaque(closure).takeUnretainedValue()
        server.ownErrors.finished(connection)
        server.connections.answered(connection)
    }
    guard let state, let pointer = state.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pointer).release()
    state.pointee = nil
}

/// Tracks connections as libmicrohttpd opens and closes them.
private let connectionHandler: MHD_NotifyConnectionCallback = { closure, connection, _, event in
    guard let closure, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(closure).takeUnretainedValue()
    if event.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        server.connections.started(connection, fd: meridian_mhd_connection_fd(connection))
    } else {
        server.ownErrors.closed(connection)
        server.connections.closed(connection)
    }
}

/// libmicrohttpd is about to answer the request its calling thread reads with `status` (`meridian_mhd_logger`).
private let ownErrorHandler: meridian_error_callback = { closure, status in
    guard let closure else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(closure).takeUnretainedValue()
    server.ownErrors.answer(status: Int(status), maximumBodySize: server.maximumBodySize)
}

/// The request as the handlers see it.
private func makeRequest(_ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
                         body: Data, probe: ClientProbe?) -> HTTPRequest {
    let gone: @Sendable () -> Bool
    if let probe { gone = { probe.isGone() } } else { gone = { false } }
    return HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET",
        path: url.map { String(cString: $0) } ?? "/",
        query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
        headers: values(connection, .HEADER_KIND, lowercased: true),
        body: body,
        isClientGone: gone)
}

private func tooLargeResponse(_ limit: Int) -> HTTPResponse {
    .jsonError(413, RequestHead.bodyTooLargeMessage(limit: limit))
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

/// Sends a response on a connection (the access handler's `queue` adds `SecurityHeaders` to every one first), with
/// `Connection: close`: a connection carries one request, so that libmicrohttpd never parses a head the front door
/// has not checked (a further request on a kept-alive connection, or pipelined behind the first, would reach it
/// unchecked).
private func send(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
    let made: OpaquePointer? = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                        .RESPMEM_MUST_COPY)
    }
    guard let made else { return MHD_Result.NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers where name.caseInsensitiveCompare("Connection") != .orderedSame {
        _ = MHD_add_response_header(made, name, value)
    }
    _ = MHD_add_response_header(made, "Connection", "close")
    return MHD_queue_response(connection, UInt32(clamping: response.status), made)
}

// MARK: - libmicrohttpd's own error answers

/// The requests whose bodies libmicrohttpd is reading, by the thread reading each (one thread a connection), and the
/// server's answer in place of libmicrohttpd's own when it refuses one.
///
/// libmicrohttpd 0.9.75 decodes a chunked body itself and answers bad framing with a response it makes from a static
/// HTML text (`transmit_error_response_len`): only its own headers, no `Content-Type`, no security headers, and no
/// option or callback that could add one. It logs "Error processing request (HTTP response code is N …)" just before,
/// on the thread reading the connection; `answer(status:)` runs there, sends the server's answer (JSON, with
/// `SecurityHeaders` and `Connection: close`, as the front door's refusals) and shuts the socket for writing, so
/// libmicrohttpd's answer is never sent (its write fails and it closes the connection).
final class OwnErrorAnswers: @unchecked Sendable {
    private struct Receiving {
        let connection: OpaquePointer
        let fd: Int32
        let path: String
        let method: String
    }

    private let lock = NSLock()
    private var byThread: [pthread_t: Receiving] = [:]  // guarded by lock

    /// The calling thread reads the body of a request on `connection` (its head already checked).
    func receiving(_ connection: OpaquePointer, fd: Int32, path: String, method: String) {
        let thread = pthread_self()
        lock.withLock { byThread[thread] = Receiving(connection: connection, fd: fd, path: path, method: method) }
    }

    /// The request on `connection` has been received, or is done.
    func finished(_ connection: OpaquePointer) {
        let thread = pthread_self()
        lock.withLock {
            if byThread[thread]?.connection == connection { byThread[thread] = nil }
        }
    }

    /// The connection has closed (on whichever thread): it is no longer answered here.
    func closed(_ connection: OpaquePointer) {
        lock.withLock { byThread = byThread.filter { $0.value.connection != connection } }
    }

    /// The message of libmicrohttpd's own answers, by status.
    static func message(status: Int, maximumBodySize: Int) -> String {
        switch status {
        case 400: "the request's chunked body is malformed"
        case 413: RequestHead.bodyTooLargeMessage(limit: maximumBodySize)
        default: "the request could not be read"
        }
    }

    /// Answers, in libmicrohttpd's place, the request the calling thread is receiving (nothing when it receives none:
    /// the answer has begun, or the thread is not a connection's).
    func answer(status: Int, maximumBodySize: Int) {
        let thread = pthread_self()
        guard let request = lock.withLock({ byThread.removeValue(forKey: thread) }) else { return }
        let response = SecurityHeaders.applied(
            to: .jsonError(status, Self.message(status: status, maximumBodySize: maximumBodySize)), path: request.path)
        let bytes = response.wire(date: FrontDoor.httpDate(Date()), withBody: request.method != "HEAD")
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { meridian_send(request.fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }  // a fresh connection's send buffer takes the whole answer
            sent += n
        }
        _ = shutdown(request.fd, Int32(SHUT_WR))
    }
}
