import Foundation
import Meridian
import MeridianIO

/// `kml info`: counts of placemarks by geometry type, folders, styles, the bounding box and the reader's warnings,
/// as text or JSON; with `--stream`, placemarks and the bounding box in bounded memory.
struct KMLInfo {
    /// The file to describe.
    let path: String
    /// `--json`.
    let json: Bool
    /// `--stream`.
    let stream: Bool

    /// Prints the description.
    /// - Throws: `CommandError.failure` when the file is not KML or KMZ or cannot be read.
    func run(io: CommandIO) throws(CommandError) {
        if stream {
            try printStreamed(io: io)
            return
        }
        let dataset = try KMLFiles.read(path, io: io)
        let summary = KMLSummary(dataset)
        if json { printJSON(dataset, summary, io: io) } else { printText(dataset, summary, io: io) }
    }

    /// `--stream`: placemarks and the bounding box from the streaming reader.
    private func printStreamed(io: CommandIO) throws(CommandError) {
        try KMLFiles.requireKML(path, io: io)
        let s = try KMLSummary.streamed(path)
        var lines = ["\(path) (streamed): placemarks: \(s.placemarks)"]
        for (t, n) in s.geometryTypes.sorted(by: { $0.key < $1.key }) { lines.append("  \(t): \(n)") }
        if let e = s.envelope { lines.append("bbox (lon/lat): \(e.xMin), \(e.yMin), \(e.xMax), \(e.yMax)") }
        io.print(lines.joined(separator: "\n"))
    }

    /// `--json`: one object.
    private func printJSON(_ dataset: KMLDataset, _ s: KMLSummary, io: CommandIO) {
        var object: [String: JSONValue] = [
            "file": .string(path),
            "name": dataset.document.name.map { .string($0) } ?? .null,
            "placemarks": .number(Double(s.placemarks)),
            "geometryTypes": .object(s.geometryTypes.mapValues { .number(Double($0)) }),
            "folders": .number(Double(s.folders)),
            "sharedStyles": .number(Double(s.sharedStyles)),
            "inlineStyles": .number(Double(s.inlineStyles)),
            "otherFeatures": .object(s.otherFeatures.mapValues { .number(Double($0)) }),
            "resources": .array(dataset.resources.keys.sorted().map { .string($0) }),
            "warnings": .array(dataset.warnings.map { .string($0) }),
        ]
        if let e = s.envelope {
            object["bbox"] = .array([e.xMin, e.yMin, e.xMax, e.yMax].map { .number($0) })
        } else {
            object["bbox"] = .null
        }
        io.output(JSONValue.object(object).encoded(pretty: true) + Data("\n".utf8))
    }

    /// The text description.
    private func printText(_ dataset: KMLDataset, _ s: KMLSummary, io: CommandIO) {
        var lines = ["\(path): \(dataset.document.name ?? "(unnamed document)")",
                     "placemarks: \(s.placemarks)"]
        for (t, n) in s.geometryTypes.sorted(by: { $0.key < $1.key }) { lines.append("  \(t): \(n)") }
        lines.append("folders: \(s.folders)")
        lines.append("styles: \(s.sharedStyles) shared, \(s.inlineStyles) placemark(s) with inline styles")
        for (t, n) in s.otherFeatures.sorted(by: { $0.key < $1.key }) { lines.append("other features: \(t): \(n)") }
        if !dataset.resources.isEmpty { lines.append("archive files: \(dataset.resources.count)") }
        if let e = s.envelope {
            lines.append("bbox (lon/lat): \(e.xMin), \(e.yMin), \(e.xMax), \(e.yMax)")
        } else {
            lines.append("bbox: none")
        }
        lines.append("warnings: \(dataset.warnings.count)")
        for w in dataset.warnings { lines.append("  \(w)") }
        io.print(lines.joined(separator: "\n"))
    }
}

/// What `kml info` reports.
struct KMLSummary {
    var placemarks = 0
    var geometryTypes: [String: Int] = [:]
    var folders = 0
    var sharedStyles = 0
    var inlineStyles = 0
    var otherFeatures: [String: Int] = [:]
    var envelope: Envelope?

    init() {}

    init(_ d: KMLDataset) {
        let doc = d.document
        folders = doc.folderCount
        sharedStyles = doc.allStyleSelectors.count
        var coordinates: [Coordinate] = []
        func visit<C: KMLContainer>(_ c: C) {
            for f in c.features {
                switch f {
                case .placemark(let p):
                    placemarks += 1
                    if p.style != nil || p.styleMap != nil { inlineStyles += 1 }
                    if let g = p.geometry {
                        geometryTypes[g.typeName, default: 0] += 1
                        coordinates += g.coordinates
                    } else {
                        geometryTypes["none", default: 0] += 1
                    }
                case .folder(let f): visit(f)
                case .document(let d): visit(d)
                case .unmodeled(let e): otherFeatures[e.qualifiedName, default: 0] += 1
                }
            }
        }
        visit(doc)
        envelope = Envelope(around: coordinates, spatialReference: .wgs84)
    }

/// Placemark counts and bounding box from the streaming reader (bounded memory; folders not counted).
    static func streamed(_ path: String) throws(CommandError) -> KMLSummary {
    var s = KMLSummary()
    var xMin = Double.infinity, yMin = Double.infinity, xMax = -Double.infinity, yMax = -Double.infinity
    do {
        try KMLDataset.forEachPlacemark(in: URL(fileURLWithPath: path)) { r in
            s.placemarks += 1
            if r.placemark.style != nil || r.placemark.styleMap != nil { s.inlineStyles += 1 }
            if let g = r.placemark.geometry {
                s.geometryTypes[g.typeName, default: 0] += 1
                for c in g.coordinates {
                    xMin = min(xMin, c.x); yMin = min(yMin, c.y); xMax = max(xMax, c.x); yMax = max(yMax, c.y)
                }
            } else {
                s.geometryTypes["none", default: 0] += 1
            }
            return true
        }
    } catch let e as KMLError {
        throw KMLFiles.failure(path, e)
    } catch {
        throw .failure("\(path): \(error)")
    }
    if xMin <= xMax { s.envelope = Envelope(xMin: xMin, yMin: yMin, xMax: xMax, yMax: yMax, spatialReference: .wgs84) }
    return s
}
}
