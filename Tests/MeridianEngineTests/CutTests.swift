import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// `cut(_:usingCutter:)` on hand-worked figures: which pieces are left and right of the cutter (ArcGIS's order:
/// left, right, then undefined pieces), with areas and lengths that follow from the figures.
@Suite("GeometryEngine: cut")
struct CutTests {
    static let sr = SpatialReference.unspecified

    static func line(_ xy: [(Double, Double)]) -> Polyline {
        Polyline(xy.map { Coordinate(x: $0.0, y: $0.1) }, spatialReference: sr)
    }

    static let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 0), Coordinate(x: 10, y: 10),
                                        Coordinate(x: 0, y: 10)], spatialReference: sr)

    static func area(_ g: Geometry) throws -> Double { try GeometryEngine.area(of: g) }

    /// A cutter going north along x = 4: the west part (area 40) is on its left, the east (60) on its right;
    /// reversed, the two swap.
    @Test func aStraightCutterSplitsLeftAndRight() throws {
        let north = try GeometryEngine.cut(Self.square, usingCutter: Self.line([(4, -1), (4, 11)]))
        #expect(north.count == 2)
        #expect(abs(try Self.area(north[0]) - 40) < 1e-9)
        #expect(abs(try Self.area(north[1]) - 60) < 1e-9)
        #expect(north[0].coordinates.allSatisfy { $0.x <= 4 })
        let south = try GeometryEngine.cut(Self.square, usingCutter: Self.line([(4, 11), (4, -1)]))
        #expect(abs(try Self.area(south[0]) - 60) < 1e-9)
        #expect(abs(try Self.area(south[1]) - 40) < 1e-9)
    }

    /// East along y = 2, up, then west along y = 8: the middle band (60) is left of both crossings; the bottom and
    /// top bands (20 each) are right of them and come back as one geometry of two parts.
    @Test func aFoldedCutterGroupsPiecesBySide() throws {
        let pieces = try GeometryEngine.cut(Self.square, usingCutter: Self.line([(-1, 2), (11, 2), (11, 8), (-1, 8)]))
        #expect(pieces.count == 2)
        #expect(abs(try Self.area(pieces[0]) - 60) < 1e-9)
        #expect(abs(try Self.area(pieces[1]) - 40) < 1e-9)
        if case .polygon(let right) = pieces[1] { #expect(right.parts.count == 2) } else { Issue.record("not a polygon") }
    }

    @Test func aCutterThatDoesNotCrossCutsNothing() throws {
        #expect(try GeometryEngine.cut(Self.square, usingCutter: Self.line([(20, 0), (20, 10)])).isEmpty)
        #expect(try GeometryEngine.cut(Self.square, usingCutter: Self.line([(5, -1), (5, 5)])).isEmpty)  // stops inside
        #expect(try GeometryEngine.cut(Self.line([(0, 0), (10, 0)]), usingCutter: Self.line([(0, 5), (10, 5)])).isEmpty)
    }

    /// A line along +x cut by a cutter going north at x = 5: the west half is on the cutter's left.
    @Test func aPolylineIsCutAtTheCrossing() throws {
        let pieces = try GeometryEngine.cut(Self.line([(0, 0), (10, 0)]), usingCutter: Self.line([(5, -1), (5, 1)]))
        #expect(pieces.count == 2)
        #expect(Set(pieces[0].coordinates.map(\.x)) == [0, 5])
        #expect(Set(pieces[1].coordinates.map(\.x)) == [5, 10])
        #expect(abs(try GeometryEngine.length(of: pieces[0]) - 5) < 1e-12)
    }

    @Test func pointsAndMixedSpatialReferencesAreRefused() {
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.cut(Point(x: 0, y: 0, spatialReference: Self.sr), usingCutter: Self.line([(0, 0), (1, 1)]))
        }
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.cut(Self.square,
                                       usingCutter: Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 1)], spatialReference: .webMercator))
        }
    }
}
