import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's front door: one thread that accepts connections on the listening socket, waits for each one's
/// request head, checks it (`RequestHead`) and hands the connection to libmicrohttpd only when the head is sound —
/// otherwise it answers the refusal itself, with the security headers and `Connection: close`.
///
/// libmicrohttpd 0.9.75 answers some heads itself, around the viewer's handler, and answers a malformed
/// `Content-Length` with its status line and headers twice; here no head reaches it that it would answer itself.
///
/// The head is looked at with `MSG_PEEK`, so the bytes stay in the socket for libmicrohttpd to read. A connection
/// waits in `poll(2)` with its receive low-water mark one byte above what it has already shown, so that it is woken
/// only when more arrives (or when the client closes); no thread is held by a slow client.
///
/// Bounds: a head must arrive within `deadline` of the connection opening, else the connection is closed; at most
/// `capacity` connections wait (when full, the longest-waiting one is closed for a new one); after a refusal, what the
/// client still sends is read and dropped for at most `drainTime` or `drainLimit` bytes before the socket is closed,
/// so that closing it with unread bytes does not reset the connection before the client has read the answer.
final class FrontDoor: @unchecked Sendable {
    /// Called on the door's thread with an accepted connection (its socket, address and the time it was accepted, in
    /// uptime nanoseconds); it owns the socket from then on.
    typealias HandOver = (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, _ acceptedAt: UInt64) -> Void

    /// Seconds a refused connection's further input is read and dropped, at most.
    static let drainTime: UInt64 = 2_000_000_000
    /// Bytes a refused connection's further input is read and dropped, at most.
    static let drainLimit = 1 << 20

    /// A connection the door holds: waiting for its head, or answered and being drained.
    private struct Waiting {
        let fd: Int32
        var address: sockaddr_storage
        var addressLength: socklen_t
        /// When it was accepted (uptime nanoseconds).
        let since: UInt64
        /// The bytes of it seen at the last look.
        var seen = 0
        /// Set once answered: when its draining ends.
        var drainingUntil: UInt64?
        var drained = 0
    }

    private let listener: Int32
    private let maximumBodySize: Int
    private let deadline: UInt64
    private let capacity: Int
    private let handOver: HandOver
    private let wakeRead: Int32, wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var running = false  // guarded by lock
    private var waiting: [Waiting] = []  // the door's thread only
    private let dateFormatter: DateFormatter  // the door's thread only

