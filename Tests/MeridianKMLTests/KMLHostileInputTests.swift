import Foundation
import MeridianTestSupport
import Testing
@testable import MeridianKML

/// Hostile and broken input: every case ends in a typed `KMLError`, quickly, without crashing, hanging or
/// reading anything outside the document.
@Suite struct KMLHostileInputTests {
    static func read(_ text: String) throws(KMLError) -> KMLDataset { try KMLDataset(data: Data(text.utf8)) }

    static func expectError(_ text: String, _ check: (KMLError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let start = Date()
        do {
            _ = try read(text)
            Issue.record("read without error", sourceLocation: sourceLocation)
        } catch {
            #expect(check(error), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(Date().timeIntervalSince(start) < 60, "must not hang", sourceLocation: sourceLocation)  // anti-hang only
    }

    static func refused(_ e: KMLError) -> Bool { if case .entityDeclarationsRefused = e { true } else { false } }
    static func malformed(_ e: KMLError) -> Bool { if case .malformedXML = e { true } else { false } }

    @Test func billionLaughsIsRefusedBeforeParsing() throws {
        let start = Date()
        #expect(throws: KMLError.entityDeclarationsRefused(line: 9)) {
            try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/kml_billion.kml"))
        }
        #expect(Date().timeIntervalSince(start) < 60)  // anti-hang only: refused before parsing, not timed
        // Also through the streaming reader.
        #expect(throws: KMLError.self) {
            try KMLDataset.forEachPlacemark(in: TestSupport.samples.appendingPathComponent("libkml/kml_billion.kml")) { _ in true }
        }
    }

