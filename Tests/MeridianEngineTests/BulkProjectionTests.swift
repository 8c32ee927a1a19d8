import CPROJ
import MeridianTestSupport
import Testing

import MeridianCore
@testable import MeridianEngine

/// `GeometryEngine.project(_:from:into:)` on coordinate arrays larger than one PROJ call's chunk: every vertex is
/// exactly what PROJ's own `proj_trans` gives for it alone, heights are transformed where present and stay `nil`
/// where absent, and a failing vertex is named while the caller's array is left as it was.
@Suite struct BulkProjectionTests {
    /// Pseudo-random coordinates (fixed seed) in `lon` × `lat`; every `zEvery`-th one has a height (none for 0).
    static func coordinates(_ n: Int, lon: ClosedRange<Double>, lat: ClosedRange<Double>, zEvery: Int = 0)
        -> [Coordinate]
    {
        var random = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        func next(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * random.unit()
        }
        return (0..<n).map { i in
            Coordinate(x: next(lon), y: next(lat), z: zEvery > 0 && i % zEvery == 0 ? next(-100...3000) : nil)
        }
    }

    /// Each coordinate through PROJ's `proj_trans`, one at a time, with the same transformation (crs_to_crs,
    /// normalised axis order); a missing height goes in as 0 and stays `nil`.
    static func reference(_ coordinates: [Coordinate], from source: SpatialReference, to target: SpatialReference)
        throws -> [Coordinate]
    {
        let context = try #require(proj_context_create())
        defer { proj_context_destroy(context) }
        let raw = try #require(proj_create_crs_to_crs(context, source.definition, target.definition, nil))
        defer { proj_destroy(raw) }
        let pj = try #require(proj_normalize_for_visualization(context, raw))
        defer { proj_destroy(pj) }
        return coordinates.map { c in
            let out = proj_trans(pj, PJ_FWD, proj_coord(c.x, c.y, c.z ?? 0, 0)).xyzt
            return Coordinate(x: out.x, y: out.y, z: c.z == nil ? nil : out.z)
        }
    }

    /// The first index where two equally long arrays differ (-1 when their lengths differ), so that a failure
    /// names a vertex rather than printing thousands.
    static func firstDifference(_ a: [Coordinate], _ b: [Coordinate]) -> Int? {
        a.count == b.count ? a.indices.first { a[$0] != b[$0] } : -1
    }

    /// The largest difference in x or y between two equally long arrays (infinity when their lengths differ).
    static func worstDifference(_ a: [Coordinate], _ b: [Coordinate]) -> Double {
        a.count == b.count ? zip(a, b).reduce(0.0) { max($0, abs($1.0.x - $1.1.x), abs($1.0.y - $1.1.y)) } : .infinity
    }

    /// 2 500 vertices into EPSG:32038 and 3857 (interpolated) are within 1 µm of PROJ's per-point results, and the
    /// operation reported is PROJ's for the last vertex.
    @Test(arguments: [32038, 3857]) func manyVerticesWithinAMicrometreOfPROJPerPoint(wkid: Int) throws {
        let target = try SpatialReference(wkid: wkid)
        let input = Self.coordinates(2_500, lon: -103...(-94), lat: 31.8...34.5)
        var projected = input
        let operation = try GeometryEngine.project(&projected, from: .wgs84, into: target)
        #expect(operation?.name.contains(wkid == 32038 ? "NAD27 to WGS 84 (6)" : "Pseudo-Mercator") == true)
        let worst = Self.worstDifference(projected, try Self.reference(input, from: .wgs84, to: target))
        #expect(worst <= InterpolatedProjection.metricTolerance / target.unit!.metersPerUnit, "worst \(worst)")
    }

    /// Coordinates to be printed with a number of decimals print as PROJ's own results do, every one of them,
    /// though most are interpolated: 60,000 random points into EPSG:32038 (4 decimals of US feet) and back into
    /// WGS 84 (9 decimals of degrees); without the settling, dozens would print one unit apart in the last digit.
    @Test(arguments: [("EPSG:4326", "EPSG:32038", 4), ("EPSG:32038", "EPSG:4326", 9)])
    func printedAsPROJPrints(from: String, to: String, decimals: Int) throws {
        let source = try SpatialReference(code: from), target = try SpatialReference(code: to)
        var input = Self.coordinates(60_000, lon: -103...(-94), lat: 31.8...34.5)
        if source != .wgs84 { try GeometryEngine.project(&input, from: .wgs84, into: source) }
        var projected = input
        let operation = try GeometryEngine.project(&projected, from: source, into: target, printedWith: decimals)
        #expect(operation?.name.contains("NAD27 to WGS 84 (6)") == true)
        let exact = try Self.reference(input, from: source, to: target)
        let format = "%.\(decimals)f"
        let differing = zip(projected, exact).filter { a, b in
            String(format: format, a.x) != String(format: format, b.x) || String(format: format, a.y) != String(format: format, b.y)
        }.count
        #expect(differing == 0, "\(differing) vertices print otherwise than PROJ's")
        #expect(Self.worstDifference(projected, exact) <= InterpolatedProjection.metricTolerance / 0.3048006096012192)
        #expect(projected != exact, "nothing was interpolated")
    }

