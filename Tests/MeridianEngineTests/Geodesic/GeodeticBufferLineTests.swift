import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// Geodesic buffers of polylines and polygons, checked with an independent distance (scan + golden-section search
/// of `geod_inverse` distances to points along each geodesic segment, to 1e-5 m along the segment): every vertex
/// within 1 mm of the requested distance, every sampled edge point within maxDeviation, every part valid.
@Suite struct GeodeticBufferLineTests {
    static let g = BufferChecks.wgs84

    static func randomPaths() -> [([Coordinate], Double)] {
        var rng = SplitMix64(seed: 7_000_001)
        var result: [([Coordinate], Double)] = []
        for i in 0..<9 {
            var lat = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
            var lon = Double.random(in: -180..<180, using: &rng)
            if i % 3 == 1 { lat = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 85...89.5, using: &rng) }
            if i % 3 == 2 { lon = 179.995 }
            let r = pow(10, Double.random(in: 1...6.3, using: &rng))  // 10 m … 2000 km
            let step = r * Double.random(in: 0.5...4, using: &rng)
            var path = [Coordinate(x: lon, y: lat)]
            var azimuth = Double.random(in: 0..<360, using: &rng)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                azimuth += Double.random(in: -120...120, using: &rng)
                let c = g.move(path.last!, azimuth: azimuth, distance: step)
                path.append(c)
            }
            result.append((path, r))
        }
        return result
    }

    @Test func randomPolylines() throws {
        var stats = BufferStats()
        for (i, (path, r)) in Self.randomPaths().enumerated() {
            let label = "line #\(i) \(path.map { "(\($0.x), \($0.y))" }) r \(r)"
            let line = Polyline(path, spatialReference: .wgs84)
            let b = try GeometryEngine.geodeticBuffer(around: line, distance: r)
            try BufferChecks.check(b, required: r, maxDeviation: 0.002 * r, label: label, stats: &stats, samplesPerEdge: 5) {
                BufferChecks.distance(from: $0, toPath: path)
            }
        }
        print("GEODESIC LINE BUFFERS: \(stats)")
    }

    @Test func polylineAcrossTheAntimeridianAndNearThePole() throws {
        var stats = BufferStats()
        let path = [Coordinate(x: 170, y: 60), Coordinate(x: -170, y: 62), Coordinate(x: -150, y: 86)]
        let r = 150_000.0
        let b = try GeometryEngine.geodeticBuffer(around: Polyline(path, spatialReference: .wgs84), distance: r)
        try BufferChecks.check(b, required: r, maxDeviation: 0.002 * r, label: "antimeridian line", stats: &stats, samplesPerEdge: 4) {
            BufferChecks.distance(from: $0, toPath: path)
        }
        #expect(b.parts.count == 2)
        // A line over the pole: its buffer contains the pole.
        let over = [Coordinate(x: 0, y: 88), Coordinate(x: 180, y: 88)]
        let p = try GeometryEngine.geodeticBuffer(around: Polyline(over, spatialReference: .wgs84), distance: 50_000)
        #expect(try GeometryEngine.isGeometry(p, intersecting: Point(latitude: 90, longitude: 0)))
        try BufferChecks.check(p, required: 50_000, maxDeviation: 100, label: "over the pole", stats: &stats, samplesPerEdge: 4) {
            BufferChecks.distance(from: $0, toPath: over)
        }
        print("GEODESIC LINE BUFFERS (antimeridian, pole): \(stats)")
    }

    @Test func polygonsGrowAndShrink() throws {
        var stats = BufferStats()
        // A 2°×2° square; a hole; a negative buffer; a triangle across the antimeridian (given with a crossing edge).
        let square = [Coordinate(x: 10, y: 40), Coordinate(x: 12, y: 40), Coordinate(x: 12, y: 42), Coordinate(x: 10, y: 42)]
        let hole = [Coordinate(x: 10.8, y: 40.8), Coordinate(x: 10.8, y: 41.2), Coordinate(x: 11.2, y: 41.2), Coordinate(x: 11.2, y: 40.8)]
        let polygon = Polygon(shell: square, holes: [hole], spatialReference: .wgs84)
        let rings = [Polygon.closed(square), Polygon.closed(hole)]
        func boundaryDistance(_ q: Coordinate) -> Double {
            rings.map { BufferChecks.distance(from: q, toPath: $0) }.min()!
        }
        for d in [20_000.0, -15_000.0, 5_000] {
            let b = try GeometryEngine.geodeticBuffer(around: polygon, distance: d)
            try BufferChecks.check(b, required: abs(d), maxDeviation: 0.002 * abs(d), label: "square d \(d)", stats: &stats,
                                   samplesPerEdge: 4, distance: boundaryDistance)
            let area = try GeometryEngine.geodeticArea(of: b)
            let original = try GeometryEngine.geodeticArea(of: polygon)
            #expect(d > 0 ? area > original : area < original)
        }
        // A 20 km buffer fills the 0.4° (≈ 40 km) hole; a 5 km one keeps a smaller hole.
        #expect(try GeometryEngine.geodeticBuffer(around: polygon, distance: 20_000).parts.allSatisfy { $0.holes.isEmpty })
        #expect(try GeometryEngine.geodeticBuffer(around: polygon, distance: 5_000).parts.contains { !$0.holes.isEmpty })
        // Shrunk to nothing.
        #expect(try GeometryEngine.geodeticBuffer(around: polygon, distance: -200_000).parts.isEmpty)

        let triangle = [Coordinate(x: 179, y: -10), Coordinate(x: -178, y: -10), Coordinate(x: 179.5, y: -7)]
        let t = try GeometryEngine.geodeticBuffer(around: Polygon(shell: triangle, spatialReference: .wgs84), distance: 30_000)
        let tring = Polygon.closed(triangle)
        try BufferChecks.check(t, required: 30_000, maxDeviation: 60, label: "triangle", stats: &stats, samplesPerEdge: 4) { q in
            BufferChecks.distance(from: q, toPath: tring)
        }
        #expect(t.parts.count == 2)
        print("GEODESIC POLYGON BUFFERS: \(stats)")
    }

    @Test func errors() throws {
        let line = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0)], spatialReference: .wgs84)
        #expect(throws: EngineError.self) { try GeometryEngine.geodeticBuffer(around: line, distance: -5) }
        #expect(throws: EngineError.self) { try GeometryEngine.geodeticBuffer(around: line, distance: 9_500_000) }
        #expect(throws: EngineError.self) { try GeometryEngine.geodeticBuffer(around: line, distance: .nan) }
        #expect(throws: EngineError.self) { try GeometryEngine.geodeticBuffer(around: line, distance: 100, maxDeviation: 0) }
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodeticBuffer(around: Point(latitude: 91, longitude: 0), distance: 100)
        }
        #expect(throws: EngineError.self) {
            try GeometryEngine.geodeticBuffer(around: [line, line], distances: [1, 2, 3], shouldUnion: false)
        }
    }
}
