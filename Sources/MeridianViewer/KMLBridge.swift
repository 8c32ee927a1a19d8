import Foundation
import Meridian

/// Page 2's KML operations, all done with MeridianKML and the engine: sketched placemarks (Web Mercator) → KML
/// document with styles → KMZ with the icons packed; and KML/KMZ bytes → placemarks in Web Mercator with their
/// resolved styles for drawing.
enum KMLBridge {
    /// Half the width of the Web Mercator world, in meters.
    static let webMercatorHalfWorld = 20_037_508.342789244
    /// Latitudes beyond this are clamped before projecting to Web Mercator (EPSG:3857's own limit).
    static let webMercatorLatitudeLimit = 85.051128
    /// Embedded icons larger than this are not sent to the page (it draws the default icon instead).
    static let maximumInlineIconBytes = 512 * 1024

    // MARK: Save

    /// The body of `POST /api/kml`: new placemarks, and optionally the opened file they are added to with the
    /// page's edits of its placemarks.
    struct SketchDocument: Decodable {
        var name: String?
        var placemarks: [SketchPlacemark]
        var source: SourceDocument?
    }

    /// One sketched placemark: its kind, vertices in Web Mercator meters and style.
    struct SketchPlacemark: Decodable {
        var type: String
        var coordinates: [[Double]]
        var style: SketchStyle?
        var name: String?
    }

    /// A palette icon id (points) or a `#rrggbb` color (lines, polygons).
    struct SketchStyle: Decodable {
        var icon: String?
        var color: String?
    }

    /// An opened KML or KMZ file sent back with the page's edits: everything the edits do not name is written
    /// back as the library read it (folders, shared styles, overlays, network links, unmodeled elements, the
    /// archive's other files).
    struct SourceDocument: Decodable {
        /// The file's bytes, base64.
        var data: String
        /// Edits of its placemarks, by the `id` `POST /api/kml/open` gave them.
        var edits: [PlacemarkEdit]
    }

    /// An edit of an opened placemark: deleted, or its geometry and/or style replaced (a restyle sets the palette's
    /// icon, line or fill sub-style inline, overriding the file's for that sub-style only).
    ///
    /// Each vertex of `coordinates` is `[x, y]` in Web Mercator meters, or `[x, y, k]` for a vertex the page got as
    /// the file's vertex `k`: when it still lies where the page got it (within the 0.005 m the open answer's
    /// rounding moves it), the file's own coordinate is kept exactly, altitude included; a moved one keeps that
    /// vertex's altitude.
    struct PlacemarkEdit: Decodable {
        var id: Int
        var delete: Bool?
        var coordinates: [[Double]]?
        var style: SketchStyle?
    }

    /// Builds the KML dataset to save: the sketched placemarks as a new document (palette icons stored as
    /// archive resources), or, with a `source`, that file with its edits applied and the new placemarks appended
    /// to its root document.
    /// - Parameters:
    ///   - sketch: The page's placemarks, and the opened file with its edits, if any.
    ///   - site: The static site (the palette's icons).
    ///   - limits: The viewer's limits.
    ///   - failure: Turns an engine error (the work budget running out) into the API's answer.
    static func dataset(for sketch: SketchDocument, site: StaticSite, limits: ViewerLimits,
                        failure: (EngineError) -> APIError) throws(APIError) -> KMLDataset
    {
        var dataset: KMLDataset
        try checkSize(placemarks: sketch.placemarks.count,
                      vertices: sketch.placemarks.reduce(0) { $0 + $1.coordinates.count }, limits: limits)
        if let source = sketch.source {
            guard let data = Data(base64Encoded: source.data) else {
                throw .badRequest("source.data must be the opened file's bytes in base64")
            }
            dataset = try readBounded(data, limits: limits, failure: failure)
            try apply(source.edits, to: &dataset, site: site)
            // The document as it will be saved: the file's placemarks left, edited, and the new ones.
            let all = dataset.document.allPlacemarks
            try checkSize(placemarks: all.count + sketch.placemarks.count,
                          vertices: all.reduce(0) { $0 + ($1.geometry?.coordinates.count ?? 0) }
                              + sketch.placemarks.reduce(0) { $0 + $1.coordinates.count }, limits: limits)
        } else {
            let name = (sketch.name?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : $0 }
                ?? "Untitled"
            dataset = KMLDataset(rootNode: KMLDocument(name: String(name.prefix(200))))
        }
        var counts: [String: Int] = [:]
        for (i, p) in sketch.placemarks.enumerated() {
            let coordinates = try webMercatorCoordinates(p.coordinates, of: "placemark \(i)")
            let geometry: Geometry
            switch p.type {
            case "point":
                guard coordinates.count == 1 else { throw .unprocessable("placemark \(i): a point has exactly one vertex") }
                geometry = .point(Point(coordinates[0], spatialReference: .webMercator))
            case "polyline":
                guard coordinates.count >= 2 else { throw .unprocessable("placemark \(i): a polyline needs 2 vertices") }
                geometry = .polyline(Polyline(coordinates, spatialReference: .webMercator))
            case "polygon":
                guard coordinates.count >= 3 else { throw .unprocessable("placemark \(i): a polygon needs 3 vertices") }
                geometry = .polygon(Polygon(shell: coordinates, spatialReference: .webMercator))
            default:
                throw .unprocessable("placemark \(i): type must be \"point\", \"polyline\" or \"polygon\"")
            }
            let style = try paletteStyle(p.type, p.style, placemark: "placemark \(i)", site: site,
                                         resources: &dataset.resources)
            let kmlGeometry: KMLGeometry
            do {
                kmlGeometry = try KMLGeometry(geometry: geometry, altitudeMode: .clampToGround,
                                              isTessellated: p.type != "point")
            } catch {
                throw .unprocessable("placemark \(i): \(error.description)")
            }
            counts[p.type, default: 0] += 1
            let title = p.name.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
                ?? "\(p.type.prefix(1).uppercased())\(p.type.dropFirst()) \(counts[p.type] ?? 1)"
            dataset.document.addChildNode(KMLPlacemark(geometry: kmlGeometry, name: title, style: style))
        }
        // A file whose root was a lone placemark gains a <Document> once it holds more than one feature.
        if dataset.document.isImplicit && dataset.document.features.count > 1 { dataset.document.isImplicit = false }
        return dataset
    }

