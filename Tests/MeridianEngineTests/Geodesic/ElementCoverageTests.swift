import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// The lower bounds that let `ElementCoverage` skip exact distances, against PROJ's geodesic distances
/// and an independent point-to-segment distance (golden-section search of `geod_inverse` along the segment), and
/// the coverage's queries against the brute force over every element (`Geodesic.residual`).
@Suite struct ElementCoverageTests {
    static let g = BufferChecks.wgs84
    static let sphere = ConformalSphere(.wgs84)

    /// A random point: latitude uniform on the sphere, every tenth within 2° of a pole.
    static func randomPoint(_ rng: inout SplitMix64) -> Coordinate {
        var lat = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
        if Int.random(in: 0..<10, using: &rng) == 0 { lat = (lat < 0 ? -1 : 1) * Double.random(in: 88...90, using: &rng) }
        return Coordinate(x: Double.random(in: -180..<180, using: &rng), y: lat)
    }

    /// s ≥ m(Φ) × the conformal-sphere angle, Φ the latitudes within s of the first point (the claim the coverage's
    /// bound rests on), for distances from 1 m to 3,000 km; and the bound is tight where the coverage needs it:
    /// within 2·10⁻⁴ of s at 100 km below 60° of latitude (m changes by at most 6·10⁻⁵ per degree of latitude,
    /// and the band spans ±0.9°).
    @Test func conformalBoundIsBelowTheGeodesicDistance() {
        var rng = SplitMix64(seed: 1_600_001)
        var worstTightness = 0.0
        for i in 0..<4000 {
            let p = Self.randomPoint(&rng)
            let s = i % 2 == 0 ? 100_000 : pow(10, Double.random(in: 0...6.5, using: &rng))
            let q = Self.g.move(p, azimuth: Double.random(in: 0..<360, using: &rng), distance: s)
            let distance = Self.g.distance(p, q)
            let scale = Self.sphere.metersPerRadian(
                maximumLatitude: abs(p.y) * .pi / 180 + Self.sphere.latitudeSpan(distance))
            let bound = scale * Self.sphere.unitVector(p).angle(to: Self.sphere.unitVector(q))
            #expect(bound <= distance * (1 + 1e-12) + 1e-9, "p \(p) q \(q): bound \(bound) > \(distance)")
            if s == 100_000 && abs(p.y) < 60 && abs(q.y) < 60 { worstTightness = max(worstTightness, 1 - bound / distance) }
        }
        print("conformal bound at 100 km below 60°: at most \(worstTightness) below the distance")
        #expect(worstTightness < 2e-4)
    }

