import Foundation

/// A KML or KMZ file in memory: its document tree, what sits beside it, and the archive's other files
/// (ArcGIS's `AGSKMLDataset`).
///
/// Read with `init(url:limits:)` (KML or KMZ, detected by content), write with `save(to:overwrite:)`.
/// Elements Meridian does not model are kept as XML and written back, so read → write → read loses nothing
/// but comments, insignificant whitespace and attribute order.
public struct KMLDataset: Sendable {
    /// The root document. For files whose root feature is not a `<Document>`, an implicit one
    /// (`isImplicit == true`) holds the root feature(s).
    public var document: KMLDocument
    /// Attributes of the `<kml>` element (e.g. `hint="target=sky"`).
    public var rootAttributes: [KMLAttribute]
    /// Children of `<kml>` other than the root feature (`NetworkLinkControl`, unknown elements).
    public var rootUnmodeledElements: [KMLElement]
    /// The KMZ archive's other files by entry path (icons, images, other KML files); written back into a KMZ.
    public var resources: [String: Data]
    /// What was tolerated while reading (unreadable colors kept as XML, unsafe archive entries ignored, …).
    public var warnings: [String]
    /// The file read, if any.
    public var sourceURL: URL?
    /// Which files of the disk saving a KMZ may pack as icons: `.anywhere` for a document built in code,
    /// `.insideFolder` (the file's own folder) for one read from a KML file, `.none` for one read from a KMZ or
    /// from bytes. Set it to pack icons from another folder you trust.
    public var localIconAccess: KMLLocalIconAccess

    /// Creates a dataset around a document (ArcGIS's `KMLDataset(rootNode:)`).
    /// - Parameter rootNode: The root document.
    public init(rootNode: KMLDocument) {
        self.document = rootNode
        rootAttributes = []
        rootUnmodeledElements = []
        resources = [:]
        warnings = []
        sourceURL = nil
        localIconAccess = .anywhere
    }

    /// Reads a KML or KMZ file (ArcGIS's `KMLDataset(url:)`; KMZ recognised by its ZIP signature or `.kmz`
    /// extension).
    /// - Parameters:
    ///   - url: A file URL.
    ///   - limits: Zip-bomb and size limits for KMZ archives.
    /// - Throws: `KMLError`: malformed XML (with line and column), refused entity declarations, not KML,
    ///   coordinates that are not numbers (with the placemark and its line), corrupt archive, archive without KML,
    ///   limits exceeded, I/O errors.
    public init(url: URL, limits: KMZLimits = .default) throws(KMLError) {
        let source = try KMLSource(url: url, limits: limits)
        try self.init(source: source, limits: limits)
        sourceURL = url
        if source.archive == nil { localIconAccess = .insideFolder(url.deletingLastPathComponent()) }
    }

    /// Reads KML text or KMZ bytes held in memory.
    /// - Parameters:
    ///   - data: KML text (UTF-8 or as declared) or a KMZ archive.
    ///   - limits: Zip-bomb and size limits for KMZ archives.
    /// - Throws: `KMLError`, as `init(url:limits:)`.
    public init(data: Data, limits: KMZLimits = .default) throws(KMLError) {
        try self.init(source: KMLSource(data: data, name: "(data)", limits: limits), limits: limits)
    }

    private init(source: KMLSource, limits: KMZLimits) throws(KMLError) {
        var builder = TreeBuilder()
        do {
            try KMLEventParser.parse(source.stream) { event in
                try builder.handle(event)
                return true
            }
        } catch let error as KMLError {
            throw error
        } catch {
            throw .malformedXML(message: "\(error)", line: 0, column: 0)
        }
        self.init(rootNode: builder.rootDocument())
        localIconAccess = .none
        rootAttributes = builder.rootAttributes
        rootUnmodeledElements = builder.rootUnmodeled
        warnings = source.skippedEntries.map { "ignored archive entry with an unsafe path: \($0)" }
            + builder.decoder.warnings
        if let entry = source.kmlEntry, entry != "doc.kml" { warnings.append("read \(entry) (the archive has no doc.kml)") }
        resources = try source.resources(limits: limits)
    }

    /// Resolves shared styles of the document.
    public var styleResolver: KMLStyleResolver { KMLStyleResolver(document: document) }

    /// The style a placemark is drawn with (shared style through style maps, overridden by its inline style).
    /// - Parameters:
    ///   - placemark: A placemark of this dataset.
    ///   - highlighted: Whether to resolve the highlighted state.
    public func effectiveStyle(for placemark: KMLPlacemark, highlighted: Bool = false) -> KMLStyle? {
        styleResolver.effectiveStyle(for: placemark, highlighted: highlighted)
    }
}

