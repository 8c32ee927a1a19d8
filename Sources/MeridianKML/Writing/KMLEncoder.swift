import Foundation
import MeridianCore

/// Writes the model as KML 2.2 text. Modeled fields are written in the order the OGC schema requires; preserved
/// elements are slotted in at their schema position (unknown ones last), so a file read and written back stays
/// valid when it was.
struct KMLEncoder: ~Copyable {
    var w: XMLTextWriter
    /// Icon hrefs to replace while writing (local files packed into a KMZ).
    var hrefs: [String: String]

    /// An encoder writing into `output`, with namespaces already given prefixes; a probing one writes nothing and
    /// only learns the namespaces (the first pass of `write(_:hrefs:to:)`).
    init(hrefs: [String: String] = [:], output: consuming ByteBuffer, namespaces: [String: String] = [:],
         probing: Bool = false) {
        w = XMLTextWriter(output: output, namespaces: namespaces, probing: probing)
        self.hrefs = hrefs
    }

    // MARK: Numbers

    /// The shortest text that reads back as exactly the same double, without exponent notation (`ShortestDecimal`;
    /// integers below 10^15 as integers, non-finite values as Swift spells them).
    static func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return v.isFinite ? ShortestDecimal.string(v) : v.description
    }

    static func format(_ b: Bool) -> String { b ? "1" : "0" }

    mutating func coordinates(_ cs: [Coordinate]) {
        guard !w.probing else { return }
        w.newline()
        w.raw("<coordinates>")
        for (i, c) in cs.enumerated() {
            if i > 0 {
                w.raw(" ")
                if i & 4095 == 0 { w.flushIfFull() }  // a long ring is not held whole either
            }
            w.number(c.x)
            w.raw(",")
            w.number(c.y)
            if let z = c.z {
                w.raw(",")
                w.number(z)
            }
        }
        w.raw("</coordinates>")
    }

    // MARK: Preserved elements in schema order

    /// Preserved elements sorted by schema rank, written as modeled fields reach each rank.
    struct Slots {
        var items: [(rank: Int, element: KMLElement)]
        var next = 0

        init(_ elements: [KMLElement], rank: (KMLElement) -> Int) {
            items = elements.enumerated().map { (rank($0.element), $0.offset, $0.element) }
                .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { ($0.0, $0.2) }
        }

        /// Writes every preserved element ranked before `rank`.
        mutating func flush(before rank: Int, _ w: inout XMLTextWriter) {
            while next < items.count, items[next].rank < rank {
                w.element(items[next].element)
                next += 1
            }
        }
    }

    static let unknownRank = 1000

    /// Preserved elements in the order the writer emits them (stable by schema rank), so that a model read from
    /// a file equals the model read back from what Meridian wrote.
    static func canonicalOrder(_ elements: [KMLElement], rank: (KMLElement) -> Int) -> [KMLElement] {
        guard elements.count > 1 else { return elements }
        return elements.enumerated().map { (rank($0.element), $0.offset, $0.element) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { $0.2 }
    }

    static func featureRank(_ e: KMLElement) -> Int {
        switch e.namespace {
        case KMLNamespace.kml22:
            switch e.name {
            case "name": 0
            case "visibility": 1
            case "open": 2
            case "address": 5
            case "phoneNumber": 7
            case "Snippet", "snippet": 8
            case "description": 9
            case "Camera", "LookAt": 10
            case "TimeStamp", "TimeSpan": 11
            case "styleUrl": 12
            case "Style", "StyleMap": 13
            case "Region": 14
            case "Metadata", "ExtendedData": 15
            case "Schema": 20
            default: unknownRank
            }
        case KMLNamespace.atom: e.name == "author" ? 3 : e.name == "link" ? 4 : unknownRank
        case KMLNamespace.xal: e.name == "AddressDetails" ? 6 : unknownRank
        case KMLNamespace.gx:
            switch e.name {
            case "TimeStamp", "TimeSpan": 11
            case "balloonVisibility", "rank": 16
            default: unknownRank
            }
        default: unknownRank
        }
    }

    static func geometryRank(_ e: KMLElement) -> Int {
        switch (e.namespace, e.name) {
        case (KMLNamespace.gx, "altitudeOffset"), (KMLNamespace.gx, "drawOrder"): 0
        case (KMLNamespace.kml22, "extrude"): 1
        case (KMLNamespace.kml22, "tessellate"): 2
        case (KMLNamespace.kml22, "altitudeMode"), (KMLNamespace.gx, "altitudeMode"): 3
        case (KMLNamespace.kml22, "coordinates"), (KMLNamespace.kml22, "outerBoundaryIs"): 4
        case (KMLNamespace.kml22, "innerBoundaryIs"): 5
        default: unknownRank
        }
    }

    static func colorStyleRank(_ e: KMLElement) -> Int {
        switch (e.namespace, e.name) {
        case (KMLNamespace.kml22, "color"), (KMLNamespace.kml22, "bgColor"): 1
        case (KMLNamespace.kml22, "colorMode"): 2
        case (KMLNamespace.gx, "labelVisibility"): 3
        case (KMLNamespace.kml22, "scale"), (KMLNamespace.kml22, "width"), (KMLNamespace.kml22, "fill"): 4
        case (KMLNamespace.kml22, "heading"), (KMLNamespace.kml22, "outline"), (KMLNamespace.kml22, "textColor"): 5
        case (KMLNamespace.kml22, "Icon"), (KMLNamespace.kml22, "text"): 6
        case (KMLNamespace.kml22, "hotSpot"), (KMLNamespace.kml22, "displayMode"): 7
        case (KMLNamespace.gx, _): 10
        default: unknownRank
        }
    }

    static func styleRank(_ e: KMLElement) -> Int {
        guard e.namespace == KMLNamespace.kml22 else { return unknownRank }
        switch e.name {
        case "IconStyle": return 1
        case "LabelStyle": return 2
        case "LineStyle": return 3
        case "PolyStyle": return 4
        case "BalloonStyle": return 5
        case "ListStyle": return 6
        default: return unknownRank
        }
    }

    static func linkRank(_ e: KMLElement) -> Int {
        switch (e.namespace, e.name) {
        case (KMLNamespace.kml22, "href"): 1
        case (KMLNamespace.gx, _): 2
        case (KMLNamespace.kml22, "refreshMode"): 3
        case (KMLNamespace.kml22, "refreshInterval"): 4
        case (KMLNamespace.kml22, "viewRefreshMode"): 5
        case (KMLNamespace.kml22, "viewRefreshTime"): 6
        case (KMLNamespace.kml22, "viewBoundScale"): 7
        case (KMLNamespace.kml22, "viewFormat"): 8
        case (KMLNamespace.kml22, "httpQuery"): 9
        default: unknownRank
        }
    }

    // MARK: Document

    /// Writes a whole file into `out`: the XML declaration, `<kml>` with the namespaces used, the content. A
    /// streaming buffer drains between features (and within long coordinate lists), so memory stays at about one
    /// chunk whatever the document's size.
    ///
    /// `<kml>` declares the namespaces the content uses, known only once the content has been seen: a first pass
    /// goes through the content writing nothing, only to learn them (the same code in the same order, so the
    /// prefixes are those the second pass writes); the second pass writes the file.
    /// - Parameters:
    ///   - dataset: The document.
    ///   - hrefs: Icon hrefs to replace (local files packed into a KMZ).
    ///   - out: The output.
    static func write(_ dataset: KMLDataset, hrefs: [String: String] = [:], to out: inout ByteBuffer) {
        write(dataset, hrefs: hrefs, to: &out) { _ in }
    }

    /// Writes a whole file as `write(_:hrefs:to:)` does, with more placemarks streamed after the document's own
    /// features (see there).
    /// - Parameters:
    ///   - dataset: The document.
    ///   - hrefs: Icon hrefs to replace (local files packed into a KMZ).
    ///   - out: The output.
    ///   - streaming: Writes more placemarks after the document's own features, one at a time, through the
    ///     function it is given (`KMLDataset.save(to:overwrite:placemarks:)`); the probing pass does not see them.
    static func write(
        _ dataset: KMLDataset, hrefs: [String: String] = [:], to out: inout ByteBuffer,
        streaming: ((KMLPlacemark) throws(KMLError) -> Void) throws -> Void
    ) rethrows {
        var probe = KMLEncoder(output: ByteBuffer(capacity: 16), probing: true)
        probe.content(dataset) { _ in }
        var header = XMLTextWriter(output: ByteBuffer(capacity: 1024))
        header.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"")
        header.raw(KMLNamespace.kml22)
        header.raw("\"")
        let used = probe.w.namespaces
        for (uri, prefix) in used.sorted(by: { $0.value < $1.value }) where prefix != "xml" {
            header.raw(" xmlns:\(prefix)=\"")
            header.escaped(uri, attribute: true)
            header.raw("\"")
        }
        for a in dataset.rootAttributes {
            header.raw(" ")
            if !a.namespace.isEmpty, let p = probe.w.attributePrefix(for: a.namespace, hint: a.prefix) {
                header.raw("\(p):")
            }
            header.raw(a.name)
            header.raw("=\"")
            header.escaped(a.value, attribute: true)
            header.raw("\"")
        }
        // Attributes of the root may have introduced namespaces: declare them too (by prefix, for a stable order).
        for (uri, prefix) in probe.w.namespaces.sorted(by: { $0.value < $1.value })
        where used[uri] == nil && prefix != "xml" {
            header.raw(" xmlns:\(prefix)=\"")
            header.escaped(uri, attribute: true)
            header.raw("\"")
        }
        header.raw(">")
        header.bytes.withBytes { out.append($0) }
        var encoder = KMLEncoder(hrefs: hrefs, output: out, namespaces: probe.w.namespaces)
        do {
            try encoder.content(dataset) { e in try streaming { p throws(KMLError) in try e.streamed(p) } }
        } catch {
            out = encoder.finish()
            throw error
        }
        out = encoder.finish()
        out.append("\n</kml>\n" as StaticString)
        out.flushIfFull()
    }

    /// Ends writing: the output buffer.
    consuming func finish() -> ByteBuffer { w.finish() }

    /// Writes what the `<kml>` element holds: preserved root elements, then the document (or, for an implicit
    /// one, its features), `more` placemarks after the document's own features.
    private mutating func content(_ dataset: KMLDataset, more: (inout KMLEncoder) throws -> Void) rethrows {
        for e in dataset.rootUnmodeledElements {
            w.element(e)
            w.flushIfFull()
        }
        if dataset.document.isImplicit {
            for f in dataset.document.features { feature(f) }
            try more(&self)
        } else {
            try container(dataset.document, tag: "Document", more: more)
        }
    }

    /// A placemark streamed after the document's content (`write(_:hrefs:to:streaming:)`), refused when it uses a
    /// namespace the `<kml>` element, already written, does not declare.
    mutating func streamed(_ p: KMLPlacemark) throws(KMLError) {
        let declared = w.namespaces.count
        placemark(p)
        guard w.namespaces.count == declared else {
            throw .invalidGeometry("a placemark written after the document's start uses a namespace the document does not declare")
        }
        w.flushIfFull()
    }

    mutating func feature(_ f: KMLFeature) {
        switch f {
        case .placemark(let p): placemark(p)
        case .folder(let c): container(c, tag: "Folder")
        case .document(let c): container(c, tag: "Document")
        case .unmodeled(let e): w.element(e)
        }
        w.flushIfFull()
    }

    private mutating func commonFields<N: KMLNode>(_ n: N, _ slots: inout Slots, styles: (inout KMLEncoder) -> Void) {
        slots.flush(before: 0, &w)
        if let v = n.name { w.leaf("name", v) }
        slots.flush(before: 1, &w)
        if let v = n.isVisible { w.leaf("visibility", Self.format(v)) }
        slots.flush(before: 2, &w)
        if let v = n.isOpen { w.leaf("open", Self.format(v)) }
        slots.flush(before: 8, &w)
        if let v = n.snippet { w.leaf("Snippet", v) }
        slots.flush(before: 9, &w)
        if let v = n.nodeDescription { w.markupLeaf("description", v) }
        slots.flush(before: 12, &w)
        if let v = n.styleUrl { w.leaf("styleUrl", v) }
        slots.flush(before: 13, &w)
        styles(&self)
        slots.flush(before: 15, &w)
        if let x = n.extendedData { extendedData(x) }
        slots.flush(before: 17, &w)
    }

    private static func idAttribute(_ id: String?) -> [(String, String)] { id.map { [("id", $0)] } ?? [] }

    mutating func placemark(_ p: KMLPlacemark) {
        w.open("Placemark", Self.idAttribute(p.id))
        var slots = Slots(p.unmodeledElements, rank: Self.featureRank)
        commonFields(p, &slots) { e in
            if let s = p.style { e.style(s) }
            if let m = p.styleMap { e.styleMap(m) }
        }
        if let g = p.geometry { geometry(g) }
        slots.flush(before: Int.max, &w)
        w.close("Placemark")
    }

    mutating func container<C: KMLContainer>(_ c: C, tag: String) { container(c, tag: tag) { _ in } }

    /// Writes a container, `more` placemarks after its own features (the streamed ones, for the root document).
    mutating func container<C: KMLContainer>(_ c: C, tag: String, more: (inout KMLEncoder) throws -> Void) rethrows {
        w.open(tag, Self.idAttribute(c.id))
        var slots = Slots(c.unmodeledElements, rank: Self.featureRank)
        commonFields(c, &slots) { e in
            for s in c.styles { e.styleSelector(s) }
        }
        slots.flush(before: 21, &w)
        for f in c.features { feature(f) }
        try more(&self)
        slots.flush(before: Int.max, &w)
        w.close(tag)
    }

    // MARK: Geometry

    mutating func geometry(_ g: KMLGeometry) {
        let tag: String
        switch g.shape {
        case .unmodeled(let e):
            w.element(e)
            return
        case .point: tag = "Point"
        case .lineString: tag = "LineString"
        case .linearRing: tag = "LinearRing"
        case .polygon: tag = "Polygon"
        case .multiGeometry: tag = "MultiGeometry"
        }
        w.open(tag, Self.idAttribute(g.id))
        var slots = Slots(g.unmodeledElements, rank: Self.geometryRank)
        slots.flush(before: 1, &w)
        if case .multiGeometry(let members) = g.shape {
            for m in members { geometry(m) }
            slots.flush(before: Int.max, &w)
            w.close(tag)
            return
        }
        if let v = g.isExtruded { w.leaf("extrude", Self.format(v)) }
        slots.flush(before: 2, &w)
        if let v = g.isTessellated, tag != "Point" { w.leaf("tessellate", Self.format(v)) }
        slots.flush(before: 3, &w)
        if let m = g.altitudeMode {
            if m.isGoogleExtension {
                w.leaf(w.qualified("altitudeMode", in: KMLNamespace.gx), m.rawValue)
            } else {
                w.leaf("altitudeMode", m.rawValue)
            }
        }
        slots.flush(before: 4, &w)
        switch g.shape {
        case .point(let c): coordinates([c])
        case .lineString(let cs), .linearRing(let cs): coordinates(cs)
        case .polygon(let outer, let inner):
            w.open("outerBoundaryIs")
            w.open("LinearRing")
            coordinates(outer)
            w.close("LinearRing")
            w.close("outerBoundaryIs")
            slots.flush(before: 5, &w)
            for r in inner {
                w.open("innerBoundaryIs")
                w.open("LinearRing")
                coordinates(r)
                w.close("LinearRing")
                w.close("innerBoundaryIs")
            }
        case .multiGeometry, .unmodeled: break
        }
        slots.flush(before: Int.max, &w)
        w.close(tag)
    }

    // MARK: Styles

    mutating func styleSelector(_ s: KMLStyleSelector) {
        switch s {
        case .style(let st): style(st)
        case .styleMap(let m): styleMap(m)
        }
    }

    mutating func style(_ s: KMLStyle) {
        w.open("Style", Self.idAttribute(s.id))
        var slots = Slots(s.unmodeledElements, rank: Self.styleRank)
        slots.flush(before: 1, &w)
        if let i = s.iconStyle { iconStyle(i) }
        slots.flush(before: 2, &w)
        if let l = s.labelStyle {
            colorStyle("LabelStyle", id: l.id, color: l.color, mode: l.colorMode, l.unmodeledElements) { e, slots in
                if let v = l.scale { e.w.leaf("scale", Self.format(v)) }
                _ = slots
            }
        }
        slots.flush(before: 3, &w)
        if let l = s.lineStyle {
            colorStyle("LineStyle", id: l.id, color: l.color, mode: l.colorMode, l.unmodeledElements) { e, _ in
                if let v = l.width { e.w.leaf("width", Self.format(v)) }
            }
        }
        slots.flush(before: 4, &w)
        if let p = s.polygonStyle {
            colorStyle("PolyStyle", id: p.id, color: p.fillColor, mode: p.colorMode, p.unmodeledElements) { e, slots in
                if let v = p.isFilled { e.w.leaf("fill", Self.format(v)) }
                slots.flush(before: 5, &e.w)
                if let v = p.isOutlined { e.w.leaf("outline", Self.format(v)) }
            }
        }
        slots.flush(before: 5, &w)
        if let b = s.balloonStyle { balloonStyle(b) }
        slots.flush(before: Int.max, &w)
        w.close("Style")
    }

    private mutating func colorStyle(_ tag: String, id: String?, color: KMLColor?, mode: KMLColorMode?,
                                     _ unmodeled: [KMLElement], body: (inout KMLEncoder, inout Slots) -> Void) {
        w.open(tag, Self.idAttribute(id))
        var slots = Slots(unmodeled, rank: Self.colorStyleRank)
        slots.flush(before: 1, &w)
        if let c = color { w.leaf("color", c.kmlString) }
        slots.flush(before: 2, &w)
        if let m = mode { w.leaf("colorMode", m.rawValue) }
        slots.flush(before: 4, &w)
        body(&self, &slots)
        slots.flush(before: Int.max, &w)
        w.close(tag)
    }

    private mutating func iconStyle(_ i: KMLIconStyle) {
        colorStyle("IconStyle", id: i.id, color: i.color, mode: i.colorMode, i.unmodeledElements) { e, slots in
            if let v = i.scale { e.w.leaf("scale", Self.format(v)) }
            slots.flush(before: 5, &e.w)
            if let v = i.heading { e.w.leaf("heading", Self.format(v)) }
            slots.flush(before: 6, &e.w)
            if let icon = i.icon {
                e.w.open("Icon")
                var iconSlots = Slots(icon.unmodeledElements, rank: Self.linkRank)
                if let h = icon.href { e.w.leaf("href", e.hrefs[h] ?? h) }
                iconSlots.flush(before: Int.max, &e.w)
                e.w.close("Icon")
            }
            slots.flush(before: 7, &e.w)
            if let h = i.hotSpot {
                e.w.newline()
                e.w.raw("<hotSpot x=\"\(Self.format(h.x))\" y=\"\(Self.format(h.y))\" xunits=\"\(h.xUnits.rawValue)\" yunits=\"\(h.yUnits.rawValue)\"/>")
            }
        }
    }

    private mutating func balloonStyle(_ b: KMLBalloonStyle) {
        w.open("BalloonStyle", Self.idAttribute(b.id))
        var slots = Slots(b.unmodeledElements, rank: Self.colorStyleRank)
        slots.flush(before: 1, &w)
        if let c = b.backgroundColor { w.leaf("bgColor", c.kmlString) }
        slots.flush(before: 5, &w)
        if let c = b.textColor { w.leaf("textColor", c.kmlString) }
        slots.flush(before: 6, &w)
        if let t = b.text { w.markupLeaf("text", t) }
        slots.flush(before: 7, &w)
        if let d = b.displayMode { w.leaf("displayMode", d) }
        slots.flush(before: Int.max, &w)
        w.close("BalloonStyle")
    }

    mutating func styleMap(_ m: KMLStyleMap) {
        w.open("StyleMap", Self.idAttribute(m.id))
        for p in m.pairs {
            w.open("Pair")
            w.leaf("key", p.key)
            if let u = p.styleUrl { w.leaf("styleUrl", u) }
            if let s = p.style { style(s) }
            w.close("Pair")
        }
        for e in m.unmodeledElements { w.element(e) }
        w.close("StyleMap")
    }

    // MARK: ExtendedData

    mutating func extendedData(_ x: KMLExtendedData) {
        w.open("ExtendedData")
        for d in x.data {
            w.open("Data", [("name", d.name)])
            if let n = d.displayName { w.markupLeaf("displayName", n) }
            w.markupLeaf("value", d.value)
            w.close("Data")
        }
        for s in x.schemaData {
            w.open("SchemaData", s.schemaUrl.map { [("schemaUrl", $0)] } ?? [])
            for f in s.fields {
                w.newline()
                w.raw("<SimpleData name=\"")
                w.escaped(f.name, attribute: true)
                w.raw("\">")
                w.textOrCDATA(f.value)
                w.raw("</SimpleData>")
            }
            for e in s.unmodeledElements { w.element(e) }
            w.close("SchemaData")
        }
        for e in x.unmodeledElements { w.element(e) }
        w.close("ExtendedData")
    }
}
