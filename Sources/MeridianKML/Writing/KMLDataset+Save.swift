import Foundation
import MeridianCore

extension KMLDataset {
    /// The dataset as KML 2.2 text (UTF-8), with namespaces declared only when used (`gx:` only for gx
    /// content), descriptions holding markup in CDATA.
    public var kmlData: Data {
        var out = ByteBuffer(capacity: 64 << 10)
        KMLEncoder.write(self, to: &out)
        return out.data()
    }

    /// Writes the dataset as `.kmz` (a ZIP archive whose first entry is `doc.kml`, deflated, with local icon
    /// files packed under `files/` and their hrefs rewritten; remote URLs are kept) or `.kml`, chosen by the
    /// file extension. The file is written atomically: a failure leaves no partial file. The text streams to the
    /// file in chunks (for a KMZ, into a temporary `doc.kml` beside the archive that libzip deflates from), so
    /// memory does not grow with the document's text.
    ///
    /// Which local files may be packed is `localIconAccess`: any file for a document built in code (a `file:` or
    /// absolute href must then name a readable regular file), only regular files inside its own folder (after
    /// resolving `..` and symbolic links) for a document read from a KML file, none for one read from a KMZ or
    /// from bytes. A local href that is not packed stays a link, and a warning says why.
    /// - Parameters:
    ///   - url: The target file, ending in `.kmz` or `.kml`.
    ///   - overwrite: Whether an existing file may be replaced (default `false`).
    /// - Returns: One line per local icon href kept as a link instead of being packed (none for `.kml`).
    /// - Throws: `KMLError.fileExists`, `.unsupportedExtension`, `.missingResource`, `.io`.
    @discardableResult
    public func save(to url: URL, overwrite: Bool = false) throws(KMLError) -> [String] {
        try save(to: url, overwrite: overwrite, packingLocalIcons: true)
    }

    /// Writes the dataset as `save(to:overwrite:)` does, choosing whether local icon files are packed.
    ///
    /// With `packingLocalIcons` `false` no file outside the dataset is read, whatever `localIconAccess` says:
    /// every icon href is written as it is (the archive's own `resources` are still written). A server saving a
    /// document it was sent uses this, so that a `file://`, absolute or `../` href can neither pull a file of the
    /// server's disk into the archive nor make the save fail because it is missing there.
    /// - Parameters:
    ///   - url: The target file, ending in `.kmz` or `.kml`.
    ///   - overwrite: Whether an existing file may be replaced.
    ///   - packingLocalIcons: Whether icon hrefs naming local files are packed under `files/` (as
    ///     `save(to:overwrite:)` does) or written as they are.
    /// - Returns: One line per local icon href kept as a link instead of being packed (none when not packing).
    /// - Throws: `KMLError.fileExists`, `.unsupportedExtension`, `.missingResource` (only when packing), `.io`.
    @discardableResult
    public func save(to url: URL, overwrite: Bool, packingLocalIcons: Bool) throws(KMLError) -> [String] {
        do {
            return try write(to: url, overwrite: overwrite, packingLocalIcons: packingLocalIcons) { _ in }
        } catch let e as KMLError {
            throw e
        } catch {
            throw .io(path: url.path, reason: "\(error)")  // (nothing else is thrown without streamed placemarks)
        }
    }

    /// `save(to:overwrite:packingLocalIcons:)` with placemarks streamed after the dataset's content: throws a
    /// `KMLError`, or a `Forwarded` error of `streaming` as it is.
    private func write(
        to url: URL, overwrite: Bool, packingLocalIcons: Bool,
        streaming: ((KMLPlacemark) throws(KMLError) -> Void) throws -> Void
    ) throws -> [String] {
        let ext = url.pathExtension.lowercased()
        guard ext == "kml" || ext == "kmz" else { throw KMLError.unsupportedExtension(path: url.path) }
        if !overwrite && FileManager.default.fileExists(atPath: url.path) { throw KMLError.fileExists(path: url.path) }
        var warnings: [String] = []
        do {
            if ext == "kml" {
                try AtomicFile.stream(to: url, overwrite: overwrite) { out in
                    try KMLEncoder.write(self, to: &out, streaming: streaming)
                }
            } else {
                let icons = try packedIcons(packingLocalIcons)
                warnings = icons.warnings
                try AtomicFile.write(to: url, overwrite: overwrite) { archive in
                    try writeKMZ(to: archive, icons: icons, streaming: streaming)
                }
            }
        } catch let e as Forwarded {
            throw e
        } catch KMLError.io(_, let reason) {
            throw KMLError.io(path: url.path, reason: reason)  // named by the target, not the temporary file it was writing
        } catch let e as KMLError {
            throw e
        } catch FileWriteError.exists(let p) {
            throw KMLError.fileExists(path: p)
        } catch FileWriteError.failed(let p, let r) {
            throw KMLError.io(path: p, reason: r)
        } catch {
            throw KMLError.io(path: url.path, reason: AtomicFile.reason(for: error))
        }
        return warnings
    }

