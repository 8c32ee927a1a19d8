import Foundation
import Testing

@testable import MeridianViewer

/// Loading a site from a folder within its limits, and serving one mounted under a prefix (the documentation).
@Suite struct StaticSiteTests {
    /// A folder with `index.html` (10 bytes), `a/index.html` (5 bytes) and `a/b.json` (2 bytes).
    func folder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a"), withIntermediateDirectories: true)
        try Data("<html></>\n".utf8).write(to: root.appendingPathComponent("index.html"))
        try Data("page\n".utf8).write(to: root.appendingPathComponent("a/index.html"))
        try Data("{}".utf8).write(to: root.appendingPathComponent("a/b.json"))
        return root
    }

    @Test func loadsWithinTheLimitsAndStopsBeyondThem() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = try StaticSite(folder: root, maximumFiles: 3, maximumBytes: 17)
        #expect(Set(site.files.keys) == ["/index.html", "/a/index.html", "/a/b.json"])
        #expect(site.files["/a/b.json"]?.contentType == "application/json; charset=utf-8")
        #expect(throws: StaticSite.LoadError.self) { try StaticSite(folder: root, maximumFiles: 2) }
        #expect(throws: StaticSite.LoadError.self) { try StaticSite(folder: root, maximumBytes: 16) }
        do {
            _ = try StaticSite(folder: root, maximumBytes: 16)
        } catch {
            #expect(error.description.contains("more than 16 bytes"))
        }
    }

    @Test func mountedSiteStripsThePrefixRedirectsAndServesFolderIndexes() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let docs = try StaticSite(folder: root)
        let api = ViewerAPI(site: StaticSite(files: [:]), docs: docs)
        func get(_ path: String) -> HTTPResponse { api.handle(HTTPRequest(method: "GET", path: path)) }
        #expect(get("/docs/").status == 200)
        #expect(get("/docs/").body == Data("<html></>\n".utf8))
        #expect(get("/docs/a/").body == Data("page\n".utf8))
        #expect(get("/docs/a").body == Data("page\n".utf8))  // a folder without its slash
        #expect(get("/docs/a/b.json").body == Data("{}".utf8))
        let redirect = get("/docs")
        #expect(redirect.status == 301)
        #expect(redirect.header("location") == "/docs/")
        #expect(get("/docs/../index.html").status == 404)  // exact paths only: no way out of the site
        #expect(get("/docs/a/../index.html").status == 404)
        #expect(get("/docs/missing").status == 404)
        #expect(api.handle(HTTPRequest(method: "POST", path: "/docs/a/b.json")).status == 405)
        // The viewer's own page is not reachable through /docs, nor the documentation without the prefix.
        #expect(get("/a/b.json").status == 404)
        let without = ViewerAPI(site: StaticSite(files: [:]))
        #expect(without.handle(HTTPRequest(method: "GET", path: "/docs/")).status == 404)
    }
}
