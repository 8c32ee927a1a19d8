import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What the streaming parser reports, in document order. Containers (`kml`, `Document`, `Folder`) are reported
/// as begin/end pairs; every other child of a container arrives complete, as one element tree, so memory stays
/// bounded by the largest single placemark (or style, or unknown element).
enum KMLParseEvent {
    /// A container starts; the element carries its name and attributes only.
    case beginContainer(KMLElement)
    /// A complete direct child of the current container (a `Placemark`, `Style`, `name`, `NetworkLink`, …), with the
    /// 1-based line its start tag ends on.
    case child(KMLElement, line: Int)
    /// The current container ends.
    case endContainer
}

/// A SAX parser (FoundationXML's `XMLParser`) turning KML into `KMLParseEvent`s.
///
/// Safety: external entities are never resolved (`shouldResolveExternalEntities = false`, and the resolver
/// callback answers nothing); documents declaring entities are refused before parsing by `GuardedInputStream`,
/// and any entity declaration the parser would still report aborts it; nesting deeper than `maximumDepth`
/// elements is refused.
final class KMLEventParser: NSObject, XMLParserDelegate {
    /// Receives each event; return `false` to stop parsing early.
    typealias Handler = (KMLParseEvent) throws -> Bool

    private struct Frame {
        var element: KMLElement
        var isContainer: Bool
        /// The line the element's start tag ends on (where the parser reports it).
        var line = 0
        var text = ""
        var hasText = false
        var isSynthetic = false
    }

    /// Root elements accepted: `<kml>`, or a bare feature.
    static let rootNames: Set<String> = ["kml", "Document", "Folder", "Placemark", "NetworkLink", "GroundOverlay",
                                         "ScreenOverlay", "PhotoOverlay"]

    private let handler: Handler
    private let maximumDepth: Int
    private var stack: [Frame] = []
    private var prefixes: [String: [String]] = ["xml": [KMLNamespace.xml]]
    private var failure: Error?
    private var stoppedByHandler = false
    /// Held strongly (the parser holds its delegate weakly, so there is no cycle): a weak reference would give
    /// the parser a side table and slow every retain and release FoundationXML makes of it in each callback.
    private var parser: XMLParser?
    /// The input, stopped when parsing is abandoned so that nothing more is read or parsed.
    private var stream: GuardedInputStream?
    private var sawRoot = false

    /// Deepest element nesting accepted (libxml2's own default limit is 256 without XML_PARSE_HUGE).
    static let defaultMaximumDepth = 256

    private init(handler: @escaping Handler, maximumDepth: Int) {
        self.handler = handler
        self.maximumDepth = maximumDepth
    }

    /// Parses a stream, calling `handler` for each event.
    /// - Parameters:
    ///   - stream: The document bytes.
    ///   - maximumDepth: Deepest nesting accepted.
    ///   - handler: Receives the events; its errors stop parsing and are rethrown.
    /// - Throws: `KMLError` for malformed or refused documents, or what the handler throws.
    static func parse(_ stream: GuardedInputStream, maximumDepth: Int = defaultMaximumDepth,
                      handler: @escaping Handler) throws {
        let delegate = KMLEventParser(handler: handler, maximumDepth: maximumDepth)
        let parser = XMLParser(stream: stream)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        delegate.parser = parser
        delegate.stream = stream
        let ok = parser.parse()
        if let f = stream.failure { throw f }
        if let f = delegate.failure { throw f }
        if delegate.stoppedByHandler { return }
        if !ok || parser.parserError != nil {
            let code = (parser.parserError as NSError?)?.code ?? -1
            throw KMLError.malformedXML(message: Self.message(for: code), line: parser.lineNumber,
                                        column: parser.columnNumber)
        }
        guard delegate.sawRoot else {
            throw KMLError.malformedXML(message: "the document has no root element", line: max(1, parser.lineNumber),
                                        column: max(1, parser.columnNumber))
        }
    }

    private static func message(for code: Int) -> String {
        switch code {
        case 4: "no XML element where the document should start (not a KML file?)"
        case 5: "unexpected end of the document (truncated file?)"
        case 9: "invalid character"
        case 26: "undeclared entity"
        case 27: "unparsed entity reference"
        case 38, 39, 40, 41: "malformed attribute"
        case 64: "unexpected content after the XML declaration"
        case 68: "malformed tag (expected '>' or '/>')"
        case 73: "expected '>' to end the tag"
        case 76: "mismatched end tag"
        case 77: "unclosed tag"
        case 85: "unexpected content after the root element"
        case 89: "entity reference loop"
        case 201, 202, 203: "undeclared namespace prefix"
        default: "XML syntax error (libxml2 code \(code))"
        }
    }

    private func fail(_ error: Error) {
        if failure == nil { failure = error }
        stream?.stop()
        parser?.abortParsing()
    }

