import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// The seed sample "Create buffers around points" end to end in the library: WGS84 taps inside the Texas North
/// Central area of use, projected to EPSG:32038 (US survey feet), buffered by miles with and without union.
@Suite("Seed scenario: buffers around points in NAD27 / Texas North Central")
struct SeedScenarioTests {
    /// One international mile is 1609.344 m, i.e. 1609.344 × 3937/1200 = 5279.98944 US survey feet (exact
    /// decimal; the US survey foot is 2 ppm longer than the international foot).
    static let usFeetPerMile = 5279.98944

    /// Dallas, Fort Worth and Denton (WGS84 longitude, latitude): all inside the EPSG:32038 area of use.
    static let taps: [(Double, Double)] = [(-96.80, 32.78), (-97.33, 32.75), (-97.13, 33.21)]

    static func projectedTaps() throws -> (SpatialReference, [Point]) {
        let sr = try SpatialReference(wkid: 32038)
        var points: [Point] = []
        for (lon, lat) in taps {
            let area = try #require(sr.areaOfUse)
            #expect(area.contains(longitude: lon, latitude: lat))
            guard case .point(let p) = try GeometryEngine.project(Point(latitude: lat, longitude: lon), into: sr) else {
                throw CancellationError()
            }
            points.append(p)
        }
        return (sr, points)
    }

    /// Each buffer's vertices lie at the radius from its centre: 1 mile = 5279.98944 US ft. The vertex coordinates
    /// are ~2e6 ft, so their rounding is ~2e6 × 1.1e-16 ≈ 2e-10 ft; 1e-6 ft (0.3 µm) is ample and still catches
    /// the international-foot confusion (0.0106 ft per mile) and Foundation's 1609.34 m mile (0.013 ft).
    @Test(arguments: [1.0, 2.5, 10.0, 299.0])
    func bufferRadiusIsExactMilesInUSSurveyFeet(miles: Double) throws {
        let (sr, points) = try Self.projectedTaps()
        #expect(sr.unit?.metersPerUnit == 1200.0 / 3937.0)
        let buffers = try GeometryEngine.buffer(
            around: points, distances: [miles], distanceUnit: .miles, shouldUnion: false)
        #expect(buffers.count == points.count)
        let radius = miles * Self.usFeetPerMile
        for (buffer, centre) in zip(buffers, points) {
            #expect(buffer.spatialReference == sr)
            #expect(buffer.vertexCount == 65)  // default 16 segments per quarter circle, closed ring
            for c in buffer.parts[0].shell {
                let r = hypot(c.x - centre.x, c.y - centre.y)
                #expect(abs(r - radius) <= 1e-6 * max(1, miles), "\(r) vs \(radius)")
            }
            // Area of the regular 64-gon (see AnalyticBufferTests); relative rounding bound 2ε|c|/r < 1e-9.
            let expected = 32 * radius * radius * sin(2 * .pi / 64)
            #expect(abs(try GeometryEngine.area(of: buffer) - expected) <= 1e-9 * expected)
        }
    }

    /// With union: Dallas–Fort Worth are ≈ 30 miles apart, Fort Worth–Denton ≈ 35: 10-mile buffers stay three
    /// parts, 20-mile ones merge into one, and the union's area is below the sum (the overlaps) and above the
    /// largest single buffer. The unioned area also equals sum − pairwise overlaps + triple overlap
    /// (inclusion–exclusion), computed with `intersection` — a second route to the same number, to 1e-9 relative.
    @Test func unionedBuffers() throws {
        let (_, points) = try Self.projectedTaps()
        let ten = try GeometryEngine.buffer(
            around: points, distances: [10], distanceUnit: .miles, shouldUnion: true)
        #expect(ten.count == 1 && ten[0].parts.count == 3)
        let twenty = try GeometryEngine.buffer(
            around: points, distances: [20], distanceUnit: .miles, shouldUnion: true)
        #expect(twenty.count == 1 && twenty[0].parts.count == 1)
        let separate = try GeometryEngine.buffer(
            around: points, distances: [20], distanceUnit: .miles, shouldUnion: false)
        let areas = try separate.map { try GeometryEngine.area(of: $0) }
        let unionArea = try GeometryEngine.area(of: twenty[0])
        #expect(unionArea < areas.reduce(0, +))
        #expect(unionArea > areas.max()!)
        var inclusionExclusion = areas.reduce(0, +)
        for i in 0..<3 {
            for j in (i + 1)..<3 {
                inclusionExclusion -= try GeometryEngine.area(of: try GeometryEngine.intersection(separate[i], separate[j]))
            }
        }
        let triple = try GeometryEngine.intersection(try GeometryEngine.intersection(separate[0], separate[1]), separate[2])
        inclusionExclusion += try GeometryEngine.area(of: triple)
        #expect(abs(unionArea - inclusionExclusion) <= 1e-9 * unionArea)
        // Every tap is inside the union.
        for p in points { #expect(try GeometryEngine.doesGeometry(twenty[0], contain: p)) }
    }

    /// Per-point distances in miles, as the seed's taps carry their own radius.
    @Test func perPointMiles() throws {
        let (_, points) = try Self.projectedTaps()
        let miles = [1.0, 5.0, 50.0]
        let buffers = try GeometryEngine.buffer(
            around: points, distances: miles, distanceUnit: .miles, shouldUnion: false)
        for ((buffer, centre), m) in zip(zip(buffers, points), miles) {
            let far = buffer.parts[0].shell.map { hypot($0.x - centre.x, $0.y - centre.y) }.max() ?? 0
            #expect(abs(far - m * Self.usFeetPerMile) <= 1e-6 * m)
        }
    }

    /// The seed's boundary: the area-of-use corners (the box the seed hard-codes) projected into EPSG:32038.
    /// Taps inside are accepted, a tap in El Paso or Houston is refused, both by `AreaOfUse.contains` and by
    /// `GeometryEngine.contains` on the projected polygon, as the sample does.
    @Test func areaOfUseBoundaryAcceptsAndRejects() throws {
        let (sr, points) = try Self.projectedTaps()
        let area = try #require(sr.areaOfUse)
        #expect(area.west == -103.07 && area.south == 31.72 && area.east == -94.0 && area.north == 34.58)
        let corners = [Point(latitude: 31.720, longitude: -103.070), Point(latitude: 34.580, longitude: -103.070),
                       Point(latitude: 34.580, longitude: -94.000), Point(latitude: 31.720, longitude: -94.000)]
        let boundaryWGS84 = Polygon(shell: corners.map(\.coordinate), spatialReference: .wgs84)
        let boundary = try GeometryEngine.project(boundaryWGS84, into: sr)
        for p in points { #expect(try GeometryEngine.doesGeometry(boundary, contain: p)) }
        for (lon, lat) in [(-106.49, 31.76), (-95.37, 29.76)] {
            #expect(!area.contains(longitude: lon, latitude: lat))
            let projected = try GeometryEngine.project(Point(latitude: lat, longitude: lon), into: sr)
            #expect(try !GeometryEngine.doesGeometry(boundary, contain: projected))
        }
    }
}