    @Test func externalEntitiesAreNeverResolved() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let secret = dir.appendingPathComponent("secret.txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        // Declared in the internal subset: refused up front.
        Self.expectError("""
            <?xml version="1.0"?>
            <!DOCTYPE kml [ <!ENTITY xxe SYSTEM "\(secret.absoluteString)"> ]>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>&xxe;</name></Placemark></kml>
            """, Self.refused)
        // Parameter entities and a declaration after a comment and quoted '>' are found too.
        Self.expectError("<!-- > --><!DOCTYPE kml PUBLIC \"a>b\" \"x\" [ <!-- ]> --> <!ENTITY % p SYSTEM \"\(secret.absoluteString)\"> %p; ]><kml/>", Self.refused)
        // Declared in an external DTD: the DTD is not loaded, so the reference is an error or empty, never the file.
        let dtd = dir.appendingPathComponent("evil.dtd")
        try "<!ENTITY xxe SYSTEM \"\(secret.absoluteString)\">".write(to: dtd, atomically: true, encoding: .utf8)
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE kml SYSTEM "\(dtd.absoluteString)">
            <kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>a&xxe;b</name></Placemark></kml>
            """
        if let d = try? Self.read(text) {
            let name = d.document.allPlacemarks.first?.name ?? ""
            #expect(name.range(of: "TOP-SECRET") == nil)
        }
        // UTF-16 documents are inspected too.
        var utf16 = Data([0xFF, 0xFE])
        for u in "<!DOCTYPE k [<!ENTITY a \"b\">]><kml/>".utf16 { utf16.append(UInt8(u & 0xFF)); utf16.append(UInt8(u >> 8)) }
        #expect(throws: KMLError.entityDeclarationsRefused(line: 1)) { try KMLDataset(data: utf16) }
    }

    /// The prolog guard reads the first `GuardedInputStream.firstPullBytes` and then doubles what it holds: an entity
    /// declaration or encoding declaration that only ends after several such steps is still found, a long prolog
    /// without one still reads, and one beyond 1 MiB is refused.
    @Test func prologsLongerThanTheFirstReadAreInspectedWhole() throws {
        let first = GuardedInputStream.firstPullBytes
        let comment = "<!--" + String(repeating: "x", count: 5 * first) + "-->\n"
        let kml = #"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>a</name></Placemark></kml>"#
        // An entity declaration starting beyond the first read, and one straddling it.
        Self.expectError(comment + #"<!DOCTYPE kml [ <!ENTITY a "b"> ]>"# + kml, Self.refused)
        let straddling = String(repeating: " ", count: first - 10) + #"<!DOCTYPE kml [ <!ENTITY a "b"> ]>"# + kml
        Self.expectError(straddling, Self.refused)
        // A declaration naming Latin-1 before a prolog longer than the first read: libxml2 converts, so é (0xE9) reads.
        var latin1 = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?>"#.utf8)
        latin1.append(Data((comment + kml.replacingOccurrences(of: "<name>a", with: "<name>caf")).utf8))
        latin1.insert(0xE9, at: latin1.count - "</name></Placemark></kml>".utf8.count)
        #expect(try KMLDataset(data: latin1).document.allPlacemarks.first?.name == "café")
        // A long prolog without entities reads, and the document after it arrives whole.
        let d = try Self.read(comment + comment + kml)
        #expect(d.document.allPlacemarks.map(\.name) == ["a"])
        // A prolog beyond 1 MiB is refused.
        Self.expectError("<!--" + String(repeating: "x", count: GuardedInputStream.maximumPrologBytes) + "-->" + kml) {
            if case .malformedXML(let message, _, _) = $0 { message.contains("exceeds 1 MiB") } else { false }
        }
    }

    @Test func aDoctypeWithoutEntitiesIsAccepted() throws {
        let d = try Self.read("<!DOCTYPE kml><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><name>&amp;&#65;</name></Placemark></kml>")
        #expect(d.document.allPlacemarks.first?.name == "&A")
    }

    /// Coordinates that are not finite numbers (`nan,inf`, `1e400`, a word) are refused with the placemark's
    /// position and line, by the document reader and the streaming reader alike (they were kept as XML with a
    /// warning, and the placemark's geometry was converted to null with exit 0).
    @Test func unreadableCoordinatesNameThePlacemarkAndItsLine() throws {
        func kml(_ geometry: String) -> String {
            "<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>\n<Placemark><Point><coordinates>1,2</coordinates></Point></Placemark>\n"
                + "<Folder><Placemark id=\"b\">\n<name>bad</name>\n\(geometry)</Placemark></Folder>\n</Document>\n</kml>"
        }
        let cases: [(String, String)] = [
            ("<Point><coordinates>nan,inf</coordinates></Point>", "'nan' is not a finite number in the coordinates of a Point"),
            ("<LineString><coordinates>1,2 1e400,3</coordinates></LineString>", "'1e400' is not a finite number in the coordinates of a LineString"),
            ("<Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,0,inf</coordinates></LinearRing></outerBoundaryIs></Polygon>",
             "'inf' is not a finite number in the coordinates of a Polygon"),
            ("<MultiGeometry><Point><coordinates>1,2</coordinates></Point><Point><coordinates>3,north</coordinates></Point></MultiGeometry>",
             "'north' is not a finite number in the coordinates of a Point"),
            ("<Point><coordinates>7</coordinates></Point>",
             "a position of one number (7; positions are longitude,latitude[,altitude]) in the coordinates of a Point"),
            ("<Point><coordinates>1,2,</coordinates></Point>", "a comma without a number after it in the coordinates of a Point"),
            ("<Point><coordinates>&#x85;[2J,1</coordinates></Point>", "'\\u{85}[2J' is not a finite number in the coordinates of a Point"),
        ]
        for (geometry, reason) in cases {
            let expected = KMLError.unreadableCoordinates(placemark: 1, line: 4, reason: reason)
            #expect(throws: expected, "\(geometry)") { try Self.read(kml(geometry)) }
            var seen = 0
            #expect(throws: expected, "\(geometry)") {
                try KMLDataset.forEachPlacemark(data: Data(kml(geometry).utf8)) { _ in seen += 1; return true }
            }
            #expect(seen == 1)
            #expect(expected.description == "placemark 1 (line 4): \(reason)")
        }
    }

    @Test func truncatedAndMalformedXMLReportLineAndColumn() throws {
        #expect(throws: KMLError.malformedXML(message: "unexpected end of the document (truncated file?)", line: 35, column: 1)) {
            try KMLDataset(url: TestSupport.samples.appendingPathComponent("gdal_autotest/truncated.kml"))
        }
        do {
            _ = try Self.read("<kml>\n  <Placemark>\n    <name>x</nam>\n</kml>")
            Issue.record("read")
        } catch {
            guard case .malformedXML(_, let line, let column) = error else { Issue.record("\(error)"); return }
            // libxml2's push parser reports where it stopped: on the bad tag's line or the next one.
            #expect((3...4).contains(line) && column >= 1)
        }
        Self.expectError("", Self.malformed)
        Self.expectError("   ", Self.malformed)
        Self.expectError("\u{0}\u{1}garbage", Self.malformed)
        Self.expectError("<kml><name>&undefined;</name></kml>", Self.malformed)
        Self.expectError("<kml></kml><kml/>", Self.malformed)
        Self.expectError("<html><body/></html>", { if case .notKML("html") = $0 { true } else { false } })
        Self.expectError("<x:kml xmlns:x=\"urn:not-kml\"/>", { if case .notKML = $0 { true } else { false } })
    }

    @Test func deepNestingIsRefused() throws {
        let depth = 100_000
        let text = "<kml><Placemark>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</Placemark></kml>"
        Self.expectError(text, Self.malformed)
        // Deep but legal nesting of folders works (100 levels, as libkml's sample).
        let d = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/kml_100_nested_folders.kml"))
        #expect(d.document.folderCount == 100)
    }

    @Test func randomMutationsNeverCrash() throws {
        let original = try Data(contentsOf: TestSupport.samples.appendingPathComponent("libkml/kml_kmlsamples.kml"))
        var generator = SplitMix64(seed: 42)
        var failures = 0
        for _ in 0..<150 {
            var bytes = [UInt8](original)
            for _ in 0..<(1 + Int(generator.next() % 8)) {
                let i = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: i)
                default: bytes.removeSubrange(i..<bytes.count)
                }
            }
            do { _ = try KMLDataset(data: Data(bytes)) } catch { failures += 1 }
        }
        #expect(failures > 0)
    }

    // MARK: KMZ

    static func kmz(_ entries: [(String, Data)], in dir: URL, name: String = "t.kmz") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try KMZWriter.write(entries.map { (name: $0.0, data: $0.1) }, to: url)
        return url
    }

    static let smallKML = Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><name>safe</name></Placemark></kml>".utf8)

    @Test func unsafeEntryPathsAreIgnored() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let evil = Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><name>evil</name></Placemark></kml>".utf8)
        let url = try Self.kmz([("../evil.kml", evil), ("/abs/evil.kml", evil), ("a/../../evil.png", Data([1])),
                                ("C:\\evil.kml", evil), ("ok/doc.kml", Self.smallKML), ("files/icon.png", Data([1, 2]))], in: dir)
        let d = try KMLDataset(url: url)
        #expect(d.document.allPlacemarks.map(\.name) == ["safe"])
        #expect(d.warnings.filter { $0.contains("unsafe path") }.count == 4)
        #expect(Set(d.resources.keys) == ["files/icon.png"])
        // Nothing was written outside (or inside) the directory while reading.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["t.kmz"])
        #expect(!FileManager.default.fileExists(atPath: dir.deletingLastPathComponent().appendingPathComponent("evil.kml").path))
        // Only unsafe KML entries: no KML at all.
        let onlyEvil = try Self.kmz([("../doc.kml", evil)], in: dir, name: "evil.kmz")
        #expect(throws: KMLError.self) { try KMLDataset(url: onlyEvil) }
        #expect(ZipArchive.isSafe("a/b/c.kml") && !ZipArchive.isSafe("a/../../b") && !ZipArchive.isSafe("\\\\server\\x"))
    }

    @Test func zipBombsAreStopped() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 8 MiB of spaces inside a valid document deflates about 1000:1.
        var big = Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><name>".utf8)
        big.append(Data(repeating: 0x20, count: 8 << 20))
        big.append(Data("</name></Placemark></kml>".utf8))
        let url = try Self.kmz([("doc.kml", big)], in: dir)
        let limits = KMZLimits(maximumCompressionRatio: 100)
        #expect(throws: KMLError.self) { try KMLDataset(url: url, limits: limits) }
        do { _ = try KMLDataset(url: url, limits: limits) } catch {
            if case .compressionRatioExceeded(let entry, let ratio, _) = error { #expect(entry == "doc.kml" && ratio > 100) }
            else { Issue.record("\(error)") }
        }
        #expect(throws: KMLError.entryTooLarge(entry: "doc.kml", bytes: UInt64(big.count), limit: 1 << 20)) {
            try KMLDataset(url: url, limits: KMZLimits(maximumKMLBytes: 1 << 20))
        }
        // Resources too.
        let withIcon = try Self.kmz([("doc.kml", Self.smallKML), ("files/bomb.png", Data(repeating: 0, count: 4 << 20))], in: dir, name: "r.kmz")
        #expect(throws: KMLError.self) { try KMLDataset(url: withIcon, limits: KMZLimits(maximumResourceBytes: 1 << 20)) }

        // An archive lying about the uncompressed size: patch the sizes in both headers to 100 bytes.
        var bytes = [UInt8](try Data(contentsOf: url))
        func patch(signature: [UInt8], offset: Int) {
            var i = 0
            while i + 4 <= bytes.count {
                if Array(bytes[i..<i + 4]) == signature {
                    bytes[i + offset] = 100; bytes[i + offset + 1] = 0; bytes[i + offset + 2] = 0; bytes[i + offset + 3] = 0
                }
                i += 1
            }
        }
        patch(signature: [0x50, 0x4B, 0x03, 0x04], offset: 22)
        patch(signature: [0x50, 0x4B, 0x01, 0x02], offset: 24)
        let liar = dir.appendingPathComponent("liar.kmz")
        try Data(bytes).write(to: liar)
        let start = Date()
        #expect(throws: KMLError.self) { try KMLDataset(url: liar) }
        #expect(Date().timeIntervalSince(start) < 60)  // anti-hang only
    }

    @Test func corruptArchivesGiveClearErrors() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func isCorrupt(_ e: KMLError) -> Bool { if case .corruptArchive = e { true } else { false } }
        let sample = try Data(contentsOf: TestSupport.samples.appendingPathComponent("openlayers/iceland.kmz"))
        for (name, data) in [("half.kmz", sample.prefix(sample.count / 2)), ("junk.kmz", Data("not a zip at all".utf8)),
                             ("pk.kmz", Data([0x50, 0x4B, 0x03, 0x04, 0, 0, 0])), ("empty.kmz", Data())] {
            let url = dir.appendingPathComponent(name)
            try data.write(to: url)
            do { _ = try KMLDataset(url: url); Issue.record("\(name) read") } catch {
                #expect(isCorrupt(error), "\(name): \(error)")
            }
        }
        #expect(throws: KMLError.noKMLInArchive(path: TestSupport.samples.appendingPathComponent("libkml/kmz_nokml.kmz").path,
                                                 entries: ["hi.txt", "foo/", "foo/bar/", "foo/bar/bar.txt", "foo/foo.txt"])) {
            try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/kmz_nokml.kmz"))
        }
        #expect(throws: KMLError.self) { try KMLDataset(data: sample.prefix(100)) }
        #expect(throws: KMLError.io(path: "/nonexistent.kml", reason: "No such file or directory")) {
            try KMLDataset(url: URL(fileURLWithPath: "/nonexistent.kml"))
        }
        #expect(throws: KMLError.self) { try KMLDataset(url: dir) }
    }
}
