import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Worst errors seen over a set of buffers (printed in the test log).
struct BufferStats: CustomStringConvertible {
    var buffers = 0
    var vertices = 0
    var edges = 0
    /// Largest |geodesic distance − requested| at a vertex, meters.
    var worstVertexError = 0.0
    /// Largest |geodesic distance − requested| sampled along an edge, meters.
    var worstEdgeDeviation = 0.0
    /// Largest edge deviation as a fraction of maxDeviation.
    var worstEdgeRatio = 0.0
    /// Vertices that could be removed without breaking maxDeviation.
    var removable = 0
    var removableCandidates = 0

    var description: String {
        String(format: "%d buffers, %d vertices, %d edges: worst vertex error %.3e m, worst edge deviation %.6g m (%.4f of maxDeviation), removable vertices %d of %d",
               buffers, vertices, edges, worstVertexError, worstEdgeDeviation, worstEdgeRatio, removable, removableCandidates)
    }
}

/// Independent checks of a geodesic buffer: every distance is a fresh `geod_inverse` (PROJ) from a sampled point to
/// the input, never the buffer code's own evaluation.
enum BufferChecks {
    static let wgs84 = Geodesic(.wgs84)

    /// Whether an edge lies on a cut line (±180° longitude or ±90° latitude).
    static func isCut(_ a: Coordinate, _ b: Coordinate) -> Bool {
        (a.x == b.x && abs(a.x) == 180) || (a.y == b.y && abs(a.y) == 90)
    }

    /// Checks vertices (±1 mm), edges (sampled at 15 interior points, ≤ maxDeviation) and GEOS validity of each part;
    /// counts vertices whose removal would still meet maxDeviation.
    static func check(_ polygon: Polygon, required: Double, maxDeviation: Double, label: String,
                      stats: inout BufferStats, samplesPerEdge: Int = 15,
                      distance: (Coordinate) -> Double) throws {
        stats.buffers += 1
        for (p, part) in polygon.parts.enumerated() {
            let reason = try GeometryEngine.invalidityReason(Polygon(parts: [part], spatialReference: polygon.spatialReference))
            #expect(reason == nil, "\(label): part \(p) invalid: \(reason ?? "")")
            for ring in part.rings {
                #expect(ring.first == ring.last, "\(label): ring not closed")
                let n = ring.count - 1
                for i in 0..<n {
                    let v = ring[i], w = ring[i + 1]
                    if abs(v.y) != 90 {
                        let e = abs(distance(v) - required)
                        stats.vertices += 1
                        stats.worstVertexError = max(stats.worstVertexError, e)
                        #expect(e <= 1e-3, "\(label): vertex \(i) (\(v.x), \(v.y)) is \(e) m off")
                    }
                    guard !isCut(v, w) else { continue }
                    stats.edges += 1
                    var worst = 0.0
                    for k in 1...samplesPerEdge {
                        let t = Double(k) / Double(samplesPerEdge + 1)
                        let q = Coordinate(x: v.x + t * (w.x - v.x), y: v.y + t * (w.y - v.y))
                        worst = max(worst, abs(distance(q) - required))
                    }
                    stats.worstEdgeDeviation = max(stats.worstEdgeDeviation, worst)
                    stats.worstEdgeRatio = max(stats.worstEdgeRatio, worst / maxDeviation)
                    #expect(worst <= maxDeviation, "\(label): edge \(i) deviates \(worst) m > \(maxDeviation) m")
                }
                // Minimality: could vertex i go (its neighbours' chord still within maxDeviation)?
                guard n > 4 else { continue }
                for i in 0..<n {
                    let a = ring[(i + n - 1) % n], v = ring[i], b = ring[(i + 1) % n]
                    if [a, v, b].contains(where: { abs($0.x) == 180 || abs($0.y) == 90 }) { continue }
                    stats.removableCandidates += 1
                    var worst = 0.0
                    for k in 1...samplesPerEdge {
                        let t = Double(k) / Double(samplesPerEdge + 1)
                        let q = Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
                        worst = max(worst, abs(distance(q) - required))
                        if worst > maxDeviation { break }
                    }
                    if worst <= maxDeviation { stats.removable += 1 }
                }
            }
        }
    }

    /// The area of a longitude/latitude polygon as drawn (edges straight in degrees), by densifying every edge to
    /// pieces of at most 0.01° before PROJ's geodesic polygon area.
    static func drawnArea(_ polygon: Polygon) throws -> Double {
        let dense = Polygon(parts: polygon.parts.map { part in
            Polygon.Part(shell: densify(part.shell), holes: part.holes.map(densify))
        }, spatialReference: polygon.spatialReference)
        return try GeometryEngine.geodeticArea(of: dense)
    }

    static func densify(_ ring: [Coordinate]) -> [Coordinate] {
        var out: [Coordinate] = []
        for (a, b) in zip(ring, ring.dropFirst()) {
            let k = max(1, Int((max(abs(b.x - a.x), abs(b.y - a.y)) / 0.01).rounded(.up)))
            for j in 0..<k {
                let t = Double(j) / Double(k)
                out.append(Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y)))
            }
        }
        if let f = ring.first { out.append(f) }
        return out
    }

    /// The geodesic area (m²) and perimeter (m) of the true circle, from 7200 points of `geod_direct` joined by
    /// geodesics (relative area error ≈ (π/7200)²/3 ≈ 6e-7).
    static func circleArea(center: Coordinate, radius: Double) -> (area: Double, perimeter: Double) {
        var ring: [Coordinate] = []
        for k in 0..<7200 { ring.append(wgs84.move(center, azimuth: -Double(k) * 0.05, distance: radius)) }
        return wgs84.polygonArea(ring, signed: false)
    }

    /// The distance in meters from `p` to a geodesic segment, by a scan of 32 points then golden-section search on
    /// `geod_inverse` distances (independent of the buffer's own foot-point iteration).
    static func distance(from p: Coordinate, toSegment a: Coordinate, _ b: Coordinate) -> Double {
        let line = wgs84.line(from: a, to: b)
        let length = line.length
        let f: (Double) -> Double = { s in wgs84.distance(p, line.position(s).coordinate) }
        var bestK = 0
        var best = Double.infinity
        for k in 0...32 {
            let v = f(length * Double(k) / 32)
            if v < best { best = v; bestK = k }
        }
        var lo = length * Double(max(0, bestK - 1)) / 32, hi = length * Double(min(32, bestK + 1)) / 32
        let r = (5.0.squareRoot() - 1) / 2
        var x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo)
        var f1 = f(x1), f2 = f(x2)
        while hi - lo > 1e-5 {
            if f1 < f2 { hi = x2; x2 = x1; f2 = f1; x1 = hi - r * (hi - lo); f1 = f(x1) } else {
                lo = x1; x1 = x2; f1 = f2; x2 = lo + r * (hi - lo); f2 = f(x2)
            }
        }
        return min(best, f1, f2, f(0), f(length))
    }

    /// The distance from `p` to a polyline (list of vertices joined by geodesics).
    static func distance(from p: Coordinate, toPath path: [Coordinate]) -> Double {
        if path.count == 1 { return wgs84.distance(p, path[0]) }
        var best = Double.infinity
        for (a, b) in zip(path, path.dropFirst()) { best = min(best, distance(from: p, toSegment: a, b)) }
        return best
    }
}
