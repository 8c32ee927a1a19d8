import Foundation
import Meridian

/// A small SVG picture of buffers, their points and the area of use, drawn in the buffer's projected coordinates
/// (north up), with the seed sample's symbols: yellow 60% fill with a green outline for buffers, red points,
/// a red dashed outline for the area of use.
public struct SVGPicture {
    /// The buffers, filled.
    public var buffers: [Polygon] = []
    /// The points buffered, in the buffers' coordinates.
    public var points: [Coordinate] = []
    /// The spatial reference's area of use, outlined.
    public var areaOfUse: Polygon?
    /// The picture's title.
    public var title: String = "Meridian buffers"

    /// An empty picture; set what it shows, then `render`.
    public init() {}

    /// Writes the SVG document, scaled to `width` pixels wide, into the output (which may stream).
    /// - Parameters:
    ///   - width: The picture's width in pixels, more than 0.
    ///   - out: The output.
    public func render(width: Double = 800, to out: inout ByteBuffer) {
        var box: (xMin: Double, yMin: Double, xMax: Double, yMax: Double)?
        func include(_ c: Coordinate) {
            if let b = box {
                box = (min(b.xMin, c.x), min(b.yMin, c.y), max(b.xMax, c.x), max(b.yMax, c.y))
            } else {
                box = (c.x, c.y, c.x, c.y)
            }
        }
        points.forEach(include)
        for b in buffers { for ring in b.rings { ring.forEach(include) } }
        if let a = areaOfUse { for ring in a.rings { ring.forEach(include) } }
        guard let box, box.xMax - box.xMin > 0 || box.yMax - box.yMin > 0 else {
            out.append("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n" as StaticString)
            return
        }
        let boxWidth = box.xMax - box.xMin, boxHeight = box.yMax - box.yMin
        let margin = 0.03 * max(boxWidth, boxHeight)
        let x0 = box.xMin - margin, y1 = box.yMax + margin
        let w = boxWidth + 2 * margin, h = boxHeight + 2 * margin
        let scale = width / w
        let height = (h * scale).rounded()
        func point(_ c: Coordinate, _ out: inout ByteBuffer) {
            out.appendFixed((c.x - x0) * scale, decimals: 2)
            out.append(UInt8(ascii: ","))
            out.appendFixed((y1 - c.y) * scale, decimals: 2)
        }
        func path(_ p: Polygon, _ out: inout ByteBuffer) {
            for ring in p.rings {
                for (i, c) in ring.enumerated() {
                    out.append(i == 0 ? UInt8(ascii: "M") : UInt8(ascii: "L"))
                    point(c, &out)
                }
                out.append(UInt8(ascii: "Z"))
                out.flushIfFull()
            }
        }
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" ")
        out.append("viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n<title>\(title.xmlEscaped)</title>\n")
        out.append("<rect width=\"100%\" height=\"100%\" fill=\"#f4f1ea\"/>\n" as StaticString)
        if let a = areaOfUse {
            out.append("<path d=\"" as StaticString)
            path(a, &out)
            out.append("\" fill=\"none\" stroke=\"#e00\" stroke-width=\"3\" stroke-dasharray=\"12 8\"/>\n" as StaticString)
        }
        for b in buffers {
            out.append("<path d=\"" as StaticString)
            path(b, &out)
            out.append("\" fill=\"#ffff00\" fill-opacity=\"0.6\" fill-rule=\"evenodd\" stroke=\"#34c759\" stroke-width=\"2\"/>\n"
                as StaticString)
        }
        for p in points {
            out.append("<circle cx=\"" as StaticString)
            out.appendFixed((p.x - x0) * scale, decimals: 2)
            out.append("\" cy=\"" as StaticString)
            out.appendFixed((y1 - p.y) * scale, decimals: 2)
            out.append("\" r=\"5\" fill=\"#e00\"/>\n" as StaticString)
        }
        out.append("</svg>\n" as StaticString)
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
