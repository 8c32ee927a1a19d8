import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// `normalizeCentralMeridian(of:)` on hand-worked figures: whole turns of 360° (or 2πa in Web Mercator) moved, and
/// geometries across ±180° cut there. Coordinates are whole degrees, so moved vertices are exact.
@Suite("GeometryEngine: normalizeCentralMeridian")
struct CentralMeridianTests {
    static func square(_ x0: Double, _ x1: Double, sr: SpatialReference = .wgs84) -> Polygon {
        Polygon(shell: [Coordinate(x: x0, y: 0), Coordinate(x: x1, y: 0), Coordinate(x: x1, y: 10), Coordinate(x: x0, y: 10)],
                spatialReference: sr)
    }

    @Test func pointsMoveByWholeTurns() throws {
        #expect(try GeometryEngine.normalizeCentralMeridian(of: Point(latitude: 5, longitude: 190)).coordinates
                    == [Coordinate(x: -170, y: 5)])
        #expect(try GeometryEngine.normalizeCentralMeridian(of: Point(latitude: 5, longitude: -540)).coordinates
                    == [Coordinate(x: -180, y: 5)])
        #expect(try GeometryEngine.normalizeCentralMeridian(of: Point(latitude: 5, longitude: -190)).coordinates
                    == [Coordinate(x: 170, y: 5)])
        #expect(try GeometryEngine.normalizeCentralMeridian(of: Point(latitude: 5, longitude: 179)).coordinates
                    == [Coordinate(x: 179, y: 5)])
        let half = Double.pi * 6_378_137
        let mercator = Point(x: half + 1000, y: 0, spatialReference: .webMercator)
        let folded = try GeometryEngine.normalizeCentralMeridian(of: mercator).coordinates[0]
        #expect(abs(folded.x - (-half + 1000)) < 1e-6)
    }

    /// A 20° × 10° square from 170° to 190°: two 10° × 10° parts, one each side of ±180°, the area kept.
    @Test func aPolygonAcrossTheAntimeridianIsCut() throws {
        let folded = try GeometryEngine.normalizeCentralMeridian(of: Self.square(170, 190))
        guard case .polygon(let p) = folded else { Issue.record("not a polygon: \(folded)"); return }
        #expect(p.parts.count == 2)
        let xs = p.parts.map { part in Set(part.shell.map(\.x)) }
        #expect(Set(xs) == [[170, 180], [-180, -170]])
        #expect(abs(p.parts.reduce(0) { $0 + abs(Polygon.signedArea($1.shell)) } - 200) < 1e-9)  // in square degrees
        // Wholly in the next turn: moved, not cut.
        let moved = try GeometryEngine.normalizeCentralMeridian(of: Self.square(190, 200))
        #expect(Set(moved.coordinates.map(\.x)) == [-170, -160])
        // Already in range, touching +180: unchanged.
        let inside = Self.square(170, 180)
        #expect(try GeometryEngine.normalizeCentralMeridian(of: inside) == .polygon(inside))
    }

    @Test func aLineAcrossTheAntimeridianBecomesTwoParts() throws {
        let line = Polyline([Coordinate(x: 170, y: 0), Coordinate(x: 190, y: 10)], spatialReference: .wgs84)
        guard case .polyline(let l) = try GeometryEngine.normalizeCentralMeridian(of: line) else {
            Issue.record("not a line")
            return
        }
        #expect(l.parts.count == 2)
        #expect(l.parts.allSatisfy { part in part.allSatisfy { $0.x >= -180 && $0.x <= 180 } })
        let length = l.parts.reduce(0.0) { sum, part in
            sum + zip(part, part.dropFirst()).reduce(0.0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
        }
        #expect(abs(length - (400.0 + 100).squareRoot()) < 1e-9)  // in degrees
    }

    @Test func otherSpatialReferencesDoNotWrap() throws {
        let texas = try SpatialReference(wkid: 32038)
        let far = Point(x: 9e7, y: 0, spatialReference: texas)
        #expect(try GeometryEngine.normalizeCentralMeridian(of: far) == .point(far))
    }
}
