import Foundation
import MeridianCore
import MeridianEngine
import Testing

/// Planar `area`, `length` and `distance` against closed-form values, and their refusals.
///
/// Tolerances: figures with small integer coordinates are exact in binary floating point (sums and products of
/// small integers, one square root), so they are compared with `==` or, where a square root or a division enters,
/// to 4 ulp (relative 1e-15): GEOS computes each with a handful of correctly rounded operations. Regular polygons
/// built with `cos`/`sin` carry ~1 ulp per vertex coordinate; summed over n ≤ 1000 terms the relative error of the
/// shoelace area or the perimeter stays below n × 2⁻⁵² ≈ 2e-13, so 1e-12 relative. Figures offset far from the origin
/// (x ≈ 5e6) lose digits to cancellation in the shoelace terms: the absolute rounding is ~|x|·|Δy|·2⁻⁵² per term, so
/// 1e-9 relative on the area.
@Suite("Planar area, length and distance")
struct PlanarMeasureTests {
    static let sr = SpatialReference.webMercator

    static func g(_ wkt: String, _ sr: SpatialReference = sr) throws -> Geometry { try WKT.decode(wkt, spatialReference: sr) }

    static func close(_ a: Double, _ b: Double, relative: Double = 1e-15) -> Bool { abs(a - b) <= relative * abs(b) }

    // MARK: Area and length

    @Test func rectangle() throws {
        let r = try Self.g("POLYGON ((0 0, 3 0, 3 4, 0 4, 0 0))")
        #expect(try GeometryEngine.area(of: r) == 12)
        #expect(try GeometryEngine.length(of: r) == 14)
        // The same rectangle as an envelope, and clockwise: area is unsigned.
        let e = Envelope(xMin: 0, yMin: 0, xMax: 3, yMax: 4, spatialReference: Self.sr)
        #expect(try GeometryEngine.area(of: e) == 12)
        #expect(try GeometryEngine.length(of: e) == 14)
        let clockwise = try Self.g("POLYGON ((0 0, 0 4, 3 4, 3 0, 0 0))")
        #expect(try GeometryEngine.area(of: clockwise) == 12)
    }

    /// A 10 × 10 square with a 2 × 3 hole: area 100 − 6, perimeter 40 + 10 (the hole's ring counts).
    @Test func polygonWithHole() throws {
        let p = try Self.g("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 5, 4 5, 4 2, 2 2))")
        #expect(try GeometryEngine.area(of: p) == 94)
        #expect(try GeometryEngine.length(of: p) == 50)
        // Two parts, one with the hole: areas and perimeters add.
        let m = try Self.g("MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 5, 4 5, 4 2, 2 2)), ((20 0, 21 0, 21 1, 20 1, 20 0)))")
        #expect(try GeometryEngine.area(of: m) == 95)
        #expect(try GeometryEngine.length(of: m) == 54)
    }

    /// A right triangle with legs 3 and 4: area 6, perimeter 3 + 4 + 5.
    @Test func triangle() throws {
        let t = try Self.g("POLYGON ((0 0, 4 0, 0 3, 0 0))")
        #expect(try GeometryEngine.area(of: t) == 6)
        #expect(try GeometryEngine.length(of: t) == 12)
    }

    /// A regular n-gon inscribed in a circle of radius r: area (n/2)·r²·sin(2π/n), perimeter 2n·r·sin(π/n).
    @Test(arguments: [3, 4, 6, 64, 1000])
    func regularPolygon(n: Int) throws {
        let r = 250.0
        let ring = (0...n).map { i in
            let t = 2 * Double.pi * Double(i % n) / Double(n)
            return Coordinate(x: 1000 + r * cos(t), y: -500 + r * sin(t))
        }
        let p = Polygon(shell: ring, spatialReference: Self.sr)
        let area = Double(n) / 2 * r * r * sin(2 * Double.pi / Double(n))
        let perimeter = 2 * Double(n) * r * sin(Double.pi / Double(n))
        #expect(Self.close(try GeometryEngine.area(of: p), area, relative: 1e-12), "n = \(n)")
        #expect(Self.close(try GeometryEngine.length(of: p), perimeter, relative: 1e-12), "n = \(n)")
        #expect(Self.close(try GeometryEngine.length(of: Polyline(ring, spatialReference: Self.sr)), perimeter, relative: 1e-12))
    }

