import Foundation
import Meridian

/// A small SVG picture of buffers, their points and the area of use, drawn in the buffer's projected coordinates
/// (north up), with the seed sample's symbols: yellow 60% fill with a green outline for buffers, red points,
/// a red dashed outline for the area of use.
struct SVGPicture {
    var buffers: [Polygon] = []
    var points: [Coordinate] = []
    var areaOfUse: Polygon?
    var title: String = "Meridian buffers"

    /// The SVG document, scaled to `width` pixels wide.
    func render(width: Double = 800) -> Data {
        var all: [Coordinate] = points
        for b in buffers { all += b.rings.flatMap { $0 } }
        if let a = areaOfUse { all += a.rings.flatMap { $0 } }
        guard let box = Envelope(around: all, spatialReference: .wgs84), box.width > 0 || box.height > 0 else {
            return Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n".utf8)
        }
        let margin = 0.03 * max(box.width, box.height)
        let x0 = box.xMin - margin, y1 = box.yMax + margin
        let w = box.width + 2 * margin, h = box.height + 2 * margin
        let scale = width / w
        let height = (h * scale).rounded()
        func px(_ c: Coordinate) -> String {
            String(format: "%.2f,%.2f", (c.x - x0) * scale, (y1 - c.y) * scale)
        }
        func path(_ p: Polygon) -> String {
            p.rings.map { ring in "M" + ring.map(px).joined(separator: "L") + "Z" }.joined()
        }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))">
            <title>\(title.xmlEscaped)</title>
            <rect width="100%" height="100%" fill="#f4f1ea"/>

            """
        if let a = areaOfUse {
            svg += "<path d=\"\(path(a))\" fill=\"none\" stroke=\"#e00\" stroke-width=\"3\" stroke-dasharray=\"12 8\"/>\n"
        }
        for b in buffers {
            svg += "<path d=\"\(path(b))\" fill=\"#ffff00\" fill-opacity=\"0.6\" fill-rule=\"evenodd\" "
                + "stroke=\"#34c759\" stroke-width=\"2\"/>\n"
        }
        for p in points {
            let xy = px(p).split(separator: ",")
            svg += "<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"5\" fill=\"#e00\"/>\n"
        }
        svg += "</svg>\n"
        return Data(svg.utf8)
    }
}

extension String {
    /// The text with XML's five special characters escaped.
    var xmlEscaped: String {
        var out = ""
        for ch in self {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(ch)
            }
        }
        return out
    }
}
