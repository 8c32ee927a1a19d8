import Foundation
import MeridianCore

/// Turns element trees from `KMLEventParser` into the model, collecting warnings for what it tolerates
/// (unparseable colors, elements it does not model) instead of failing the whole document. Coordinates it cannot
/// read are not tolerated: a geometry kept as XML would be drawn nowhere and converted to nothing, so the first one
/// is noted in `coordinateProblem`, which the readers turn into an error naming the placemark and its line.
struct KMLDecoder {
    /// Things tolerated while decoding, in document order.
    var warnings: [String] = []
    /// Why the first `<coordinates>` that could not be read since the reader last looked was refused, e.g.
    /// "'nan' is not a finite number in the coordinates of a Point"; `nil` when every one was read.
    var coordinateProblem: String?

    /// KML local names of features Meridian keeps as XML.
    static let unmodeledFeatureNames: Set<String> = ["NetworkLink", "GroundOverlay", "ScreenOverlay", "PhotoOverlay"]

    /// Whether an element is a feature that a container lists among its children.
    static func isUnmodeledFeature(_ e: KMLElement) -> Bool {
        (e.namespace == KMLNamespace.kml22 && unmodeledFeatureNames.contains(e.name))
            || (e.namespace == KMLNamespace.gx && e.name == "Tour")
    }

    // MARK: Scalars

    static func bool(_ e: KMLElement) -> Bool? {
        switch e.text.lowercased() {
        case "1", "true": true
        case "0", "false": false
        default: nil
        }
    }

    static func double(_ e: KMLElement) -> Double? {
        guard let d = Double(e.text), d.isFinite else { return nil }
        return d
    }

    /// The content of an element as a string: its text, or for mixed content (XHTML written without CDATA, as in
    /// some descriptions) the inner XML.
    static func content(_ e: KMLElement) -> String {
        guard e.children.contains(where: { if case .element = $0 { true } else { false } }) else { return e.text }
        var w = XMLTextWriter()
        for c in e.children { w.writeInline(c) }
        return w.string.trimmingXMLWhitespace()
    }

    // MARK: Features

    /// Applies a child element that every feature has (name, visibility, …); `false` when it is not one.
    mutating func applyCommon<N: KMLNode>(_ c: KMLElement, to node: inout N) -> Bool {
        guard c.namespace == KMLNamespace.kml22 else { return false }
        switch c.name {
        case "name": node.name = Self.content(c)
        case "visibility":
            guard let b = Self.bool(c) else { return false }
            node.isVisible = b
        case "open":
            guard let b = Self.bool(c) else { return false }
            node.isOpen = b
        case "Snippet", "snippet":
            guard c.attributes.isEmpty, node.snippet == nil else { return false }
            node.snippet = Self.content(c)
        case "description": node.nodeDescription = Self.content(c)
        case "styleUrl": node.styleUrl = c.text
        case "ExtendedData":
            guard node.extendedData == nil else { return false }
            node.extendedData = extendedData(c)
        default: return false
        }
        return true
    }

    /// Decodes a `<Placemark>`.
    mutating func placemark(_ e: KMLElement) -> KMLPlacemark {
        var p = KMLPlacemark(geometry: nil)
        p.id = e.attribute("id")
        for c in e.elements {
            if applyCommon(c, to: &p) { continue }
            if c.isKML("Style"), p.style == nil {
                p.style = style(c)
            } else if c.isKML("StyleMap"), p.styleMap == nil {
                p.styleMap = styleMap(c)
            } else if p.geometry == nil, let g = geometry(c) {
                p.geometry = g
            } else {
                p.unmodeledElements.append(c)
            }
        }
        if e.attributes.contains(where: { $0.name != "id" || !$0.namespace.isEmpty }) {
            warnings.append("Placemark attributes other than id are not kept")
        }
        p.unmodeledElements = KMLEncoder.canonicalOrder(p.unmodeledElements, rank: KMLEncoder.featureRank)
        return p
    }

