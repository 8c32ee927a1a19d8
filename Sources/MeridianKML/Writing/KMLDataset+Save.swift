import Foundation
import MeridianCore

extension KMLDataset {
    /// The dataset as KML 2.2 text (UTF-8), with namespaces declared only when used (`gx:` only for gx
    /// content), descriptions holding markup in CDATA.
    public var kmlData: Data {
        KMLEncoder().file(self)
    }

    /// Writes the dataset as `.kmz` (a ZIP archive whose first entry is `doc.kml`, deflated, with local icon
    /// files packed under `files/` and their hrefs rewritten; remote URLs are kept) or `.kml`, chosen by the
    /// file extension. The file is written atomically: a failure leaves no partial file.
    ///
    /// Icon hrefs that are `file://` URLs or absolute paths must exist; relative hrefs are resolved against the
    /// folder of `sourceURL` (or the current directory) and packed when the file exists, kept as they are
    /// otherwise (they may point into the archive's `resources`).
    /// - Parameters:
    ///   - url: The target file, ending in `.kmz` or `.kml`.
    ///   - overwrite: Whether an existing file may be replaced (default `false`).
    /// - Throws: `KMLError.fileExists`, `.unsupportedExtension`, `.missingResource`, `.io`.
    public func save(to url: URL, overwrite: Bool = false) throws(KMLError) {
        let ext = url.pathExtension.lowercased()
        guard ext == "kml" || ext == "kmz" else { throw .unsupportedExtension(path: url.path) }
        if !overwrite && FileManager.default.fileExists(atPath: url.path) { throw .fileExists(path: url.path) }
        let content: (URL) throws -> Void
        if ext == "kml" {
            let data = kmlData
            content = { try data.write(to: $0) }
        } else {
            let entries = try kmzEntries()
            content = { (temporary: URL) throws -> Void in try KMZWriter.write(entries, to: temporary) }
        }
        do {
            try AtomicFile.write(to: url, overwrite: overwrite, content)
        } catch KMLError.io(_, let reason) {
            throw .io(path: url.path, reason: reason)  // named by the target, not the temporary file it was writing
        } catch let e as KMLError {
            throw e
        } catch FileWriteError.exists(let p) {
            throw .fileExists(path: p)
        } catch FileWriteError.failed(let p, let r) {
            throw .io(path: p, reason: r)
        } catch {
            throw .io(path: url.path, reason: AtomicFile.reason(for: error))
        }
    }

    /// The entries of the KMZ `save(to:)` writes: `doc.kml` first, then packed icons, then `resources`.
    public func kmzEntries() throws(KMLError) -> [(name: String, data: Data)] {
        var packed: [(name: String, data: Data)] = []
        var hrefs: [String: String] = [:]
        var used = Set(resources.keys).union(["doc.kml"])
        let base = sourceURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        var entryForPath: [String: String] = [:]
        for href in Set(iconHrefs).sorted() where hrefs[href] == nil && resources[href] == nil {
            guard let file = Self.localFile(href, base: base) else { continue }
            if let entry = entryForPath[file.url.path] {  // the same file under another spelling
                hrefs[href] = entry
                continue
            }
            guard let data = try? Data(contentsOf: file.url) else {
                if file.mustExist { throw .missingResource(href: href) }
                continue
            }
            let name = file.url.lastPathComponent.isEmpty ? "icon" : file.url.lastPathComponent
            var entry = "files/\(name)"
            var k = 1
            while used.contains(entry) {
                let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
                entry = "files/\(stem)-\(k)\(ext.isEmpty ? "" : "." + ext)"
                k += 1
            }
            used.insert(entry)
            packed.append((entry, data))
            hrefs[href] = entry
            entryForPath[file.url.path] = entry
        }
        let kml = KMLEncoder(hrefs: hrefs).file(self)
        packed.sort { $0.name < $1.name }
        let others = resources.filter { $0.key != "doc.kml" }.sorted { $0.key < $1.key }.map { (name: $0.key, data: $0.value) }
        return [("doc.kml", kml)] + packed + others
    }

    /// Every icon href of the document's styles (shared and inline, style-map pairs included).
    public var iconHrefs: [String] {
        var out: [String] = []
        func visit(_ s: KMLStyle?) { if let h = s?.iconStyle?.icon?.href, !h.isEmpty { out.append(h) } }
        func visit(_ sel: KMLStyleSelector) {
            switch sel {
            case .style(let s): visit(s)
            case .styleMap(let m): for p in m.pairs { visit(p.style) }
            }
        }
        func visit<C: KMLContainer>(_ c: C) {
            for s in c.styles { visit(s) }
            for f in c.features {
                switch f {
                case .placemark(let p):
                    visit(p.style)
                    if let m = p.styleMap { visit(.styleMap(m)) }
                case .folder(let c): visit(c)
                case .document(let c): visit(c)
                case .unmodeled: break
                }
            }
        }
        visit(document)
        return out
    }

    /// The local file an href designates: `file://` URLs and absolute paths (which must exist), or a relative
    /// path under `base` (packed only if it exists); `nil` for remote URLs.
    static func localFile(_ href: String, base: URL) -> (url: URL, mustExist: Bool)? {
        if href.hasPrefix("file:") { return URL(string: href).map { ($0, true) } }
        if href.hasPrefix("/") { return (URL(fileURLWithPath: href), true) }
        if let colon = href.firstIndex(of: ":"), href[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
           href.distance(from: href.startIndex, to: colon) > 1 {
            return nil  // a URL scheme: http:, https:, data:, …
        }
        if href.hasPrefix("#") || href.isEmpty { return nil }
        let url = URL(fileURLWithPath: href, relativeTo: base).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return (url, false)
    }
}

extension KMLDocument {
    /// Writes the document as `.kmz` or `.kml` (see `KMLDataset.save(to:overwrite:)`; ArcGIS's
    /// `AGSKMLNode.save(toFileURL:)`).
    /// - Parameters:
    ///   - url: The target file, ending in `.kmz` or `.kml`.
    ///   - overwrite: Whether an existing file may be replaced (default `false`).
    /// - Throws: `KMLError`.
    public func save(to url: URL, overwrite: Bool = false) throws(KMLError) {
        try KMLDataset(rootNode: self).save(to: url, overwrite: overwrite)
    }
}
