import Foundation
import MeridianCore
import MeridianTestSupport
import Testing
@testable import MeridianKML

/// The bytes `save(to:)` writes, pinned to those the writer produced before it streamed (commit 2e457e5, when the
/// whole document was built in memory): a change of how the text reaches the file must not change the text.
///
/// These pin bytes, not correctness: that the text is right is shown elsewhere (read back equal, schema-valid,
/// every vertex against pyproj in Tests/python/test_output_vertices.py). The representative document's output is
/// a reviewable file (`Tests/Fixtures/kml/written/representative.kml`); the 73 readable samples and a generated
/// document of 12 MB are pinned by length and 64-bit FNV-1a digest (`digests.tsv`).
@Suite struct KMLPinnedOutputTests {
    static let folder = TestSupport.kmlReference.appendingPathComponent("written")

    /// 64-bit FNV-1a of the bytes.
    static func fnv1a(_ data: Data) -> UInt64 {
        data.withUnsafeBytes { bytes in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes {
                h ^= UInt64(b)
                h &*= 0x0000_0100_0000_01b3
            }
            return h
        }
    }

    /// Where a mismatching output is left for a look (a diff against the pinned file).
    static func keep(_ data: Data, as name: String) -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-pinned-\(name)")
        try? data.write(to: url)
        return "written to \(url.path)"
    }

    /// `bytes digest` as the table has it.
    static func fingerprint(_ data: Data) -> String { "\(data.count)\t\(String(fnv1a(data), radix: 16))" }

    /// The pinned fingerprints by name.
    static let digests: [String: String] = {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("digests.tsv"), encoding: .utf8) else {
            return [:]
        }
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if f.count == 3 { out[f[0]] = "\(f[1])\t\(f[2])" }
        }
        return out
    }()

    /// What `save(to:)` writes for a dataset: the `.kml` file, and the entries of the `.kmz` (names and bytes, in
    /// order). Both are written with the public API into a fresh folder.
    static func saved(_ dataset: KMLDataset) throws -> (kml: Data, kmz: [(name: String, data: Data)]) {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let kml = dir.appendingPathComponent("out.kml"), kmz = dir.appendingPathComponent("out.kmz")
        try dataset.save(to: kml)
        try dataset.save(to: kmz)
        let archive = try ZipArchive(url: kmz, limits: .default)
        let entries = try archive.entries().map { ($0.name, try archive.read($0, limit: 1 << 30)) }
        // Nothing but the two files is left behind (no temporary file of the streaming writer).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out.kml", "out.kmz"])
        return (try Data(contentsOf: kml), entries)
    }

    /// Styles (every sub-style, hot spot, balloon, list style preserved), a style map with an inline style, nested
    /// folders, every geometry type (2D and 3D, holes, nested MultiGeometry, gx:Track preserved), altitude modes
    /// (gx: too), ExtendedData (Data, SchemaData), CDATA and escaping, root attributes in other namespaces.
    @Test func representativeDocumentAsBefore() throws {
        let dataset = try KMLDataset(url: Self.folder.appendingPathComponent("representative-input.kml"))
        let (kml, kmz) = try Self.saved(dataset)
        let expected = try Data(contentsOf: Self.folder.appendingPathComponent("representative.kml"))
        if kml != expected { Issue.record("not as pinned: \(Self.keep(kml, as: "representative.kml"))") }
        #expect(kmz.map(\.name) == ["doc.kml"])
        #expect(kmz.first?.data == expected)
        #expect(dataset.kmlData == expected)
    }

    /// A KMZ packs a local icon under `files/` and rewrites its href in doc.kml; the archive's own resources
    /// follow, sorted.
    @Test func kmzWithPackedIconAndResourcesAsBefore() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icon = dir.appendingPathComponent("pin.png")
        let iconBytes = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try iconBytes.write(to: icon)
        var doc = KMLDocument(name: "icons")
        doc.addStyle(KMLStyle(id: "s", iconStyle: KMLIconStyle(icon: KMLIcon(url: icon), scale: 2)))
        doc.addChildNode(KMLPlacemark(geometry: .point(longitude: -97.5, latitude: 32.75), name: "p", styleUrl: "#s"))
        var dataset = KMLDataset(rootNode: doc)
        dataset.resources = ["images/b.png": Data([2, 2]), "images/a.png": Data([1])]
        let (_, kmz) = try Self.saved(dataset)
        let written = kmz.first?.data ?? Data()
        #expect(kmz.map(\.name) == ["doc.kml", "files/pin.png", "images/a.png", "images/b.png"])
        #expect(kmz.count == 4 && kmz[1].data == iconBytes && kmz[2].data == Data([1]) && kmz[3].data == Data([2, 2]))
        let expected = try Data(contentsOf: Self.folder.appendingPathComponent("packed-icon-doc.kml"))
        if written != expected { Issue.record("not as pinned: \(Self.keep(written, as: "packed-icon-doc.kml"))") }
    }

    static let samples = KMLSampleTests.readable.map { $0["file"]! }

    /// Every readable sample, read and written: the `.kml` file and the KMZ's doc.kml, as before.
    @Test(arguments: samples)
    func sampleAsBefore(_ file: String) throws {
        let dataset = try KMLDataset(url: TestSupport.samples.appendingPathComponent(file))
        let (kml, kmz) = try Self.saved(dataset)
        let pinned = try #require(Self.digests[file], "no pinned digest; written: \(file)\t\(Self.fingerprint(kml))")
        #expect(Self.fingerprint(kml) == pinned, "\(file)")
        #expect(kmz.first?.name == "doc.kml")
        #expect(kmz.first.map { Self.fingerprint($0.data) } == pinned, "\(file) doc.kml")
        #expect(kmz.dropFirst().map(\.name) == dataset.resources.keys.filter { $0 != "doc.kml" }.sorted(), "\(file)")
    }

    /// A generated document of about 12 MB: 12,000 placemarks in 12 folders, shared and inline styles,
    /// descriptions with markup, every geometry type, random full-precision coordinates (fixed seed).
    static func largeDocument() -> KMLDocument {
        var rng = SplitMix64(seed: 13)
        func coordinate(z: Bool = false) -> Coordinate {
            Coordinate(x: Double.random(in: -180...180, using: &rng), y: Double.random(in: -90...90, using: &rng),
                       z: z ? Double.random(in: -100...9000, using: &rng) : nil)
        }
        func ring(_ n: Int) -> [Coordinate] {
            let cs = (0..<n).map { _ in coordinate() }
            return cs + [cs[0]]
        }
        var doc = KMLDocument(name: "large")
        doc.addStyle(KMLStyle(id: "s", lineStyle: KMLLineStyle(color: .red, width: 2),
                              polygonStyle: KMLPolygonStyle(fillColor: .yellow, isFilled: true, isOutlined: true)))
        for f in 0..<12 {
            var folder = KMLFolder(name: "Folder \(f)")
            for i in 0..<1000 {
                let shape: KMLGeometry.Shape
                switch i % 5 {
                case 0: shape = .point(coordinate(z: true))
                case 1: shape = .lineString((0..<40).map { _ in coordinate() })
                case 2: shape = .polygon(outerBoundary: ring(30), innerBoundaries: [ring(8)])
                case 3: shape = .linearRing(ring(12))
                default: shape = .multiGeometry([KMLGeometry(shape: .point(coordinate())),
                                                 KMLGeometry(shape: .lineString((0..<10).map { _ in coordinate() }))])
                }
                var p = KMLPlacemark(geometry: KMLGeometry(shape: shape, altitudeMode: i % 3 == 0 ? .absolute : nil),
                                     name: "P \(f)-\(i)", nodeDescription: i % 7 == 0 ? "<b>\(i)</b> & more" : "plain \(i)")
                if i % 2 == 0 {
                    p.styleUrl = "#s"
                } else {
                    p.style = KMLStyle(lineStyle: KMLLineStyle(color: KMLColor(red: UInt8(i % 256), green: 0, blue: 9, alpha: 200), width: Double(i % 5)))
                }
                folder.addChildNode(p)
            }
            doc.addChildNode(folder)
        }
        return doc
    }

    @Test func largeDocumentAsBefore() throws {
        let dataset = KMLDataset(rootNode: Self.largeDocument())
        let (kml, kmz) = try Self.saved(dataset)
        let pinned = try #require(Self.digests["generated-large"], "written: generated-large\t\(Self.fingerprint(kml))")
        #expect(kml.count > 10_000_000)
        #expect(Self.fingerprint(kml) == pinned)
        #expect(kmz.count == 1 && kmz.first?.name == "doc.kml" && kmz.first?.data == kml)
        #expect(dataset.kmlData == kml)
    }

    /// The writer hands its text to a streaming buffer's drain a chunk at a time: as soon as a chunk (64 KiB here)
    /// is waiting at the end of a feature, or every 4,096 vertices within a long coordinate list. Whole-document
    /// buffering would drain once, at the end.
    @Test func writerDrainsInChunks() throws {
        var doc = Self.largeDocument()
        let long = (0..<100_000).map { Coordinate(x: Double($0) * 1e-4 - 5, y: sin(Double($0)) * 45) }
        doc.addChildNode(KMLPlacemark(geometry: KMLGeometry(shape: .lineString(long)), name: "long"))
        let dataset = KMLDataset(rootNode: doc)
        let chunk = 64 << 10
        var sizes: [Int] = []
        var collected = Data()
        var out = ByteBuffer(chunkSize: chunk) { bytes in
            sizes.append(bytes.count)
            collected.append(contentsOf: bytes)
        }
        KMLEncoder.write(dataset, to: &out)
        try out.flush()
        #expect(collected == dataset.kmlData)
        #expect(sizes.count > collected.count / (2 * chunk))
        // A chunk goes out once 64 KiB wait: one placemark (under 5 KB here) or 4,096 vertices (under 200 KB) more.
        #expect(sizes.dropLast().allSatisfy { $0 >= chunk && $0 < chunk + 200_000 }, "\(sizes.max() ?? 0)")
    }
}
