import Foundation
import Meridian

extension KMLBridge {
    /// Applies the page's edits to an opened dataset.
    static func apply(_ edits: [PlacemarkEdit], to dataset: inout KMLDataset, site: StaticSite)
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
    static func rewritePlacemarks(_ features: inout [KMLFeature], depth: Int, next: inout Int,
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
}
