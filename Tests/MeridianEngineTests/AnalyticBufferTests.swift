import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Buffers checked against closed-form geometry, and the buffer API's refusal rules.
@Suite("Buffers: analytic values and refusals")
struct AnalyticBufferTests {
    static let sr = SpatialReference.webMercator  // metres; used as a planar frame only

    static func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y, spatialReference: sr) }

    /// A regular n-gon inscribed in a circle of radius r has area (n/2)·r²·sin(2π/n).
    static func regularPolygonArea(sides n: Int, radius r: Double) -> Double {
        Double(n) / 2 * r * r * sin(2 * .pi / Double(n))
    }

    /// Area of the union of two discs of radius ρ whose centres are d apart: 2πρ² minus the lens
    /// 2ρ²·acos(d/2ρ) − (d/2)·√(4ρ² − d²) when they overlap.
    static func discUnionArea(radius rho: Double, separation d: Double) -> Double {
        guard d < 2 * rho else { return 2 * .pi * rho * rho }
        let lens = 2 * rho * rho * acos(d / (2 * rho)) - d / 2 * (4 * rho * rho - d * d).squareRoot()
        return 2 * .pi * rho * rho - lens
    }

    /// GEOS places a point buffer's vertices on the circle, q per quarter: the result is the regular 4q-gon, so its
    /// area is (4q/2)·r²·sin(2π/4q). Centred at the origin the only error is the shoelace sum's rounding
    /// (≈ 4q·ε relative), so 1e-12 relative holds.
    @Test(arguments: [1, 2, 3, 8, 16, 90], [1.0, 1000.0, 5279.98944])
    func pointBufferIsRegularPolygon(quadrantSegments q: Int, radius r: Double) throws {
        let buffer = try GeometryEngine.buffer(
            around: Self.point(0, 0), distance: r, parameters: BufferParameters(segmentsPerQuarterCircle: q))
        #expect(buffer.parts.count == 1 && buffer.parts[0].holes.isEmpty)
        #expect(buffer.vertexCount == 4 * q + 1)  // 4q distinct vertices, ring closed
        let expected = Self.regularPolygonArea(sides: 4 * q, radius: r)
        let area = try GeometryEngine.area(of: buffer)
        #expect(abs(area - expected) <= 1e-12 * expected, "q=\(q) r=\(r): \(area) vs \(expected)")
        for c in buffer.parts[0].shell {
            #expect(abs(hypot(c.x, c.y) - r) <= 1e-12 * r)
        }
    }

    /// Away from the origin the vertices carry the rounding of the centre's coordinates: each is off by at most
    /// ≈ ε·|centre|, changing the area by ≲ perimeter·ε·|centre| ≈ 2πr·ε·|c|, i.e. 2ε|c|/r relative. At a Texas
    /// State Plane centre (|c| ≈ 2.25e6 ft) and r = 100 ft that is ≈ 5e-12; the tolerance is 1e-10.
    @Test func pointBufferAwayFromOrigin() throws {
        let centre = Self.point(2_215_204.973, 394_833.169)
        let r = 100.0
        let buffer = try GeometryEngine.buffer(around: centre, distance: r)  // default q = 16
        let expected = Self.regularPolygonArea(sides: 64, radius: r)
        #expect(abs(try GeometryEngine.area(of: buffer) - expected) <= 1e-10 * expected)
        #expect(BufferParameters.default.segmentsPerQuarterCircle == 16)
        #expect(BufferParameters.default.relativeChordError == 1 - cos(.pi / 64))
    }

    /// Two overlapping point buffers: each inscribed 4q-gon lies between the disc of radius r and the disc of its
    /// apothem r·cos(π/4q) = r(1 − chord error). So the union area lies between the disc-union (lens) formula at the
    /// apothem and at r. The band is ≈ perimeter × r·(1 − cos(π/4q)), i.e. ≈ 2·chordError relative; for q = 16 that
    /// is ≈ 2.4e-3 of the area. Slack 1e-12 relative for rounding.
    @Test(arguments: [(1, 0.5), (4, 1.0), (16, 1.2), (16, 1.9), (32, 0.1), (16, 2.5)])
    func unionOfTwoBuffersMatchesLens(quadrantSegments q: Int, separationInRadii s: Double) throws {
        let r = 1000.0
        let d = s * r
        let parameters = BufferParameters(segmentsPerQuarterCircle: q)
        let union = try GeometryEngine.buffer(
            around: [Self.point(0, 0), Self.point(d, 0)], distances: [r], shouldUnion: true, parameters: parameters)
        #expect(union.count == 1)
        let area = try GeometryEngine.area(of: union[0])
        let upper = Self.discUnionArea(radius: r, separation: d)
        let lower = Self.discUnionArea(radius: r * (1 - parameters.relativeChordError), separation: d)
        #expect(area <= upper * (1 + 1e-12), "q=\(q) d=\(d): \(area) > \(upper)")
        #expect(area >= lower * (1 - 1e-12), "q=\(q) d=\(d): \(area) < \(lower)")
        #expect(union[0].parts.count == (d < 2 * r ? 1 : 2))
        // Separate buffers: exactly two regular 4q-gons.
        let separate = try GeometryEngine.buffer(
            around: [Self.point(0, 0), Self.point(d, 0)], distances: [r], shouldUnion: false, parameters: parameters)
        #expect(separate.count == 2)
        let single = Self.regularPolygonArea(sides: 4 * q, radius: r)
        for p in separate { #expect(abs(try GeometryEngine.area(of: p) - single) <= 1e-12 * single) }
    }

    /// A square of side s buffered inwards by d (round joins): the inner offset of a convex polygon has sharp
    /// corners, so the result is the square of side s − 2d, area (s − 2d)², exactly up to rounding (1e-12 relative);
    /// shrunk by s/2 or more it is empty (area 0). Outwards by d with round joins and q segments per quarter: the
    /// square, four s×d strips, and four quarter-4q-gons forming one regular 4q-gon of radius d:
    /// s² + 4sd + (4q/2)·d²·sin(2π/4q).
    @Test(arguments: [1, 8, 16])
    func squareBuffers(quadrantSegments q: Int) throws {
        let s = 100.0
        let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: s, y: 0), Coordinate(x: s, y: s),
                                     Coordinate(x: 0, y: s)], spatialReference: Self.sr)
        let parameters = BufferParameters(segmentsPerQuarterCircle: q)
        for d in [1.0, 10.0, 30.0, 49.0] {
            let shrunk = try GeometryEngine.buffer(around: square, distance: -d, parameters: parameters)
            let expected = (s - 2 * d) * (s - 2 * d)
            #expect(abs(try GeometryEngine.area(of: shrunk) - expected) <= 1e-12 * expected, "−\(d)")
            let grown = try GeometryEngine.buffer(around: square, distance: d, parameters: parameters)
            let expectedGrown = s * s + 4 * s * d + Self.regularPolygonArea(sides: 4 * q, radius: d)
            #expect(abs(try GeometryEngine.area(of: grown) - expectedGrown) <= 1e-12 * expectedGrown, "+\(d)")
        }
        for d in [50.0, 80.0] {
            let gone = try GeometryEngine.buffer(around: square, distance: -d, parameters: parameters)
            #expect(gone.parts.isEmpty)
            #expect(try GeometryEngine.area(of: gone) == 0)
        }
    }

    // MARK: Refusals

    static func isError(_ error: any Error, _ match: (EngineError) -> Bool) -> Bool {
        guard let e = error as? EngineError else { return false }
        return match(e)
    }

    /// One rule for the smallest buffer distance, planar and geodesic alike: |distance| under 1 µm is refused
    /// (GEOS answered a point's buffer of 1e-300 m with an empty polygon), whatever path the buffer takes (one
    /// geometry, separate buffers, the union of points); 1 µm itself and zero for a polygon are buffered.
    @Test func distancesUnderAMicrometreAreRefusedByOneRule() throws {
        let p = Self.point(100, 200)
        let expected = "|1e-300| (1.61e-297 m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"
        #expect(GeometryEngine.bufferDistanceProblem(1e-300, metersPerUnit: 1609.344) == expected)
        #expect(GeometryEngine.bufferDistanceProblem(-1e-300, metersPerUnit: 1609.344)?.hasPrefix("|-1e-300| (1.61e-297 m)") == true)
        #expect(GeometryEngine.bufferDistanceProblem(1e-6, metersPerUnit: 1) == nil)
        #expect(GeometryEngine.bufferDistanceProblem(0, metersPerUnit: 1) == nil)
        #expect(GeometryEngine.bufferDistanceProblem(1e-12, metersPerUnit: 1609.344, unit: "mi")
                == "|1e-12| mi (1.61e-09 m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)")
        #expect(GeometryEngine.bufferDistanceProblem(3e7, metersPerUnit: 1, unit: "m")
                == "|30000000| m exceeds half the Earth's circumference (20037508 m), the largest buffer distance")
        let refusal = EngineError.located(.invalidDistance("|1e-300| is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"), at: .init(geometry: 0))
        #expect(throws: refusal) { try GeometryEngine.buffer(around: p, distance: 1e-300) }
        // Checked in the spatial reference's unit (meters here), after the conversion from miles.
        #expect(throws: EngineError.located(.invalidDistance("|1.609344e-297| is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"), at: .init(geometry: 0))) {
            try GeometryEngine.buffer(around: p, distance: 1e-300, distanceUnit: .miles)
        }
        #expect(throws: refusal) { try GeometryEngine.buffer(around: [p, Self.point(300, 200)], distances: [1e-300], shouldUnion: true) }
        #expect(throws: EngineError.located(.invalidDistance("|5e-07| is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"), at: .init(geometry: 1))) {
            try GeometryEngine.buffer(around: [p, Self.point(300, 200)], distances: [1, 5e-7], shouldUnion: false)
        }
        #expect(throws: EngineError.located(.invalidDistance("|1e-300| m is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"), at: .init(geometry: 0))) {
            try GeometryEngine.geodeticBuffer(around: Point(latitude: 32.7, longitude: -96.8), distance: 1e-300)
        }
        #expect(try GeometryEngine.buffer(around: p, distance: 1e-6).vertexCount == 65)
    }

    @Test func geographicBufferIsRefused() {
        let dallas = Point(latitude: 32.78, longitude: -96.80)
        #expect {
            _ = try GeometryEngine.buffer(around: dallas, distance: 1000)
        } throws: { Self.isError($0) { if case .geographicCoordinatesRefused = $0 { true } else { false } } }
        #expect {
            _ = try GeometryEngine.buffer(around: dallas, distance: 1, distanceUnit: .miles)
        } throws: { Self.isError($0) { if case .geographicCoordinatesRefused = $0 { true } else { false } } }
        // The message points to the geodesic alternative.
        #expect(EngineError.geographicCoordinatesRefused(operation: "a planar buffer").description.contains("geodesic"))
    }

    /// Points in more than one spatial reference are refused with the first that differs, on the union's fast path
    /// for `[Point]` (which compares the points in place) as for geometries; a non-finite point on that path falls
    /// back to the general one, which refuses it too.
    @Test func unionOfPointsChecksTheirSpatialReferences() throws {
        let a = Self.point(0, 0)
        let nad27 = try SpatialReference(wkid: 32038)  // not `sr` (Web Mercator)
        let other = Point(x: 5, y: 0, spatialReference: nad27)
        for shouldUnion in [true, false] {
            #expect {
                _ = try GeometryEngine.buffer(around: [a, Self.point(1, 0), other, Self.point(2, 0)], distances: [1],
                                              shouldUnion: shouldUnion)
            } throws: {
                Self.isError($0) {
                    if case .spatialReferenceMismatch(let first, let second) = $0 {
                        first == a.spatialReference && second == nad27
                    } else { false }
                }
            }
        }
        let same = try GeometryEngine.buffer(around: [a, Self.point(1.5, 0)], distances: [1], shouldUnion: true)
        let general = try GeometryEngine.buffer(around: [a.geometry, Self.point(1.5, 0).geometry], distances: [1],
                                                shouldUnion: true)
        #expect(same == general && same.count == 1 && same[0].parts.count == 1)
        #expect(throws: (any Error).self) {
            _ = try GeometryEngine.buffer(around: [a, Self.point(.nan, 0)], distances: [1], shouldUnion: true)
        }
    }

    /// One distance per geometry, or one for all; any other count is refused, never padded or truncated.
    @Test func distanceCountRule() throws {
        let points = [Self.point(0, 0), Self.point(10, 0), Self.point(20, 0)]
        #expect(try GeometryEngine.buffer(around: points, distances: [1], shouldUnion: false).count == 3)
        #expect(try GeometryEngine.buffer(around: points, distances: [1, 2, 3], shouldUnion: false).count == 3)
        #expect(try GeometryEngine.buffer(around: points, distances: [1, 2, 3], shouldUnion: true).count == 1)
        for distances in [[], [1.0, 2.0], [1.0, 2.0, 3.0, 4.0]] {
            #expect {
                _ = try GeometryEngine.buffer(around: points, distances: distances, shouldUnion: false)
            } throws: {
                Self.isError($0) {
                    if case .distanceCountMismatch(geometries: 3, distances: distances.count) = $0 { true } else { false }
                }
            }
        }
        #expect(try GeometryEngine.buffer(around: [Point](), distances: [1], shouldUnion: true).isEmpty)
        // Per-geometry distances really are per geometry: areas follow each radius.
        let areas = try GeometryEngine.buffer(around: points, distances: [1, 2, 3], shouldUnion: false).map {
            try GeometryEngine.area(of: $0)
        }
        for (area, r) in zip(areas, [1.0, 2.0, 3.0]) {
            let expected = Self.regularPolygonArea(sides: 64, radius: r)
            #expect(abs(area - expected) <= 1e-12 * expected)
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteCoordinatesAreBadGeometry(_ bad: Double) {
        let geometries: [Geometry] = [
            .point(Self.point(bad, 0)),
            .multipoint(Multipoint([Coordinate(x: 0, y: 0), Coordinate(x: 1, y: bad)], spatialReference: Self.sr)),
            .polyline(Polyline([Coordinate(x: 0, y: 0), Coordinate(x: bad, y: 1)], spatialReference: Self.sr)),
            .polygon(Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: bad)],
                             spatialReference: Self.sr)),
            .point(Point(x: 0, y: 0, z: bad, spatialReference: Self.sr)),
        ]
        for g in geometries {
            #expect {
                _ = try GeometryEngine.buffer(around: g, distance: 1)
            } throws: { Self.isError($0) { if case .badGeometry(.nonFiniteCoordinate) = $0 { true } else { false } } }
        }
    }

    /// A non-positive buffer of a point or line is empty (GEOS, JTS and ArcGIS agree), alone and unioned; a
    /// negative buffer of a polygon shrinks it (checked in the GEOS XML cases).
    @Test func nonPositiveDistancesForPointsAndLinesGiveEmptyPolygons() throws {
        let line = Polyline([Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 0)], spatialReference: Self.sr)
        let multipoint = Multipoint([Coordinate(x: 0, y: 0), Coordinate(x: 5, y: 5)], spatialReference: Self.sr)
        for g in [Self.point(0, 0).geometry, line.geometry, multipoint.geometry] {
            for d in [0.0, -1.0, -0.0] {
                let alone = try GeometryEngine.buffer(around: g, distance: d)
                #expect(alone.parts.isEmpty, "\(g.typeName) at \(d)")
                let unioned = try GeometryEngine.buffer(around: [g, g], distances: [d], shouldUnion: true)
                #expect(unioned.count == 1 && unioned[0].parts.isEmpty, "\(g.typeName) at \(d), unioned")
            }
        }
        // Mixed: the positive one alone survives the union.
        let mixed = try GeometryEngine.buffer(
            around: [Self.point(0, 0), Self.point(100, 0)], distances: [0, 10], shouldUnion: true)
        #expect(mixed.count == 1 && mixed[0].parts.count == 1)
        #expect(abs(try GeometryEngine.area(of: mixed[0]) - 100 * 4 * 16 * sin(Double.pi / 32) / 2) < 1e-9 * 314)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 2.1e7, -2.1e7])
    func nonFiniteOrAbsurdDistancesAreRefused(_ d: Double) {
        let square = Envelope(xMin: 0, yMin: 0, xMax: 1, yMax: 1, spatialReference: Self.sr)
        for g in [Self.point(0, 0).geometry, square.geometry] {
            #expect {
                _ = try GeometryEngine.buffer(around: g, distance: d)
            } throws: { Self.isError($0) { if case .invalidDistance = $0.unlocated { true } else { false } } }
        }
        // The limit is in metres: in US survey feet, 2.1e7 ft ≈ 6400 km is accepted for a point.
        if d == 2.1e7 {
            let usFeet = SpatialReference(definition: "test-usft", wkid: nil, name: "test", kind: .projected,
                                          unit: .usSurveyFeet, ellipsoid: .wgs84, areaOfUse: nil)
            #expect(throws: Never.self) {
                _ = try GeometryEngine.buffer(around: Point(x: 0, y: 0, spatialReference: usFeet), distance: d)
            }
        }
    }

    @Test func selfIntersectingPolygonIsInvalidGeometry() throws {
        let bowtie = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 10), Coordinate(x: 10, y: 0),
                                     Coordinate(x: 0, y: 10)], spatialReference: Self.sr)
        #expect {
            _ = try GeometryEngine.buffer(around: bowtie, distance: 1)
        } throws: { Self.isError($0) { if case .invalidGeometry(let reason) = $0.unlocated { reason.contains("Self-intersection") } else { false } } }
        #expect(try GeometryEngine.invalidityReason(bowtie)?.contains("Self-intersection") == true)
        // Repaired, it buffers: two triangles of area 25 each.
        let repaired = try GeometryEngine.makeValid(bowtie)
        #expect(try GeometryEngine.invalidityReason(repaired) == nil)
        #expect(abs(try GeometryEngine.area(of: repaired) - 50) <= 1e-12 * 50)
        #expect(throws: Never.self) { _ = try GeometryEngine.buffer(around: repaired, distance: 1) }
    }

    @Test func segmentsOutOfRangeAreRefused() {
        for q in [0, -1, 1001] {
            #expect {
                _ = try GeometryEngine.buffer(around: Self.point(0, 0), distance: 1,
                                              parameters: BufferParameters(segmentsPerQuarterCircle: q))
            } throws: { Self.isError($0) { if case .invalidDistance = $0.unlocated { true } else { false } } }
        }
    }
}
