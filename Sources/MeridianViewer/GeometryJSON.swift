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

/// How many decimals an answer gives its numbers: each is rounded half away from zero to a multiple of
/// 10^−`decimals` (`(v · 10^decimals).rounded() / 10^decimals`) and then written as the shortest decimal that reads
/// back as that double (`ViewerJSON`), e.g. 1234.5 for 1234.4999 at 2 decimals.
struct Decimals: Sendable {
    /// 10^decimals.
    let scale: Double

    /// Rounding to `decimals` places, 0…9.
    init(_ decimals: Int) { scale = pow(10, Double(max(0, min(decimals, 9)))) }

    /// The value rounded (a non-finite one stays so, and is refused when written).
    func callAsFunction(_ v: Double) -> Double { (v * scale).rounded() / scale }

    /// Centimetres (or hundredths of a foot): the answers drawn on the pages, buffers and opened KML.
    static let drawn = Decimals(2)
    /// Millimetres (thousandths of a foot, of a degree): spatial reference descriptions.
    static let described = Decimals(3)
    /// Nine decimals (a nanomile, 1.6 µm; a nanofoot): the near table.
    static let tabulated = Decimals(9)
}

/// Coordinates as `[[x, y], …]`, rounded (`Decimals`). The bulk of the API's answers: encoded by `ViewerJSON`, the
/// numbers go straight into its buffer; any other encoder gets nested arrays of doubles.
struct CoordinateList: Encodable {
    let coordinates: [Coordinate]
    let decimals: Decimals

    func encode(to encoder: Encoder) throws {
        if let node = encoder as? ViewerJSON.Node {
            try node.writer.coordinates(coordinates, decimals, codingPath: node.codingPath)
            return
        }
        var list = encoder.unkeyedContainer()
        for c in coordinates {
            var pair = list.nestedUnkeyedContainer()
            try pair.encode(decimals(c.x))
            try pair.encode(decimals(c.y))
        }
    }
}

/// A polygon as the buffers page draws it: `{"parts": [{"shell": [[x, y], …], "holes": [[[x, y], …], …]}, …]}`.
struct PolygonJSON: Encodable {
    /// One outer ring and its holes.
    struct Part: Encodable {
        let shell: CoordinateList
        let holes: [CoordinateList]
    }

    let parts: [Part]

    /// The polygon's parts, rounded.
    init(_ polygon: Polygon, _ decimals: Decimals) {
        parts = polygon.parts.map { part in
            Part(shell: CoordinateList(coordinates: part.shell, decimals: decimals),
                 holes: part.holes.map { CoordinateList(coordinates: $0, decimals: decimals) })
        }
    }
}

extension ViewerJSON.Writer {
    /// `[[x, y], …]` rounded, written directly.
    func coordinates(_ list: [Coordinate], _ decimals: Decimals, codingPath: [CodingKey]) throws {
        bytes.append(UInt8(ascii: "["))
        for (i, c) in list.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            try number(decimals(c.x), codingPath: codingPath)
            bytes.append(UInt8(ascii: ","))
            try number(decimals(c.y), codingPath: codingPath)
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
