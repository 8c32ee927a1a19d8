import Foundation
import Testing
@testable import MeridianKML

/// Every file of `Tests/Fixtures/kml/samples/` against `INVENTORY.tsv`: readable files parse with the
/// inventory's counts and survive read → write → read unchanged; broken and hostile files fail with a clear,
/// typed error.
@Suite struct KMLSampleTests {
    static let rows = TestSupport.inventory.filter { ($0["file"] ?? "").isEmpty == false }
    /// Well-formed samples refused for what they hold: togeojson's bad.kml has coordinates such as `no,no`, which
    /// would be placemarks without geometry (they were kept as XML, and converted to null with exit 0).
    static let refusedForContent: Set<String> = ["togeojson/bad.kml"]
    static let readable = rows.filter { ($0["wellformed"] ?? "").hasSuffix("yes") && !refusedForContent.contains($0["file"]!) }
    static let unreadable = rows.filter { !($0["wellformed"] ?? "").hasSuffix("yes") || refusedForContent.contains($0["file"]!) }

    /// The inventory columns compared with the census, and the element each counts.
    static let columns = ["Placemark", "Folder", "Style", "StyleMap", "styleUrl", "IconStyle", "LineStyle",
                          "PolyStyle", "Point", "LineString", "Polygon", "MultiGeometry", "gx:Track",
                          "gx:MultiTrack", "ExtendedData", "SchemaData", "NetworkLink"]

    /// How many `<tag` (followed by space, `>` or `/`) occur inside `<!-- … -->` comments.
    static func occurrencesInComments(of tag: String, in text: String) -> Int {
        var count = 0
        var rest = text[...]
        while let start = rest.range(of: "<!--") {
            guard let end = rest[start.upperBound...].range(of: "-->") else { break }
            var comment = rest[start.upperBound..<end.lowerBound]
            while let r = comment.range(of: "<" + tag) {
                if let next = comment[r.upperBound...].first, next == " " || next == ">" || next == "/" { count += 1 }
                comment = comment[r.upperBound...]
            }
            rest = rest[end.upperBound...]
        }
        return count
    }

