import Foundation
import Testing

@testable import MeridianViewer

/// The per-request work budget holds for every computing endpoint, reading the request's file included, and its
/// 503 says what was stopped and what to change (opening a file with 700,000 attributes ran
/// 140 s past the 20 s budget and was answered with advice about points and radii).
@Suite struct ViewerBudgetTests {
    static let site = StaticSite(files: [:])

    /// A KML document without placemarks (the per-placemark budget check never runs) holding `kilobytes` KiB of
    /// unmodeled content: only the reader's own checks can stop it.
    static func placemarkFreeKML(kilobytes: Int) -> Data {
        let filler = String(repeating: "<Data name=\"a\"><value>0123456789</value></Data>", count: kilobytes * 1024 / 46)
        return Data(("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document><name>n</name><ExtendedData>\(filler)"
            + "</ExtendedData></Document></kml>").utf8)
    }

    static func error(_ r: HTTPResponse) -> String {
        ((try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any])?["error"] as? String ?? ""
    }

    @Test func readingAFileIsStoppedByTheBudgetWithAMessageAboutTheFile() {
        let api = ViewerAPI(site: Self.site, limits: ViewerLimits(workSeconds: 1e-9))
        let kml = Self.placemarkFreeKML(kilobytes: 512)
        let opened = api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: kml))
        #expect(opened.status == 503, "\(Self.error(opened))")
        #expect(Self.error(opened).hasPrefix("opening the file was stopped: it would take longer than the 1e-09 s"))
        #expect(Self.error(opened).contains("open a smaller file") && !Self.error(opened).contains("radii"))
        // Saving with an opened file reads it again: stopped the same way, said the same way.
        let sketch = "{\"placemarks\":[],\"source\":{\"data\":\"\(kml.base64EncodedString())\",\"edits\":[]}}"
        let saved = api.handle(HTTPRequest(method: "POST", path: "/api/kml", body: Data(sketch.utf8)))
        #expect(saved.status == 503 && Self.error(saved).hasPrefix("saving was stopped"), "\(Self.error(saved))")
        // Buffers keep their advice.
        let buffer = "{\"points\":[{\"x\":1700000,\"y\":400000}],\"radiiMiles\":[10],\"mode\":\"geodesic\"}"
        let buffered = api.handle(HTTPRequest(method: "POST", path: "/api/buffer", body: Data(buffer.utf8)))
        #expect(buffered.status == 503 && Self.error(buffered).contains("fewer points, smaller radii"), "\(Self.error(buffered))")
        // Within the budget the same file reads.
        let roomy = ViewerAPI(site: Self.site)
        #expect(roomy.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: kml)).status == 200)
    }

    @Test func requestsStoppedAreCountedByHealth() throws {
        let api = ViewerAPI(site: Self.site)
        let kml = Self.placemarkFreeKML(kilobytes: 256)
        let gone = api.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: kml, isClientGone: { true }))
        #expect(gone.status == 503)
        let late = ViewerAPI(site: Self.site, limits: ViewerLimits(workSeconds: 1e-9))
        _ = late.handle(HTTPRequest(method: "POST", path: "/api/kml/open", body: kml))
        struct Health: Decodable { let ok: Bool, cancelled: Int, stoppedAtDeadline: Int }
        func health(_ api: ViewerAPI) throws -> Health {
            try JSONDecoder().decode(Health.self, from: api.handle(HTTPRequest(method: "GET", path: "/api/health")).body)
        }
        #expect(try health(api).cancelled == 1 && health(api).stoppedAtDeadline == 0)
        #expect(try health(late).cancelled == 0 && health(late).stoppedAtDeadline == 1)
    }
}
