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

    /// The body of `POST /api/kml`.
    struct SketchDocument: Decodable {
        var name: String?
        var placemarks: [SketchPlacemark]
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

    /// Builds the KML dataset for sketched placemarks, with the palette icons used stored as archive resources.
    static func dataset(for sketch: SketchDocument, site: StaticSite, limits: ViewerLimits) throws(APIError)
        -> KMLDataset
    {
        guard sketch.placemarks.count <= limits.maximumPlacemarks else {
            throw .tooLarge("too many placemarks: \(sketch.placemarks.count) (limit \(limits.maximumPlacemarks))")
        }
        let vertices = sketch.placemarks.reduce(0) { $0 + $1.coordinates.count }
        guard vertices <= limits.maximumVertices else {
            throw .tooLarge("too many vertices: \(vertices) (limit \(limits.maximumVertices))")
        }
        let name = (sketch.name?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : $0 }
            ?? "Untitled"
        var document = KMLDocument(name: String(name.prefix(200)))
        var resources: [String: Data] = [:]
        var counts: [String: Int] = [:]
        for (i, p) in sketch.placemarks.enumerated() {
            let coordinates = try webMercatorCoordinates(p.coordinates, placemark: i)
            let geometry: Geometry
            let style: KMLStyle
            switch p.type {
            case "point":
                guard coordinates.count == 1 else { throw .unprocessable("placemark \(i): a point has exactly one vertex") }
                geometry = .point(Point(coordinates[0], spatialReference: .webMercator))
                let id = p.style?.icon ?? "none"
                guard let icon = KMLPalette.icon(id: id) else { throw .unprocessable("placemark \(i): unknown icon '\(id)'") }
                guard let png = site.files["/icons/\(icon.file)"] else {
                    throw APIError(500, "the icon \(icon.file) is missing from the viewer's resources")
                }
                let href = "files/\(icon.file)"
                guard let url = URL(string: href) else { throw APIError(500, "the icon path \(href) is not a URL") }
                resources[href] = png.data
                let pin = icon.id.hasSuffix("pin")
                style = KMLStyle(iconStyle: KMLIconStyle(
                    icon: KMLIcon(url: url), scale: 1,
                    hotSpot: KMLHotSpot(x: 0.5, y: pin ? 0 : 0.5, xUnits: .fraction, yUnits: .fraction)))
            case "polyline":
                guard coordinates.count >= 2 else { throw .unprocessable("placemark \(i): a polyline needs 2 vertices") }
                geometry = .polyline(Polyline(coordinates, spatialReference: .webMercator))
                style = KMLStyle(lineStyle: KMLLineStyle(color: try color(p.style?.color, placemark: i), width: 2))
            case "polygon":
                guard coordinates.count >= 3 else { throw .unprocessable("placemark \(i): a polygon needs 3 vertices") }
                geometry = .polygon(Polygon(shell: coordinates, spatialReference: .webMercator))
                style = KMLStyle(polygonStyle: KMLPolygonStyle(
                    fillColor: try color(p.style?.color, placemark: i), isFilled: true, isOutlined: false))
            default:
                throw .unprocessable("placemark \(i): type must be \"point\", \"polyline\" or \"polygon\"")
            }
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
            document.addChildNode(KMLPlacemark(geometry: kmlGeometry, name: title, style: style))
        }
        var dataset = KMLDataset(rootNode: document)
        dataset.resources = resources
        return dataset
    }

    /// Writes a dataset as KMZ bytes (through a temporary file: the library writes KMZ files atomically).
    static func kmzData(_ dataset: KMLDataset) throws(APIError) -> Data {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("meridian-viewer-\(UUID().uuidString).kmz")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            try dataset.save(to: url, overwrite: true)
        } catch {
            throw APIError(500, "could not write the KMZ: \(error.description)")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw APIError(500, "could not read back the KMZ")
        }
        return data
    }

    private static func webMercatorCoordinates(_ raw: [[Double]], placemark i: Int) throws(APIError) -> [Coordinate] {
        var result: [Coordinate] = []
        result.reserveCapacity(raw.count)
        for (j, c) in raw.enumerated() {
            guard c.count == 2, c[0].isFinite, c[1].isFinite,
                abs(c[0]) <= webMercatorHalfWorld * 1.0001, abs(c[1]) <= webMercatorHalfWorld * 1.0001
            else {
                throw .unprocessable("placemark \(i), vertex \(j): expected [x, y] in Web Mercator meters "
                    + "(|x|, |y| ≤ 20037508.34)")
            }
            result.append(Coordinate(x: c[0], y: c[1]))
        }
        return result
    }

    private static func color(_ hex: String?, placemark i: Int) throws(APIError) -> KMLColor {
        guard let hex, let rgb = KMLPalette.rgb(hex) else {
            throw .unprocessable("placemark \(i): color must be #rrggbb, got '\(hex ?? "nothing")'")
        }
        return KMLColor(red: rgb.red, green: rgb.green, blue: rgb.blue)
    }

    // MARK: Open

    /// Reads KML or KMZ bytes and writes the placemarks as the page draws them: geometries in Web Mercator, styles
    /// resolved (shared styles, style maps, inline overrides), icons packed in the KMZ sent back as data URLs.
    ///
    /// Bounded in two steps: a streaming pass counts placemarks and vertices as they are parsed (the KML of a KMZ is
    /// inflated as it goes, at most `limits.maximumKMLBytes`) and stops at the first limit crossed, checking the
    /// request's `WorkBudget` at each placemark; only a file within every limit is then read into a tree.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - limits: The viewer's limits.
    ///   - failure: Turns an engine error (the work budget running out) into the API's answer.
    static func openResponse(_ data: Data, limits: ViewerLimits, failure: (EngineError) -> APIError)
        throws(APIError) -> Data
    {
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
        } catch let error as KMLError {
            throw readFailure(error)
        } catch {
            throw .unprocessable("cannot read the file as KML or KMZ: \(error)")
        }
        let dataset: KMLDataset
        do {
            dataset = try KMLDataset(data: data, limits: archiveLimits)
        } catch {
            throw readFailure(error)
        }
        var placemarks: [KMLPlacemark] = []
        collect(dataset.document.features, into: &placemarks, depth: 0)
        let vertexCount = placemarks.reduce(0) { $0 + ($1.geometry?.coordinates.count ?? 0) }
        var w = JSONWriter(decimals: 2, capacity: 40 * vertexCount + 1024)
        w.raw("{\"name\":")
        w.string(dataset.document.name ?? "")
        w.raw(",\"placemarks\":[")
        var written = 0, skipped = 0
        var iconCache: [String: String?] = [:]
        for p in placemarks {
            let leaves = p.geometry?.geometries ?? []
            var projected: [Geometry] = []
            for leaf in leaves {
                if let g = webMercator(leaf) { projected.append(g) }
            }
            guard !projected.isEmpty else { skipped += 1; continue }
            if written > 0 { w.raw(",") }
            written += 1
            w.raw("{\"name\":")
            w.string(p.name ?? "")
            w.raw(",\"geometries\":[")
            for (k, g) in projected.enumerated() {
                if k > 0 { w.raw(",") }
                writeGeometry(g, to: &w)
            }
            w.raw("],\"style\":")
            writeStyle(dataset.effectiveStyle(for: p), dataset: dataset, cache: &iconCache, to: &w)
            w.raw("}")
        }
        w.raw("],\"skipped\":\(skipped),\"warnings\":[")
        for (i, warning) in dataset.warnings.prefix(20).enumerated() {
            if i > 0 { w.raw(",") }
            w.string(warning)
        }
        w.raw("]}")
        return w.data
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

    private static func collect(_ features: [KMLFeature], into out: inout [KMLPlacemark], depth: Int) {
        guard depth < 200 else { return }
        for f in features {
            switch f {
            case .placemark(let p): out.append(p)
            case .folder(let folder): collect(folder.features, into: &out, depth: depth + 1)
            case .document(let d): collect(d.features, into: &out, depth: depth + 1)
            case .unmodeled: break
            }
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

    private static func writeGeometry(_ g: Geometry, to w: inout JSONWriter) {
        switch g {
        case .point(let p):
            w.raw("{\"type\":\"point\",\"x\":"); w.number(p.x); w.raw(",\"y\":"); w.number(p.y); w.raw("}")
        case .multipoint(let m):
            w.raw("{\"type\":\"multipoint\",\"points\":"); w.ring(m.coordinates); w.raw("}")
        case .polyline(let l):
            w.raw("{\"type\":\"polyline\",\"paths\":[")
            for (i, part) in l.parts.enumerated() {
                if i > 0 { w.raw(",") }
                w.ring(part)
            }
            w.raw("]}")
        case .polygon(let p):
            w.raw("{\"type\":\"polygon\",\"rings\":[")
            for (i, ring) in p.rings.enumerated() {
                if i > 0 { w.raw(",") }
                w.ring(ring)
            }
            w.raw("]}")
        case .envelope(let e):
            writeGeometry(.polygon(e.polygon), to: &w)
        }
    }

    private static func writeStyle(_ style: KMLStyle?, dataset: KMLDataset, cache: inout [String: String?],
                                   to w: inout JSONWriter) {
        w.raw("{")
        var first = true
        func key(_ k: String) {
            if !first { w.raw(",") }
            first = false
            w.raw("\"\(k)\":")
        }
        if let href = style?.iconStyle?.icon?.href, !href.isEmpty {
            let resolved: String?
            if let hit = cache[href] { resolved = hit } else {
                resolved = iconURL(href, dataset: dataset)
                cache[href] = resolved
            }
            if let resolved { key("icon"); w.string(resolved) }
        }
        if let line = style?.lineStyle {
            if let c = line.color {
                key("lineColor"); w.string(c.hexRGB)
                key("lineOpacity"); w.number(c.opacity)
            }
            if let width = line.width, width.isFinite { key("lineWidth"); w.number(min(max(width, 0), 50)) }
        }
        if let poly = style?.polygonStyle {
            if let c = poly.fillColor {
                key("fillColor"); w.string(c.hexRGB)
                key("fillOpacity"); w.number(c.opacity)
            }
            if let filled = poly.isFilled { key("fill"); w.raw(filled ? "true" : "false") }
            if let outlined = poly.isOutlined { key("outline"); w.raw(outlined ? "true" : "false") }
        }
        w.raw("}")
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
