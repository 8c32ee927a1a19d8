import Foundation
@testable import MeridianKML

/// Paths of the reference data (`Tests/Fixtures`) and helpers the KML tests share.
enum TestSupport {
    /// The repository root (three levels above this file).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `Tests/Fixtures/kml` in the repository.
    static let kmlReference = root.appendingPathComponent("Tests/Fixtures/kml")
    /// The sample files.
    static let samples = kmlReference.appendingPathComponent("samples")
    /// The OGC KML 2.2 schema that also imports Google's gx extensions (fastkml's copy imports kml22gx.xsd).
    static let schema = kmlReference.appendingPathComponent("schema/fastkml-1.4.0/ogckml22.xsd")

    /// A fresh temporary directory.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-kml-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a program; returns its exit status and combined output. Gives up after `timeout` seconds.
    static func run(_ program: String, _ arguments: [String], timeout: TimeInterval = 60) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (-1, "cannot run \(program): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Validates KML text against the OGC schema with `xmllint --schema` (no network).
    static func validate(kml: Data) -> (ok: Bool, output: String) {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("doc.kml")
        try? kml.write(to: file)
        let r = run("/usr/bin/xmllint", ["--noout", "--nonet", "--schema", schema.path, file.path])
        return (r.status == 0, r.output)
    }

    /// Validates a written `.kml` or `.kmz` file (for a KMZ, its `doc.kml`).
    static func validate(file: URL) throws -> (ok: Bool, output: String) {
        validate(kml: try kmlText(of: file))
    }

    /// The KML text of a file (`doc.kml` of a KMZ, checked to be the first entry).
    static func kmlText(of file: URL) throws -> Data {
        guard file.pathExtension.lowercased() == "kmz" else { return try Data(contentsOf: file) }
        let archive = try ZipArchive(url: file, limits: .default)
        let entries = try archive.entries()
        guard let first = entries.first, first.name == "doc.kml" else { throw KMLError.noKMLInArchive(path: file.path, entries: entries.map(\.name)) }
        return try archive.read(first, limit: 1 << 30)
    }

    /// The rows of `samples/INVENTORY.tsv` as column → value dictionaries.
    static let inventory: [[String: String]] = {
        guard let text = try? String(contentsOf: samples.appendingPathComponent("INVENTORY.tsv"), encoding: .utf8) else {
            return []
        }
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { row in
            Dictionary(uniqueKeysWithValues: header.enumerated().map { ($0.element, $0.offset < row.count ? row[$0.offset] : "") })
        }
    }()
}

/// Counts of elements in a dataset, by qualified name, over the model and every preserved XML subtree: what
/// `INVENTORY.tsv` counts in the source files.
struct Census {
    var counts: [String: Int] = [:]

    init(_ d: KMLDataset) {
        for e in d.rootUnmodeledElements { raw(e) }
        if d.document.isImplicit { for f in d.document.features { feature(f) } } else { container(d.document) }
    }

    subscript(_ name: String) -> Int { counts[name, default: 0] }

    private mutating func add(_ name: String, _ n: Int = 1) { counts[name, default: 0] += n }

    private mutating func raw(_ e: KMLElement) {
        e.forEachElement { x in
            let name = x.namespace == KMLNamespace.gx ? "gx:\(x.name)" : x.namespace == KMLNamespace.kml22 ? x.name : "{\(x.namespace)}\(x.name)"
            counts[name, default: 0] += 1
        }
    }

    private mutating func node<N: KMLNode>(_ n: N) {
        for e in n.unmodeledElements { raw(e) }
        if n.styleUrl != nil { add("styleUrl") }
        if let x = n.extendedData {
            add("ExtendedData")
            add("SchemaData", x.schemaData.count)
            for e in x.unmodeledElements { raw(e) }
            for s in x.schemaData { for e in s.unmodeledElements { raw(e) } }
        }
    }

    private mutating func style(_ s: KMLStyle) {
        add("Style")
        if let i = s.iconStyle { add("IconStyle"); for e in i.unmodeledElements + (i.icon?.unmodeledElements ?? []) { raw(e) } }
        if let l = s.lineStyle { add("LineStyle"); for e in l.unmodeledElements { raw(e) } }
        if let p = s.polygonStyle { add("PolyStyle"); for e in p.unmodeledElements { raw(e) } }
        for e in s.labelStyle?.unmodeledElements ?? [] { raw(e) }
        for e in s.balloonStyle?.unmodeledElements ?? [] { raw(e) }
        for e in s.unmodeledElements { raw(e) }
    }

    private mutating func selector(_ s: KMLStyleSelector) {
        switch s {
        case .style(let st): style(st)
        case .styleMap(let m):
            add("StyleMap")
            for p in m.pairs {
                if p.styleUrl != nil { add("styleUrl") }
                if let st = p.style { style(st) }
            }
            for e in m.unmodeledElements { raw(e) }
        }
    }

    private mutating func geometry(_ g: KMLGeometry) {
        if case .unmodeled(let e) = g.shape { raw(e); return }
        add(g.typeName)
        for e in g.unmodeledElements { raw(e) }
        if case .multiGeometry(let gs) = g.shape { for m in gs { geometry(m) } }
    }

    private mutating func container<C: KMLContainer>(_ c: C) {
        node(c)
        for s in c.styles { selector(s) }
        for f in c.features { feature(f) }
    }

    private mutating func feature(_ f: KMLFeature) {
        switch f {
        case .placemark(let p):
            add("Placemark")
            node(p)
            if let s = p.style { style(s) }
            if let m = p.styleMap { selector(.styleMap(m)) }
            if let g = p.geometry { geometry(g) }
        case .folder(let c):
            add("Folder")
            container(c)
        case .document(let c): container(c)
        case .unmodeled(let e): raw(e)
        }
    }
}