    private static func checkSize(placemarks: Int, vertices: Int, limits: ViewerLimits) throws(APIError) {
        guard placemarks <= limits.maximumPlacemarks else {
            throw .tooLarge("too many placemarks: \(placemarks) (limit \(limits.maximumPlacemarks))")
        }
        guard vertices <= limits.maximumVertices else {
            throw .tooLarge("too many vertices: \(vertices) (limit \(limits.maximumVertices))")
        }
    }

    /// The style of a placemark sketched or restyled on the page: a palette icon (stored in `resources` under
    /// `files/`) for a point, a line color 2 px wide for a polyline, a fill color without outline for a polygon.
    private static func paletteStyle(_ type: String, _ sketchStyle: SketchStyle?, placemark what: String,
                                     site: StaticSite, resources: inout [String: Data]) throws(APIError) -> KMLStyle {
        switch type {
        case "point":
            let id = sketchStyle?.icon ?? "none"
            guard let icon = KMLPalette.icon(id: id) else { throw .unprocessable("\(what): unknown icon '\(id)'") }
            guard let png = site.files["/icons/\(icon.file)"] else {
                throw APIError(500, "the icon \(icon.file) is missing from the viewer's resources")
            }
            // An opened KMZ may hold another file under the same name: never overwrite it.
            var href = "files/\(icon.file)"
            var k = 1
            while let existing = resources[href], existing != png.data {
                href = "files/meridian-\(k)-\(icon.file)"
                k += 1
            }
            guard let url = URL(string: href) else { throw APIError(500, "the icon path \(href) is not a URL") }
            resources[href] = png.data
            let pin = icon.id.hasSuffix("pin")
            return KMLStyle(iconStyle: KMLIconStyle(
                icon: KMLIcon(url: url), scale: 1,
                hotSpot: KMLHotSpot(x: 0.5, y: pin ? 0 : 0.5, xUnits: .fraction, yUnits: .fraction)))
        case "polyline":
            return KMLStyle(lineStyle: KMLLineStyle(color: try color(sketchStyle?.color, placemark: what), width: 2))
        default:
            return KMLStyle(polygonStyle: KMLPolygonStyle(
                fillColor: try color(sketchStyle?.color, placemark: what), isFilled: true, isOutlined: false))
        }
    }