    /// Decodes a container's header child: returns `true` when consumed.
    mutating func applyContainerChild<C: KMLContainer>(_ c: KMLElement, to container: inout C) -> Bool {
        if applyCommon(c, to: &container) { return true }
        if c.isKML("Style") { container.styles.append(.style(style(c))); return true }
        if c.isKML("StyleMap") { container.styles.append(.styleMap(styleMap(c))); return true }
        if c.isKML("Placemark") { container.features.append(.placemark(placemark(c))); return true }
        if Self.isUnmodeledFeature(c) { container.features.append(.unmodeled(c)); return true }
        container.unmodeledElements.append(c)
        return true
    }

    // MARK: Geometry

    /// Decodes a geometry element, or `nil` when the element is not a KML geometry.
    mutating func geometry(_ e: KMLElement) -> KMLGeometry? {
        let isGX = e.namespace == KMLNamespace.gx
        guard e.namespace == KMLNamespace.kml22 || isGX else { return nil }
        if isGX {
            guard e.name == "Track" || e.name == "MultiTrack" else { return nil }
            return KMLGeometry(shape: .unmodeled(e))
        }
        var g = KMLGeometry(shape: .multiGeometry([]))
        g.id = e.attribute("id")
        var coordinates: [Coordinate]?
        var outer: [Coordinate]?
        var inner: [[Coordinate]] = []
        var members: [KMLGeometry] = []
        var ok = true
        func ring(_ boundary: KMLElement) -> [Coordinate]? {
            guard let r = boundary.child("LinearRing"), let c = r.child("coordinates") else { return nil }
            return positions(of: c, in: e.name)
        }
        switch e.name {
        case "Point", "LineString", "LinearRing", "Polygon", "MultiGeometry": break
        case "Model": return KMLGeometry(shape: .unmodeled(e))
        default: return nil
        }
        for c in e.elements {
            if c.isKML("extrude"), let b = Self.bool(c) {
                g.isExtruded = b
            } else if c.isKML("tessellate"), let b = Self.bool(c) {
                g.isTessellated = b
            } else if c.name == "altitudeMode", c.namespace == KMLNamespace.kml22 || c.namespace == KMLNamespace.gx,
                      let m = KMLAltitudeMode(rawValue: c.text), m.isGoogleExtension == (c.namespace == KMLNamespace.gx) {
                g.altitudeMode = m
            } else if c.isKML("coordinates"), e.name != "Polygon", e.name != "MultiGeometry", coordinates == nil {
                guard let cs = positions(of: c, in: e.name) else { ok = false; break }
                coordinates = cs
            } else if c.isKML("outerBoundaryIs"), e.name == "Polygon", outer == nil {
                guard let r = ring(c) else { ok = false; break }
                outer = r
                if c.elements.count != 1 || c.elements[0].elements.count != 1 { warnings.append("Polygon boundary details beyond coordinates are not kept") }
            } else if c.isKML("innerBoundaryIs"), e.name == "Polygon" {
                for r in c.elements where r.isKML("LinearRing") {
                    guard let cc = r.child("coordinates"), let cs = positions(of: cc, in: e.name) else { ok = false; break }
                    inner.append(cs)
                }
            } else if e.name == "MultiGeometry", let m = geometry(c) {
                members.append(m)
            } else {
                g.unmodeledElements.append(c)
            }
        }
        g.unmodeledElements = KMLEncoder.canonicalOrder(g.unmodeledElements, rank: KMLEncoder.geometryRank)
        guard ok else {
            // Unreadable coordinates (`coordinateProblem` says which, and the reader refuses the placemark), or a
            // Polygon boundary without a LinearRing: kept as XML.
            if coordinateProblem == nil { warnings.append("\(e.name) without readable boundaries kept as XML") }
            return KMLGeometry(shape: .unmodeled(e))
        }
        switch e.name {
        case "Point":
            guard let cs = coordinates, cs.count <= 1 else {
                if coordinates == nil { warnings.append("Point without coordinates kept as XML") }
                else { warnings.append("Point with \(coordinates!.count) positions kept as XML") }
                return KMLGeometry(shape: .unmodeled(e))
            }
            guard let c = cs.first else {
                warnings.append("Point with empty coordinates kept as XML")
                return KMLGeometry(shape: .unmodeled(e))
            }
            g.shape = .point(c)
        case "LineString": g.shape = .lineString(coordinates ?? [])
        case "LinearRing": g.shape = .linearRing(coordinates ?? [])
        case "Polygon": g.shape = .polygon(outerBoundary: outer ?? [], innerBoundaries: inner)
        default: g.shape = .multiGeometry(members)
        }
        return g
    }

