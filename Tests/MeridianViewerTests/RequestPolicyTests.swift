import Foundation
import Testing

@testable import MeridianViewer

/// `RequestPolicy` (Host, Origin, Content-Type) and the request-target control-character check, without a network.
@Suite struct RequestPolicyTests {
    let policy = RequestPolicy(host: "127.0.0.1", port: 8080)

    func request(_ headers: [String: String]) -> HTTPRequest { request("GET", "/", headers) }

    func request(_ method: String, _ path: String, _ headers: [String: String]) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) }))
    }

    @Test func onlyTheLoopbackHostsAreServed() {
        for host in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LocalHost:8080"] {
            #expect(policy.refusal(for: request(["Host": host])) == nil, "\(host)")
        }
        for host in ["evil.example", "evil.example:8080", "127.0.0.1", "127.0.0.1:8081", "", "localhost:8080.evil"] {
            #expect(policy.refusal(for: request(["Host": host]))?.status == 421, "\(host)")
        }
        #expect(RequestPolicy(host: "::1", port: 9).allowedHosts.contains("[::1]:9"))
        #expect(RequestPolicy(host: "10.0.0.5", port: 9).allowedHosts.contains("10.0.0.5:9"))
        #expect(RequestPolicy().refusal(for: request(["Host": "127.0.0.1:8080"]))?.status == 421)
    }

    /// DNS rebinding: every name that merely starts or ends like an allowed one is refused — a suffix or prefix
    /// label, a trailing dot, another or a longer port, no port, a second port — as Host and as Origin (a check
    /// by prefix let `127.0.0.1.evil.example:PORT` through and no test noticed).
    @Test func everyPrefixAndSuffixFormOfAnAllowedNameIsRefused() {
        for name in ["127.0.0.1", "localhost", "[::1]"] {
            let forms = ["\(name).evil.example:8080", "\(name).x:8080", "evil.\(name):8080", "x\(name):8080",
                         "\(name).:8080", "\(name):8080.", "\(name):8080.evil.example", "\(name):80800", "\(name):808",
                         "\(name):8081", "\(name):08080", "\(name)", "\(name):", "\(name):8080:8080", "\(name)x:8080",
                         "\(name)%2e:8080", "\(name) :8080", "\(name):8080/", "user@\(name):8080"]
            for host in forms {
                #expect(policy.refusal(for: request(["Host": host]))?.status == 421, "Host \(host)")
                let post = ["Host": "127.0.0.1:8080", "Content-Type": "application/json", "Origin": "http://\(host)"]
                #expect(policy.refusal(for: request("POST", "/api/buffer", post))?.status == 403, "Origin \(host)")
            }
            #expect(policy.refusal(for: request(["Host": "\(name):8080"])) == nil, "\(name)")
        }
        #expect(policy.refusal(for: request(["Host": "[::1].evil:8080"]))?.status == 421)
    }

    @Test func postsNeedTheRightTypeAndOrigin() {
        let json = ["Host": "127.0.0.1:8080", "Content-Type": "application/json; charset=utf-8"]
        #expect(policy.refusal(for: request("POST", "/api/buffer", json)) == nil)
        #expect(policy.refusal(for: request("POST", "/api/buffer", json.merging(["Origin": "http://localhost:8080"]) { $1 })) == nil)
        for origin in ["http://evil.example", "null", "https://127.0.0.1:8080", "http://127.0.0.1:8080.evil"] {
            #expect(policy.refusal(for: request("POST", "/api/buffer", json.merging(["Origin": origin]) { $1 }))?.status == 403)
        }
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""] {
            #expect(policy.refusal(for: request("POST", "/api/buffer", ["Host": "127.0.0.1:8080", "Content-Type": type]))?.status == 415)
        }
        #expect(policy.refusal(for: request("POST", "/api/kml/open", json))?.status == 415)
        #expect(policy.refusal(for: request("POST", "/api/kml/open", ["Host": "127.0.0.1:8080",
                                                                         "Content-Type": "application/octet-stream"])) == nil)
    }

    @Test func controlCharactersInTargetsAreFound() {
        for bad in ["/index.html%00.png", "/%0a", "/%7F", "/a\u{01}b", "/x?y=%1f"] {
            #expect(targetHasControlCharacter(Array(bad.utf8)), "\(bad)")
        }
        for good in ["/", "/index.html", "/a%20b", "/%41", "/%", "/%2", "/%zz", "/caf%C3%A9"] {
            #expect(!targetHasControlCharacter(Array(good.utf8)), "\(good)")
        }
    }
}