    /// A door on a listening socket (non-blocking), which it closes when stopped.
    /// - Parameters:
    ///   - listener: The listening socket.
    ///   - maximumBodySize: The server's body limit (a larger `Content-Length` is answered 413).
    ///   - deadlineNanoseconds: Time from accepting a connection within which its head must have arrived.
    ///   - capacity: The most connections waiting for their heads, ≥ 1.
    ///   - handOver: Takes each connection whose head is sound.
    init?(listener: Int32, maximumBodySize: Int, deadlineNanoseconds: UInt64, capacity: Int, handOver: @escaping HandOver) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        self.listener = listener
        self.maximumBodySize = maximumBodySize
        deadline = deadlineNanoseconds
        self.capacity = max(1, capacity)
        self.handOver = handOver
        dateFormatter = Self.makeDateFormatter()
    }

    /// A formatter of the `Date` header's IMF-fixdate ("Mon, 07 Dec 2026 09:00:00 GMT").
    static func makeDateFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    /// `date` as the `Date` header gives it (a formatter made for the call: for answers off the door's thread).
    static func httpDate(_ date: Date) -> String { makeDateFormatter().string(from: date) }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts the door's thread.
    func start() {
        lock.withLock { running = true }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "meridian.http.door"
        thread.start()
    }

    /// Stops the thread, closes every connection it holds and the listening socket. Idempotent.
    func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        finished.wait()
        close(listener)
    }

    // MARK: - The loop

    private func run() {
        var buffer = [UInt8](repeating: 0, count: RequestHead.maximumSize)
        var acceptPausedUntil: UInt64 = 0
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let accepting = now >= acceptPausedUntil
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0)]
            var next = accepting ? now + 1_000_000_000 : acceptPausedUntil
            for w in waiting {
                fds.append(pollfd(fd: w.fd, events: Int16(POLLIN), revents: 0))
                next = min(next, w.drainingUntil ?? (w.since + deadline))
            }
            let milliseconds = Int32(clamping: next > now ? (next - now + 999_999) / 1_000_000 : 0)
            if poll(&fds, nfds_t(fds.count), milliseconds) < 0 {
                if errno != EINTR { usleep(10_000) }  // out of memory, say: try again rather than stop serving
                continue
            }
            if fds[0].revents != 0 { break }
            let later = DispatchTime.now().uptimeNanoseconds
            var kept: [Waiting] = []
            for (index, var connection) in waiting.enumerated() {
                // Past its time, a connection is closed whether or not it is still sending.
                guard later < (connection.drainingUntil ?? (connection.since + deadline)) else {
                    close(connection.fd)
                    continue
                }
                let keep = fds[index + 2].revents == 0 ? true
                    : connection.drainingUntil == nil ? look(at: &connection, buffer: &buffer, now: later)
                    : drain(&connection, buffer: &buffer)
                if keep { kept.append(connection) }
            }
            waiting = kept
            if accepting, fds[1].revents != 0, !acceptConnections(now: later) {
                acceptPausedUntil = later + 100_000_000
            }
        }
        for w in waiting { close(w.fd) }
        waiting = []
    }

    /// Accepts the connections waiting on the listening socket (at most 64 at a time); `false` when out of
    /// descriptors or memory (accepting then pauses briefly rather than spin).
    private func acceptConnections(now: UInt64) -> Bool {
        for _ in 0..<64 {
            var address = sockaddr_storage()
            var length = socklen_t(0)
            let fd = meridian_accept(listener, &address, &length)
            guard fd >= 0 else {
                return !(errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            }
            if waiting.count >= capacity {
                close(waiting.removeFirst().fd)  // the longest-waiting one
            }
            waiting.append(Waiting(fd: fd, address: address, addressLength: length, since: now))
        }
        return true
    }

    /// Looks at what a connection has sent: hands it over, answers it, or keeps waiting. `false` when it is no longer
    /// held (handed over or closed).
    private func look(at connection: inout Waiting, buffer: inout [UInt8], now: UInt64) -> Bool {
        let count = recv(connection.fd, &buffer, buffer.count, Int32(MSG_PEEK))
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
        // Closed or failed; or woken with nothing new, which the low-water mark leaves only to the client closing.
        guard count > connection.seen else {
            close(connection.fd)
            return false
        }
        // The verdict changes only when a line has been completed or the size limit reached: a head trickling in
        // byte by byte is not parsed again for each byte.
        let lineEnded = buffer[connection.seen..<count].contains(UInt8(ascii: "\n"))
        let verdict = lineEnded || count >= buffer.count
            ? RequestHead.check(Array(buffer[0..<count]), maximumBodySize: maximumBodySize) : .incomplete
        switch verdict {
        case .incomplete:
            connection.seen = count
            _ = meridian_set_receive_low_water(connection.fd, Int32(count + 1))
            return true
        case .accepted:
            _ = meridian_set_receive_low_water(connection.fd, 1)
            withUnsafePointer(to: &connection.address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    handOver(connection.fd, $0, connection.addressLength, connection.since)
                }
            }
            return false
        case .refused(let refusal):
            _ = meridian_set_receive_low_water(connection.fd, 1)
            let bytes = refusal.response.wire(date: dateFormatter.string(from: Date()), withBody: refusal.method != "HEAD")
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { meridian_send(connection.fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }  // a fresh socket's buffer takes the whole answer; a client gone takes none
                sent += n
            }
            _ = shutdown(connection.fd, Int32(SHUT_WR))
            connection.drainingUntil = now + Self.drainTime
            return drain(&connection, buffer: &buffer)
        }
    }

    /// Reads and drops what an answered connection sends; `false` (closed) at its end, on an error or past the limit.
    private func drain(_ connection: inout Waiting, buffer: inout [UInt8]) -> Bool {
        while true {
            let n = recv(connection.fd, &buffer, buffer.count, 0)
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
            if n < 0 && errno == EINTR { continue }
            connection.drained += max(n, 0)
            guard n > 0, connection.drained <= Self.drainLimit else {
                close(connection.fd)
                return false
            }
        }
    }
}

extension HTTPResponse {
    /// The response as sent on a connection that closes after it: status line, `Date`, `Connection: close`, the
    /// headers (sorted by name), `Content-Length` and, unless `withBody` is `false` (the answer to a HEAD), the body.
    /// - Parameters:
    ///   - date: The `Date` header's value (an IMF-fixdate).
    ///   - withBody: Whether the body follows the head.
    func wire(date: String, withBody: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\nDate: \(date)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key })
        where !["connection", "content-length", "date"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + (withBody ? Array(body) : [])
    }

    /// The reason phrase of the statuses the server answers itself.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
    }
}
