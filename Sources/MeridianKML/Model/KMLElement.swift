/// XML namespaces KML documents use.
public enum KMLNamespace {
    /// OGC KML 2.2, the namespace Meridian writes.
    public static let kml22 = "http://www.opengis.net/kml/2.2"
    /// Google's extensions (`gx:`).
    public static let gx = "http://www.google.com/kml/ext/2.2"
    /// Atom (`atom:author`, `atom:link`).
    public static let atom = "http://www.w3.org/2005/Atom"
    /// OASIS xAL addresses (`xal:AddressDetails`).
    public static let xal = "urn:oasis:names:tc:ciq:xsdschema:xAL:2.0"
    /// The built-in `xml:` prefix.
    public static let xml = "http://www.w3.org/XML/1998/namespace"
    /// Older KML namespaces read as KML 2.2 (Google's 2.0, 2.1 and 2.2 before OGC adoption).
    public static let legacyKML: Set<String> = [
        "http://earth.google.com/kml/2.0", "http://earth.google.com/kml/2.1", "http://earth.google.com/kml/2.2",
        "http://www.opengis.net/kml/2.1", "",
    ]

    /// The namespace as Meridian stores it: every KML namespace (and no namespace) becomes `kml22`.
    /// - Parameter uri: A namespace URI as read.
    public static func canonical(_ uri: String) -> String { legacyKML.contains(uri) ? kml22 : uri }

    /// The prefix Meridian writes for a well-known namespace, `nil` for KML itself (the default namespace).
    /// - Parameter uri: A canonical namespace URI.
    public static func preferredPrefix(_ uri: String) -> String? {
        switch uri {
        case kml22: nil
        case gx: "gx"
        case atom: "atom"
        case xal: "xal"
        case xml: "xml"
        default: nil
        }
    }
}

/// An attribute of a preserved XML element.
public struct KMLAttribute: Sendable, Hashable {
    /// The attribute's namespace URI ("" for an unprefixed attribute).
    public var namespace: String
    /// The prefix the attribute was written with, if any (a hint for writing).
    public var prefix: String?
    /// The local name.
    public var name: String
    /// The value, unescaped.
    public var value: String

    /// Creates an attribute.
    /// - Parameters:
    ///   - namespace: Namespace URI, "" for none.
    ///   - prefix: Preferred prefix.
    ///   - name: Local name.
    ///   - value: Unescaped value.
    public init(namespace: String = "", prefix: String? = nil, name: String, value: String) {
        self.namespace = namespace
        self.prefix = prefix
        self.name = name
        self.value = value
    }
}

/// An XML element kept as it was read: what Meridian does not model (gx: elements, other namespaces, unknown
/// elements, NetworkLinks, overlays, LookAt, TimeSpan, Schema, …) travels through read → write → read as one of these.
///
/// KML elements of the 2.0/2.1 namespaces are stored in the KML 2.2 namespace (see `KMLNamespace.canonical`).
public struct KMLElement: Sendable, Hashable {
    /// A node of an element's content.
    public enum Content: Sendable, Hashable {
        /// A child element.
        case element(KMLElement)
        /// Character data (unescaped).
        case text(String)
        /// A CDATA section's content.
        case cdata(String)
    }

    /// The element's namespace URI (canonical).
    public var namespace: String
    /// The prefix it was written with, if any (a hint for writing).
    public var prefix: String?
    /// The local name, e.g. `Track` for `gx:Track`.
    public var name: String
    /// Attributes in the order written (namespace declarations excluded).
    public var attributes: [KMLAttribute]
    /// Child elements, text and CDATA, in document order (whitespace-only text between elements is dropped).
    public var children: [Content]

    /// Creates an element.
    /// - Parameters:
    ///   - namespace: Namespace URI (default KML 2.2).
    ///   - prefix: Preferred prefix.
    ///   - name: Local name.
    ///   - attributes: Attributes.
    ///   - children: Content.
    public init(namespace: String = KMLNamespace.kml22, prefix: String? = nil, name: String,
                attributes: [KMLAttribute] = [], children: [Content] = []) {
        self.namespace = namespace
        self.prefix = prefix
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The name with its preferred prefix, e.g. `gx:Track`.
    public var qualifiedName: String {
        let p = KMLNamespace.preferredPrefix(namespace) ?? (namespace == KMLNamespace.kml22 ? nil : prefix)
        return p.map { "\($0):\(name)" } ?? name
    }

    /// Whether this is the KML element `name`.
    /// - Parameter name: A local name in the KML namespace.
    public func isKML(_ name: String) -> Bool { self.name == name && namespace == KMLNamespace.kml22 }

    /// The child elements.
    public var elements: [KMLElement] {
        children.compactMap { if case .element(let e) = $0 { e } else { nil } }
    }

    /// The first child element in the KML namespace with a local name.
    /// - Parameter name: Local name.
    public func child(_ name: String) -> KMLElement? {
        for case .element(let e) in children where e.isKML(name) { return e }
        return nil
    }

    /// The concatenated text and CDATA content, trimmed of surrounding whitespace (child elements' text included).
    public var text: String {
        var s = ""
        appendText(to: &s)
        return s.trimmingXMLWhitespace()
    }

    private func appendText(to s: inout String) {
        for c in children {
            switch c {
            case .text(let t), .cdata(let t): s += t
            case .element(let e): e.appendText(to: &s)
            }
        }
    }

    /// The value of an attribute without namespace.
    /// - Parameter name: Local name.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name && $0.namespace.isEmpty }?.value
    }

    /// Whether any element in this subtree (itself included) is in a namespace.
    /// - Parameter namespace: Namespace URI.
    public func uses(namespace: String) -> Bool {
        if self.namespace == namespace || attributes.contains(where: { $0.namespace == namespace }) { return true }
        return elements.contains { $0.uses(namespace: namespace) }
    }

    /// Visits every element of the subtree (itself first).
    /// - Parameter body: Called for each element.
    public func forEachElement(_ body: (KMLElement) -> Void) {
        body(self)
        for e in elements { e.forEachElement(body) }
    }
}

extension String {
    /// The string without leading and trailing XML whitespace (space, tab, CR, LF).
    func trimmingXMLWhitespace() -> String {
        // Fast path on the UTF-8 bytes, unless trimmed whitespace borders a non-ASCII scalar (a combining mark
        // after a space, or a prepended mark before one, would form one character with it).
        let fast = utf8.withContiguousStorageIfAvailable { b -> String? in
            let isSpace = { (u: UInt8) in u == 0x20 || u == 0x0A || u == 0x09 || u == 0x0D }
            guard let first = b.firstIndex(where: { !isSpace($0) }) else { return "" }
            let last = b.lastIndex(where: { !isSpace($0) })!
            if first == 0 && last == b.count - 1 { return self }
            if (first > 0 && b[first] >= 0x80) || (last < b.count - 1 && b[last] >= 0x80) { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: b[first...last]), as: UTF8.self)
        }
        if case .some(.some(let trimmed)) = fast { return trimmed }
        let ws: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" }
        guard let start = firstIndex(where: { !ws($0) }) else { return "" }
        let end = lastIndex(where: { !ws($0) })!
        return String(self[start...end])
    }
}