    /// Far from the origin (UTM-like easting/northing), a 1 km × 2 km rectangle still measures 2 km².
    @Test func offsetRectangle() throws {
        let p = try Self.g("POLYGON ((500000 5000000, 501000 5000000, 501000 5002000, 500000 5002000, 500000 5000000))")
        #expect(Self.close(try GeometryEngine.area(of: p), 2_000_000, relative: 1e-9))
        #expect(try GeometryEngine.length(of: p) == 6000)
    }

    @Test func polylineLength() throws {
        // 3-4-5 then 6 straight up; a second part of length 2.
        let l = try Self.g("MULTILINESTRING ((0 0, 3 4, 3 10), (-1 -1, 1 -1))")
        #expect(try GeometryEngine.length(of: l) == 13)
        #expect(try GeometryEngine.area(of: l) == 0)
        let diagonal = try Self.g("LINESTRING (0 0, 1 1)")
        #expect(Self.close(try GeometryEngine.length(of: diagonal), 2.0.squareRoot(), relative: 4 * .ulpOfOne))
    }

    @Test func pointsMeasureZero() throws {
        for wkt in ["POINT (1 2)", "MULTIPOINT ((1 2), (3 4))", "POINT EMPTY", "LINESTRING EMPTY", "POLYGON EMPTY"] {
            #expect(try GeometryEngine.area(of: try Self.g(wkt)) == 0, "\(wkt)")
            #expect(try GeometryEngine.length(of: try Self.g(wkt)) == 0, "\(wkt)")
        }
    }

    /// Measures are in the spatial reference's own unit: in EPSG:32038 (US survey feet) a 5280 × 5280 square is
    /// 27 878 400 ft², not converted to metres.
    @Test func measuresAreInTheSpatialReferenceUnit() throws {
        let feet = try SpatialReference(wkid: 32038)
        let square = try Self.g("POLYGON ((0 0, 5280 0, 5280 5280, 0 5280, 0 0))", feet)
        #expect(try GeometryEngine.area(of: square) == 27_878_400)
        #expect(try GeometryEngine.length(of: square) == 21_120)
        #expect(try GeometryEngine.distance(from: square, to: try Self.g("POINT (5280 6280)", feet)) == 1000)
    }

    // MARK: Distance

    @Test func pointToSegment() throws {
        let segment = try Self.g("LINESTRING (0 0, 4 0)")
        // Perpendicular foot inside the segment.
        #expect(try GeometryEngine.distance(from: try Self.g("POINT (2 3)"), to: segment) == 3)
        // Beyond an end: the distance to the end point (3-4-5).
        #expect(try GeometryEngine.distance(from: try Self.g("POINT (7 4)"), to: segment) == 5)
        #expect(try GeometryEngine.distance(from: try Self.g("POINT (-3 -4)"), to: segment) == 5)
        // On the segment.
        #expect(try GeometryEngine.distance(from: try Self.g("POINT (1 0)"), to: segment) == 0)
        // An oblique segment: (0, 10) to the line y = x is 10/√2.
        let oblique = try Self.g("LINESTRING (0 0, 10 10)")
        let d = try GeometryEngine.distance(from: try Self.g("POINT (0 10)"), to: oblique)
        #expect(Self.close(d, 10 / 2.0.squareRoot(), relative: 4 * .ulpOfOne))
    }