    /// Geographic 3D → geocentric (EPSG:4979 → 4978), where the height changes x and y: coordinates with z get all
    /// three transformed, those without are transformed at height 0 and keep `nil`, in chunks with and without
    /// heights alike.
    @Test func heightsAreTransformedWherePresent() throws {
        let source = try SpatialReference(wkid: 4979), target = try SpatialReference(wkid: 4978)
        for zEvery in [1, 7] {
            let input = Self.coordinates(2_100, lon: -180...180, lat: -89...89, zEvery: zEvery)
            var projected = input
            try GeometryEngine.project(&projected, from: source, into: target)
            #expect(Self.firstDifference(projected, try Self.reference(input, from: source, to: target)) == nil,
                    "z on every \(zEvery)th")
            #expect(zip(input, projected).allSatisfy { ($0.z == nil) == ($1.z == nil) })
        }
        // Only the last chunk has a height: the chunks before it go to PROJ without a z array.
        var input = Self.coordinates(2_100, lon: -180...180, lat: -89...89)
        input[2_050].z = 1_234
        var projected = input
        try GeometryEngine.project(&projected, from: source, into: target)
        #expect(Self.firstDifference(projected, try Self.reference(input, from: source, to: target)) == nil)
    }

    /// A vertex Web Mercator cannot take (latitude beyond ±90°) in the middle of a large array: the error names it with its
    /// input coordinates, and the caller's array is unchanged.
    @Test func failingVertexIsNamedAndInputKept() throws {
        var coordinates = Self.coordinates(3_000, lon: -103...(-94), lat: 31.8...34.5, zEvery: 5)
        coordinates[2_100] = Coordinate(x: 10, y: 91)
        coordinates[2_900] = Coordinate(x: 20, y: -95)
        let before = coordinates
        #expect(throws: EngineError.located(.projectionFailed(
            "(10.0, 91.0) cannot be transformed from \(SpatialReference.wgs84) to \(SpatialReference.webMercator)"
        ), at: .init(vertex: 2100))) {
            try GeometryEngine.project(&coordinates, from: .wgs84, into: .webMercator)
        }
        #expect(Self.firstDifference(coordinates, before) == nil, "the input was changed")
    }

    /// Large arrays are copied, projected and settled in pieces on the threads: 100,000 vertices printed with 4
    /// decimals give the same doubles on 1, 2 and 3 threads, and a vertex Web Mercator cannot take in the last
    /// piece is named alike on each, the caller's array unchanged (the copy each thread makes of its piece is
    /// dropped).
    @Test func piecesOnEveryThreadCountGiveTheSameResult() throws {
        let target = try SpatialReference(wkid: 32038)
        let input = Self.coordinates(100_000, lon: -103...(-94), lat: 31.8...34.5)
        var results: [[Coordinate]] = []
        for threads in [1, 2, 3] {
            var projected = input
            _ = try Parallelism.withThreadCount(threads) { () throws(EngineError) in
                try GeometryEngine.project(&projected, from: .wgs84, into: target, printedWith: 4)
            }
            results.append(projected)
        }
        #expect(Self.firstDifference(results[0], results[1]) == nil && Self.firstDifference(results[0], results[2]) == nil)
        #expect(Self.worstDifference(results[0], try Self.reference(input, from: .wgs84, to: target))
                <= InterpolatedProjection.metricTolerance / 0.3048006096012192)
        var failing = input
        failing[90_000] = Coordinate(x: 10, y: 91)
        for threads in [1, 2, 3] {
            var coordinates = failing
            #expect(throws: EngineError.located(.projectionFailed(
                "(10.0, 91.0) cannot be transformed from \(SpatialReference.wgs84) to \(SpatialReference.webMercator)"
            ), at: .init(vertex: 90000))) {
                try Parallelism.withThreadCount(threads) { () throws(EngineError) in
                    try GeometryEngine.project(&coordinates, from: .wgs84, into: .webMercator)
                }
            }
            #expect(Self.firstDifference(coordinates, failing) == nil, "the input was changed (\(threads) threads)")
        }
    }

    /// Empty input and an identical spatial reference leave the array alone and report no operation.
    @Test func emptyAndIdentity() throws {
        var none: [Coordinate] = []
        #expect(try GeometryEngine.project(&none, from: .wgs84, into: .webMercator) == nil)
        var one = [Coordinate(x: 1, y: 2, z: 3)]
        #expect(try GeometryEngine.project(&one, from: .wgs84, into: .wgs84) == nil)
        #expect(one == [Coordinate(x: 1, y: 2, z: 3)])
    }
}
