import Foundation
import Testing

@testable import MeridianViewer

/// `RequestHead.check`, the front door's check of a request head before libmicrohttpd reads it, on bytes alone.
@Suite struct RequestHeadTests {
    static let limit = 1000

    static func check(_ text: String) -> RequestHead.Verdict { RequestHead.check(Array(text.utf8), maximumBodySize: limit) }

    /// The refusal's status and message ("400 the request …"), or `nil` when the head is not refused.
    static func refusal(_ text: String) -> String? {
        guard case .refused(let r) = check(text) else { return nil }
        return "\(r.status) \(r.message)"
    }

    @Test func everyPrefixOfASoundHeadIsIncompleteAndTheWholeIsAccepted() {
        let head = "POST /api/buffer?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n"
            + "Content-Length: 0002\r\nX-Empty:\r\nX-Tab:\tv\t\r\n\r\n"
        for end in 0..<head.utf8.count {
            let prefix = String(decoding: Array(head.utf8)[..<end], as: UTF8.self)
            #expect(Self.check(prefix) == .incomplete, "\(end)")
        }
        #expect(Self.check(head) == .accepted(length: head.utf8.count))
        #expect(Self.check(head + "{}GET / HTTP/1.1\r\n") == .accepted(length: head.utf8.count))  // what follows is not looked at
    }

    @Test func leadingEmptyLinesBareLineFeedsAndChunkedAreAccepted() {
        let lf = "\r\n\nGET / HTTP/1.0\nHost: a\n\n"
        #expect(Self.check(lf) == .accepted(length: lf.utf8.count))
        let chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: ChunKed\r\n\r\n"
        #expect(Self.check(chunked) == .accepted(length: chunked.utf8.count))
        let limit = "POST / HTTP/1.1\r\nContent-Length: \(Self.limit)\r\n\r\n"
        #expect(Self.check(limit) == .accepted(length: limit.utf8.count))
    }

    @Test func malformedFramingIsRefusedWithItsReason() {
        func post(_ fields: String...) -> String { "POST /p HTTP/1.1\r\nHost: h\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n" }
        let cases: [(String, Int, String)] = [
            (post("Content-Length: 12abc"), 400, "the request's Content-Length '12abc' is not a number of bytes"),
            (post("Content-Length: -1"), 400, "the request's Content-Length '-1' is not a number of bytes"),
            (post("Content-Length: 2 "), 400, "the request's Content-Length '2 ' is not a number of bytes"),
            (post("Content-Length:"), 400, "the request's Content-Length '' is not a number of bytes"),
            (post("Content-Length: 1001"), 413, "request body too large (limit 1000 bytes)"),
            (post("Content-Length: 000000000000000000000000001001"), 413, "request body too large (limit 1000 bytes)"),
            (post("Content-Length: 99999999999999999999999"), 413, "request body too large (limit 1000 bytes)"),
            (post("Content-Length: 2", "CONTENT-LENGTH: 3"), 400, "the request has more than one Content-Length header"),
            (post("Host: evil"), 400, "the request has more than one Host header"),
            (post("Content-Length: 2", "Transfer-Encoding: chunked"), 400,
             "the request has both a Content-Length and a Transfer-Encoding header"),
            (post("Transfer-Encoding: gzip"), 501,
             "the request's Transfer-Encoding 'gzip' is not supported: send a Content-Length or 'chunked'"),
            ("POST /p HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
             "the request has a Transfer-Encoding header, which HTTP/1.0 does not allow"),
            (post("X-A: 1", "\tfolded"), 400, "line 4 of the request head is folded (starts with white space), which HTTP/1.1 forbids"),
            (post("Content-Length : 2"), 400, "line 3 of the request head is not a header field (name: value)"),
            (post(": 2"), 400, "line 3 of the request head is not a header field (name: value)"),
            (post("X-A: 1\rX-B: 2"), 400, "line 3 of the request head holds a control character"),
            (post("X-A: \u{7F}"), 400, "line 3 of the request head holds a control character"),
        ]
        for (head, status, message) in cases {
            #expect(Self.refusal(head) == "\(status) \(message)", "\(head.debugDescription)")
        }
    }

