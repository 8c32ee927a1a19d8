import CPROJ
import Foundation
import Testing

import MeridianCore
@testable import MeridianEngine

/// `InterpolatedProjection` against PROJ's whole operation (`Transformation(…, simplified: false)`, which runs every
/// vertex through PROJ's `proj_create_crs_to_crs` object): within its bound where it interpolates (1e-11° into a
/// geographic target, 1 µm into a projected one), PROJ's own doubles where it does not, and PROJ's failures named by
/// the caller's vertex numbers. Pairs cover both directions (geographic → projected and back), a datum shift chosen
/// point by point among several Helmert candidates (the seed's EPSG:32038), Helmert only (NAD27 → WGS 84 in degrees),
/// Molodensky, a concatenated operation (one State Plane zone to another across datums) and a grid shift (left to
/// PROJ).
@Suite struct InterpolatedProjectionTests {
    /// Vertices the way a union of buffers has them: rings of 64 around random centres in a lon/lat box, taken
    /// into `sr` (radius in `sr`'s units, or degrees for a geographic one), then the corners and edge middles of the
    /// box itself (the area's edges).
    static func rings(_ count: Int, in sr: SpatialReference, lon: ClosedRange<Double>, lat: ClosedRange<Double>,
                      radius: Double) throws -> [Coordinate] {
        var centres = BulkProjectionTests.coordinates(count, lon: lon, lat: lat)
        for x in [lon.lowerBound, (lon.lowerBound + lon.upperBound) / 2, lon.upperBound] {
            for y in [lat.lowerBound, (lat.lowerBound + lat.upperBound) / 2, lat.upperBound] {
                centres.append(Coordinate(x: x, y: y))
            }
        }
        if sr != .wgs84 { _ = try Transformation(from: .wgs84, to: sr).transform(&centres, reportsOperation: false) }
        return centres.flatMap { c in
            (0..<64).map { k in
                let a = Double(k) * 2 * Double.pi / 64
                return Coordinate(x: c.x + radius * cos(a), y: c.y + radius * sin(a))
            }
        }
    }

    /// PROJ's whole operation on `coordinates`.
    static func exact(_ coordinates: [Coordinate], from source: SpatialReference, to target: SpatialReference = .wgs84)
        throws -> [Coordinate]
    {
        var c = coordinates
        _ = try Transformation(from: source, to: target, simplified: false).transform(&c, reportsOperation: false)
        return c
    }

    /// The largest difference, x or y.
    static func worst(_ a: [Coordinate], _ b: [Coordinate]) -> Double {
        zip(a, b).reduce(0.0) { max($0, abs($1.0.x - $1.1.x), abs($1.0.y - $1.1.y)) }
    }

    /// Every vertex within the bound of PROJ's whole operation, over the area of use and at its edges, in both
    /// directions; tiles interpolated. The bound is 1e-11° into geographic targets and 1 µm (in the target's unit)
    /// into projected ones.
    @Test(arguments: [
        ("EPSG:4326", "EPSG:32038", -103.0...(-94.1), 31.8...34.5, 0.01),  // the seed's: NAD27, Helmert candidates
        ("EPSG:32038", "EPSG:4326", -103.0...(-94.1), 31.8...34.5, 1692.6),
        ("EPSG:4326", "EPSG:32038", -107.9...(-89.1), 26.8...39.5, 0.01),  // out to the horizon (area + 5°)
        ("EPSG:32038", "EPSG:4326", -107.9...(-89.1), 26.8...39.5, 1692.6),
        ("EPSG:4326", "EPSG:3857", -103.0...(-94.0), 31.7...34.6, 0.01),
        ("EPSG:3857", "EPSG:4326", -120.0...(-70.0), -60.0...70.0, 3000.0),
        ("EPSG:5070", "EPSG:4326", -124.0...(-67.0), 25.0...49.0, 516.0),
        ("EPSG:4326", "EPSG:5070", -124.0...(-67.0), 25.0...49.0, 0.005),
        ("EPSG:2277", "EPSG:4326", -101.0...(-95.5), 29.5...31.5, 1692.6),  // Texas Central, US survey feet
        ("EPSG:32614", "EPSG:4326", -101.5...(-96.5), 5.0...80.0, 3000.0),  // UTM 14N
        ("EPSG:4326", "EPSG:32614", -101.5...(-96.5), 5.0...80.0, 0.02),
        ("ESRI:102003", "EPSG:4326", -120.0...(-75.0), 28.0...46.0, 516.0),
        ("EPSG:4267", "EPSG:4326", -110.0...(-90.5), 26.0...48.0, 0.02),  // NAD27 → WGS 84: Helmert only
        ("EPSG:32038", "EPSG:2277", -101.0...(-96.0), 31.8...33.0, 1692.6),  // concatenated: lcc⁻¹, Helmert, lcc
    ])
    func withinTheBoundOfPROJ(from: String, to: String, lon: ClosedRange<Double>, lat: ClosedRange<Double>,
                              radius: Double) throws {
        let source = try SpatialReference(code: from), target = try SpatialReference(code: to)
        let projection = try InterpolatedProjection(from: source, to: target)
        #expect(projection.interpolates)
        let vertices = try Self.rings(300, in: source, lon: lon, lat: lat, radius: radius)
        var fast = vertices
        try projection.transform(&fast)
        let exact = try Self.exact(vertices, from: source, to: target)
        #expect(projection.tileCounts.interpolated > 0)
        let worst = Self.worst(fast, exact)
        let bound = target.isGeographic ? 1e-11 : 1e-6 / target.unit!.metersPerUnit
        #expect(projection.bound == bound)
        #expect(worst <= bound, "worst \(worst) in \(to)'s unit")
        #expect(fast != exact, "nothing was interpolated")
    }