    /// Applies the page's edits to an opened dataset.
    private static func apply(_ edits: [PlacemarkEdit], to dataset: inout KMLDataset, site: StaticSite)
        throws(APIError)
    {
        var byID: [Int: PlacemarkEdit] = [:]
        for edit in edits {
            guard byID[edit.id] == nil else { throw .badRequest("placemark \(edit.id) is edited twice") }
            byID[edit.id] = edit
        }
        var resources = dataset.resources
        var next = 0
        try rewritePlacemarks(&dataset.document.features, depth: 0, next: &next) { (id, p) throws(APIError) in
            guard let edit = byID.removeValue(forKey: id) else { return p }
            if edit.delete == true { return nil }
            var p = p
            let what = "placemark \(id) (\(p.name.map { "'\(String($0.prefix(60)))'" } ?? "unnamed"))"
            if let raw = edit.coordinates {
                guard var geometry = p.geometry, let kind = editableKind(geometry) else {
                    throw .unprocessable("\(what): its \(p.geometry?.typeName ?? "missing geometry") cannot be edited")
                }
                geometry.shape = try editedShape(kind, of: geometry, raw: raw, placemark: what)
                p.geometry = geometry
            }
            if let style = edit.style {
                guard let kind = p.geometry.flatMap(editableKind) else {
                    throw .unprocessable("\(what): only points, lines and polygons without holes can be restyled")
                }
                guard kind == "point" ? style.icon != nil : style.color != nil else {
                    throw .unprocessable("\(what): a \(kind) is restyled with \(kind == "point" ? "an icon" : "a color")")
                }
                // The palette's sub-style goes into the inline style, which overrides the shared one's: labels,
                // balloons and the other sub-styles the file gave stay as they were.
                let palette = try paletteStyle(kind, style, placemark: what, site: site, resources: &resources)
                var inline = p.style ?? KMLStyle()
                switch kind {
                case "point": inline.iconStyle = palette.iconStyle
                case "polyline": inline.lineStyle = palette.lineStyle
                default: inline.polygonStyle = palette.polygonStyle
                }
                p.style = inline
            }
            return p
        }
        if let unknown = byID.keys.min() {
            throw .unprocessable("placemark \(unknown) does not exist in the file (it has \(next) placemarks)")
        }
        dataset.resources = resources
    }

    /// Visits every placemark in document order, depth first (the order of the ids `POST /api/kml/open` gives),
    /// replacing each by what `body` returns (`nil` removes it). Containers deeper than 200 levels are not entered.
    private static func rewritePlacemarks(_ features: inout [KMLFeature], depth: Int, next: inout Int,
                                          _ body: (Int, KMLPlacemark) throws(APIError) -> KMLPlacemark?)
        throws(APIError)
    {
        guard depth < 200 else { return }
        var out: [KMLFeature] = []
        out.reserveCapacity(features.count)
        for f in features {
            switch f {
            case .placemark(let p):
                let id = next
                next += 1
                if let q = try body(id, p) { out.append(.placemark(q)) }
            case .folder(var folder):
                try rewritePlacemarks(&folder.features, depth: depth + 1, next: &next, body)
                out.append(.folder(folder))
            case .document(var d):
                try rewritePlacemarks(&d.features, depth: depth + 1, next: &next, body)
                out.append(.document(d))
            case .unmodeled:
                out.append(f)
            }
        }
        features = out
    }

    /// "point", "polyline" or "polygon" for a geometry the page's editor can edit (a point, a line string, a
    /// polygon without holes); `nil` otherwise.
    static func editableKind(_ g: KMLGeometry) -> String? {
        switch g.shape {
        case .point: "point"
        case .lineString(let cs) where cs.count >= 2: "polyline"
        case .polygon(_, let inner) where inner.isEmpty && editableVertices(g).count >= 3: "polygon"
        default: nil
        }
    }

    /// The vertices the page edits: a polygon's outer ring without its closing vertex (when the file closes it).
    private static func editableVertices(_ g: KMLGeometry) -> [Coordinate] {
        switch g.shape {
        case .point(let c): [c]
        case .lineString(let cs): cs
        case .polygon(let outer, _):
            outer.count > 1 && outer.last?.x == outer.first?.x && outer.last?.y == outer.first?.y
                ? Array(outer.dropLast()) : outer
        default: []
        }
    }