    @Test func disjointSquares() throws {
        let a = try Self.g("POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))")
        // Diagonally apart: corner (1, 1) to corner (4, 5), a 3-4-5 triangle.
        let diagonal = try Self.g("POLYGON ((4 5, 6 5, 6 7, 4 7, 4 5))")
        #expect(try GeometryEngine.distance(from: a, to: diagonal) == 5)
        #expect(try GeometryEngine.distance(from: diagonal, to: a) == 5)
        // Side by side with overlapping y ranges: the gap between the facing edges.
        let beside = try Self.g("POLYGON ((3.5 0.5, 5 0.5, 5 3, 3.5 3, 3.5 0.5))")
        #expect(try GeometryEngine.distance(from: a, to: beside) == 2.5)
        // Touching along an edge, overlapping, and one inside the other: 0.
        for wkt in ["POLYGON ((1 0, 2 0, 2 1, 1 1, 1 0))", "POLYGON ((0.5 0.5, 2 0.5, 2 2, 0.5 2, 0.5 0.5))",
                    "POLYGON ((0.25 0.25, 0.75 0.25, 0.75 0.75, 0.25 0.75, 0.25 0.25))"] {
            #expect(try GeometryEngine.distance(from: a, to: try Self.g(wkt)) == 0, "\(wkt)")
        }
    }

    /// Inside a polygon the distance is 0; inside its hole it is the distance to the hole's ring.
    @Test func distanceAndHoles() throws {
        let p = try Self.g("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))")
        #expect(try GeometryEngine.distance(from: p, to: try Self.g("POINT (1 5)")) == 0)
        #expect(try GeometryEngine.distance(from: p, to: try Self.g("POINT (5 4)")) == 2)
        #expect(try GeometryEngine.distance(from: p, to: try Self.g("POINT (13 14)")) == 5)
        // A line crossing the polygon's interior is at distance 0, one inside the hole at its gap to the ring.
        #expect(try GeometryEngine.distance(from: p, to: try Self.g("LINESTRING (-5 5, 1 5)")) == 0)
        #expect(try GeometryEngine.distance(from: p, to: try Self.g("LINESTRING (4 3, 4 7)")) == 1)
        // Multipoint: the nearest of its points (10, 3 inside the hole, 4).
        #expect(try GeometryEngine.distance(from: p, to: try Self.g("MULTIPOINT ((20 5), (5 5), (14 5))")) == 3)
    }

    /// There is no distance to an empty geometry: refused, not 0 (which would say the two meet).
    @Test func distanceToEmptyIsRefused() throws {
        let square = try Self.g("POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))")
        let isEmptyRefusal: (any Error) -> Bool = { if case EngineError.badGeometry(.empty) = $0 { true } else { false } }
        for wkt in ["POINT EMPTY", "LINESTRING EMPTY", "POLYGON EMPTY"] {
            let empty = try Self.g(wkt)
            #expect("\(wkt)", performing: { _ = try GeometryEngine.distance(from: square, to: empty) }, throws: isEmptyRefusal)
            #expect("\(wkt)", performing: { _ = try GeometryEngine.distance(from: empty, to: square) }, throws: isEmptyRefusal)
        }
    }

    // MARK: Overlay areas