/// One placemark delivered by the streaming reader.
public struct KMLPlacemarkRecord: Sendable {
    /// The placemark.
    public var placemark: KMLPlacemark
    /// Names of the enclosing documents and folders, outermost first (`""` for an unnamed one).
    public var folderPath: [String]
    /// Its effective style, resolved against the shared styles read so far (KML files define them first).
    public var effectiveStyle: KMLStyle?
    /// 0-based position among the file's placemarks.
    public var index: Int
    /// The 1-based line of the file (of the KML inside a KMZ) where the placemark's start tag ends, for messages.
    public var line: Int
}

extension KMLDataset {
    /// Streams the placemarks of a KML or KMZ file in bounded memory: only one placemark (and the shared styles)
    /// is held at a time, so multi-gigabyte files can be read. The document tree API is built on the same parser.
    /// - Parameters:
    ///   - url: A KML or KMZ file.
    ///   - limits: Archive limits.
    ///   - body: Called for each placemark in document order; return `false` to stop early.
    /// - Throws: `KMLError` for unreadable files, or what `body` throws.
    public static func forEachPlacemark(in url: URL, limits: KMZLimits = .default,
                                        _ body: (KMLPlacemarkRecord) throws -> Bool) throws {
        try forEachPlacemark(of: KMLSource(url: url, limits: limits), styles: nil, body)
    }

    /// Streams the placemarks of a KML or KMZ file as `forEachPlacemark(in:limits:_:)` does, resolving their
    /// effective styles against `styles` (all the file's shared styles, from `sharedStyles(in:limits:)`) rather
    /// than against those read so far: exactly the styles the document tree resolves, also for a file that uses a
    /// style before defining it, still in bounded memory.
    /// - Parameters:
    ///   - url: A KML or KMZ file.
    ///   - limits: Archive limits.
    ///   - styles: The shared styles to resolve against.
    ///   - body: Called for each placemark in document order; return `false` to stop early.
    /// - Throws: `KMLError` for unreadable files, or what `body` throws.
    public static func forEachPlacemark(in url: URL, limits: KMZLimits = .default, styles: KMLStyleResolver,
                                        _ body: (KMLPlacemarkRecord) throws -> Bool) throws {
        try forEachPlacemark(of: KMLSource(url: url, limits: limits), styles: styles, body)
    }

    /// Every shared style of a KML or KMZ file (each `Style` and `StyleMap` with an id, in any container), read in
    /// bounded memory: one pass of the streaming reader that keeps only the styles.
    /// - Parameters:
    ///   - url: A KML or KMZ file.
    ///   - limits: Archive limits.
    /// - Throws: `KMLError` for unreadable files.
    public static func sharedStyles(in url: URL, limits: KMZLimits = .default) throws -> KMLStyleResolver {
        var decoder = KMLDecoder()
        var resolver = KMLStyleResolver()
        try KMLEventParser.parse(KMLSource(url: url, limits: limits).stream) { event in
            if case .child(let e, _) = event {
                if e.isKML("Style") { resolver.add(.style(decoder.style(e))) }
                else if e.isKML("StyleMap") { resolver.add(.styleMap(decoder.styleMap(e))) }
            }
            return true
        }
        return resolver
    }

    /// Streams the placemarks of KML text or KMZ bytes held in memory, as `forEachPlacemark(in:limits:_:)`: the
    /// KML of a KMZ is inflated as it is parsed (never whole), so `body` can stop a large document at its first
    /// placemarks, and `limits.maximumKMLBytes` stops it as soon as that many bytes have been inflated.
    /// - Parameters:
    ///   - data: KML text or a KMZ archive.
    ///   - limits: Archive limits.
    ///   - body: Called for each placemark in document order; return `false` to stop early.
    /// - Throws: `KMLError` for unreadable data, or what `body` throws.
    public static func forEachPlacemark(data: Data, limits: KMZLimits = .default,
                                        _ body: (KMLPlacemarkRecord) throws -> Bool) throws {
        try forEachPlacemark(of: KMLSource(data: data, name: "(data)", limits: limits), styles: nil, body)
    }