    @Test func aBadRequestLineIsRefusedAsSoonAsItIsComplete() {
        let malformed = "400 the request line is malformed (expected METHOD TARGET HTTP/1.1)"
        for line in ["GET  / HTTP/1.1", "GET /", "GET / HTTP/1.1 x", "GET / http/1.1", "GET / HTTP/1.10", "G@T / HTTP/1.1",
                     " GET / HTTP/1.1", "\u{16}\u{03}\u{01} / HTTP/1.1"] {
            #expect(Self.refusal(line + "\r\n") == malformed, "\(line.debugDescription)")
        }
        #expect(Self.refusal("\r\rGET / HTTP/1.1\r\n") == malformed)
        #expect(Self.refusal("\r\n\n\r\n") == malformed)  // more than 2 empty lines: no request follows
        #expect(Self.refusal("GET / HTTP/3.0\r\n") == "505 HTTP version HTTP/3.0 is not supported: use HTTP/1.1")
        #expect(Self.refusal("GET /a%0Ab HTTP/1.1\r\n") == "400 the request path contains a control character")
        #expect(Self.refusal("GET /a\u{01}b HTTP/1.1\r\n") == "400 the request path contains a control character")
    }

    @Test func theHeadIsBoundedInBytesAndFields() {
        let start = "GET / HTTP/1.1\r\n"
        let filler = String(repeating: "x", count: RequestHead.maximumSize - start.utf8.count - "X: \r\n\r\n".utf8.count)
        let largest = start + "X: \(filler)\r\n\r\n"
        #expect(largest.utf8.count == RequestHead.maximumSize)
        #expect(Self.check(largest) == .accepted(length: RequestHead.maximumSize))
        let tooLarge = "431 the request head is larger than \(RequestHead.maximumSize) bytes"
        #expect(Self.refusal(start + "X: \(filler)x\r\n\r\n") == tooLarge)
        #expect(Self.refusal(start + "X: " + filler + filler) == tooLarge)  // no end in sight: refused without waiting
        let fields = (0...RequestHead.maximumFields).map { "X-\($0): v\r\n" }
        let most = start + fields.dropLast().joined() + "\r\n"
        #expect(Self.check(most) == .accepted(length: most.utf8.count))
        #expect(Self.refusal(start + fields.joined() + "\r\n") == "431 the request has more than 100 header fields")
    }

    @Test func aRefusalCarriesTheSecurityHeadersOfItsPathAndClosesTheConnection() throws {
        guard case .refused(let refusal) = Self.check("HEAD /docs/x HTTP/1.1\r\nContent-Length: x\r\n\r\n") else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.method == "HEAD" && refusal.path == "/docs/x")
        let wire = String(decoding: refusal.response.wire(date: "Mon, 07 Dec 2026 09:00:00 GMT", withBody: false), as: UTF8.self)
        let body = #"{"error":"the request's Content-Length 'x' is not a number of bytes"}"#
        #expect(wire == "HTTP/1.1 400 Bad Request\r\nDate: Mon, 07 Dec 2026 09:00:00 GMT\r\nConnection: close\r\n"
            + "Cache-Control: no-store\r\nContent-Security-Policy: \(SecurityHeaders.documentationPolicy)\r\n"
            + "Content-Type: application/json; charset=utf-8\r\nReferrer-Policy: no-referrer\r\n"
            + "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        let get = HTTPResponse(status: 431, headers: ["connection": "keep-alive", "X-A": "1"], body: Data("b".utf8))
        #expect(String(decoding: get.wire(date: "D", withBody: true), as: UTF8.self)
            == "HTTP/1.1 431 Request Header Fields Too Large\r\nDate: D\r\nConnection: close\r\nX-A: 1\r\nContent-Length: 1\r\n\r\nb")
    }
}
