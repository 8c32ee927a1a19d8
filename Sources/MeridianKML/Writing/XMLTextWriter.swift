import Foundation
import MeridianCore

/// Builds XML text: escaping, CDATA sections, indentation, and the namespaces the output uses.
struct XMLTextWriter: ~Copyable {
    /// The UTF-8 output so far (not yet drained, for a streaming buffer).
    private(set) var bytes: ByteBuffer
    /// Namespace URI → prefix of every namespace written (the KML default namespace excluded).
    private(set) var namespaces: [String: String]
    /// Whether nothing is written and only the namespaces are learned (the first pass of `KMLEncoder.write`).
    let probing: Bool
    private var depth = 0

    /// A writer into `output` (which may stream, see `flushIfFull()`), with namespaces already given prefixes; a
    /// probing one writes nothing and only registers the namespaces used.
    init(output: consuming ByteBuffer = ByteBuffer(capacity: 64 << 10), namespaces: [String: String] = [:],
         probing: Bool = false) {
        bytes = output
        self.namespaces = namespaces
        self.probing = probing
    }

    /// Ends writing: the output buffer.
    consuming func finish() -> ByteBuffer { bytes }

    /// Lets a streaming output drain once a chunk is waiting (call it between records).
    mutating func flushIfFull() { bytes.flushIfFull() }

    /// The output as a string.
    var string: String { bytes.string }

    mutating func raw(_ s: String) { if !probing { bytes.append(s) } }
    mutating func raw(_ s: StaticString) { if !probing { bytes.append(s) } }

