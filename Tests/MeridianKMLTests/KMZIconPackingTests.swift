import Foundation
import Testing
@testable import MeridianKML

/// Which local files a KMZ packs as icons: a document someone was sent must not carry the converter's files into
/// the archive. Read from a KML file, only regular files inside its own folder (after `..` and
/// symbolic links) are packed; read from a KMZ, nothing from the disk; anything else stays a link with a warning.
@Suite struct KMZIconPackingTests {
    /// A folder `dir/doc` holding a KML document and an icon, and a secret file beside it in `dir`.
    struct Layout {
        let dir = TestSupport.temporaryDirectory()
        var doc: URL { dir.appendingPathComponent("doc") }
        var secret: URL { dir.appendingPathComponent("secret.png") }
        let secretBytes = Data("SECRET-\(UUID().uuidString)".utf8)
        let iconBytes = Data((0..<200).map { UInt8($0) })

        init() throws {
            try FileManager.default.createDirectory(at: doc.appendingPathComponent("icons"), withIntermediateDirectories: true)
            try secretBytes.write(to: secret)
            try iconBytes.write(to: doc.appendingPathComponent("icons/pin.png"))
            // A symbolic link inside the folder that points out of it, and one that points inside it.
            try FileManager.default.createSymbolicLink(atPath: doc.appendingPathComponent("link.png").path,
                                                       withDestinationPath: secret.path)
            try FileManager.default.createSymbolicLink(atPath: doc.appendingPathComponent("inside.png").path,
                                                       withDestinationPath: "icons/pin.png")
        }

        /// A KML document with one style per href.
        func kml(_ hrefs: [String]) -> String {
            let styles = hrefs.enumerated().map { i, h in
                "<Style id=\"s\(i)\"><IconStyle><Icon><href>\(h)</href></Icon></IconStyle></Style>"
            }
            return "<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\(styles.joined())"
                + "<Placemark><styleUrl>#s0</styleUrl><Point><coordinates>1,2</coordinates></Point></Placemark></Document></kml>"
        }

        /// Every byte of every entry of an archive.
        func allBytes(_ kmz: URL) throws -> Data {
            let back = try KMLDataset(url: kmz)
            return back.resources.values.reduce(back.kmlData, +)
        }
    }

    /// The hrefs that name the secret (or another file outside the folder) in every spelling tried.
    static func leakingHrefs(_ l: Layout) -> [String] {
        [l.secret.path, l.secret.absoluteString, "file:" + l.secret.path, "../secret.png", "icons/../../secret.png",
         "link.png", "/proc/self/environ", "FILE://" + l.secret.path]
    }

    @Test func aKMLFilePacksOnlyRegularFilesInsideItsFolder() throws {
        let l = try Layout()
        defer { try? FileManager.default.removeItem(at: l.dir) }
        let leaking = Self.leakingHrefs(l)
        let kept = ["icons/pin.png", "./icons/../icons/pin.png", "inside.png", "https://example.com/a.png"]
        let source = l.doc.appendingPathComponent("doc.kml")
        try Data(l.kml(leaking + kept + ["icons", "missing.png"]).utf8).write(to: source)
        let dataset = try KMLDataset(url: source)
        #expect(dataset.localIconAccess == .insideFolder(l.doc))
        let out = l.dir.appendingPathComponent("out.kmz")
        let warnings = try dataset.save(to: out)

        let back = try KMLDataset(url: out)
        #expect(back.resources == ["files/pin.png": l.iconBytes])  // the three spellings of pin.png, packed once
        #expect(try l.allBytes(out).range(of: l.secretBytes) == nil)
        #expect(Set(back.iconHrefs) == Set(leaking + ["files/pin.png", "https://example.com/a.png", "icons", "missing.png"]))
        // One warning per href left as a link, naming it and why.
        #expect(warnings.count == leaking.count + 2, "\(warnings)")
        for href in leaking + ["icons", "missing.png"] {
            #expect(warnings.contains { $0.hasPrefix("icon \(href) was kept as a link") }, "\(href): \(warnings)")
        }
        #expect(warnings.contains { $0.contains("../secret.png") && $0.contains("outside the document's folder") })
        #expect(warnings.contains { $0.contains("icon icons ") && $0.contains("not a regular file (a directory)") })
        #expect(warnings.contains { $0.contains("missing.png") && $0.contains("no such file") })
    }

    @Test func aKMZPacksNothingFromTheDisk() throws {
        let l = try Layout()
        defer { try? FileManager.default.removeItem(at: l.dir) }
        // An archive whose doc.kml names the secret and a file beside the archive (written from bytes: nothing packed).
        let hrefs = Self.leakingHrefs(l) + ["icons/pin.png"]
        let kmz = l.doc.appendingPathComponent("sent.kmz")
        let sent = try KMLDataset(data: Data(l.kml(hrefs).utf8))
        #expect(sent.localIconAccess == .none)
        #expect(try sent.save(to: kmz).count == hrefs.count)
        let dataset = try KMLDataset(url: kmz)
        #expect(dataset.localIconAccess == .none)
        let out = l.dir.appendingPathComponent("again.kmz")
        let warnings = try dataset.save(to: out)
        #expect(try KMLDataset(url: out).resources.isEmpty)
        #expect(try l.allBytes(out).range(of: l.secretBytes) == nil)
        #expect(warnings.count == hrefs.count)
        #expect(warnings.allSatisfy { $0.contains("never from the disk") })
    }

    @Test func aDocumentBuiltInCodeSaysWhyAnIconCannotBePacked() throws {
        let l = try Layout()
        defer { try? FileManager.default.removeItem(at: l.dir) }
        func save(_ href: String) throws(KMLError) {
            var doc = KMLDocument()
            doc.addStyle(KMLStyle(id: "x", iconStyle: KMLIconStyle(icon: KMLIcon(href: href))))
            try doc.save(to: l.dir.appendingPathComponent("code.kmz"))
        }
        let cases = [("/dev/zero", "it is not a regular file (a character device)"), (l.doc.path, "a directory"),
                     ("/nonexistent/icon.png", "no such file")]
        for (href, reason) in cases {
            #expect {
                try save(href)
            } throws: { error in
                guard case KMLError.missingResource(href, let r) = error else { return false }
                return r.contains(reason)
            }
            #expect(!FileManager.default.fileExists(atPath: l.dir.appendingPathComponent("code.kmz").path))
        }
        // The author's own absolute path is packed, wherever it is.
        try save(l.secret.path)
        #expect(try KMLDataset(url: l.dir.appendingPathComponent("code.kmz")).resources["files/secret.png"] == l.secretBytes)
    }

    @Test func hrefsAreClassified() {
        #expect(KMZIconPacker.localPath("https://a/b.png") == nil)
        #expect(KMZIconPacker.localPath("data:image/png;base64,AAAA") == nil)
        #expect(KMZIconPacker.localPath("#x") == nil)
        #expect(KMZIconPacker.localPath("") == nil)
        #expect(KMZIconPacker.localPath("file:///etc/passwd")! == ("/etc/passwd", true))
        #expect(KMZIconPacker.localPath("file:/etc/passwd")! == ("/etc/passwd", true))
        #expect(KMZIconPacker.localPath("/etc/passwd")! == ("/etc/passwd", true))
        #expect(KMZIconPacker.localPath("c:pin.png")! == ("c:pin.png", false))
        #expect(KMZIconPacker.localPath("../../etc/passwd")! == ("../../etc/passwd", false))
    }
}
