import Foundation
import Testing

import MeridianCore
@testable import MeridianEngine

/// `InterpolatedProjection` against PROJ's whole operation (`Transformation(…, simplified: false)`, which runs every
/// vertex through PROJ's pipeline): within its tolerance where it interpolates, the same doubles where it does not,
/// and PROJ's failures named by the caller's vertex numbers.
@Suite struct InterpolatedProjectionTests {
    /// Vertices the way a union of buffers has them: rings of 64 around random centres in a lon/lat box, taken
    /// into `sr` (radius in `sr`'s units).
    static func rings(_ count: Int, in sr: SpatialReference, lon: ClosedRange<Double>, lat: ClosedRange<Double>,
                      radius: Double) throws -> [Coordinate] {
        var centres = BulkProjectionTests.coordinates(count, lon: lon, lat: lat)
        _ = try Transformation(from: .wgs84, to: sr).transform(&centres, reportsOperation: false)
        return centres.flatMap { c in
            (0..<64).map { k in
                let a = Double(k) * 2 * Double.pi / 64
                return Coordinate(x: c.x + radius * cos(a), y: c.y + radius * sin(a))
            }
        }
    }

    /// PROJ's whole operation on `coordinates`.
    static func exact(_ coordinates: [Coordinate], from sr: SpatialReference) throws -> [Coordinate] {
        var c = coordinates
        _ = try Transformation(from: sr, to: .wgs84, simplified: false).transform(&c, reportsOperation: false)
        return c
    }

    /// The largest difference in degrees, longitude or latitude.
    static func worst(_ a: [Coordinate], _ b: [Coordinate]) -> Double {
        zip(a, b).reduce(0.0) { max($0, abs($1.0.x - $1.1.x), abs($1.0.y - $1.1.y)) }
    }

    /// Over each projection's area of use (Albers over CONUS, UTM 14N, ESRI's Albers; and Texas Central in feet):
    /// tiles are interpolated, and every vertex is within the tolerance (1e-11°) of PROJ's whole operation. (The
    /// interpolant's own error is about 1e-13°; what the checks guarantee at their points is 1e-11°.)
    @Test(arguments: [("EPSG:5070", -124.0...(-67.0), 25.0...49.0, 516.0),
                      ("EPSG:2277", -101.0...(-95.5), 29.5...31.5, 1692.6),  // Texas Central, US survey feet
                      ("EPSG:32614", -101.5...(-96.5), 5.0...80.0, 3000.0),
                      ("ESRI:102003", -120.0...(-75.0), 28.0...46.0, 516.0)])
    func withinTheToleranceOfPROJ(code: String, lon: ClosedRange<Double>, lat: ClosedRange<Double>, radius: Double)
        throws
    {
        let sr = try SpatialReference(code: code)
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        let vertices = try Self.rings(2000, in: sr, lon: lon, lat: lat, radius: radius)
        var fast = vertices
        try projection.transform(&fast)
        let exact = try Self.exact(vertices, from: sr)
        if code == "EPSG:2277" {
            // Texas Central in US feet: PROJ's operation converts feet to meters before its projection step, so it
            // is not one projection step (`BareInverse`), and PROJ transforms every vertex.
            #expect(!projection.interpolates)
            #expect(fast == exact)
            return
        }
        #expect(projection.interpolates)
        #expect(projection.tileCounts.interpolated > 0)
        let worst = Self.worst(fast, exact)
        #expect(worst <= InterpolatedProjection.tolerance, "worst \(worst)°")
    }