    private func emit(_ event: KMLParseEvent) {
        guard failure == nil, !stoppedByHandler else { return }
        do {
            if try !handler(event) {
                stoppedByHandler = true
                stream?.stop()
                parser?.abortParsing()
            }
        } catch {
            fail(error)
        }
    }

    private func flushText(_ frame: inout Frame) {
        guard frame.hasText else { return }
        if !frame.isContainer, frame.text.utf8.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D) }) {
            frame.element.children.append(.text(frame.text))
        }
        frame.text = ""
        frame.hasText = false
    }

    private func split(_ qualified: String?) -> String? {
        guard let q = qualified, let colon = q.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return String(q[..<colon])
    }

    // MARK: XMLParserDelegate

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        prefixes[prefix, default: []].append(namespaceURI)
    }

    func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
        _ = prefixes[prefix]?.popLast()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        guard failure == nil, !stoppedByHandler else { return }
        if stack.count >= maximumDepth {
            fail(KMLError.malformedXML(message: "elements nested deeper than \(maximumDepth) levels",
                                       line: parser.lineNumber, column: parser.columnNumber))
            return
        }
        let namespace = KMLNamespace.canonical(namespaceURI ?? "")
        var attributes: [KMLAttribute] = []
        for key in attributeDict.keys.sorted() {
            let value = attributeDict[key]!
            if let colon = key.firstIndex(of: ":") {
                let p = String(key[..<colon])
                if p == "xmlns" { continue }
                let uri = prefixes[p]?.last ?? ""
                attributes.append(KMLAttribute(namespace: uri.isEmpty ? "" : KMLNamespace.canonical(uri), prefix: p, name: String(key[key.index(after: colon)...]), value: value))
            } else {
                if key == "xmlns" { continue }
                attributes.append(KMLAttribute(name: key, value: value))
            }
        }
        let element = KMLElement(namespace: namespace, prefix: split(qName), name: elementName,
                                 attributes: attributes)
        if let last = stack.indices.last { flushText(&stack[last]) }
        let parentIsContainer = stack.last?.isContainer ?? true
        let isContainer: Bool
        if stack.isEmpty {
            sawRoot = true
            guard namespace == KMLNamespace.kml22, Self.rootNames.contains(elementName) else {
                fail(KMLError.notKML(rootElement: qName ?? elementName))
                return
            }
            if elementName != "kml" {
                // A bare feature as root (no <kml> wrapper): read it as if it were wrapped.
                let kml = KMLElement(name: "kml")
                stack.append(Frame(element: kml, isContainer: true, isSynthetic: true))
                emit(.beginContainer(kml))
                isContainer = elementName == "Document" || elementName == "Folder"
            } else {
                isContainer = true
            }
        } else {
            isContainer = parentIsContainer && namespace == KMLNamespace.kml22
                && (elementName == "Document" || elementName == "Folder")
        }
        stack.append(Frame(element: element, isContainer: isContainer, line: parser.lineNumber))
        if isContainer { emit(.beginContainer(element)) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        guard failure == nil, !stoppedByHandler, var frame = stack.popLast() else { return }
        flushText(&frame)
        if frame.isContainer {
            emit(.endContainer)
        } else if let parent = stack.indices.last {
            if stack[parent].isContainer {
                emit(.child(frame.element, line: frame.line))
            } else {
                stack[parent].element.children.append(.element(frame.element))
            }
        }
        if stack.count == 1, stack[0].isSynthetic {
            stack.removeAll()
            emit(.endContainer)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard let last = stack.indices.last, !stack[last].isContainer else { return }
        stack[last].text += string
        stack[last].hasText = true
    }

    func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) {}

    func parser(_ parser: XMLParser, foundCDATA cdataBlock: Data) {
        guard let last = stack.indices.last, !stack[last].isContainer else { return }
        flushText(&stack[last])
        stack[last].element.children.append(.cdata(String(decoding: cdataBlock, as: UTF8.self)))
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(KMLError.entityDeclarationsRefused(line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?,
                systemID: String?) {
        fail(KMLError.entityDeclarationsRefused(line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }

    /// An attribute default in the DTD (one the prolog guard could not see): refused, as `XMLPrologGuard` refuses
    /// them.
    func parser(_ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
                type: String?, defaultValue: String?) {
        fail(KMLError.attributeListDeclarationsRefused(line: parser.lineNumber))
    }

    /// The parser's first error (or warning) ends the parse: it is reported with its place, and the stream stops,
    /// so that libxml2's recovery mode (which FoundationXML turns on) parses at most the chunk it holds. The
    /// parser is not stopped from inside its error callback: libxml2 may still use its input buffer there.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if failure == nil, !stoppedByHandler {
            failure = KMLError.malformedXML(message: Self.message(for: (parseError as NSError).code),
                                            line: parser.lineNumber, column: parser.columnNumber)
        }
        stream?.stop()
    }
}