    /// The positions of a `<coordinates>` element of a geometry, or `nil` (the reason in `coordinateProblem`,
    /// unless one is already there) when they cannot be read.
    /// - Parameters:
    ///   - c: The `<coordinates>` element.
    ///   - geometry: The geometry's element name, for the message (e.g. "Point").
    private mutating func positions(of c: KMLElement, in geometry: String) -> [Coordinate]? {
        switch readCoordinates(c.text) {
        case .success(let cs): return cs
        case .failure(let problem):
            if coordinateProblem == nil { coordinateProblem = "\(problem.reason) in the coordinates of a \(geometry)" }
            return nil
        }
    }

    /// Why a `<coordinates>` text cannot be read.
    struct CoordinateProblem: Error, Equatable {
        /// A one-line reason quoting the offending value (escaped, at most 40 characters of it).
        let reason: String
    }

    /// Parses a `<coordinates>` text: tuples `lon,lat[,alt]` separated by whitespace. Tolerates what Google Earth
    /// tolerates: spaces around commas, and tuples run together with commas (`a,b,c,d,e,f` read as two
    /// lon,lat,alt triples); a tuple of 4 or 5 values keeps its first three (with a warning).
    /// - Returns: The coordinates, or why they cannot be read: a value that is not a finite decimal number
    ///   (`nan`, `inf`, `1e400`, a word), a comma without a value on either side, or a tuple of one value.
    mutating func readCoordinates(_ text: String) -> Result<[Coordinate], CoordinateProblem> {
        // The values in order, and how many values each tuple has (no array per tuple).
        var values: [Double] = []
        var counts: [Int] = []
        var current = 0
        var afterComma = false
        var bytes = Array(text.utf8)
        bytes.append(0)
        let n = bytes.count - 1
        values.reserveCapacity(n / 8)
        counts.reserveCapacity(n / 16)
        let problem = bytes.withUnsafeBufferPointer { bytes -> CoordinateProblem? in
            var i = 0
            while i < n {
                let b = bytes[i]
                if b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D { i += 1; continue }
                if b == UInt8(ascii: ",") {
                    if current == 0 { return CoordinateProblem(reason: "a comma without a number before it") }
                    afterComma = true
                    i += 1
                    continue
                }
                var j = i
                while j < n, bytes[j] != UInt8(ascii: ","), bytes[j] != 0x20, bytes[j] != 0x0A, bytes[j] != 0x09,
                      bytes[j] != 0x0D { j += 1 }
                guard let v = DecimalText.parse(bytes, i, j) else {
                    return CoordinateProblem(reason: "\(Self.quoted(bytes, i, j)) is not a finite number")
                }
                if !afterComma && current > 0 {  // a value after a value without a comma starts a tuple
                    counts.append(current)
                    current = 0
                }
                values.append(v)
                current += 1
                afterComma = false
                i = j
            }
            return nil
        }
        if let problem { return .failure(problem) }
        if afterComma { return .failure(CoordinateProblem(reason: "a comma without a number after it")) }
        if current > 0 { counts.append(current) }
        var out: [Coordinate] = []
        out.reserveCapacity(counts.count)
        var at = 0
        for count in counts {
            defer { at += count }
            switch count {
            case 2: out.append(Coordinate(x: values[at], y: values[at + 1]))
            case 3: out.append(Coordinate(x: values[at], y: values[at + 1], z: values[at + 2]))
            case 1:
                return .failure(CoordinateProblem(reason: "a position of one number (\(KMLEncoder.format(values[at])); positions are longitude,latitude[,altitude])"))
            default:
                if count % 3 == 0 {
                    var k = at
                    while k < at + count { out.append(Coordinate(x: values[k], y: values[k + 1], z: values[k + 2])); k += 3 }
                } else {
                    warnings.append("a coordinate tuple has \(count) values; the first three are kept")
                    out.append(Coordinate(x: values[at], y: values[at + 1], z: values[at + 2]))
                }
            }
        }
        return .success(out)
    }

