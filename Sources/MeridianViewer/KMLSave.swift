import Foundation
import Meridian

extension KMLBridge {
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
    static func paletteStyle(_ type: String, _ sketchStyle: SketchStyle?, placemark what: String,
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

    private static func color(_ hex: String?, placemark what: String) throws(APIError) -> KMLColor {
        guard let hex, let rgb = KMLPalette.rgb(hex) else {
            throw .unprocessable("\(what): color must be #rrggbb, got '\(hex ?? "nothing")'")
        }
        return KMLColor(red: rgb.red, green: rgb.green, blue: rgb.blue)
    }
}