    /// The upper bound of m along a great-circle arc of the conformal sphere (`ConformalSphere.upperMetersPerRadian`
    /// of its ends' `signedUpperMetersPerRadian`) times the angle is at least the geodesic distance (the image of
    /// the arc is a path that long on the ellipsoid), for distances from 1 m to 3,000 km at every latitude, across
    /// the equator and near the poles; and tight where `ElementCoverage.isWithin` needs it: within 2·10⁻⁴ of s at
    /// 100 km below 60° of latitude.
    @Test func conformalUpperBoundIsAboveTheGeodesicDistance() throws {
        var rng = SplitMix64(seed: 1_600_004)
        var worstTightness = 0.0, acrossEquator = 0
        for i in 0..<4000 {
            var p = Self.randomPoint(&rng)
            if i % 5 == 0 { p = Coordinate(x: p.x, y: Double.random(in: -0.5...0.5, using: &rng)) }
            let s = i % 2 == 0 ? 100_000 : pow(10, Double.random(in: 0...6.5, using: &rng))
            let q = Self.g.move(p, azimuth: Double.random(in: 0..<360, using: &rng), distance: s)
            let distance = Self.g.distance(p, q)
            let mp = try #require(Self.sphere.signedUpperMetersPerRadian(atLatitude: p.y * .pi / 180))
            let mq = try #require(Self.sphere.signedUpperMetersPerRadian(atLatitude: q.y * .pi / 180))
            if (p.y < 0) != (q.y < 0) { acrossEquator += 1 }
            let bound = Self.sphere.upperMetersPerRadian(mp, mq)
                * Self.sphere.unitVector(p).angle(to: Self.sphere.unitVector(q))
            #expect(bound >= distance * (1 - 1e-12) - 1e-9, "p \(p) q \(q): bound \(bound) < \(distance)")
            if s == 100_000 && abs(p.y) < 60 && abs(q.y) < 60 { worstTightness = max(worstTightness, bound / distance - 1) }
        }
        print("conformal upper bound at 100 km below 60°: at most \(worstTightness) above the distance")
        #expect(worstTightness < 2e-4)
        #expect(acrossEquator > 100)
        #expect(ConformalSphere(Ellipsoid(semiMajorAxis: 6_378_137, flattening: -0.01))
            .signedUpperMetersPerRadian(atLatitude: 0.5) == nil)
    }

    /// `Geodesic.foot` (the exact distance the coverage's queries compute for a segment) against an independent
    /// golden-section search of `geod_inverse` distances along the segment: within 1 µm, with and without a guess,
    /// for segments from 10 m to 500 km and points 1 km to 1,000 km away, beyond the ends as well (its along
    /// position then 0 or the length). A point's distance off by δ along the segment is about δ²/(2s) too large.
    @Test func footMatchesAnIndependentSearch() {
        var rng = SplitMix64(seed: 1_600_006)
        for i in 0..<400 {
            var a = Self.randomPoint(&rng)
            a = Coordinate(x: a.x, y: max(-80, min(80, a.y)))
            let length = pow(10, Double.random(in: 1...5.7, using: &rng))
            let b = Self.g.move(a, azimuth: Double.random(in: 0..<360, using: &rng), distance: length)
            let line = Self.g.line(from: a, to: b)
            let base = line.position(Double.random(in: -0.3...1.3, using: &rng) * line.length)
            let p = Self.g.move(base.coordinate, azimuth: base.azimuth + Double.random(in: 45...135, using: &rng),
                                distance: pow(10, Double.random(in: 3...6, using: &rng)))
            let guess: Double? = i % 2 == 0 ? nil : Double.random(in: -100...(line.length + 100), using: &rng)
            let foot = Self.g.foot(of: p, on: line, guess: guess)
            let reference = BufferChecks.distance(from: p, toSegment: a, b)
            #expect(abs(foot.distance - reference) <= 1e-6,
                    "segment \(a)–\(b), point \(p), guess \(guess ?? -1): \(foot.distance) vs \(reference)")
        }
    }

    /// m(Φ) × (the angle to the segment's arc − its stray) ≤ the distance from a point to the geodesic segment,
    /// for segments from 10 m to 2,000 km and points up to twice the segment's length or 300 km from it.
    @Test func arcBoundIsBelowTheSegmentDistance() {
        var rng = SplitMix64(seed: 1_600_002)
        for _ in 0..<600 {
            let a = Self.randomPoint(&rng)
            let length = pow(10, Double.random(in: 1...6.3, using: &rng))
            let b = Self.g.move(a, azimuth: Double.random(in: 0..<360, using: &rng), distance: length)
            let line = Self.g.line(from: a, to: b)
            let mid = line.position(line.length / 2).coordinate
            let band = abs(mid.y) * .pi / 180 + Self.sphere.latitudeSpan(line.length / 2)
            let arc = SphereArc(Self.sphere.unitVector(a), Self.sphere.unitVector(b),
                                length: line.length / Self.sphere.metersPerRadian(maximumLatitude: band))
            let foot = line.position(Double.random(in: 0...line.length, using: &rng)).coordinate
            let p = Self.g.move(foot, azimuth: Double.random(in: 0..<360, using: &rng),
                                distance: Double.random(in: 0...max(2 * length, 300_000), using: &rng))
            let distance = BufferChecks.distance(from: p, toSegment: a, b)
            let scale = Self.sphere.metersPerRadian(
                maximumLatitude: abs(p.y) * .pi / 180 + Self.sphere.latitudeSpan(distance + line.length))
            let bound = scale * (arc.angle(to: Self.sphere.unitVector(p)) - arc.stray)
            // The reference's golden-section search finds the distance to about 1e-5 m along the segment.
            #expect(bound <= distance + 1e-6, "segment \(a)–\(b), point \(p): bound \(bound) > \(distance)")
        }
    }

    /// The coverage's nearest-first queries give what examining every element gives: on a 300-vertex sine line at
    /// 100 km (elements far more than the few a query computes), at points within 500 m of the buffer boundary,
    /// `nearResidual` equals `Geodesic.residual` over all elements wherever that is within 1 m, `covering` names an
    /// element as deep as the deepest, and `projection` lands on the boundary (residual over all elements 0).
    @Test func nearestFirstQueriesMatchTheBruteForce() throws {
        let (path, groups) = Self.sineLine()
        let required = Self.sineLineDistance
        let coverage = ElementCoverage(groups: groups, geodesic: Self.g, reach: 401)
        var rng = SplitMix64(seed: 1_600_003)
        var compared = 0
        for k in 0..<150 {
            // Every other point across the line from a vertex, within 1 m of 100 km (on the boundary where no
            // other element covers it), the others anywhere within 500 m of 100 km from a vertex.
            let i = Int.random(in: 0..<(path.count - 1), using: &rng)
            let across = Self.g.inverse(path[i], path[i + 1]).azimuth1 + (Bool.random(using: &rng) ? 90 : -90)
            let p = k % 2 == 0
                ? Self.g.move(path[i], azimuth: across, distance: required + Double.random(in: -0.9...0.9, using: &rng))
                : Self.g.move(path[i], azimuth: Double.random(in: 0..<360, using: &rng),
                              distance: required + Double.random(in: -500...500, using: &rng))
            let brute = try #require(Self.g.residual(at: p, output: p, groups: groups))
            if abs(brute) <= 1 {
                compared += 1
                let near = try #require(coverage.nearResidual(p, output: p))
                #expect(abs(near - brute) < 1e-9, "at \(p): \(near) vs \(brute)")
            }
            if brute < -1e-3 {
                #expect(coverage.covering(p, output: p, margin: 1e-3) != nil, "at \(p): residual \(brute)")
            } else {
                #expect(coverage.covering(p, output: p, margin: 1e-3) == nil, "at \(p): residual \(brute)")
            }
            if abs(brute) <= 400 {
                let q = try #require(coverage.projection(p, output: p))
                let r = try #require(Self.g.residual(at: q, output: q, groups: groups))
                #expect(abs(r) < 1e-6, "projection of \(p): residual \(r)")
            }
        }
        print("nearest-first queries: \(compared) points within 1 m of the boundary compared")
        #expect(compared >= 30)
    }
}