    /// Writes the dataset as `save(to:overwrite:)` does, followed by placemarks made one at a time: `placemarks` is
    /// given a function that writes one placemark into the document (after its own features) as soon as it is
    /// made, so a document of millions of placemarks is written in the memory of one. The file is written
    /// atomically: when `placemarks` throws, nothing is left and its error is rethrown as it is.
    ///
    /// Icons are packed as `save(to:overwrite:)` packs them, from the dataset's own styles (the streamed
    /// placemarks' inline icon hrefs are written as they are, rewritten only where they name a packed icon). A
    /// streamed placemark must use no XML namespace beyond those the dataset's content uses (any placemark made by
    /// `KMLFeatureConversion` qualifies): one that does is refused (`KMLError.invalidGeometry`).
    /// - Parameters:
    ///   - url: The target file, ending in `.kmz` or `.kml`.
    ///   - overwrite: Whether an existing file may be replaced.
    ///   - placemarks: Makes the placemarks, handing each to the function it is given.
    /// - Returns: One line per local icon href kept as a link instead of being packed (none for `.kml`).
    /// - Throws: What `placemarks` throws, else `KMLError.fileExists`, `.unsupportedExtension`, `.missingResource`,
    ///   `.invalidGeometry`, `.io`.
    @discardableResult
    public func save(
        to url: URL, overwrite: Bool, placemarks: ((KMLPlacemark) throws(KMLError) -> Void) throws -> Void
    ) throws -> [String] {
        do {
            return try write(to: url, overwrite: overwrite, packingLocalIcons: true) { add in
                do {
                    try withoutActuallyEscaping(add) { add in try placemarks(add) }
                } catch let e as KMLError {
                    throw e
                } catch {
                    throw Forwarded(error: error)
                }
            }
        } catch let e as Forwarded {
            throw e.error
        }
    }

    /// An error of the placemarks' maker, carried through `save` as it is.
    private struct Forwarded: Error {
        let error: any Error
    }

    /// The entries of the KMZ `save(to:)` writes: `doc.kml` first, then packed icons, then `resources`.
    public func kmzEntries() throws(KMLError) -> [(name: String, data: Data)] {
        try kmzEntries(packingLocalIcons: true)
    }

    /// The entries of the KMZ `save(to:overwrite:packingLocalIcons:)` writes: `doc.kml` first, then packed icons
    /// (none when `packingLocalIcons` is `false`: no file outside the dataset is read), then `resources`.
    /// - Parameter packingLocalIcons: Whether icon hrefs naming local files are packed (as `localIconAccess`
    ///   allows).
    public func kmzEntries(packingLocalIcons: Bool) throws(KMLError) -> [(name: String, data: Data)] {
        let icons = try packedIcons(packingLocalIcons)
        var kml = ByteBuffer(capacity: 64 << 10)
        KMLEncoder.write(self, hrefs: icons.hrefs, to: &kml)
        return [("doc.kml", kml.data())] + icons.entries + otherResources
    }

    /// Writes the KMZ of `kmzEntries(packingLocalIcons:)` without holding its doc.kml: the text streams into a
    /// temporary file beside the archive (removed afterwards), which libzip deflates from when it writes.
    /// - Parameters:
    ///   - archive: The archive file to create.
    ///   - icons: The icons to pack (`packedIcons(_:)`).
    ///   - streaming: Placemarks written after the dataset's content (`save(to:overwrite:placemarks:)`).
    private func writeKMZ(
        to archive: URL, icons: PackedIcons, streaming: ((KMLPlacemark) throws(KMLError) -> Void) throws -> Void
    ) throws {
        let doc = archive.deletingLastPathComponent().appendingPathComponent(".\(archive.lastPathComponent).doc.kml")
        defer { try? FileManager.default.removeItem(at: doc) }
        do {
            try AtomicFile.streamScratch(to: doc) { out in
                try KMLEncoder.write(self, hrefs: icons.hrefs, to: &out, streaming: streaming)
            }
        } catch FileWriteError.failed(_, let reason) {
            throw KMLError.io(path: archive.path, reason: reason)  // save(to:) names the target
        }
        let entries: [(name: String, content: KMZWriter.Content)] = [("doc.kml", .file(doc))]
            + (icons.entries + otherResources).map { ($0.name, .bytes($0.data)) }
        try KMZWriter.write(entries, to: archive)
    }

    /// The archive's own entries other than doc.kml, sorted by name.
    private var otherResources: [(name: String, data: Data)] {
        resources.filter { $0.key != "doc.kml" }.sorted { $0.key < $1.key }.map { (name: $0.key, data: $0.value) }
    }

    /// The icons a KMZ packs: hrefs rewritten to entries, the entries, and why local hrefs stay links.
    private typealias PackedIcons = (hrefs: [String: String], entries: [(name: String, data: Data)], warnings: [String])

    /// The local icon files to pack under `files/` (sorted by entry name), as `localIconAccess` allows, the hrefs
    /// to rewrite to them and one warning per local href kept as a link; nothing when `packing` is `false`.
    /// - Parameter packing: Whether icon hrefs naming local files are packed.
    /// - Throws: `KMLError.missingResource` for a `file://` or absolute href of a document built in code naming no
    ///   readable regular file.
    private func packedIcons(_ packing: Bool) throws(KMLError) -> PackedIcons {
        guard packing else { return ([:], [], []) }
        var packer = KMZIconPacker(access: localIconAccess, limits: .default, taken: Set(resources.keys))
        for href in Set(iconHrefs).sorted() where resources[href] == nil { try packer.pack(href) }
        return (packer.hrefs, packer.entries.sorted { $0.name < $1.name }, packer.warnings)
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
}

extension KMLDocument {
    /// Writes the document as `.kmz` or `.kml` (see `KMLDataset.save(to:overwrite:)`; ArcGIS's
    /// `AGSKMLNode.save(toFileURL:)`).
    /// - Parameters:
    ///   - url: The target file, ending in `.kmz` or `.kml`.
    ///   - overwrite: Whether an existing file may be replaced (default `false`).
    /// - Returns: One line per local icon href kept as a link (see `KMLDataset.save(to:overwrite:)`).
    /// - Throws: `KMLError`.
    @discardableResult
    public func save(to url: URL, overwrite: Bool = false) throws(KMLError) -> [String] {
        try KMLDataset(rootNode: self).save(to: url, overwrite: overwrite)
    }
}
