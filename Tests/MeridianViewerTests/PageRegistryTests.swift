import Foundation
import Testing

@testable import MeridianViewer

/// The viewer's pages are registered once, in `js/pages.js`, which makes every page's navigation and the home
/// page's cards: every page of the site is registered there, every registration is a page, and every page loads it
/// and leaves its navigation to it.
@Suite struct PageRegistryTests {
    /// The `href`s registered in `js/pages.js`: each entry of `pages` starts a line with its `href`.
    static func registered(in site: StaticSite) throws -> [String] {
        let script = String(decoding: try #require(site.files["/js/pages.js"]).data, as: UTF8.self)
        return script.split(separator: "\n").compactMap { line -> String? in
            let entry = line.drop { $0 == " " }
            guard entry.hasPrefix("href: \""), let start = entry.range(of: "\"")?.upperBound,
                  let end = entry[start...].firstIndex(of: "\"") else { return nil }
            return String(entry[start..<end])
        }
    }

    @Test func everyPageIsRegisteredOnceAndEveryRegistrationIsAPage() throws {
        let site = try StaticSite.bundled()
        let pages = site.files.keys.filter { $0.hasSuffix(".html") && $0.split(separator: "/").count == 1 }
        let registered = try Self.registered(in: site)
        #expect(registered.count == Set(registered).count, "a page registered twice: \(registered)")
        #expect(Set(registered) == Set(pages).subtracting(["/index.html"]))
    }

    @Test func everyPageLoadsTheRegistryAndLeavesItsNavigationToIt() throws {
        let site = try StaticSite.bundled()
        for (path, file) in site.files where path.hasSuffix(".html") && path.split(separator: "/").count == 1 {
            let html = String(decoding: file.data, as: UTF8.self)
            #expect(html.contains("<script type=\"module\" src=\"/js/pages.js\"></script>"), "\(path)")
            #expect(html.contains("<nav></nav>"), "\(path): its links come from js/pages.js")
        }
    }
}