extension ElementCoverageTests {
    /// The distance in meters of `sineLine()`'s elements.
    static let sineLineDistance = 100_000.0

    /// A 300-vertex sine line across West Texas and its elements at `sineLineDistance` (one group, outward, 200 m
    /// tolerance): many more elements than a query computes.
    static func sineLine() -> (path: [Coordinate], groups: [ElementGroup]) {
        let path = (0..<300).map { i -> Coordinate in
            let x = -103 + 9 * Double(i) / 299
            return Coordinate(x: x, y: 32.5 + 0.8 * sin(1.3 * (x + 103)))
        }
        var elements = path.map { GeodeticElement(kind: .vertex($0), required: sineLineDistance) }
        for (a, b) in zip(path, path.dropFirst()) {
            elements.append(GeodeticElement(kind: .segment(start: a, end: b, line: g.line(from: a, to: b)),
                                            required: sineLineDistance))
        }
        return (path, [ElementGroup(elements: elements, isInward: false, contains: nil, tolerance: 200)])
    }

    /// `isWithin` with upper bounds (as `SeededLineBuffer` builds its coverage), from the index and from a
    /// `Neighbourhood` of five points along a chord, decides as the brute force over every element does
    /// (`Geodesic.residual` within ±band), for the bands the seeded attempt uses (10 µm at its vertices, 160 m on
    /// its edges) and 1 m, on a 300-vertex sine line at 100 km: chords of 2–12 km from points within 400 m of a
    /// vertex's circle, and points exactly on segments' offsets (on the boundary unless another element covers
    /// them): five on one segment's, or one on each of five consecutive segments'. Both answers must occur. At
    /// every point, a neighbourhood of its five gives the same candidates and lower bounds as the index (for the
    /// bands, and for the whole reach).
    @Test func isWithinWithUpperBoundsMatchesTheBruteForce() throws {
        let (path, groups) = Self.sineLine()
        let required = Self.sineLineDistance
        let bounded = ElementCoverage(groups: groups, geodesic: Self.g, reach: 401, upperBounds: true)
        let plain = ElementCoverage(groups: groups, geodesic: Self.g, reach: 401)
        var rng = SplitMix64(seed: 1_600_005)
        var answers: [Double: (yes: Int, no: Int)] = [:]
        for k in 0..<40 {
            let i = Int.random(in: 0..<(path.count - 1), using: &rng)
            let line = Self.g.line(from: path[i], to: path[i + 1])
            let points: [Coordinate]
            if k % 4 == 0 {
                // On the offset of segment i, at five fractions of it.
                let side = Bool.random(using: &rng) ? 90.0 : -90.0
                points = [0.1, 0.3, 0.5, 0.7, 0.9].map { f in
                    let base = line.position(f * line.length)
                    return Self.g.move(base.coordinate, azimuth: base.azimuth + side, distance: required)
                }
            } else if k % 4 == 1 {
                // On the offsets of five consecutive segments, one point each, at their midpoints: the points'
                // nearest elements differ, so a neighbourhood must hold what each of them needs.
                let side = Bool.random(using: &rng) ? 90.0 : -90.0
                let first = min(max(i, 2), path.count - 4) - 2
                points = (first..<(first + 5)).map { j in
                    let l = Self.g.line(from: path[j], to: path[j + 1])
                    let base = l.position(l.length / 2)
                    return Self.g.move(base.coordinate, azimuth: base.azimuth + side, distance: required)
                }
            } else {
                let a = Self.g.move(path[i], azimuth: line.azimuth1 + (Bool.random(using: &rng) ? 90 : -90),
                                    distance: required + Double.random(in: -400...400, using: &rng))
                let b = Self.g.move(a, azimuth: line.azimuth1 + Double.random(in: -30...30, using: &rng),
                                    distance: Double.random(in: 2000...12_000, using: &rng))
                points = (1...5).map { j in
                    let t = Double(j) / 6
                    return Coordinate(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
                }
            }
            for slack in [1e-5, 1, 160, 401] {
                let neighbourhood = bounded.neighbourhood(of: points, slack: slack)
                for p in points {
                    let fromIndex = bounded.lowerBounds(p, slack: slack), around = bounded.lowerBounds(
                        p, slack: slack, among: neighbourhood)
                    #expect(fromIndex.map(\.index) == around.map(\.index) && fromIndex.map(\.bound) == around.map(\.bound),
                            "\(p), slack \(slack): \(fromIndex.count) candidates from the index, \(around.count) around")
                }
            }
            let residuals = try points.map { try #require(Self.g.residual(at: $0, output: $0, groups: groups)) }
            for band in [1e-5, 1, 160] {
                let neighbourhood = bounded.neighbourhood(of: points, slack: band)
                for (p, r) in zip(points, residuals) where abs(abs(r) - band) > 1e-6 {
                    let expected = abs(r) <= band
                    #expect(bounded.isWithin(p, output: p, band: band, hint: nil) == expected,
                            "\(p), band \(band): residual \(r)")
                    #expect(bounded.isWithin(p, output: p, band: band, hint: nil, among: neighbourhood) == expected,
                            "\(p), band \(band), neighbourhood: residual \(r)")
                    #expect(plain.isWithin(p, output: p, band: band, hint: nil) == expected,
                            "\(p), band \(band), no upper bounds: residual \(r)")
                    answers[band, default: (0, 0)].yes += expected ? 1 : 0
                    answers[band, default: (0, 0)].no += expected ? 0 : 1
                }
            }
        }
        print("isWithin with upper bounds: \(answers.sorted { $0.key < $1.key })")
        for band in [1e-5, 1, 160] {
            #expect((answers[band]?.yes ?? 0) >= 10 && (answers[band]?.no ?? 0) >= 10, "band \(band): \(answers)")
        }
    }

    /// Upper bounds need a segment's ends among the elements: a segment alone gets none, so a point beyond its
    /// end, within 100 m of 100 km from its midpoint but in no element's reach (the segment's nearest point to it is
    /// the end), is not within 160 m.
    @Test func upperBoundsNeedTheSegmentsEnds() {
        let a = Coordinate(x: -100, y: 35), b = Self.g.move(a, azimuth: 80, distance: 2000)
        let line = Self.g.line(from: a, to: b)
        let alone = [ElementGroup(elements: [GeodeticElement(kind: .segment(start: a, end: b, line: line),
                                                             required: 100_000)],
                                  isInward: false, contains: nil, tolerance: 200)]
        let coverage = ElementCoverage(groups: alone, geodesic: Self.g, reach: 401, upperBounds: true)
        let end = line.position(line.length)
        let p = Self.g.move(end.coordinate, azimuth: end.azimuth, distance: 100_000 - line.length / 2 + 100)
        #expect(Self.g.residual(at: p, output: p, groups: alone) == nil)
        #expect(!coverage.isWithin(p, output: p, band: 160, hint: nil))
        #expect(!coverage.isWithin(p, output: p, band: 160, hint: nil,
                                   among: coverage.neighbourhood(of: [p], slack: 160)))
    }
}

