import Foundation
import Testing

@testable import MeridianViewer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The libmicrohttpd server over real loopback sockets: start/stop, ports, body limits, concurrency.
@Suite(.serialized) struct HTTPServerTests {
    /// Sends raw bytes to 127.0.0.1:port and returns everything the server answers before closing.
    static func exchange(port: Int, _ request: [UInt8], timeout: Int = 10) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may close early (413 before the body)
            sent += n
        }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    static func get(port: Int, _ path: String, host: String = "x") throws -> String {
        try exchange(port: port, Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
    }

    static func post(port: Int, _ path: String, body: [UInt8], chunked: Bool = false, host: String = "x") throws
        -> String
    {
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nContent-Type: application/json\r\n"
        if chunked {
            head += "Transfer-Encoding: chunked\r\n\r\n"
            var bytes = Array(head.utf8)
            var i = 0
            while i < body.count {
                let chunk = body[i..<min(i + 4096, body.count)]
                bytes += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
                i += chunk.count
            }
            return try exchange(port: port, bytes + Array("0\r\n\r\n".utf8))
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return try exchange(port: port, Array(head.utf8) + body)
    }

    @Test func startsOnAFreePortAnswersAndStops() throws {
        let server = HTTPServer { r in HTTPResponse(status: 200, body: Data("hello \(r.method) \(r.path)".utf8)) }
        let port = try server.start(port: 0)
        #expect(port > 0 && server.port == port && server.isRunning)
        let answer = try Self.get(port: port, "/x?a=1")
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.hasSuffix("hello GET /x"))
        server.stop()
        server.stop()  // idempotent
        #expect(!server.isRunning && server.port == nil)
        #expect(throws: (any Error).self) { try Self.get(port: port, "/") }
    }

    @Test func passesQueryHeadersAndBody() throws {
        let server = HTTPServer { r in
            HTTPResponse(status: 201, headers: ["X-Echo": r.query["q"] ?? "-"],
                         body: Data("\(r.headers["content-type"] ?? "-")|".utf8) + r.body)
        }
        let port = try server.start(port: 0)
        defer { server.stop() }
        let answer = try Self.post(port: port, "/echo?q=42", body: Array("{\"a\":1}".utf8))
        #expect(answer.hasPrefix("HTTP/1.1 201"))
        #expect(answer.contains("X-Echo: 42"))
        #expect(answer.hasSuffix("application/json|{\"a\":1}"))
    }

    @Test func refusesADeclaredOversizedBodyBeforeReadingIt() throws {
        let server = HTTPServer(maximumBodySize: 1000) { _ in HTTPResponse(status: 200) }
        let port = try server.start(port: 0)
        defer { server.stop() }
        let answer = try Self.post(port: port, "/api/buffer", body: [UInt8](repeating: 0x20, count: 5000))
        #expect(answer.hasPrefix("HTTP/1.1 413"))
        #expect(answer.contains(#"{"error":"request body too large (limit 1000 bytes)"}"#))
        let fits = try Self.post(port: port, "/api/buffer", body: [UInt8](repeating: 0x20, count: 1000))
        #expect(fits.hasPrefix("HTTP/1.1 200"))
    }

    @Test func refusesAnOversizedChunkedBody() throws {
        let server = HTTPServer(maximumBodySize: 10_000) { r in HTTPResponse(status: 200, body: Data("\(r.body.count)".utf8)) }
        let port = try server.start(port: 0)
        defer { server.stop() }
        let big = try Self.post(port: port, "/", body: [UInt8](repeating: 0x41, count: 50_000), chunked: true)
        #expect(big.hasPrefix("HTTP/1.1 413"))
        let small = try Self.post(port: port, "/", body: [UInt8](repeating: 0x41, count: 9_000), chunked: true)
        #expect(small.hasPrefix("HTTP/1.1 200"))
        #expect(small.hasSuffix("9000"))
    }

    /// Two `Host` headers are 400 whichever comes first (RFC 7230 §5.4; a foreign one first used to get 200), and so
    /// are two `Origin`, `Content-Type` or `Content-Length` headers; one of each is served. Checked before admission.
    @Test func repeatedSingleHeadersAre400() throws {
        let policy = RequestPolicyBox()
        let server = HTTPServer(admission: { policy.value.refusal(for: $0) }) { _ in HTTPResponse(status: 200, body: Data("ok".utf8)) }
        let port = try server.start(port: 0)
        defer { server.stop() }
        policy.value = RequestPolicy(host: "127.0.0.1", port: port)
        let mine = "127.0.0.1:\(port)"
        func send(_ headers: [String]) throws -> String {
            try Self.exchange(port: port, Array(("POST /x HTTP/1.1\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined()
                + "\r\n{}").utf8))
        }
        let json = ["Content-Type: application/json", "Content-Length: 2"]
        #expect(try send(["Host: \(mine)"] + json).hasPrefix("HTTP/1.1 200"))
        for headers in [["Host: evil.example", "Host: \(mine)"], ["Host: \(mine)", "host: evil.example"],
                        ["Host: \(mine)", "HOST: \(mine)"]] {
            let answer = try send(headers + json)
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("more than one Host header"), "\(headers): \(answer)")
        }
        for extra in ["Origin: http://\(mine)", "Content-Type: application/json", "Content-Length: 2"] {
            let answer = try send(["Host: \(mine)", "Origin: http://\(mine)"] + json + [extra])
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("more than one"), "\(extra): \(answer)")
        }
    }

    /// A malformed `Content-Length` is answered once, by the server, with the security headers: libmicrohttpd 0.9.75
    /// answered it itself, with its status line and headers twice and no security headers. The server then still
    /// serves; a sound request's answer closes its connection (one request per connection).
    @Test func aMalformedContentLengthIsAnsweredOnceByTheServer() throws {
        let server = HTTPServer(maximumBodySize: 1000) { _ in HTTPResponse(status: 200, body: Data("ok".utf8)) }
        let port = try server.start(port: 0)
        defer { server.stop() }
        for (length, status, message) in [("12abc", 400, "the request's Content-Length '12abc' is not a number of bytes"),
                                          ("-1", 400, "the request's Content-Length '-1' is not a number of bytes"),
                                          ("99999999999999999999999", 413, "request body too large (limit 1000 bytes)")] {
            let answer = try Self.exchange(port: port, Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\n{}".utf8))
            let parts = answer.components(separatedBy: "\r\n\r\n")
            let lines = parts[0].components(separatedBy: "\r\n")
            #expect(parts.count == 2 && lines[0] == "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))", "\(answer)")
            #expect(Set(lines.map { $0.prefix { $0 != ":" }.lowercased() }).count == lines.count, "a header twice: \(answer)")
            #expect(lines.contains("X-Content-Type-Options: nosniff") && lines.contains("Connection: close"), "\(answer)")
            #expect(parts.last == #"{"error":"\#(message)"}"#)
        }
        let fine = try Self.exchange(port: port, Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}".utf8))
        #expect(fine.hasPrefix("HTTP/1.1 200") && fine.contains("\r\nConnection: close\r\n") && fine.hasSuffix("\r\n\r\nok"))
    }

    @Test func reportsABusyPortAndABadHost() throws {
        let first = HTTPServer { _ in HTTPResponse(status: 200) }
        let port = try first.start(port: 0)
        defer { first.stop() }
        let second = HTTPServer { _ in HTTPResponse(status: 200) }
        #expect(throws: HTTPServerError.self) { try second.start(port: port) }
        #expect(throws: HTTPServerError.invalidHost("example.com")) { try second.start(host: "example.com", port: 0) }
        #expect(throws: HTTPServerError.self) { try second.start(port: 70_000) }
    }

    @Test func servesManyParallelClients() async throws {
        let viewer = try ViewerServer()
        let url = try viewer.start(port: 0)
        defer { viewer.stop() }
        let port = try #require(url.port)
        let body = Array(#"{"points":[{"x":1700000,"y":400000},{"x":1750000,"y":410000}],"radiiMiles":[20],"union":true}"#.utf8)
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<32 {
                group.addTask {
                    let host = "127.0.0.1:\(port)"
                    return i % 2 == 0 ? try Self.post(port: port, "/api/buffer", body: body, host: host)
                        : try Self.get(port: port, "/api/srs/32038", host: host)
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers.count == 32)
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") })
    }

    /// Every response carries the security headers, whoever answers it: the page and its files, the API, a 404, the
    /// admission's refusal of a foreign Host, the server's own 400 and 413, and the documentation (its own policy,
    /// which allows DocC's inline bootstrap script). Each header once.
    @Test func everyResponseCarriesTheSecurityHeaders() throws {
        let docs = StaticSite(files: ["/index.html": .init(data: Data("<script>var baseUrl = \"/docs/\"</script>".utf8),
                                                            contentType: "text/html; charset=utf-8")])
        let viewer = try ViewerServer(limits: ViewerLimits(maximumBodySize: 1000), docs: docs)
        let url = try viewer.start(port: 0)
        defer { viewer.stop() }
        let port = try #require(url.port)
        let mine = "127.0.0.1:\(port)"
        let viewerPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        let docsPolicy = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            + "img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'none'; "
            + "frame-ancestors 'none'"
        let answers: [(String, String, String)] = [
            ("/", try Self.get(port: port, "/", host: mine), "HTTP/1.1 200"),
            ("/buffers.html", try Self.get(port: port, "/buffers.html", host: mine), "HTTP/1.1 200"),
            ("/js/map.js", try Self.get(port: port, "/js/map.js", host: mine), "HTTP/1.1 200"),
            ("/api/health", try Self.get(port: port, "/api/health", host: mine), "HTTP/1.1 200"),
            ("/nothing", try Self.get(port: port, "/nothing", host: mine), "HTTP/1.1 404"),
            ("foreign Host", try Self.get(port: port, "/"), "HTTP/1.1 421"),
            ("two Hosts", try Self.exchange(port: port, Array("GET / HTTP/1.1\r\nHost: \(mine)\r\nHost: \(mine)\r\nConnection: close\r\n\r\n".utf8)), "HTTP/1.1 400"),
            ("too large", try Self.post(port: port, "/api/buffer", body: [UInt8](repeating: 0x20, count: 5000), host: mine), "HTTP/1.1 413"),
            ("bad JSON", try Self.post(port: port, "/api/buffer", body: Array("{nope".utf8), host: mine), "HTTP/1.1 400"),
            ("docs", try Self.get(port: port, "/docs/", host: mine), "HTTP/1.1 200"),
        ]
        for (what, answer, status) in answers {
            #expect(answer.hasPrefix(status), "\(what): \(answer.prefix(200))")
            let head = answer.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
            func values(_ name: String) -> [String] {
                head.filter { $0.lowercased().hasPrefix(name.lowercased() + ": ") }.map { String($0.dropFirst(name.count + 2)) }
            }
            #expect(values("X-Content-Type-Options") == ["nosniff"], "\(what)")
            #expect(values("X-Frame-Options") == ["DENY"], "\(what)")
            #expect(values("Referrer-Policy") == ["no-referrer"], "\(what)")
            #expect(values("Content-Security-Policy") == [what == "docs" ? docsPolicy : viewerPolicy], "\(what)")
        }
    }

    @Test func viewerServesItsPagesOverHTTP() throws {
        let viewer = try ViewerServer()
        let url = try viewer.start(port: 0)
        defer { viewer.stop() }
        let port = try #require(url.port)
        #expect(url.absoluteString == "http://127.0.0.1:\(port)/")
        #expect(try Self.get(port: port, "/buffers.html").hasPrefix("HTTP/1.1 421"))  // a foreign Host
        let page = try Self.get(port: port, "/buffers.html", host: "127.0.0.1:\(port)")
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(page.contains("Content-Type: text/html"))
        #expect(page.contains("GeoNames"))
        let bad = try Self.post(port: port, "/api/buffer", body: Array("{nope".utf8), host: "localhost:\(port)")
        #expect(bad.hasPrefix("HTTP/1.1 400"))
        #expect(bad.contains(#""error":"malformed JSON""#))
    }
}

/// A policy set after the server has bound its port (the admission closure reads it).
final class RequestPolicyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var policy = RequestPolicy()
    /// The policy in force.
    var value: RequestPolicy {
        get { lock.withLock { policy } }
        set { lock.withLock { policy = newValue } }
    }
}
