import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// The topology, proximity and affine operations of `GeometryEngine`, checked against values worked out by
/// hand on small figures (unit squares, axis-parallel lines), so that no answer comes from GEOS itself. Coordinates
/// are small whole numbers: every expected value is exact in binary, and the tolerances (1e-12) only absorb the
/// rounding of a few additions and of sin/cos.
@Suite("GeometryEngine: topology operations, analytic")
struct TopologyOperationTests {
    static let sr = SpatialReference.webMercator  // metres; used as a planar frame only

    static func square(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Polygon {
        Polygon(shell: [Coordinate(x: x0, y: y0), Coordinate(x: x1, y: y0), Coordinate(x: x1, y: y1),
                        Coordinate(x: x0, y: y1)], spatialReference: sr)
    }

    static func line(_ xy: [(Double, Double)]) -> Polyline {
        Polyline(xy.map { Coordinate(x: $0.0, y: $0.1) }, spatialReference: sr)
    }

    static func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y, spatialReference: sr) }

    /// Even-odd ray casting over every ring: an independent inside test for the label point.
    static func inside(_ c: Coordinate, _ polygon: Polygon) -> Bool {
        var inside = false
        for ring in polygon.rings {
            for i in 0..<(ring.count - 1) {
                let (a, b) = (ring[i], ring[i + 1])
                if (a.y > c.y) != (b.y > c.y), c.x < a.x + (c.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
            }
        }
        return inside
    }

    // MARK: intersections and clip

    /// Overlapping squares share a unit square; squares sharing an edge share a line of length 1; squares touching at
    /// a corner share one point; nothing of a lower dimension is dropped.
    @Test func intersectionsKeepEveryDimension() throws {
        let a = Self.square(0, 0, 2, 2)
        let overlap = try GeometryEngine.intersections(a, Self.square(1, 1, 3, 3))
        #expect(overlap.count == 1)
        if case .polygon(let p)? = overlap.first { #expect(abs(try GeometryEngine.area(of: p) - 1) < 1e-12) } else {
            Issue.record("overlap: \(overlap)")
        }
        let edge = try GeometryEngine.intersections(a, Self.square(2, 0, 3, 2))
        #expect(edge.count == 1)
        if case .polyline(let l)? = edge.first { #expect(abs(try GeometryEngine.length(of: l) - 2) < 1e-12) } else {
            Issue.record("edge: \(edge)")
        }
        let corner = try GeometryEngine.intersections(a, Self.square(2, 2, 3, 3))
        #expect(corner.count == 1)
        if case .multipoint(let m)? = corner.first { #expect(m.coordinates == [Coordinate(x: 2, y: 2)]) } else {
            Issue.record("corner: \(corner)")
        }
        // A line through a polygon: the part inside, a line of length 2.
        let mixed = try GeometryEngine.intersections(
            Self.line([(-1, 1), (5, 1)]), Self.square(0, 0, 2, 2))
        #expect(mixed.count == 1)
        if case .polyline(let l)? = mixed.first { #expect(abs(try GeometryEngine.length(of: l) - 2) < 1e-12) }
        #expect(try GeometryEngine.intersections(a, Self.square(5, 5, 6, 6)).isEmpty)
    }

    @Test func clipKeepsWhatIsInsideTheEnvelope() throws {
        let box = Envelope(xMin: 1, yMin: 1, xMax: 2, yMax: 3, spatialReference: Self.sr)
        let polygon = try GeometryEngine.clip(Self.square(0, 0, 4, 4), to: box)
        #expect(abs(try GeometryEngine.area(of: polygon) - 2) < 1e-12)
        let line = try GeometryEngine.clip(Self.line([(-1, 2), (5, 2)]), to: box)
        #expect(abs(try GeometryEngine.length(of: line) - 1) < 1e-12)
        #expect(try GeometryEngine.clip(Self.point(9, 9), to: box).coordinates.isEmpty)
        #expect(try GeometryEngine.clip(Self.point(1.5, 2), to: box).coordinates == [Coordinate(x: 1.5, y: 2)])
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.clip(Self.point(1, 1), to: Envelope(xMin: 0, yMin: 0, xMax: 1, yMax: 1, spatialReference: .wgs84))
        }
    }

    // MARK: hulls, boundaries, label points

    @Test func convexHullOfPointsLinesAndNothing() throws {
        let corners = Multipoint([Coordinate(x: 0, y: 0), Coordinate(x: 4, y: 0), Coordinate(x: 4, y: 3),
                                  Coordinate(x: 0, y: 3), Coordinate(x: 1, y: 1)], spatialReference: Self.sr)
        #expect(abs(try GeometryEngine.area(of: try GeometryEngine.convexHull(for: corners)) - 12) < 1e-12)
        guard case .polyline(let l) = try GeometryEngine.convexHull(for: Self.line([(0, 0), (1, 1), (3, 3)])) else {
            Issue.record("collinear vertices should give a line")
            return
        }
        #expect(abs(try GeometryEngine.length(of: l) - 3 * 2.0.squareRoot()) < 1e-12)
        guard case .point = try GeometryEngine.convexHull(for: Self.point(1, 2)) else {
            Issue.record("one point should give a point")
            return
        }
        let separate = try GeometryEngine.convexHull(for: [Self.square(0, 0, 1, 1).geometry, Self.square(3, 0, 4, 1).geometry],
                                                     shouldMerge: false)
        #expect(separate.count == 2)
        let merged = try GeometryEngine.convexHull(for: [Self.square(0, 0, 1, 1).geometry, Self.square(3, 0, 4, 1).geometry],
                                                   shouldMerge: true)
        #expect(merged.count == 1)
        #expect(abs(try GeometryEngine.area(of: merged[0]) - 4) < 1e-12)
        // Nothing has an empty hull (as in GEOS); empty geometries add nothing to a merged hull.
        let none = try GeometryEngine.convexHull(for: Multipoint([], spatialReference: Self.sr))
        #expect(none.coordinates.isEmpty && none.typeName == "Polygon" && none.spatialReference == Self.sr)
        let withEmpty = try GeometryEngine.convexHull(
            for: [Self.square(0, 0, 1, 1).geometry, .multipoint(Multipoint([], spatialReference: Self.sr))], shouldMerge: true)
        #expect(abs(try GeometryEngine.area(of: withEmpty[0]) - 1) < 1e-12)
        let each = try GeometryEngine.convexHull(
            for: [Self.square(0, 0, 1, 1).geometry, .multipoint(Multipoint([], spatialReference: Self.sr))], shouldMerge: false)
        #expect(each.count == 2 && each[1].coordinates.isEmpty)
    }

    @Test func boundaryFollowsTheOGCRule() throws {
        let rings = try GeometryEngine.boundary(of: Self.square(0, 0, 2, 1))
        guard case .polyline(let outline) = rings else { Issue.record("polygon boundary: \(rings)"); return }
        #expect(abs(try GeometryEngine.length(of: outline) - 6) < 1e-12)
        guard case .multipoint(let ends) = try GeometryEngine.boundary(of: Self.line([(0, 0), (1, 0), (1, 1)])) else {
            Issue.record("line boundary should be points")
            return
        }
        #expect(Set(ends.coordinates.map { [$0.x, $0.y] }) == [[0, 0], [1, 1]])
        let closed = try GeometryEngine.boundary(of: Self.line([(0, 0), (1, 0), (1, 1), (0, 0)]))
        #expect(closed.coordinates.isEmpty)
        #expect(try GeometryEngine.boundary(of: Self.point(1, 1)).coordinates.isEmpty)
    }

    /// A U shape, whose centroid (x = 1.5 in the notch) lies outside it: the label point must still be inside.
    @Test func labelPointLiesInsideAConcavePolygon() throws {
        let u = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 3, y: 0), Coordinate(x: 3, y: 3),
                                Coordinate(x: 2, y: 3), Coordinate(x: 2, y: 1), Coordinate(x: 1, y: 1),
                                Coordinate(x: 1, y: 3), Coordinate(x: 0, y: 3)], spatialReference: Self.sr)
        #expect(!Self.inside(Coordinate(x: 1.5, y: 2), u))  // the notch: the test's inside check works
        let label = try GeometryEngine.labelPoint(for: u)
        #expect(Self.inside(label.coordinate, u), "\(label)")
        #expect(throws: EngineError.self) { _ = try GeometryEngine.labelPoint(for: Polygon(parts: [], spatialReference: Self.sr)) }
    }

    // MARK: densify, generalize, simplify

    /// A 10-long segment with at most 3 per piece splits into ⌈10/3⌉ = 4 equal pieces of 2.5.
    @Test func densifySplitsIntoTheFewestEqualPieces() throws {
        let l = try GeometryEngine.densify(Self.line([(0, 0), (10, 0)]), maxSegmentLength: 3)
        #expect(l.parts[0].map(\.x) == [0, 2.5, 5, 7.5, 10])
        let square = try GeometryEngine.densify(Self.square(0, 0, 10, 10), maxSegmentLength: 3)
        #expect(square.vertexCount == 4 * 4 + 1)
        #expect(abs(try GeometryEngine.area(of: square) - 100) < 1e-12)
        #expect(try GeometryEngine.densify(Self.point(1, 1), maxSegmentLength: 1) == Self.point(1, 1))
        for bad in [0.0, -1, .nan, .infinity] {
            #expect(throws: EngineError.self) { _ = try GeometryEngine.densify(Self.line([(0, 0), (1, 0)]), maxSegmentLength: bad) }
        }
    }

    /// A zigzag of amplitude 0.1 around y = 0: a deviation of 0.5 leaves the two ends, 0.05 keeps every vertex.
    @Test func generalizeRemovesVerticesWithinTheDeviation() throws {
        let zigzag = Self.line((0...10).map { (Double($0), $0 % 2 == 0 ? 0 : 0.1) })
        let coarse = try GeometryEngine.generalize(zigzag, maxDeviation: 0.5, removeDegenerateParts: false)
        #expect(coarse.parts == [[Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 0)]])
        let fine = try GeometryEngine.generalize(zigzag, maxDeviation: 0.05, removeDegenerateParts: false)
        #expect(fine.parts.map(\.count) == [11])
        // A part whose vertices all coincide collapses: kept as its ends, or dropped.
        let dot = Polyline(parts: [[Coordinate(x: 5, y: 5), Coordinate(x: 5, y: 5)], [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0)]],
                           spatialReference: Self.sr)
        let dropped = try GeometryEngine.generalize(dot, maxDeviation: 1, removeDegenerateParts: true)
        #expect(dropped.parts == [[Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0)]])
        #expect(throws: EngineError.self) { _ = try GeometryEngine.generalize(zigzag, maxDeviation: -1, removeDegenerateParts: true) }
    }

    /// A bow tie (0,0)-(2,2)-(2,0)-(0,2) is not simple; simplified it is two triangles of area 1 each.
    @Test func simplifyRepairsABowTieAndDropsRepeats() throws {
        let bowTie = Polygon(parts: [Polygon.Part(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 2, y: 2), Coordinate(x: 2, y: 0),
                                                          Coordinate(x: 0, y: 2), Coordinate(x: 0, y: 0)])],
                             spatialReference: Self.sr)
        #expect(try !GeometryEngine.isSimple(bowTie))
        let p = try GeometryEngine.simplify(bowTie)
        #expect(try GeometryEngine.isSimple(p))
        #expect(p.parts.count == 2)
        #expect(abs(try GeometryEngine.area(of: p) - 2) < 1e-12)
        let repeated = Self.line([(0, 0), (0, 0), (1, 0), (1, 0), (2, 0)])
        #expect(try GeometryEngine.simplify(repeated).parts.map(\.count) == [3])
        let points = Multipoint([Coordinate(x: 1, y: 1), Coordinate(x: 2, y: 2), Coordinate(x: 1, y: 1)], spatialReference: Self.sr)
        #expect(try GeometryEngine.simplify(points).coordinates == [Coordinate(x: 1, y: 1), Coordinate(x: 2, y: 2)])
        #expect(try GeometryEngine.isSimple(Self.square(0, 0, 1, 1)))
    }

    // MARK: offset

    /// ArcGIS's sides: along +x, a positive offset is to the right (y < 0), a negative one to the left.
    @Test func offsetOfALineTakesArcGISSides() throws {
        let right: Polyline = try GeometryEngine.offset(Self.line([(0, 0), (10, 0)]), byDistance: 2, offsetType: .mitered, flattenError: 0.01)
        #expect(right.parts.count == 1)
        #expect(Set(right.parts.joined().map { [$0.x, $0.y] }) == [[0, -2], [10, -2]])
        let left = try GeometryEngine.offset(Self.line([(0, 0), (10, 0)]), byDistance: -2, offsetType: .mitered, flattenError: 0.01)
        #expect(Set(left.parts.joined().map { [$0.x, $0.y] }) == [[0, 2], [10, 2]])
        // Held as a Geometry, the same line comes back as a Geometry.
        #expect(try GeometryEngine.offset(Self.line([(0, 0), (10, 0)]).geometry, byDistance: 2, offsetType: .mitered,
                                          flattenError: 0.01).polyline == right)
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.offset(Self.point(0, 0), byDistance: 1, offsetType: .rounded, flattenError: 0.01)
        }
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.offset(Self.line([(0, 0), (1, 0)]), byDistance: 0, offsetType: .rounded, flattenError: 0.01)
        }
    }

    /// A 10 × 10 square grown by 1: mitred corners give the 12 × 12 square (144); bevelled corners cut a right
    /// triangle of area ½ from each (142); rounded corners add quarter discs of radius 1 drawn with chords, between
    /// the discs of radius 1 − flattenError and 1 (140 + π(0.99)² … 140 + π). Shrinking by 1 gives the 8 × 8 square.
    @Test func offsetOfAPolygonGrowsOrShrinksIt() throws {
        let square = Self.square(0, 0, 10, 10)
        let grown: Polygon = try GeometryEngine.offset(square, byDistance: 1, offsetType: .mitered, flattenError: 0.01)
        let mitred = try GeometryEngine.area(of: grown)
        #expect(abs(mitred - 144) < 1e-9)
        let bevelled = try GeometryEngine.area(of: try GeometryEngine.offset(square, byDistance: 1, offsetType: .bevelled, flattenError: 0.01))
        #expect(abs(bevelled - 142) < 1e-9)
        let rounded = try GeometryEngine.area(of: try GeometryEngine.offset(square, byDistance: 1, offsetType: .rounded, flattenError: 0.01))
        #expect(rounded <= 140 + .pi + 1e-9 && rounded >= 140 + .pi * 0.99 * 0.99, "\(rounded)")
        let shrunk = try GeometryEngine.area(of: try GeometryEngine.offset(square, byDistance: -1, offsetType: .mitered, flattenError: 0.01))
        #expect(abs(shrunk - 64) < 1e-9)
    }

    // MARK: proximity

    @Test func nearestCoordinateAndVertex() throws {
        let l = Self.line([(0, 0), (10, 0), (10, 10)])
        let onSegment = try #require(try GeometryEngine.nearestCoordinate(in: l, to: Self.point(3, 4)))
        #expect(onSegment.coordinate.coordinate == Coordinate(x: 3, y: 0) && onSegment.distance == 4)
        #expect(onSegment.partIndex == 0 && onSegment.pointIndex == 0)
        let second = try #require(try GeometryEngine.nearestCoordinate(in: l, to: Self.point(13, 6)))
        #expect(second.coordinate.coordinate == Coordinate(x: 10, y: 6) && second.distance == 3 && second.pointIndex == 1)
        let vertex = try #require(try GeometryEngine.nearestVertex(in: l, to: Self.point(3, 4)))
        #expect(vertex.coordinate.coordinate == Coordinate(x: 0, y: 0) && vertex.distance == 5 && vertex.pointIndex == 0)
        // Inside a polygon: the nearest place on its boundary.
        let inside = try #require(try GeometryEngine.nearestCoordinate(in: Self.square(0, 0, 10, 10), to: Self.point(5, 1)))
        #expect(inside.coordinate.coordinate == Coordinate(x: 5, y: 0) && inside.distance == 1)
        #expect(try GeometryEngine.nearestCoordinate(in: Multipoint([], spatialReference: Self.sr), to: Self.point(0, 0)) == nil)
        #expect(throws: EngineError.self) { _ = try GeometryEngine.nearestVertex(in: l, to: Point(latitude: 0, longitude: 0)) }
    }

    // MARK: extents and affine transformations

    @Test func combineExtentsSpansEveryGeometry() throws {
        let e = try GeometryEngine.combineExtents(Self.point(-1, 2), Self.square(3, -4, 5, 0))
        #expect([e.xMin, e.yMin, e.xMax, e.yMax] == [-1, -4, 5, 2])
        #expect(throws: EngineError.self) {
            _ = try GeometryEngine.combineExtents(of: [Multipoint([], spatialReference: Self.sr)])
        }
        #expect(throws: EngineError.self) { _ = try GeometryEngine.combineExtents(Self.point(0, 0), Point(latitude: 0, longitude: 0)) }
    }

    /// The typed forms give back the input's type, holes and parts kept: a 4 × 4 square with a unit hole moved by
    /// (1, −2); a segment turned 90°; two points scaled ×2 about their centre; the square densified to pieces of 1
    /// (⌈4/1⌉ = 4 per side, the hole's unit sides untouched) and generalized (a vertex 0.01 off the bottom edge goes).
    @Test func typedOperationsKeepTheType() throws {
        let hole = [Coordinate(x: 1, y: 1), Coordinate(x: 1, y: 2), Coordinate(x: 2, y: 2), Coordinate(x: 2, y: 1),
                    Coordinate(x: 1, y: 1)]
        let holed = Polygon(parts: [Polygon.Part(shell: Self.square(0, 0, 4, 4).parts[0].shell, holes: [hole])],
                            spatialReference: Self.sr)
        let moved: Polygon = GeometryEngine.move(holed, deltaX: 1, deltaY: -2)
        #expect(moved.parts[0].holes[0] == hole.map { Coordinate(x: $0.x + 1, y: $0.y - 2) })
        #expect(moved.parts[0].shell[2] == Coordinate(x: 5, y: 2))
        let turned: Polyline = GeometryEngine.rotate(Self.line([(0, 0), (2, 0)]), by: 90, around: Self.point(0, 0))
        #expect(turned.parts.count == 1 && abs(turned.parts[0][1].x) < 1e-15 && abs(turned.parts[0][1].y - 2) < 1e-15)
        let pair = Multipoint([Coordinate(x: 1, y: 1), Coordinate(x: 3, y: 1)], spatialReference: Self.sr)
        let spread: Multipoint = GeometryEngine.scale(pair, factorX: 2, factorY: 1)
        #expect(spread.coordinates == [Coordinate(x: 0, y: 1), Coordinate(x: 4, y: 1)])
        let dense: Polygon = try GeometryEngine.densify(holed, maxSegmentLength: 1)
        #expect(dense.parts[0].shell.count == 4 * 4 + 1)
        #expect(dense.parts[0].holes.map(\.count) == [5])
        #expect(abs(try GeometryEngine.area(of: dense) - 15) < 1e-12)
        let dented = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 2, y: 0.01), Coordinate(x: 4, y: 0),
                                     Coordinate(x: 4, y: 4), Coordinate(x: 0, y: 4)], spatialReference: Self.sr)
        let plain: Polygon = try GeometryEngine.generalize(dented, maxDeviation: 0.1, removeDegenerateParts: true)
        #expect(plain.vertexCount == 5)
        #expect(abs(try GeometryEngine.area(of: plain) - 16) < 1e-12)
        let repeated = Multipoint([Coordinate(x: 1, y: 1), Coordinate(x: 1, y: 1)], spatialReference: Self.sr)
        let once: Multipoint = try GeometryEngine.simplify(repeated)
        #expect(once.coordinates == [Coordinate(x: 1, y: 1)])
        // Nothing in, nothing out, and of the same type (GEOS keeps the type of empty inputs).
        let empty = Polygon(parts: [], spatialReference: Self.sr)
        #expect(try GeometryEngine.densify(empty, maxSegmentLength: 1) == empty)
        #expect(try GeometryEngine.generalize(empty, maxDeviation: 1, removeDegenerateParts: true) == empty)
        #expect(try GeometryEngine.simplify(empty) == empty)
        let noLine = Polyline(parts: [], spatialReference: Self.sr)
        #expect(try GeometryEngine.densify(noLine, maxSegmentLength: 1) == noLine)
        #expect(try GeometryEngine.generalize(noLine, maxDeviation: 1, removeDegenerateParts: false) == noLine)
        #expect(try GeometryEngine.simplify(noLine) == noLine)
    }

    /// Envelopes: moved, still an envelope; rotated 90° about the origin, the polygon (0,0)-(0,2)-(−1,2)-(−1,0);
    /// scaled ×2, a polygon of 4 times the area; densified to pieces of 0.5, a polygon of 2·4 + 2·2 + 1 vertices.
    /// Wrapped in a `Geometry`, the envelope behaves the same (a `Geometry` comes back).
    @Test func envelopesBecomePolygonsExceptWhenMoved() throws {
        let box = Envelope(xMin: 0, yMin: 0, xMax: 2, yMax: 1, spatialReference: Self.sr)
        let turned: Polygon = GeometryEngine.rotate(box, by: 90, around: Self.point(0, 0))
        let expected = [(0.0, 0.0), (0, 2), (-1, 2), (-1, 0), (0, 0)]
        #expect(turned.parts[0].shell.count == 5)
        for (v, e) in zip(turned.parts[0].shell, expected) { #expect(abs(v.x - e.0) < 1e-15 && abs(v.y - e.1) < 1e-15) }
        let big: Polygon = GeometryEngine.scale(box, factorX: 2, factorY: 2)
        #expect(abs(try GeometryEngine.area(of: big) - 8) < 1e-12)
        let dense: Polygon = try GeometryEngine.densify(box, maxSegmentLength: 0.5)
        #expect(dense.vertexCount == 13)
        let simple: Polygon = try GeometryEngine.simplify(box)
        #expect(abs(try GeometryEngine.area(of: simple) - 2) < 1e-12)
        #expect(GeometryEngine.move(Geometry.envelope(box), deltaX: 1, deltaY: 1).envelope
            == Envelope(xMin: 1, yMin: 1, xMax: 3, yMax: 2, spatialReference: Self.sr))
        #expect(GeometryEngine.rotate(Geometry.envelope(box), by: 90, around: Self.point(0, 0)).polygon == turned)
        #expect(GeometryEngine.scale(Geometry.envelope(box), factorX: 2, factorY: 2).polygon == big)
    }

    /// (1, 0) turned 90° about the origin is (0, 1); a square scaled by 2 about its centre has 4 times the area and
    /// the same centre; a moved envelope is still an envelope.
    @Test func moveRotateAndScale() throws {
        let turned = GeometryEngine.rotate(Self.point(1, 0), by: 90, around: Self.point(0, 0))
        let c = turned.coordinate
        #expect(abs(c.x) < 1e-15 && abs(c.y - 1) < 1e-15)
        let square = Self.square(0, 0, 2, 2)
        let big = GeometryEngine.scale(square, factorX: 2, factorY: 2)
        #expect(abs(try GeometryEngine.area(of: big) - 16) < 1e-12)
        #expect(big.geometry.extent?.center == Coordinate(x: 1, y: 1))
        let rotated = GeometryEngine.rotate(square, by: 30)
        #expect(abs(try GeometryEngine.area(of: rotated) - 4) < 1e-12)
        let mirrored = GeometryEngine.scale(Self.point(3, 1), factorX: -1, factorY: 1, relativeTo: Self.point(0, 0))
        #expect(mirrored.coordinate == Coordinate(x: -3, y: 1))
        let box = Envelope(xMin: 0, yMin: 0, xMax: 1, yMax: 1, spatialReference: Self.sr)
        let moved: Envelope = GeometryEngine.move(box, deltaX: 2, deltaY: -1)
        #expect([moved.xMin, moved.yMin, moved.xMax, moved.yMax] == [2, -1, 3, 0])
    }
}