    /// A Molodensky shift, run as a chosen pipeline: interpolated within 1e-11°.
    @Test func molodenskyPipeline() throws {
        let nad27 = try SpatialReference(code: "EPSG:4267")
        let pipeline = "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step +proj=molodensky "
            + "+ellps=clrk66 +dx=-8 +dy=160 +dz=176 +da=-69.4 +df=-3.726464e-05 "
            + "+step +proj=unitconvert +xy_in=rad +xy_out=deg"
        let transformation = try Transformation.between(nad27, .wgs84, pipeline: pipeline)
        let projection = try InterpolatedProjection(transformation, bound: nil)
        #expect(projection.interpolates)
        let vertices = try Self.rings(100, in: nad27, lon: -104.0...(-94.0), lat: 29.0...36.0, radius: 0.02)
        var fast = vertices
        try projection.transform(&fast)
        var exact = vertices
        _ = try transformation.transform(&exact, reportsOperation: false)
        #expect(Self.worst(fast, exact) <= 1e-11)
        #expect(fast != exact && projection.tileCounts.interpolated > 0)
    }

    /// A grid shift (DHDN → ETRS89 by the BETA2007 NTv2 grid, which proj-data carries) is not smooth: no tile is
    /// interpolated where PROJ runs it, and the doubles are PROJ's.
    @Test func gridShiftsAreLeftToPROJ() throws {
        let dhdn = try SpatialReference(code: "EPSG:31467"), etrs = try SpatialReference(code: "EPSG:4258")
        let projection = try InterpolatedProjection(from: dhdn, to: etrs)
        let vertices = try Self.rings(60, in: dhdn, lon: 7.5...10.5, lat: 48.0...53.5, radius: 500)
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: dhdn, to: etrs)))
        #expect(projection.tileCounts.interpolated == 0)
    }

    /// The copy of PROJ's point-by-point choice among candidates names the operation PROJ runs, at random points
    /// over areas where candidates' boxes meet (NAD27 Helmert shifts across North America; DHDN's grid and Helmert
    /// shifts around Germany).
    @Test(arguments: [("EPSG:4326", "EPSG:32038", -130.0...(-60.0), 10.0...60.0),
                      ("EPSG:4267", "EPSG:4326", -130.0...(-60.0), 10.0...60.0),
                      ("EPSG:4326", "EPSG:31467", 0.0...20.0, 40.0...60.0)])
    func choiceIsPROJs(from: String, to: String, lon: ClosedRange<Double>, lat: ClosedRange<Double>) throws {
        let source = try SpatialReference(code: from), target = try SpatialReference(code: to)
        let choice = try #require(try Transformation(from: source, to: target, simplified: false).operationChoice())
        #expect(choice.candidates.count >= 2)
        let context = PROJContext()
        let raw = try #require(proj_create_crs_to_crs(context.handle, source.definition, target.definition, nil))
        let p = PROJObject(try #require(proj_normalize_for_visualization(context.handle, raw)), context: context)
        proj_destroy(raw)
        var names = Set<String>()
        for c in BulkProjectionTests.coordinates(2000, lon: lon, lat: lat) {  // geographic sources: lon/lat
            var x = c.x, y = c.y
            _ = proj_trans_generic(p.pointer, PJ_FWD, &x, 8, 1, &y, 8, 1, nil, 0, 0, nil, 0, 0)
            let used = try #require(proj_trans_get_last_used_operation(p.pointer))
            let name = OperationChoice.withoutAxisSwaps(String(cString: proj_get_name(used)))
            proj_destroy(used)
            #expect(choice.operationName(atX: c.x, y: c.y) == name, "at \(c)")
            names.insert(name)
        }
        #expect(names.count >= 2, "the points met one candidate only: \(names)")
    }

    /// A tile whose interpolant misses a check is cut, down to the deepest level, and its vertices then go through
    /// PROJ: with a threshold of 0 no tile passes, and the doubles are PROJ's.
    @Test(arguments: [("EPSG:5070", "EPSG:4326"), ("EPSG:4326", "EPSG:32038")])
    func tilesFailingTheirChecksAreCutThenLeftToPROJ(from: String, to: String) throws {
        let source = try SpatialReference(code: from), target = try SpatialReference(code: to)
        let projection = try InterpolatedProjection(from: source, to: target, tolerance: 0)
        let vertices = try Self.rings(20, in: source, lon: -100...(-96), lat: 32...34,
                                      radius: source.isGeographic ? 0.005 : 516)
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: source, to: target)))
        let counts = projection.tileCounts
        #expect(counts.interpolated == 0 && counts.cut > 0 && counts.byPROJ > 0)
    }

    /// Tiles reaching outside the areas of use widened by 5° (the horizons) are left to PROJ: points in the
    /// Atlantic, far east of CONUS (Albers); points in Florida for Texas North Central.
    @Test(arguments: [("EPSG:5070", "EPSG:4326", -40.0...(-35.0)), ("EPSG:4326", "EPSG:32038", -84.0...(-81.0))])
    func beyondTheAreaOfUseItIsPROJ(from: String, to: String, lon: ClosedRange<Double>) throws {
        let source = try SpatialReference(code: from), target = try SpatialReference(code: to)
        let projection = try InterpolatedProjection(from: source, to: target)
        let vertices = try Self.rings(50, in: source, lon: lon, lat: 28...31, radius: source.isGeographic ? 0.005 : 516)
        var fast = vertices
        try projection.transform(&fast)
        #expect(fast == (try Self.exact(vertices, from: source, to: target)))
        #expect(projection.tileCounts.interpolated == 0 && projection.tileCounts.byPROJ > 0)
    }

    /// The same doubles for 1, 2 and 3 threads (each thread meets the tiles in its own order).
    @Test func sameDoublesForEveryThreadCount() throws {
        let source = SpatialReference.wgs84, target = try SpatialReference(code: "EPSG:32038")
        let vertices = BulkProjectionTests.coordinates(100_000, lon: -104...(-93), lat: 31...35)
        var results: [[Coordinate]] = []
        for threads in [1, 2, 3] {
            let projection = try InterpolatedProjection(from: source, to: target)  // its own tiles
            var c = vertices
            try projection.transform(&c, threads: threads)
            results.append(c)
        }
        #expect(results[0] == results[1] && results[0] == results[2])
        #expect(Self.worst(results[0], try Self.exact(vertices, from: source, to: target)) <= 1e-6 / 0.3048006096012192)
    }

    /// Vertices with heights go through PROJ (heights are transformed too); the others are interpolated.
    @Test func heightsGoThroughPROJ() throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        var vertices = try Self.rings(10, in: sr, lon: -100...(-90), lat: 30...40, radius: 516)
        vertices[3].z = 250
        var fast = vertices
        try projection.transform(&fast)
        let exact = try Self.exact(vertices, from: sr)
        #expect(fast[3] == exact[3] && fast[3].z != nil && fast[4].z == nil)
        #expect(Self.worst(fast, exact) <= InterpolatedProjection.tolerance && fast != exact)
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

    /// PROJ strings: what counts as smooth.
    @Test func smoothSteps() {
        let lcc = "+proj=lcc +lat_0=31.66 +lon_0=-97.5 +lat_1=32.13 +lat_2=33.96 +x_0=609601.2 +y_0=0 +ellps=clrk66"
        for smooth in [
            "+proj=pipeline +step +proj=axisswap +order=2,1 +step +proj=unitconvert +xy_in=deg +xy_out=rad "
                + "+step +proj=push +v_3 +step +proj=cart +ellps=WGS84 +step +proj=helmert +x=8 +y=-159 +z=-175 "
                + "+step +inv +proj=cart +ellps=clrk66 +step +proj=pop +v_3 +step " + lcc,
            "+proj=pipeline +step +inv " + lcc + " +step +proj=molodensky +ellps=clrk66 +dx=-8 +dy=160 +dz=176 "
                + "+da=-69.4 +df=-3.7e-05",
            lcc,
            "+proj=helmert +x=1 +y=2 +z=3 +rx=0.1 +ry=0.2 +rz=0.3 +s=1.5 +convention=position_vector",
        ] {
            #expect(SmoothOperation.isSmooth(smooth), "\(smooth)")
        }
        for rough in [
            "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step +proj=hgridshift +grids=BETA2007.gsb",
            "+proj=pipeline +step " + lcc + " +step +proj=vgridshift +grids=egm96_15.gtx +multiplier=1",
            "+proj=helmert +x=1 +dx=0.1 +t_epoch=2010 +convention=position_vector",
            "+proj=pipeline +step +proj=deformation +xy_grids=a.tif +t_epoch=2010",
            "+proj=pipeline +step +proj=unitconvert +t_in=decimalyear +t_out=gps_week",
            "+proj=longlat +ellps=clrk66 +nadgrids=conus",
            "+proj=pipeline +step +proj=pipeline +step " + lcc,
            "",
        ] {
            #expect(!SmoothOperation.isSmooth(rough), "\(rough)")
        }
    }
}