    /// Where the operation is more than a projection step (NAD27 state plane to WGS 84: a datum shift) or the area of
    /// use reaches ±180° (Web Mercator), PROJ transforms every vertex: the same doubles as the whole operation.
    @Test(arguments: [("EPSG:32038", -98.0...(-96.0), 32.0...33.5), ("EPSG:3857", -100.0...(-90.0), 30.0...40.0)])
    func exactWhereItCannotInterpolate(code: String, lon: ClosedRange<Double>, lat: ClosedRange<Double>) throws {
        let sr = try SpatialReference(code: code)
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        #expect(!projection.interpolates)
        let vertices = try Self.rings(200, in: sr, lon: lon, lat: lat, radius: 1000)
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: sr)))
        #expect(projection.tileCounts == (0, 0, 0))
    }

    /// A tile whose interpolant misses a check is cut, down to the deepest level, and its vertices then go through
    /// PROJ: with a threshold of 0 no tile passes, and the doubles are PROJ's.
    @Test func tilesFailingTheirChecksAreCutThenLeftToPROJ() throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84, tolerance: 0)
        let vertices = try Self.rings(20, in: sr, lon: -100...(-90), lat: 30...40, radius: 516)
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: sr)))
        let counts = projection.tileCounts
        #expect(counts.interpolated == 0 && counts.cut > 0 && counts.byPROJ > 0)
    }

    /// Tiles reaching outside the area of use widened by a tenth are left to PROJ (where `BareInverse` compared the
    /// projection step with the whole operation): points in the Atlantic, far east of CONUS.
    @Test func beyondTheAreaOfUseItIsPROJ() throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        let vertices = try Self.rings(50, in: sr, lon: -40...(-35), lat: 30...40, radius: 516)
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: sr)))
        #expect(projection.tileCounts.interpolated == 0 && projection.tileCounts.byPROJ > 0)
    }

    /// Vertices with heights go through PROJ (heights are transformed too).
    @Test func heightsGoThroughPROJ() throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        var vertices = try Self.rings(10, in: sr, lon: -100...(-90), lat: 30...40, radius: 516)
        vertices[3].z = 250
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: sr)))
        #expect(fast[3].z != nil && fast[4].z == nil)
    }

    /// A vertex PROJ cannot take is named by its index in the caller's array, among vertices that were
    /// interpolated, and the array is left as it was; so is one too large to put in a tile, or not finite.
    @Test(arguments: [Coordinate(x: 1e30, y: 1e30), Coordinate(x: .nan, y: 1_500_000),
                      Coordinate(x: 0, y: -9e7)])
    func failuresNameTheCallersVertex(bad: Coordinate) throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        var vertices = try Self.rings(2, in: sr, lon: -100...(-90), lat: 30...40, radius: 516)
        vertices.insert(bad, at: 70)
        let before = vertices
        #expect {
            try projection.transform(&vertices)
        } throws: { error in
            "\(error)".contains("vertex 70 ")
        }
        #expect(vertices.count == before.count && zip(vertices, before).allSatisfy { $0.x == $1.x || $0.x.isNaN })
        #expect(projection.tileCounts.interpolated > 0)
    }

    /// Polygons: every ring projected, the structure kept, the spatial reference the target's; a polygon in another
    /// spatial reference is refused.
    @Test func polygonsRingByRing() throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        let ring = try Self.rings(1, in: sr, lon: -100...(-99), lat: 35...36, radius: 5000)
        let hole = try Self.rings(1, in: sr, lon: -100...(-99), lat: 35...36, radius: 100)
        let shell = ring + [ring[0]]
        let part = Polygon.Part(shell: shell, holes: [hole + [hole[0]]])
        var polygon = Polygon(parts: [part, Polygon.Part(shell: shell, holes: [])], spatialReference: sr)
        try projection.project(&polygon)
        #expect(polygon.spatialReference == .wgs84)
        #expect(polygon.parts.map(\.holes.count) == [1, 0])
        #expect(Self.worst(polygon.parts[0].shell, try Self.exact(shell, from: sr)) <= InterpolatedProjection.tolerance)
        #expect(Self.worst(polygon.parts[0].holes[0], try Self.exact(hole + [hole[0]], from: sr))
            <= InterpolatedProjection.tolerance)
        var other = Polygon(parts: [part], spatialReference: .wgs84)
        #expect(throws: EngineError.self) { try projection.project(&other) }
    }
}