    /// Streams placemarks, resolving styles against `styles` when given, else against those read so far.
    private static func forEachPlacemark(of source: KMLSource, styles: KMLStyleResolver?,
                                         _ body: (KMLPlacemarkRecord) throws -> Bool) throws {
        try withoutActuallyEscaping(body) { body in
            var decoder = KMLDecoder()
            var resolver = styles ?? KMLStyleResolver()
            var path: [String] = []
            var named: [Bool] = []
            var index = 0
            try KMLEventParser.parse(source.stream) { event in
                switch event {
                case .beginContainer(let e):
                    if e.isKML("kml") && path.isEmpty && named.isEmpty { named.append(true); path.append("") }
                    else { path.append(""); named.append(false) }
                case .endContainer:
                    path.removeLast()
                    named.removeLast()
                case .child(let e, let line):
                    if e.isKML("name"), let last = named.indices.last, !named[last] {
                        path[last] = KMLDecoder.content(e)
                        named[last] = true
                    } else if e.isKML("Style") {
                        if styles == nil { resolver.add(.style(decoder.style(e))) }
                    } else if e.isKML("StyleMap") {
                        if styles == nil { resolver.add(.styleMap(decoder.styleMap(e))) }
                    } else if e.isKML("Placemark") {
                        let p = decoder.placemark(e)
                        if let reason = decoder.coordinateProblem {
                            throw KMLError.unreadableCoordinates(placemark: index, line: line, reason: reason)
                        }
                        let record = KMLPlacemarkRecord(placemark: p, folderPath: Array(path.dropFirst()),
                                                        effectiveStyle: resolver.effectiveStyle(for: p), index: index,
                                                        line: line)
                        index += 1
                        return try body(record)
                    }
                }
                return true
            }
        }
    }
}

/// Builds the document tree from parser events.
struct TreeBuilder {
    enum Box {
        case document(KMLDocument)
        case folder(KMLFolder)

        var feature: KMLFeature {
            switch self {
            case .document(let d): .document(d)
            case .folder(let f): .folder(f)
            }
        }
    }

    var decoder = KMLDecoder()
    var stack: [Box] = []
    var rootFeatures: [KMLFeature] = []
    var rootUnmodeled: [KMLElement] = []
    var rootAttributes: [KMLAttribute] = []
    private var insideKML = false
    /// How many placemarks have been read (the next one's 0-based position, for messages).
    private var placemarks = 0

    /// Adds what an event brings to the tree.
    /// - Throws: `KMLError.unreadableCoordinates` for a placemark whose coordinates cannot be read.
    mutating func handle(_ event: KMLParseEvent) throws(KMLError) {
        add(event)
        guard case .child(let e, let line) = event, e.isKML("Placemark") else { return }
        defer { placemarks += 1 }
        if let reason = decoder.coordinateProblem {
            throw .unreadableCoordinates(placemark: placemarks, line: line, reason: reason)
        }
    }

    private mutating func add(_ event: KMLParseEvent) {
        switch event {
        case .beginContainer(let e):
            if e.isKML("kml") && !insideKML && stack.isEmpty {
                insideKML = true
                rootAttributes = e.attributes
            } else if e.name == "Document" {
                var d = KMLDocument()
                d.id = e.attribute("id")
                stack.append(.document(d))
            } else {
                var f = KMLFolder()
                f.id = e.attribute("id")
                stack.append(.folder(f))
            }
        case .child(let e, _):
            guard var top = stack.popLast() else {
                if e.isKML("Placemark") {
                    rootFeatures.append(.placemark(decoder.placemark(e)))
                } else if KMLDecoder.isUnmodeledFeature(e) {
                    rootFeatures.append(.unmodeled(e))
                } else {
                    rootUnmodeled.append(e)
                }
                return
            }
            // Move the container out of the box before mutating it, so its arrays stay uniquely referenced.
            switch top {
            case .document(var d):
                top = .folder(KMLFolder())
                _ = decoder.applyContainerChild(e, to: &d)
                top = .document(d)
            case .folder(var f):
                top = .folder(KMLFolder())
                _ = decoder.applyContainerChild(e, to: &f)
                top = .folder(f)
            }
            stack.append(top)
        case .endContainer:
            guard var done = stack.popLast() else { return }  // </kml>
            switch done {
            case .document(var d):
                done = .folder(KMLFolder())
                d.unmodeledElements = KMLEncoder.canonicalOrder(d.unmodeledElements, rank: KMLEncoder.featureRank)
                done = .document(d)
            case .folder(var f):
                done = .document(KMLDocument())
                f.unmodeledElements = KMLEncoder.canonicalOrder(f.unmodeledElements, rank: KMLEncoder.featureRank)
                done = .folder(f)
            }
            if var parent = stack.popLast() {
                switch parent {
                case .document(var d):
                    parent = .folder(KMLFolder())
                    d.features.append(done.feature)
                    stack.append(.document(d))
                case .folder(var f):
                    parent = .folder(KMLFolder())
                    f.features.append(done.feature)
                    stack.append(.folder(f))
                }
                _ = parent
            } else {
                rootFeatures.append(done.feature)
            }
        }
    }

    func rootDocument() -> KMLDocument {
        if rootFeatures.count == 1, case .document(let d) = rootFeatures[0] { return d }
        var d = KMLDocument(features: rootFeatures)
        d.isImplicit = true
        return d
    }
}