    /// Two 10 × 10 squares overlapping in a 4 × 6 rectangle: intersection 24, difference 100 − 24, symmetric
    /// difference 2 × 76, union 176; containment and intersection predicates agree with the picture.
    @Test func overlayAreasAddUp() throws {
        let a = try Self.g("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
        let b = try Self.g("POLYGON ((6 4, 16 4, 16 14, 6 14, 6 4))")
        #expect(try GeometryEngine.area(of: try GeometryEngine.intersection(a, b)) == 24)
        #expect(try GeometryEngine.area(of: try GeometryEngine.difference(a, b)) == 76)
        #expect(try GeometryEngine.area(of: try GeometryEngine.difference(b, a)) == 76)
        #expect(try GeometryEngine.area(of: try GeometryEngine.symmetricDifference(a, b)) == 152)
        #expect(try GeometryEngine.area(of: try GeometryEngine.union(a, b)) == 176)
        #expect(try GeometryEngine.isGeometry(a, intersecting: b))
        #expect(try !GeometryEngine.doesGeometry(a, contain: b))
        #expect(try GeometryEngine.doesGeometry(a, contain: try GeometryEngine.intersection(a, b)))
        #expect(try GeometryEngine.isGeometry(try GeometryEngine.intersection(a, b), within: b))
        // A line through a: the part inside has length 10, the part outside 5.
        let line = try Self.g("LINESTRING (-5 5, 10 5)")
        #expect(try GeometryEngine.length(of: try GeometryEngine.intersection(line, a)) == 10)
        #expect(try GeometryEngine.length(of: try GeometryEngine.difference(line, a)) == 5)
    }

    // MARK: Invalid input

    /// A self-intersecting "bow tie" has two triangles of area 25, but its signed shoelace parts cancel to 0: area,
    /// distance and the predicates refuse it (as overlay and buffer do) instead of answering from an undefined
    /// interior. Its perimeter is the length of its ring, which is well defined, so `length` measures it.
    @Test func invalidPolygonsAreRefused() throws {
        let bowtie = try Self.g("POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))")
        let point = try Self.g("POINT (2 5)")
        let isInvalid: (any Error) -> Bool = { if case EngineError.invalidGeometry = $0 { true } else { false } }
        #expect(performing: { _ = try GeometryEngine.area(of: bowtie) }, throws: isInvalid)
        #expect(performing: { _ = try GeometryEngine.distance(from: bowtie, to: point) }, throws: isInvalid)
        #expect(performing: { _ = try GeometryEngine.distance(from: point, to: bowtie) }, throws: isInvalid)
        #expect(performing: { _ = try GeometryEngine.doesGeometry(bowtie, contain: point) }, throws: isInvalid)
        #expect(performing: { _ = try GeometryEngine.isGeometry(point, intersecting: bowtie) }, throws: isInvalid)
        #expect(performing: { _ = try GeometryEngine.isGeometry(point, within: bowtie) }, throws: isInvalid)
        #expect(performing: { _ = try GeometryEngine.intersection(bowtie, point) }, throws: isInvalid)
        #expect(Self.close(try GeometryEngine.length(of: bowtie), 20 + 20 * 2.0.squareRoot(), relative: 4 * .ulpOfOne))
        // Repaired, it measures its two triangles.
        #expect(try GeometryEngine.area(of: try GeometryEngine.makeValid(bowtie)) == 50)
    }

    // MARK: Refusals

    /// Planar measures of degree coordinates would be in degrees: refused, pointing to the geodesic operations.
    @Test func geographicInputIsRefused() throws {
        let a = Point(latitude: 32.7, longitude: -97.3), b = Point(latitude: 33.2, longitude: -97.1)
        let line = Polyline([a.coordinate, b.coordinate], spatialReference: .wgs84)
        let box = Envelope(xMin: -98, yMin: 32, xMax: -97, yMax: 33, spatialReference: .wgs84)
        let isRefused: (any Error) -> Bool = {
            if case EngineError.geographicCoordinatesRefused = $0 { true } else { false }
        }
        #expect(performing: { _ = try GeometryEngine.area(of: box) }, throws: isRefused)
        #expect(performing: { _ = try GeometryEngine.length(of: line) }, throws: isRefused)
        #expect(performing: { _ = try GeometryEngine.length(of: box) }, throws: isRefused)
        #expect(performing: { _ = try GeometryEngine.distance(from: a, to: b) }, throws: isRefused)
        #expect(performing: { _ = try GeometryEngine.distance(from: box, to: line) }, throws: isRefused)
    }

    /// Two geometries in different spatial references are never combined (no silent reprojection).
    @Test func mismatchedSpatialReferencesAreRefused() throws {
        let feet = try SpatialReference(wkid: 32038)
        let a = try Self.g("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
        let b = try Self.g("POLYGON ((5 5, 15 5, 15 15, 5 15, 5 5))", feet)
        let isMismatch: (any Error) -> Bool = {
            if case EngineError.spatialReferenceMismatch = $0 { true } else { false }
        }
        #expect(performing: { _ = try GeometryEngine.distance(from: a, to: b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.intersection(a, b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.difference(a, b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.symmetricDifference(a, b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.union(a, b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.doesGeometry(a, contain: b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.isGeometry(a, intersecting: b) }, throws: isMismatch)
        #expect(performing: { _ = try GeometryEngine.isGeometry(a, within: b) }, throws: isMismatch)
        // Geographic against projected: the mismatch is reported, not the geographic refusal.
        let wgs = Point(latitude: 32.7, longitude: -97.3)
        #expect(performing: { _ = try GeometryEngine.distance(from: a, to: wgs) }, throws: isMismatch)
    }
}
