import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

@Suite struct GeodeticSmokeTests {
    @Test func smoke() throws {
        for (lat, lon, d) in [(0.0, 0.0, 1000.0), (89.5, 10.0, 100_000.0), (10.0, 179.99, 50_000.0), (90.0, 0.0, 1000.0), (0.0, 0.0, 15_000_000.0)] {
            let p = try GeometryEngine.geodeticBuffer(around: Point(latitude: lat, longitude: lon), distance: d)
            print("lat \(lat) lon \(lon) d \(d): parts \(p.parts.count) vertices \(p.vertexCount)")
            for part in p.parts { print("  ", part.shell.prefix(4).map { "(\($0.x), \($0.y))" }.joined(separator: " ")) }
        }
        let line = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 1), Coordinate(x: 2, y: 0)], spatialReference: .wgs84)
        let b = try GeometryEngine.geodeticBuffer(around: line, distance: 20_000)
        print("line: parts \(b.parts.count) vertices \(b.vertexCount)")
        let poly = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: 1), Coordinate(x: 0, y: 1)], spatialReference: .wgs84)
        let pb = try GeometryEngine.geodeticBuffer(around: poly, distance: -20_000)
        print("poly -20km: parts \(pb.parts.count) vertices \(pb.vertexCount)")
    }
}
