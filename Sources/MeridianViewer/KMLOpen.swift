import Foundation
import Meridian

extension KMLBridge {
    /// Reads KML or KMZ bytes and writes the placemarks as the page draws them: geometries in Web Mercator, styles
    /// resolved (shared styles, style maps, inline overrides), icons packed in the KMZ sent back as data URLs.
    /// Each placemark carries its `id` (its position among the file's placemarks in document order, the key of
    /// an edit sent back to `POST /api/kml`) and either `edit` (the editor's kind for it: point, polyline,
    /// polygon) or `kind` (what the file holds that the editor cannot edit, e.g. "a MultiGeometry"); `unmodeled`
    /// counts the features kept as XML (overlays, network links), which are not drawn but saved back.
    /// Read with `readBounded(_:limits:failure:)`.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - limits: The viewer's limits.
    ///   - failure: Turns an engine error (the work budget running out) into the API's answer.
    static func openResponse(_ data: Data, limits: ViewerLimits, failure: (EngineError) -> APIError)
        throws(APIError) -> OpenResponse
    {
        let dataset = try readBounded(data, limits: limits, failure: failure)
        var placemarks: [KMLPlacemark] = []
        var next = 0
        var document = dataset.document
        try rewritePlacemarks(&document.features, depth: 0, next: &next) { (_, p) throws(APIError) in
            placemarks.append(p)
            return p
        }
        var opened: [OpenedPlacemark] = []
        var skipped = 0
        var iconCache: [String: String?] = [:]
        for (id, p) in placemarks.enumerated() {
            let leaves = p.geometry?.geometries ?? []
            var projected: [Geometry] = []
            for leaf in leaves {
                if let g = webMercator(leaf) { projected.append(g) }
            }
            guard !projected.isEmpty else { skipped += 1; continue }
            let editable = p.geometry.flatMap { editableKind($0) }.flatMap { projected.count == 1 ? $0 : nil }
            opened.append(OpenedPlacemark(
                id: id, name: p.name ?? "", edit: editable,
                kind: editable == nil ? p.geometry.map { describe($0) } : nil,
                geometries: projected.map { DrawnGeometry(geometry: $0) },
                style: drawnStyle(dataset.effectiveStyle(for: p), dataset: dataset, cache: &iconCache)))
        }
        return OpenResponse(name: dataset.document.name ?? "", placemarks: opened, skipped: skipped,
                            unmodeled: unmodeledFeatureCount(dataset.document.features, depth: 0),
                            warnings: Array(dataset.warnings.prefix(20)))
    }

    /// The answer of `POST /api/kml/open`: `{"name", "placemarks": [OpenedPlacemark], "skipped", "unmodeled",
    /// "warnings"}`.
    struct OpenResponse: Encodable {
        /// The document's name ("" when it has none).
        let name: String
        /// The placemarks with something to draw, in document order.
        let placemarks: [OpenedPlacemark]
        /// Placemarks without a geometry that can be drawn in Web Mercator.
        let skipped: Int
        /// Features kept as XML (overlays, network links, …): not drawn, saved back.
        let unmodeled: Int
        /// The reader's first 20 warnings.
        let warnings: [String]
    }

    /// A placemark as the page draws it: `{"id", "name", "edit" | "kind", "geometries", "style"}`.
    struct OpenedPlacemark: Encodable {
        /// Its position among the file's placemarks in document order (the key of an edit).
        let id: Int
        /// Its name ("" when it has none).
        let name: String
        /// The editor's kind for it ("point", "polyline", "polygon"), when it can be edited.
        let edit: String?
        /// What it holds that the editor cannot edit (e.g. "a MultiGeometry"), when it cannot.
        let kind: String?
        /// Its leaves in Web Mercator.
        let geometries: [DrawnGeometry]
        /// Its resolved style.
        let style: DrawnStyle
    }

    /// A leaf geometry in Web Mercator, coordinates to 0.01 m: `{"type": "point", "x", "y"}`,
    /// `{"type": "multipoint", "points"}`, `{"type": "polyline", "paths"}` or `{"type": "polygon", "parts"}` (the
    /// polygon shape of every answer, `PolygonJSON`'s).
    struct DrawnGeometry: Encodable {
        let geometry: Geometry

        private enum Keys: String, CodingKey { case type, x, y, points, paths, parts }