    @Test func inventoryIsComplete() throws {
        #expect(Self.rows.count == 78)
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: TestSupport.samples.path)
            .filter { $0.hasSuffix(".kml") || $0.hasSuffix(".kmz") }
        #expect(Set(onDisk) == Set(Self.rows.map { $0["file"]! }))
    }

    @Test(arguments: readable.map { $0["file"]! })
    func readsWithInventoryCounts(_ file: String) throws {
        let row = Self.rows.first { $0["file"] == file }!
        let dataset = try KMLDataset(url: TestSupport.samples.appendingPathComponent(file))
        let census = Census(dataset)
        // The inventory counted tags textually, so tags inside XML comments (gx_all-gx.kml's
        // `<!-- <gx:Track> -->`) are in its figures: subtract those.
        let text = String(decoding: try TestSupport.kmlTextOfSample(TestSupport.samples.appendingPathComponent(file)),
                          as: UTF8.self)
        for column in Self.columns {
            let expected = (Int(row[column] ?? "0") ?? 0) - Self.occurrencesInComments(of: column, in: text)
            #expect(census[column] == expected, "\(file): \(column)")
        }
    }

    @Test(arguments: readable.map { $0["file"]! })
    func roundTripLosesNothing(_ file: String) throws {
        let url = TestSupport.samples.appendingPathComponent(file)
        let first = try KMLDataset(url: url)
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(url.deletingPathExtension().lastPathComponent + "." + url.pathExtension)
        try first.save(to: out)
        let second = try KMLDataset(url: out)
        // The whole model: placemarks, geometries (coordinates are written in shortest round-trip form, so they
        // compare exactly — tighter than the 1e-9° required), styles, ExtendedData and preserved (gx:) XML.
        #expect(second.document == first.document, "\(file)")
        #expect(second.rootUnmodeledElements == first.rootUnmodeledElements)
        #expect(second.resources == first.resources)
        #expect(Census(second).counts == Census(first).counts)
        let resolver1 = first.styleResolver, resolver2 = second.styleResolver
        let p1 = first.document.allPlacemarks, p2 = second.document.allPlacemarks
        #expect(p1.count == p2.count)
        for (a, b) in zip(p1, p2) {
            #expect(resolver1.effectiveStyle(for: a) == resolver2.effectiveStyle(for: b))
            #expect(resolver1.effectiveStyle(for: a, highlighted: true) == resolver2.effectiveStyle(for: b, highlighted: true))
        }
        // Writing is deterministic: a second write is byte-identical.
        #expect(second.kmlData == first.kmlData)
    }

    /// Files valid against the OGC schema stay valid after read → write (old-namespace files too, when the
    /// only problem was the namespace); every rewrite, of a valid file or not, reads back to the same model.
    @Test(arguments: readable.map { $0["file"]! })
    func rewrittenValidFilesStayValid(_ file: String) throws {
        let url = TestSupport.samples.appendingPathComponent(file)
        let original = try TestSupport.validate(kml: TestSupport.kmlTextOfSample(url))
        let dataset = try KMLDataset(url: url)
        let written = dataset.kmlData
        let rewritten = TestSupport.validate(kml: written)
        if original.ok { #expect(rewritten.ok, "\(file): \(rewritten.output)") }
        #expect(try KMLDataset(data: written).document == dataset.document, "\(file)")
    }

    @Test func unreadableSamplesFailClearly() throws {
        let expected: [String: (KMLError) -> Bool] = [
            "libkml/kml_billion.kml": { if case .entityDeclarationsRefused = $0 { true } else { false } },
            "libkml/kmz_nokml.kmz": { if case .noKMLInArchive = $0 { true } else { false } },
            "libkml/kmz_overflow_bad_offset.kmz": { if case .corruptArchive = $0 { true } else { false } },
            "gdal_autotest/truncated.kml": { if case .malformedXML(_, let l, let c) = $0 { l == 35 && c >= 1 } else { false } },
            "togeojson/bad.kml": {
                $0 == .unreadableCoordinates(placemark: 0, line: 3, reason: "'no' is not a finite number in the coordinates of a Point")
            },
        ]
        #expect(Set(Self.unreadable.map { $0["file"]! }) == Set(expected.keys))
        for (file, check) in expected {
            let start = Date()
            do {
                _ = try KMLDataset(url: TestSupport.samples.appendingPathComponent(file))
                Issue.record("\(file) was read")
            } catch {
                #expect(check(error), "\(file): \(error)")
                #expect(!error.description.isEmpty)
            }
            #expect(Date().timeIntervalSince(start) < 60, "\(file) must not hang")  // anti-hang limit only
        }
    }

    @Test func kmzEntrySelection() throws {
        let doc = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/kmz_multikml-nodoc.kmz"))
        #expect(doc.warnings.contains { $0.contains("z/c.kml") })
        let iceland = try KMLDataset(url: TestSupport.samples.appendingPathComponent("openlayers/iceland.kmz"))
        #expect(iceland.resources.count == 16)
        let hrefs = Set(iceland.iconHrefs)
        #expect(hrefs.isSubset(of: Set(iceland.resources.keys)))
    }

    @Test func styleResolution() throws {
        let dup = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/style_dup-id.kml"))
        // "Last one wins": the second dup-style, a thin blue line.
        let line = dup.document.allPlacemarks.first { $0.id == "line" }!
        #expect(dup.effectiveStyle(for: line)?.lineStyle?.color == KMLColor(kml: "ffff0000"))
        #expect(dup.effectiveStyle(for: line)?.lineStyle?.width == 1)
        let loops = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/style_nesting.kml"))
        for p in loops.document.allPlacemarks { #expect(loops.effectiveStyle(for: p) == nil) }  // cycles end
        let shared = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/style_shared-stylemap.kml"))
        let p = shared.document.allPlacemarks[0]
        #expect(shared.effectiveStyle(for: p)?.iconStyle != nil)
        #expect(shared.effectiveStyle(for: p) != shared.effectiveStyle(for: p, highlighted: true))
    }

    @Test func oldNamespacesAndForgivingCoordinates() throws {
        let quakes = try KMLDataset(url: TestSupport.samples.appendingPathComponent("openlayers/2012_Earthquakes_Mag5.kml"))
        #expect(quakes.document.allPlacemarks.count == 1535)
        let first = quakes.document.allPlacemarks[0]
        #expect(first.geometry?.shape == .point(.init(x: -56.072, y: -60.975, z: 0)))
        #expect(first.unmodeledElements.map(\.name) == ["magnitude"])  // the non-KML element is kept
        let bad = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/kml_badcoords.kml"))
        let golden = try KMLDataset(url: TestSupport.samples.appendingPathComponent("libkml/kml_badcoords-golden.kml"))
        #expect(bad.document.allPlacemarks[0].geometry?.coordinates == golden.document.allPlacemarks[0].geometry?.coordinates)
        let xml = try KMLDataset(url: TestSupport.samples.appendingPathComponent("gdal_autotest/description_with_xml.kml"))
        #expect(xml.document.allPlacemarks[0].nodeDescription == "Description<br/><i attr=\"val\">Interesting</i><br/>")
    }
}

extension TestSupport {
    /// The KML text of a sample (the main KML of a KMZ).
    static func kmlTextOfSample(_ url: URL) throws -> Data {
        guard url.pathExtension == "kmz" else { return try Data(contentsOf: url) }
        let archive = try ZipArchive(url: url, limits: .default)
        let entries = try archive.entries().filter { $0.name.hasSuffix(".kml") }
        let main = entries.first { $0.name == "doc.kml" } ?? entries[0]
        return try archive.read(main, limit: 1 << 30)
    }
}
