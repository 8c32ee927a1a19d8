import Foundation
import MeridianCore

extension GeometryEngine {
    /// The geometry folded into one turn of the world around the central meridian (ArcGIS
    /// `normalizeCentralMeridian(of:)`): x in [−180°, 180°) for geographic coordinates, in [−πa, πa) for Web Mercator
    /// (a = 6,378,137 m), as a map that wraps around the world needs. Vertices are moved by whole turns; a line or
    /// polygon that crosses ±180° is cut there (GEOS `clipByRect` per turn) and each piece moved into the range, so
    /// a polygon spanning 170°…190° becomes two parts, 170°…180° and −180°…−170° (polygon pieces are unioned,
    /// line pieces kept as separate parts). A geometry already in the range is returned as it is; an envelope
    /// becomes a polygon when it must be cut. Other spatial references do not wrap around: their geometries are
    /// returned unchanged.
    /// - Throws: `.invalidGeometry` for invalid polygons that must be cut, `.geos`.
    public static func normalizeCentralMeridian(of geometry: some GeometryConvertible) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        let half: Double
        if g.spatialReference.isGeographic {
            half = 180
        } else if g.spatialReference == .webMercator {
            half = Double.pi * 6_378_137
        } else {
            return g
        }
        let period = 2 * half
        /// The turn a coordinate lies in: 0 for [−half, half).
        func turn(_ x: Double) -> Double { ((x + half) / period).rounded(.down) }
        switch g {
        case .point, .multipoint:
            return g.mapCoordinates(into: g.spatialReference) { c in
                Coordinate(x: c.x - turn(c.x) * period, y: c.y, z: c.z)
            }
        case .polyline, .polygon, .envelope:
            guard let e = g.extent else { return g }
            // A geometry ending exactly at +half stays in turn 0 (its right edge is the range's end).
            let first = turn(e.xMin), last = ((e.xMax + half) / period).rounded(.up) - 1
            if last <= first { return first == 0 ? g : move(g, deltaX: -first * period, deltaY: 0) }
            var pieces: [Geometry] = []
            var k = first
            while k <= last {
                let window = Envelope(xMin: -half + k * period, yMin: e.yMin, xMax: half + k * period, yMax: e.yMax,
                                      spatialReference: g.spatialReference)
                let piece = try clip(g, to: window)
                if !piece.coordinates.isEmpty { pieces.append(move(piece, deltaX: -k * period, deltaY: 0)) }
                k += 1
            }
            if case .polyline(let l) = g {
                let parts = pieces.flatMap { piece -> [[Coordinate]] in
                    if case .polyline(let p) = piece { return p.parts }
                    return []
                }
                return .polyline(Polyline(parts: parts, spatialReference: l.spatialReference))
            }
            return pieces.isEmpty ? g : try union(of: pieces)
        }
    }
}