        func encode(to encoder: Encoder) throws {
            var o = encoder.container(keyedBy: Keys.self)
            let list = { (cs: [Coordinate]) in CoordinateList(coordinates: cs, decimals: .drawn) }
            switch geometry {
            case .point(let p):
                try o.encode("point", forKey: .type)
                try o.encode(Decimals.drawn(p.x), forKey: .x)
                try o.encode(Decimals.drawn(p.y), forKey: .y)
            case .multipoint(let m):
                try o.encode("multipoint", forKey: .type)
                try o.encode(list(m.coordinates), forKey: .points)
            case .polyline(let l):
                try o.encode("polyline", forKey: .type)
                try o.encode(l.parts.map(list), forKey: .paths)
            case .polygon(let p):
                try o.encode("polygon", forKey: .type)
                try o.encode(PolygonJSON(p, .drawn).parts, forKey: .parts)
            case .envelope(let e):
                try o.encode("polygon", forKey: .type)
                try o.encode(PolygonJSON(e.polygon, .drawn).parts, forKey: .parts)
            }
        }
    }

    /// A placemark's resolved style as the page draws it; each key present only when the file sets it.
    struct DrawnStyle: Encodable {
        /// A URL the page can draw the icon from (a data URL, or the viewer's own icon).
        var icon: String?
        /// `#rrggbb`.
        var lineColor: String?
        /// 0…1, to 2 decimals.
        var lineOpacity: Double?
        /// Pixels, 0…50, to 2 decimals.
        var lineWidth: Double?
        /// `#rrggbb`.
        var fillColor: String?
        /// 0…1, to 2 decimals.
        var fillOpacity: Double?
        /// Whether the polygon is filled.
        var fill: Bool?
        /// Whether the polygon is outlined.
        var outline: Bool?
    }

    /// What the page says about a geometry its editor cannot edit, e.g. "a MultiGeometry", "a polygon with holes".
    private static func describe(_ g: KMLGeometry) -> String {
        switch g.shape {
        case .polygon(_, let inner) where !inner.isEmpty: "a polygon with holes"
        case .multiGeometry: "a MultiGeometry"
        default: "a \(g.typeName)"
        }
    }

    /// Overlays, network links, tours and other features kept as XML (shown nowhere, saved back as they were).
    private static func unmodeledFeatureCount(_ features: [KMLFeature], depth: Int) -> Int {
        guard depth < 200 else { return 0 }
        return features.reduce(0) { n, f in
            switch f {
            case .unmodeled: n + 1
            case .folder(let c): n + unmodeledFeatureCount(c.features, depth: depth + 1)
            case .document(let c): n + unmodeledFeatureCount(c.features, depth: depth + 1)
            case .placemark: n
            }
        }
    }

    /// A style as the page draws it: the icon's URL (`iconURL`, cached by href), line and fill colors with their
    /// opacities, the line's width (within 0…50 px), whether a polygon is filled and outlined.
    private static func drawnStyle(_ style: KMLStyle?, dataset: KMLDataset, cache: inout [String: String?])
        -> DrawnStyle
    {
        var drawn = DrawnStyle()
        let d = Decimals.drawn
        if let href = style?.iconStyle?.icon?.href, !href.isEmpty {
            if let hit = cache[href] { drawn.icon = hit } else {
                drawn.icon = iconURL(href, dataset: dataset)
                cache[href] = drawn.icon
            }
        }
        if let line = style?.lineStyle {
            if let c = line.color {
                drawn.lineColor = c.hexRGB
                drawn.lineOpacity = d(c.opacity)
            }
            if let width = line.width, width.isFinite { drawn.lineWidth = d(min(max(width, 0), 50)) }
        }
        if let poly = style?.polygonStyle {
            if let c = poly.fillColor {
                drawn.fillColor = c.hexRGB
                drawn.fillOpacity = d(c.opacity)
            }
            drawn.fill = poly.isFilled
            drawn.outline = poly.isOutlined
        }
        return drawn
    }

    /// A URL the page can draw an icon from, without the network: a data URL for an image packed in the KMZ, the
    /// viewer's own icon for one of its palette files; `nil` otherwise (remote icons: the page draws its default).
    private static func iconURL(_ href: String, dataset: KMLDataset) -> String? {
        let name = href.hasPrefix("./") ? String(href.dropFirst(2)) : href
        if let data = dataset.resources[name], data.count <= maximumInlineIconBytes, let type = imageType(data) {
            return "data:\(type);base64,\(data.base64EncodedString())"
        }
        let file = (name as NSString).lastPathComponent
        if name.hasPrefix("files/"), KMLPalette.icons.contains(where: { $0.file == file }) { return "/icons/\(file)" }
        return nil
    }

    private static func imageType(_ data: Data) -> String? {
        let b = [UInt8](data.prefix(4))
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if b.starts(with: [0x47, 0x49, 0x46]) { return "image/gif" }
        return nil
    }
}