/// On a smooth line bending tighter than the distance (its buffer folds inside every bend) and the same
/// line with noise, moving GEOS's crossing vertices onto the true crossings once gave an invalid polygon (vertices
/// passing their neighbours), so every buffer was built twice (crossings, then projections). `finish` now projects
/// the vertices whose true crossing lies more than half-way to a neighbour: its first attempt (`.crossings`) must
/// be valid on both lines (the accuracy of the result is checked against GeographicLib by
/// Tests/python/test_geodesic.py::test_line_buffer_vertices_on_the_true_boundary).
@Suite struct GeodeticCrossingsPlacementTests {
    @Test(arguments: ["smooth", "noisy"]) func crossingsAttemptIsValidOnBendingLines(_ name: String) throws {
        // The lines of test_geodesic.py's _line_cases (the noise from another generator): 1,000 vertices.
        var noise = SplitMix64(seed: 16)
        let path = (0..<1000).map { i -> Coordinate in
            let x = -103 + 9 * Double(i) / 999
            let y = 32.5 + 0.8 * sin(1.3 * (x + 103))
            return Coordinate(x: x, y: name == "noisy" ? y + Double.random(in: -0.002...0.002, using: &noise) : y)
        }
        let frame = try GeodeticFrame(input: .wgs84, output: nil)
        let context = try GEOSContext()
        let builder = GeodeticBufferBuilder(frame: frame, context: context, tolerance: 200)
        let (ref, group) = try builder.buffer(.polyline(Polyline(path, spatialReference: .wgs84)), distance: 100_000)
        let polygon = try GeodeticBufferPipeline.finish(ref, groups: [group], generated: builder.generated, frame: frame,
                                                context: context, placement: .crossings)
        #expect(try GeometryEngine.invalidityReason(polygon) == nil)
        #expect(polygon.parts.count == 1)
    }
}
