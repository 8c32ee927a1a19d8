import Foundation
import Meridian

/// An x/y pair as the API exchanges it: `{"x": 1.5, "y": 2}`.
public struct XY: Codable, Sendable, Hashable {
    /// Easting (or longitude).
    public var x: Double
    /// Northing (or latitude).
    public var y: Double

    /// Creates a pair.
    /// - Parameters:
    ///   - x: Easting in the layer's projected unit (or longitude in degrees, [-180, 180]).
    ///   - y: Northing in the layer's projected unit (or latitude in degrees, [-90, 90]).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The pair as a coordinate.
    public var coordinate: Coordinate { Coordinate(x: x, y: y) }
}

/// Writes geometry JSON by hand: polygons with thousands of vertices are the bulk of the API's answers and
/// `JSONEncoder` is several times slower on them. Numbers are rounded to `decimals` places.
struct JSONWriter {
    private(set) var text = ""
    let scale: Double

    init(decimals: Int, capacity: Int = 1024) {
        scale = pow(10, Double(max(0, min(decimals, 9))))
        text.reserveCapacity(capacity)
    }

    mutating func raw(_ s: String) { text += s }

    mutating func number(_ v: Double) {
        guard v.isFinite else { text += "null"; return }
        let r = (v * scale).rounded() / scale
        if r == r.rounded(), abs(r) < 1e15 { text += String(Int64(r)) } else { text += "\(r)" }
    }

    mutating func string(_ s: String) {
        text += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where u.value < 0x20: text += String(format: "\\u%04x", u.value)
            default: text.unicodeScalars.append(u)
            }
        }
        text += "\""
    }

    /// `[[x,y],[x,y],…]`
    mutating func ring(_ ring: [Coordinate]) {
        text += "["
        for (i, c) in ring.enumerated() {
            if i > 0 { text += "," }
            text += "["
            number(c.x)
            text += ","
            number(c.y)
            text += "]"
        }
        text += "]"
    }

    /// `{"parts":[{"shell":ring,"holes":[ring,…]},…]}`
    mutating func polygon(_ p: Polygon) {
        text += "{\"parts\":["
        for (i, part) in p.parts.enumerated() {
            if i > 0 { text += "," }
            text += "{\"shell\":"
            ring(part.shell)
            text += ",\"holes\":["
            for (j, h) in part.holes.enumerated() {
                if j > 0 { text += "," }
                ring(h)
            }
            text += "]}"
        }
        text += "]}"
    }

    var data: Data { Data(text.utf8) }
}