    /// `readCoordinates(_:)`'s coordinates, or `nil` when they cannot be read.
    mutating func parseCoordinates(_ text: String) -> [Coordinate]? {
        try? readCoordinates(text).get()
    }

    /// `bytes[start..<end]` in single quotes for a message: control characters escaped, cut after 40 bytes.
    private static func quoted(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        let cut = min(end, start + 40)
        var text = ""
        for u in String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<cut]), as: UTF8.self).unicodeScalars {
            if u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029 {
                text += "\\u{\(String(u.value, radix: 16, uppercase: true))}"
            } else {
                text.unicodeScalars.append(u)
            }
        }
        return "'" + text + (cut < end ? "…" : "") + "'"
    }

    // MARK: Styles

    private mutating func color(_ c: KMLElement, into unmodeled: inout [KMLElement]) -> KMLColor? {
        if let color = KMLColor(kml: c.text) { return color }
        warnings.append("unreadable color '\(c.text)' kept as XML")
        unmodeled.append(c)
        return nil
    }

    /// Decodes a `<Style>`.
    mutating func style(_ e: KMLElement) -> KMLStyle {
        var s = KMLStyle(id: e.attribute("id"))
        for c in e.elements {
            guard c.namespace == KMLNamespace.kml22 else { s.unmodeledElements.append(c); continue }
            switch c.name {
            case "IconStyle" where s.iconStyle == nil: s.iconStyle = iconStyle(c)
            case "LabelStyle" where s.labelStyle == nil: s.labelStyle = labelStyle(c)
            case "LineStyle" where s.lineStyle == nil: s.lineStyle = lineStyle(c)
            case "PolyStyle" where s.polygonStyle == nil: s.polygonStyle = polygonStyle(c)
            case "BalloonStyle" where s.balloonStyle == nil: s.balloonStyle = balloonStyle(c)
            default: s.unmodeledElements.append(c)
            }
        }
        s.unmodeledElements = KMLEncoder.canonicalOrder(s.unmodeledElements, rank: KMLEncoder.styleRank)
        return s
    }

    /// Decodes what every ColorStyle has (the `id`, `<color>`, `<colorMode>`); `decode` takes the style's own
    /// children, returning `false` for those it does not model, which are kept in schema order.
    private mutating func colorStyle<S: KMLColorStyleFields>(
        _ e: KMLElement, _ empty: S, decode: (inout S, KMLElement) -> Bool
    ) -> S {
        var s = empty
        s.id = e.attribute("id")
        for c in e.elements {
            if c.isKML("color") { s.color = color(c, into: &s.unmodeledElements) }
            else if c.isKML("colorMode"), let m = KMLColorMode(rawValue: c.text) { s.colorMode = m }
            else if !decode(&s, c) { s.unmodeledElements.append(c) }
        }
        s.unmodeledElements = KMLEncoder.canonicalOrder(s.unmodeledElements, rank: KMLEncoder.colorStyleRank)
        return s
    }

    private mutating func iconStyle(_ e: KMLElement) -> KMLIconStyle {
        colorStyle(e, KMLIconStyle()) { s, c in
            if c.isKML("scale"), let d = Self.double(c) { s.scale = d }
            else if c.isKML("heading"), let d = Self.double(c) { s.heading = d }
            else if c.isKML("Icon"), c.attributes.isEmpty {
                var icon = KMLIcon(href: nil)
                for ic in c.elements {
                    if ic.isKML("href"), icon.href == nil { icon.href = ic.text } else { icon.unmodeledElements.append(ic) }
                }
                icon.unmodeledElements = KMLEncoder.canonicalOrder(icon.unmodeledElements, rank: KMLEncoder.linkRank)
                s.icon = icon
            } else if c.isKML("hotSpot"), let x = c.attribute("x").flatMap(Double.init),
                      let y = c.attribute("y").flatMap(Double.init) {
                s.hotSpot = KMLHotSpot(x: x, y: y, xUnits: c.attribute("xunits").flatMap(KMLUnits.init) ?? .fraction,
                                       yUnits: c.attribute("yunits").flatMap(KMLUnits.init) ?? .fraction)
            } else { return false }
            return true
        }
    }

    private mutating func lineStyle(_ e: KMLElement) -> KMLLineStyle {
        colorStyle(e, KMLLineStyle()) { s, c in
            guard c.isKML("width"), let d = Self.double(c) else { return false }
            s.width = d
            return true
        }
    }

    private mutating func polygonStyle(_ e: KMLElement) -> KMLPolygonStyle {
        colorStyle(e, KMLPolygonStyle()) { s, c in
            if c.isKML("fill"), let b = Self.bool(c) { s.isFilled = b }
            else if c.isKML("outline"), let b = Self.bool(c) { s.isOutlined = b }
            else { return false }
            return true
        }
    }

    private mutating func labelStyle(_ e: KMLElement) -> KMLLabelStyle {
        colorStyle(e, KMLLabelStyle()) { s, c in
            guard c.isKML("scale"), let d = Self.double(c) else { return false }
            s.scale = d
            return true
        }
    }

    private mutating func balloonStyle(_ e: KMLElement) -> KMLBalloonStyle {
        var s = KMLBalloonStyle()
        s.id = e.attribute("id")
        for c in e.elements {
            if c.isKML("bgColor") { s.backgroundColor = color(c, into: &s.unmodeledElements) }
            else if c.isKML("textColor") { s.textColor = color(c, into: &s.unmodeledElements) }
            else if c.isKML("text") { s.text = Self.content(c) }
            else if c.isKML("displayMode") { s.displayMode = c.text }
            else { s.unmodeledElements.append(c) }
        }
        s.unmodeledElements = KMLEncoder.canonicalOrder(s.unmodeledElements, rank: KMLEncoder.colorStyleRank)
        return s
    }

    /// Decodes a `<StyleMap>`.
    mutating func styleMap(_ e: KMLElement) -> KMLStyleMap {
        var m = KMLStyleMap(id: e.attribute("id"), pairs: [])
        for c in e.elements {
            guard c.isKML("Pair"), let key = c.child("key")?.text,
                  c.elements.allSatisfy({ $0.isKML("key") || $0.isKML("styleUrl") || $0.isKML("Style") }) else {
                m.unmodeledElements.append(c)
                continue
            }
            m.pairs.append(KMLStyleMap.Pair(key: key, styleUrl: c.child("styleUrl")?.text,
                                            style: c.child("Style").map { style($0) }))
        }
        return m
    }

    // MARK: ExtendedData

    /// Decodes `<ExtendedData>`.
    mutating func extendedData(_ e: KMLElement) -> KMLExtendedData {
        var x = KMLExtendedData()
        for c in e.elements {
            if c.isKML("Data"), let name = c.attribute("name"),
               c.elements.allSatisfy({ $0.isKML("value") || $0.isKML("displayName") }) {
                x.data.append(.init(name: name, value: c.child("value").map(Self.content) ?? "",
                                    displayName: c.child("displayName").map(Self.content)))
            } else if c.isKML("SchemaData") {
                var s = KMLExtendedData.SchemaData(schemaUrl: c.attribute("schemaUrl"), fields: [])
                for f in c.elements {
                    if f.isKML("SimpleData"), let name = f.attribute("name") {
                        s.fields.append(.init(name: name, value: Self.content(f)))
                    } else {
                        s.unmodeledElements.append(f)
                    }
                }
                x.schemaData.append(s)
            } else {
                x.unmodeledElements.append(c)
            }
        }
        return x
    }
}