    /// The edited shape in WGS84: vertices the page did not move are the file's own, moved and new ones are
    /// projected back from Web Mercator; when every vertex of the file had an altitude, a new vertex takes the
    /// mean of its nearest neighbours' altitudes (a moved one keeps its own).
    private static func editedShape(_ kind: String, of g: KMLGeometry, raw: [[Double]], placemark what: String)
        throws(APIError) -> KMLGeometry.Shape
    {
        let needed = ["point": 1, "polyline": 2, "polygon": 3][kind] ?? 1
        guard kind == "point" ? raw.count == 1 : raw.count >= needed else {
            throw .unprocessable("\(what): a \(kind) needs \(kind == "point" ? "exactly" : "at least") \(needed) "
                + "vertex\(needed == 1 ? "" : "es")")
        }
        let original = editableVertices(g)
        let onPage = try webMercatorLeaf(original, placemark: what)
        let positions = try webMercatorCoordinates(raw.map { Array($0.prefix(2)) }, of: what)
        var origins: [Int?] = []
        for (j, v) in raw.enumerated() {
            guard v.count == 2 || v.count == 3 else {
                throw .unprocessable("\(what), vertex \(j): expected [x, y] or [x, y, k]")
            }
            if v.count == 3 {
                guard let k = Int(exactly: v[2]), original.indices.contains(k) else {
                    throw .unprocessable("\(what), vertex \(j): no vertex \(v[2]) in the file's geometry")
                }
                origins.append(k)
            } else {
                origins.append(nil)
            }
        }
        // The page got each vertex rounded to 0.01 m: one it did not move is within 0.005 m of the projection.
        let tolerance = 0.0051
        var result: [Coordinate?] = Array(repeating: nil, count: raw.count)
        var moved: [Int] = []
        for j in raw.indices {
            if let k = origins[j], abs(onPage[k].x - positions[j].x) <= tolerance,
               abs(onPage[k].y - positions[j].y) <= tolerance {
                result[j] = original[k]
            } else {
                moved.append(j)
            }
        }
        if !moved.isEmpty {
            let points = Multipoint(moved.map { positions[$0] }, spatialReference: .webMercator)
            let wgs84: Geometry
            do {
                wgs84 = try GeometryEngine.project(points, into: .wgs84)
            } catch {
                throw .unprocessable("\(what): cannot project the edited vertices to WGS 84: \(error)")
            }
            let everyAltitude = original.allSatisfy { $0.z != nil }
            for (m, j) in moved.enumerated() {
                let c = wgs84.coordinates[m]
                guard c.isFinite else { throw .unprocessable("\(what), vertex \(j): not a finite position in WGS 84") }
                result[j] = Coordinate(x: c.x, y: c.y, z: origins[j].flatMap { original[$0].z })
            }
            if everyAltitude {
                let known = result.map { $0?.z }
                for j in moved where result[j]?.z == nil {
                    let before = known[..<j].last { $0 != nil } ?? nil
                    let after = known[(j + 1)...].first { $0 != nil } ?? nil
                    let zs = [before, after].compactMap { $0 }
                    if !zs.isEmpty, let c = result[j] { result[j] = Coordinate(x: c.x, y: c.y, z: zs.reduce(0, +) / Double(zs.count)) }
                }
            }
        }
        let coordinates = result.compactMap { $0 }
        switch kind {
        case "point": return .point(coordinates[0])
        case "polyline": return .lineString(coordinates)
        default: return .polygon(outerBoundary: coordinates + [coordinates[0]], innerBoundaries: [])
        }
    }

    /// WGS84 vertices in Web Mercator as `POST /api/kml/open` gives them to the page (latitudes clamped).
    private static func webMercatorLeaf(_ cs: [Coordinate], placemark what: String) throws(APIError) -> [Coordinate] {
        guard let g = webMercator(.multipoint(Multipoint(cs, spatialReference: .wgs84))) else {
            throw .unprocessable("\(what): its vertices cannot be shown in Web Mercator")
        }
        return g.coordinates
    }

