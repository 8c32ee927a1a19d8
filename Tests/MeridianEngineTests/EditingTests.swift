import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// `extend(_:using:options:)`, `reshape(_:using:)` and `autoComplete(existingBoundaries:newBoundaries:)` on
/// hand-worked figures that follow ArcGIS's documented rules (the Runtime SDKs' GeometryEngine reference for extend
/// and autoComplete; the ArcGIS geometry service's Reshape rules for reshape): every expected coordinate and area
/// below is worked out from those rules by hand.
@Suite("GeometryEngine: extend, reshape, autoComplete")
struct EditingTests {
    static let sr = SpatialReference.unspecified

    static func line(_ parts: [[(Double, Double)]]) -> Polyline {
        Polyline(parts: parts.map { $0.map { Coordinate(x: $0.0, y: $0.1) } }, spatialReference: sr)
    }

    static func xy(_ l: Polyline?) -> [[[Double]]] { l?.parts.map { $0.map { [$0.x, $0.y] } } ?? [] }

    static let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 0), Coordinate(x: 10, y: 10),
                                        Coordinate(x: 0, y: 10)], spatialReference: sr)

    // MARK: extend

    /// The end at (5, 0) reaches the extender at x = 10; the start's ray (towards −x) misses it.
    @Test func extendsTheEndThatCanReach() throws {
        let r = try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: Self.line([[(10, -5), (10, 5)]]))
        #expect(Self.xy(r) == [[[0, 0], [5, 0], [10, 0]]])
    }

    /// Of two extender lines ahead (x = 20 and x = 10), the shortest extension wins; both ends extend when both
    /// rays meet the extender; relocateEnds moves the ends instead of adding vertices.
    @Test func shortestExtensionBothEndsAndRelocation() throws {
        let extender = Self.line([[(20, -5), (20, 5)], [(10, -5), (10, 5)], [(-3, -5), (-3, 5)]])
        let added = try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: extender)
        #expect(Self.xy(added) == [[[-3, 0], [0, 0], [5, 0], [10, 0]]])
        let moved = try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: extender, options: .relocateEnds)
        #expect(Self.xy(moved) == [[[-3, 0], [10, 0]]])
        let startOnly = try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: extender,
                                                  options: [.doNotExtendFromEndPoint])
        #expect(Self.xy(startOnly) == [[[-3, 0], [0, 0], [5, 0]]])
        #expect(try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: extender,
                                          options: [.doNotExtendFromEndPoint, .doNotExtendFromStartPoint]) == nil)
    }

    /// The ray follows the last segment, not the line's overall direction: (0,0)→(4,0)→(5,1) extends along 45°.
    @Test func alongTheLastSegment() throws {
        let r = try GeometryEngine.extend(Self.line([[(0, 0), (4, 0), (5, 1)]]), using: Self.line([[(0, 6), (20, 6)]]),
                                          options: .doNotExtendFromStartPoint)
        #expect(Self.xy(r) == [[[0, 0], [4, 0], [5, 1], [10, 6]]])
    }

    /// Ends shared by two paths stay; an end already on the extender stays; a collinear extender is met at its
    /// near end; nothing to extend gives nil.
    @Test func sharedEndsCollinearAndNothing() throws {
        let extender = Self.line([[(-3, -5), (-3, 5)], [(5, 9), (5, 12)]])
        let twoPaths = Self.line([[(0, 0), (5, 0)], [(5, 0), (5, 5)]])
        let r = try GeometryEngine.extend(twoPaths, using: extender)
        #expect(Self.xy(r) == [[[-3, 0], [0, 0], [5, 0]], [[5, 0], [5, 5], [5, 9]]])
        #expect(try GeometryEngine.extend(Self.line([[(0, 0), (10, 0)]]), using: Self.line([[(10, -1), (10, 1)]])) == nil)
        let collinear = try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: Self.line([[(12, 0), (7, 0)]]))
        #expect(Self.xy(collinear) == [[[0, 0], [5, 0], [7, 0]]])
        #expect(try GeometryEngine.extend(Self.line([[(0, 0), (5, 0)]]), using: Self.line([[(0, 3), (5, 3)]])) == nil)
    }

    /// z: extrapolated along the end segment by default, the end's own with keepEndAttributes, none with
    /// noEndAttributes; the two together are refused, as are operands in different spatial references.
    @Test func endAttributesAndErrors() throws {
        let l = Polyline([Coordinate(x: 0, y: 0, z: 0), Coordinate(x: 5, y: 0, z: 10)], spatialReference: Self.sr)
        let e = Self.line([[(10, -5), (10, 5)]])
        #expect(try GeometryEngine.extend(l, using: e)?.parts[0].last?.z == 20)
        #expect(try GeometryEngine.extend(l, using: e, options: .keepEndAttributes)?.parts[0].last?.z == 10)
        #expect(try GeometryEngine.extend(l, using: e, options: .noEndAttributes)?.parts[0].last?.z == nil)
        #expect(throws: EngineError.self) {
            try GeometryEngine.extend(l, using: e, options: [.keepEndAttributes, .noEndAttributes])
        }
        #expect(throws: EngineError.self) {
            try GeometryEngine.extend(l, using: Polyline(parts: e.parts, spatialReference: .webMercator))
        }
    }

    /// Inputs whose segment pairs would pass the limit (about a second of work) are refused before any work.
    @Test func segmentPairsAreBounded() {
        let long = Polyline((0...20_000).map { Coordinate(x: Double($0), y: 0) }, spatialReference: Self.sr)
        let other = Polyline((0...10_001).map { Coordinate(x: Double($0), y: 1 + Double($0 % 2)) }, spatialReference: Self.sr)
        #expect(throws: EngineError.self) { try GeometryEngine.reshape(long, using: other) }
        let manyParts = Polyline(parts: (0..<20_000).map { [Coordinate(x: 0, y: Double($0)), Coordinate(x: 1, y: Double($0))] },
                                 spatialReference: Self.sr)
        #expect(throws: EngineError.self) { try GeometryEngine.extend(manyParts, using: other) }
    }

    // MARK: reshape

    /// The reshaper (7,−1)→(13,5)→(7,11) meets the square first at (8, 0) and last at (8, 10); the longer
    /// piece of the ring (through the west side, 36 long against 14) stays and the reshaper closes it: the
    /// pentagon (0,0), (8,0), (13,5), (8,10), (0,10), area 80 + 25.
    @Test func polygonKeepsTheLongerPieceOfItsRing() throws {
        let r = try #require(try GeometryEngine.reshape(Self.square, using: Self.line([[(7, -1), (13, 5), (7, 11)]])))
        #expect(abs(try GeometryEngine.area(of: r) - 105) < 1e-9)
        let vertices = Set(r.parts[0].shell.map { [$0.x, $0.y] })
        #expect(vertices == [[0, 0], [8, 0], [13, 5], [8, 10], [0, 10]])
        // A corner cut: (8,−1)→(11,2) meets at (9, 0) and (10, 1); the longer piece is all but the corner.
        let corner = try #require(try GeometryEngine.reshape(Self.square, using: Self.line([[(8, -1), (11, 2)]])))
        #expect(abs(try GeometryEngine.area(of: corner) - 99.5) < 1e-9)
        // One point of contact is not a reshape.
        #expect(try GeometryEngine.reshape(Self.square, using: Self.line([[(5, -1), (5, 5)]])) == nil)
    }

    /// (0,0)→(10,0) with the reshaper (2,−1)→(2,1)→(6,1)→(6,−1): the line between (2,0) and (6,0) is replaced by
    /// the reshaper's piece; a reversed reshaper gives the same line (the line's direction is kept).
    @Test func polylineReplacesTheStretchBetweenTheExtremeIntersections() throws {
        let expected: [[[Double]]] = [[[0, 0], [2, 0], [2, 1], [6, 1], [6, 0], [10, 0]]]
        let reshaper = [(2.0, -1.0), (2.0, 1.0), (6.0, 1.0), (6.0, -1.0)]
        #expect(Self.xy(try GeometryEngine.reshape(Self.line([[(0, 0), (10, 0)]]), using: Self.line([reshaper]))) == expected)
        #expect(Self.xy(try GeometryEngine.reshape(Self.line([[(0, 0), (10, 0)]]),
                                                   using: Self.line([reshaper.reversed()]))) == expected)
        // Across paths: the first path up to (3,0), the reshaper, the second path from (7,0) become one path.
        let two = Self.line([[(0, 0), (4, 0)], [(6, 0), (10, 0)]])
        let joined = try GeometryEngine.reshape(two, using: Self.line([[(3, -1), (3, 1), (7, 1), (7, -1)]]))
        #expect(Self.xy(joined) == [[[0, 0], [3, 0], [3, 1], [7, 1], [7, 0], [10, 0]]])
        #expect(throws: EngineError.self) {
            try GeometryEngine.reshape(Self.line([[(0, 0), (10, 0)]]), using: Self.line([[(0, 1), (1, 1)], [(2, 1), (3, 1)]]))
        }
    }

    // MARK: autoComplete

    /// Two squares 10 apart and two lines bridging them at y = 2 and y = 8 close one gap: the 10 × 6 rectangle
    /// between them. A third polygon the lines do not touch takes no part; a line dangling into the gap makes
    /// the face overlap a polyline, so there is no new polygon (ArcGIS: new polygons overlap no polyline).
    @Test func fillsTheClosedGap() throws {
        let east = Polygon(shell: [Coordinate(x: 20, y: 0), Coordinate(x: 30, y: 0), Coordinate(x: 30, y: 10),
                                   Coordinate(x: 20, y: 10)], spatialReference: Self.sr)
        let far = Polygon(shell: [Coordinate(x: 100, y: 0), Coordinate(x: 110, y: 0), Coordinate(x: 110, y: 10)],
                          spatialReference: Self.sr)
        let bridges = Self.line([[(10, 2), (20, 2)], [(10, 8), (20, 8)]])
        let made = try GeometryEngine.autoComplete(existingBoundaries: [Self.square, east, far], newBoundaries: [bridges])
        #expect(made.count == 1)
        #expect(abs(try GeometryEngine.area(of: made[0]) - 60) < 1e-9)
        #expect(Set(made[0].parts[0].shell.map { [$0.x, $0.y] }) == [[10, 2], [20, 2], [20, 8], [10, 8]])
        let dangle = Self.line([[(10, 2), (20, 2)], [(10, 8), (20, 8)], [(15, 2), (15, 5)]])
        #expect(try GeometryEngine.autoComplete(existingBoundaries: [Self.square, east], newBoundaries: [dangle]).isEmpty)
        #expect(try GeometryEngine.autoComplete(existingBoundaries: [Self.square, east],
                                                newBoundaries: [Self.line([[(10, 2), (20, 2)]])]).isEmpty)
        #expect(try GeometryEngine.autoComplete(existingBoundaries: [], newBoundaries: [bridges]).isEmpty)
        // A hole of a polygon the lines touch is a closed empty area, but none of its edges is a line's: not new.
        let holed = Polygon(shell: Self.square.parts[0].shell, holes: [[Coordinate(x: 2, y: 2), Coordinate(x: 2, y: 4),
                                                                        Coordinate(x: 4, y: 4), Coordinate(x: 4, y: 2)]],
                            spatialReference: Self.sr)
        #expect(try GeometryEngine.autoComplete(existingBoundaries: [holed, east], newBoundaries: [bridges]).count == 1)
        // The same hole closed off by a line across it: two new polygons in it.
        let across = try GeometryEngine.autoComplete(existingBoundaries: [holed], newBoundaries: [Self.line([[(2, 3), (4, 3)]])])
        #expect(across.count == 2)
        #expect(try across.map { try GeometryEngine.area(of: $0) } == [2, 2])
    }
}