    /// Appends the shortest text that reads back as exactly the same double, without exponent notation (the
    /// bytes of `KMLEncoder.format(_:)`, written without an intermediate string).
    mutating func number(_ v: Double) {
        guard !probing else { return }
        if abs(v) < 1e15, var n = Int64(exactly: v) {  // integers (and -0.0) as integers
            if n == 0 {
                bytes.append(UInt8(ascii: "0"))
                return
            }
            if n < 0 {
                bytes.append(UInt8(ascii: "-"))
                n = -n
            }
            var digits: (UInt64, UInt64) = (0, 0)  // up to 15 digits, least significant first
            var count = 0
            withUnsafeMutableBytes(of: &digits) { d in
                while n > 0 {
                    d[count] = UInt8(ascii: "0") + UInt8(n % 10)
                    n /= 10
                    count += 1
                }
                for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(d[i]) }
            }
            return
        }
        guard v.isFinite else {
            raw(v.description)  // nan, inf, -inf
            return
        }
        let count = ShortestDecimal.write(v, to: bytes.reserve(ShortestDecimal.maximumLength))
        bytes.advance(by: count)
    }

    mutating func newline() {
        guard !probing else { return }
        bytes.append(0x0A)
        bytes.append(repeating: 0x20, count: 2 * depth)
    }

    /// Whether a scalar may appear in XML 1.0 text.
    @inline(__always) static func isXMLChar(_ v: UInt32) -> Bool {
        v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || v >= 0x10000
    }

    /// Appends escaped character data (`&`, `<`, `>`; in attributes also quotes and line breaks). Characters
    /// XML 1.0 cannot carry (most C0 controls) are dropped.
    mutating func escaped(_ s: String, attribute: Bool = false) {
        guard !probing else { return }
        // Fast path: most text (names, ids, URLs) needs no escaping at all. Bytes below 0x20 (controls, tab and
        // line breaks), the markup characters and 0xEF (the lead byte of U+FFFE/U+FFFF) take the general path.
        let plain = s.utf8.withContiguousStorageIfAvailable { buffer in
            !buffer.contains { u in
                u < 0x20 || u == UInt8(ascii: "&") || u == UInt8(ascii: "<") || u == UInt8(ascii: ">")
                    || u == UInt8(ascii: "\"") || u == 0xEF
            }
        }
        if plain == true {
            bytes.append(s)
            return
        }
        var source = s
        if s.utf8.contains(0xEF), s.unicodeScalars.contains(where: { $0.value == 0xFFFE || $0.value == 0xFFFF }) {
            source = String(String.UnicodeScalarView(s.unicodeScalars.filter { Self.isXMLChar($0.value) }))
        }
        for u in source.utf8 {
            switch u {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case UInt8(ascii: "\""): if attribute { raw("&quot;") } else { bytes.append(u) }
            case 0x0A: if attribute { raw("&#10;") } else { bytes.append(u) }
            case 0x0D: raw("&#13;")
            case 0x09: if attribute { raw("&#9;") } else { bytes.append(u) }
            case 0x00...0x08, 0x0B, 0x0C, 0x0E...0x1F: continue
            default: bytes.append(u)
            }
        }
    }

    /// Appends a CDATA section; a `]]>` inside the text is split across two sections.
    mutating func cdata(_ s: String) {
        guard !probing else { return }
        raw("<![CDATA[")
        let clean = s.unicodeScalars.allSatisfy { Self.isXMLChar($0.value) }
            ? s : String(String.UnicodeScalarView(s.unicodeScalars.filter { Self.isXMLChar($0.value) }))
        raw(clean.replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>"))
        raw("]]>")
    }

    /// Appends text, in CDATA when it holds markup (`<` or `&`), escaped otherwise.
    mutating func textOrCDATA(_ s: String) {
        guard !probing else { return }
        if s.utf8.contains(UInt8(ascii: "<")) || s.utf8.contains(UInt8(ascii: "&")) { cdata(s) } else { escaped(s) }
    }

    /// The prefix for a namespace (nil for KML, the default namespace), registering it for declaration.
    mutating func prefix(for namespace: String, hint: String?) -> String? {
        if namespace == KMLNamespace.kml22 { return nil }
        if namespace == KMLNamespace.xml { return "xml" }
        if let p = namespaces[namespace] { return p }
        let taken = Set(namespaces.values)
        var p = KMLNamespace.preferredPrefix(namespace) ?? hint ?? "ns"
        if p.isEmpty || p == "xmlns" || p.lowercased().hasPrefix("xml") || taken.contains(p)
            || (KMLNamespace.preferredPrefix(namespace) == nil && ["gx", "atom", "xal"].contains(p)) {
            var k = 1
            while taken.contains("ns\(k)") { k += 1 }
            p = "ns\(k)"
        }
        namespaces[namespace] = p
        return p
    }

    /// The prefix for an attribute's namespace: attributes never take the default namespace, so a KML-namespace
    /// attribute (`kml:id`) gets the `kml` prefix, declared beside the default.
    mutating func attributePrefix(for namespace: String, hint: String?) -> String? {
        guard namespace == KMLNamespace.kml22 else { return prefix(for: namespace, hint: hint) }
        if let p = namespaces[namespace] { return p }
        let p = Set(namespaces.values).contains("kml") ? "kmlns" : "kml"
        namespaces[namespace] = p
        return p
    }

    /// Registers a namespace as used (e.g. `gx` for `gx:altitudeMode`) and returns its qualified element name.
    mutating func qualified(_ name: String, in namespace: String, hint: String? = nil) -> String {
        prefix(for: namespace, hint: hint).map { "\($0):\(name)" } ?? name
    }

    // MARK: Elements

    /// Opens an element on a new line.
    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        newline()
        startTag(name, attributes)
        depth += 1
    }

    /// Writes `<name k="v"…>` where the output stands.
    private mutating func startTag(_ name: String, _ attributes: [(String, String)]) {
        raw("<")
        raw(name)
        for (k, v) in attributes {
            raw(" ")
            raw(k)
            raw("=\"")
            escaped(v, attribute: true)
            raw("\"")
        }
        raw(">")
    }

    /// Closes an element opened with `open`, on a new line.
    mutating func close(_ name: String) {
        depth -= 1
        newline()
        raw("</")
        raw(name)
        raw(">")
    }

    /// Writes `<name>escaped text</name>` on a new line.
    mutating func leaf(_ name: String, _ text: String, _ attributes: [(String, String)] = []) {
        newline()
        startTag(name, attributes)
        escaped(text)
        raw("</")
        raw(name)
        raw(">")
    }

    /// Writes `<name>text</name>` with the text in CDATA when it holds markup.
    mutating func markupLeaf(_ name: String, _ text: String) {
        newline()
        raw("<")
        raw(name)
        raw(">")
        textOrCDATA(text)
        raw("</")
        raw(name)
        raw(">")
    }

    private mutating func startTag(_ e: KMLElement) -> String {
        let name = qualified(e.name, in: e.namespace, hint: e.prefix)
        raw("<")
        raw(name)
        for a in e.attributes {
            raw(" ")
            if !a.namespace.isEmpty, let p = attributePrefix(for: a.namespace, hint: a.prefix) {
                raw(p)
                raw(":")
            }
            raw(a.name)
            raw("=\"")
            escaped(a.value, attribute: true)
            raw("\"")
        }
        return name
    }

    /// Writes a preserved element on a new line, indenting its children unless it holds text (mixed content is
    /// written exactly, inline).
    mutating func element(_ e: KMLElement) {
        newline()
        let name = startTag(e)
        if e.children.isEmpty {
            raw("/>")
            return
        }
        raw(">")
        let mixed = e.children.contains { if case .element = $0 { false } else { true } }
        if mixed {
            for c in e.children { writeInline(c) }
            raw("</")
            raw(name)
            raw(">")
        } else {
            depth += 1
            for c in e.children { if case .element(let child) = c { element(child) } }
            depth -= 1
            newline()
            raw("</")
            raw(name)
            raw(">")
        }
    }

    /// Writes preserved content exactly, without added whitespace.
    mutating func writeInline(_ content: KMLElement.Content) {
        switch content {
        case .text(let t): escaped(t)
        case .cdata(let t): cdata(t)
        case .element(let e):
            let name = startTag(e)
            if e.children.isEmpty {
                raw("/>")
            } else {
                raw(">")
                for c in e.children { writeInline(c) }
                raw("</")
                raw(name)
                raw(">")
            }
        }
    }
}