    /// Writes a dataset as KMZ bytes (through a temporary file: the library writes KMZ files atomically).
    static func kmzData(_ dataset: KMLDataset) throws(APIError) -> Data {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("meridian-viewer-\(UUID().uuidString).kmz")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            // An opened file's hrefs are written as they are: never a file of the server's disk packed in.
            try dataset.save(to: url, overwrite: true, packingLocalIcons: false)
        } catch {
            throw APIError(500, "could not write the KMZ: \(error.description)")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw APIError(500, "could not read back the KMZ")
        }
        return data
    }

    private static func webMercatorCoordinates(_ raw: [[Double]], of what: String) throws(APIError) -> [Coordinate] {
        var result: [Coordinate] = []
        result.reserveCapacity(raw.count)
        for (j, c) in raw.enumerated() {
            guard c.count == 2, c[0].isFinite, c[1].isFinite,
                abs(c[0]) <= webMercatorHalfWorld * 1.0001, abs(c[1]) <= webMercatorHalfWorld * 1.0001
            else {
                throw .unprocessable("\(what), vertex \(j): expected [x, y] in Web Mercator meters "
                    + "(|x|, |y| ≤ 20037508.34)")
            }
            result.append(Coordinate(x: c[0], y: c[1]))
        }
        return result
    }

    private static func color(_ hex: String?, placemark what: String) throws(APIError) -> KMLColor {
        guard let hex, let rgb = KMLPalette.rgb(hex) else {
            throw .unprocessable("\(what): color must be #rrggbb, got '\(hex ?? "nothing")'")
        }
        return KMLColor(red: rgb.red, green: rgb.green, blue: rgb.blue)
    }

    // MARK: Open

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
    /// `{"type": "multipoint", "points"}`, `{"type": "polyline", "paths"}` or `{"type": "polygon", "rings"}`.
    struct DrawnGeometry: Encodable {
        let geometry: Geometry

        private enum Keys: String, CodingKey { case type, x, y, points, paths, rings }

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
                try o.encode(p.rings.map(list), forKey: .rings)
            case .envelope(let e):
                try o.encode("polygon", forKey: .type)
                try o.encode(e.polygon.rings.map(list), forKey: .rings)
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

    /// Reads KML or KMZ bytes within the viewer's limits.
    ///
    /// Bounded in two steps: a streaming pass counts placemarks and vertices as they are parsed (the KML of a KMZ is
    /// inflated as it goes, at most `limits.maximumKMLBytes`) and stops at the first limit crossed, checking the
    /// request's `WorkBudget` at each placemark (and the reader at each 64 KiB it parses); only a file within every
    /// limit is then read into a tree, under the same budget.
    static func readBounded(_ data: Data, limits: ViewerLimits, failure: (EngineError) -> APIError)
        throws(APIError) -> KMLDataset
    {
        // A GeoPackage, zipped shapefile or FlatGeobuf opens as placemarks (and is saved back as KMZ like any KML).
        if let table = try FeatureTableBridge.dataset(data, limits: limits) { return table }
        // So does GeoJSON, or a CSV of points, through the readers of the command line.
        if let features = try FeatureTextBridge.dataset(data, limits: limits, failure: failure) { return features }
        let archiveLimits = KMZLimits(
            maximumKMLBytes: UInt64(max(1, limits.maximumKMLBytes)),
            maximumResourceBytes: UInt64(max(1, limits.maximumKMZResourceBytes)),
            maximumTotalResourceBytes: UInt64(max(1, limits.maximumKMZResourceBytes)), maximumEntries: 10_000)
        do {
            var placemarkCount = 0, vertexCount = 0
            try KMLDataset.forEachPlacemark(data: data, limits: archiveLimits) { record in
                try WorkBudget.check()
                placemarkCount += 1
                vertexCount += record.placemark.geometry?.coordinates.count ?? 0
                guard placemarkCount <= limits.maximumPlacemarks else {
                    throw APIError.tooLarge("the file has more than \(limits.maximumPlacemarks) placemarks (the limit)")
                }
                guard vertexCount <= limits.maximumVertices else {
                    throw APIError.tooLarge("the file has more than \(limits.maximumVertices) vertices (the limit)")
                }
                return true
            }
        } catch let error as APIError {
            throw error
        } catch let error as EngineError {
            throw failure(error)
        } catch KMLError.interrupted(let reason) {
            throw failure(.interrupted(reason))
        } catch let error as KMLError {
            throw readFailure(error)
        } catch {
            throw .unprocessable("cannot read the file as KML or KMZ: \(error)")
        }
        do {
            return try KMLDataset(data: data, limits: archiveLimits)
        } catch .interrupted(let reason) {
            throw failure(.interrupted(reason))
        } catch {
            throw readFailure(error)
        }
    }

    /// 413 for a file over a size limit (a KML entry, the icons, the archive, the compression ratio), 422 otherwise.
    private static func readFailure(_ error: KMLError) -> APIError {
        switch error {
        case .entryTooLarge, .compressionRatioExceeded, .archiveTooLarge:
            .tooLarge("the file is too large to open: \(error.description)")
        default:
            .unprocessable("cannot read the file as KML or KMZ: \(error.description)")
        }
    }

    /// A WGS84 leaf geometry in Web Mercator, latitudes clamped to its limit; `nil` when it cannot be projected.
    private static func webMercator(_ g: Geometry) -> Geometry? {
        let limit = webMercatorLatitudeLimit
        let clamped = g.mapCoordinates(into: .wgs84) { c in
            Coordinate(x: c.x, y: min(max(c.y, -limit), limit))
        }
        guard clamped.coordinates.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.x) <= 540 }) else { return nil }
        return try? GeometryEngine.project(clamped, into: .webMercator)
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
