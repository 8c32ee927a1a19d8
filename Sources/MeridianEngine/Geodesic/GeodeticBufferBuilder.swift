import Foundation
import MeridianCore

/// A point of a sampled boundary curve: its parameter, lon/lat on the compute ellipsoid and output coordinates
/// (for geographic output, a longitude in [-180, 180], or exactly 180 for a sample placed on the antimeridian).
struct CurveSample {
    var u: Double
    var ll: Coordinate
    var out: Coordinate
    var isCrossing = false
}

/// A hashable x/y key for exact vertex identity.
struct XY: Hashable {
    let x: Double
    let y: Double
    init(_ c: Coordinate) {
        x = c.x
        y = c.y
    }

    /// One word for both coordinates (the synthesized hash feeds two; sets of hundreds of thousands of generated
    /// vertices spent a tenth of a union's time hashing). -0.0 is hashed as 0.0, which it equals.
    func hash(into hasher: inout Hasher) {
        let bx = (x == 0 ? 0 : x).bitPattern, by = (y == 0 ? 0 : y).bitPattern
        hasher.combine(bx &* 0x9E37_79B9_7F4A_7C15 ^ by)
    }
}

/// A geodesic circle around one vertex, sampled once and shared by every piece that uses an arc of it, so that
/// pieces meet on identical vertices. Parameter u = −azimuth (u grows counter-clockwise), samples cover
/// [u₀, u₀ + 360], the last repeating the first.
struct SampledCircle {
    var samples: [CurveSample]

    /// The samples from parameter `from` (mod 360) counter-clockwise through `span` degrees; both ends must be
    /// sample parameters (the mandatory azimuths).
    func arc(from: Double, span: Double) -> [CurveSample] {
        let n = samples.count - 1
        guard n > 0 else { return samples }
        let start = samples.indices.dropLast().min { circularGap(samples[$0].u, from) < circularGap(samples[$1].u, from) }!
        let target = from + span
        var result = [samples[start]]
        var i = start
        var u = from
        while true {
            let next = (i + 1) % n
            var du = samples[i + 1].u - samples[i].u
            if du < 0 { du += 360 }
            u += du
            result.append(samples[next == 0 ? n : next])
            i = next
            if u >= target - 1e-9 || result.count > n + 1 { break }
        }
        return result
    }
}

/// The distance between two angles in degrees, in [0, 180].
func circularGap(_ a: Double, _ b: Double) -> Double {
    let d = abs((a - b).truncatingRemainder(dividingBy: 360))
    return min(d, 360 - d)
}

/// An angle in degrees brought into [0, 360).
func normalizedAngle(_ a: Double) -> Double {
    var r = a.truncatingRemainder(dividingBy: 360)
    if r < 0 { r += 360 }
    if r >= 360 { r -= 360 }
    return r
}

/// Builds the geodesic buffer of one geometry as a GEOS polygon in output coordinates.
final class GeodeticBufferBuilder {
    let frame: GeodeticFrame
    let context: GEOSContext
    /// The largest allowed deviation, meters.
    let tolerance: Double
    /// The deviation a chord may have when sampled at five points (a margin for the unsampled maximum).
    let accept: Double
    /// Every vertex of every piece, in output coordinates (after cutting at ±180°).
    var generated: Set<XY> = []
    var geod: Geodesic { frame.geodesic }

    init(frame: GeodeticFrame, context: GEOSContext, tolerance: Double) {
        self.frame = frame
        self.context = context
        self.tolerance = tolerance
        accept = 0.8 * tolerance
    }

    // MARK: Sampling

    func sample(_ u: Double, _ ll: Coordinate) throws(EngineError) -> CurveSample {
        var out = try frame.toOutput(ll)
        if frame.geographicOutput { out.x = normalizedLongitude(out.x) }
        return CurveSample(u: u, ll: ll, out: out)
    }

    /// `b` shifted by a multiple of 360° of longitude to lie near `a` (geographic output), else `b`.
    func near(_ b: Coordinate, _ a: Coordinate) -> Coordinate {
        guard frame.geographicOutput else { return b }
        return Coordinate(x: unwrappedLongitude(b.x, near: a.x), y: b.y)
    }

    /// The largest |distance − required| at five points of the chord from `a` to `b` (straight in output coordinates).
    func chordDeviation(_ a: CurveSample, _ b: CurveSample, required: Double,
                        distance: (Coordinate, Double) -> Double) throws(EngineError) -> Double {
        let bo = near(b.out, a.out)
        var qs: [Coordinate] = []
        for k in 1...5 {
            let t = Double(k) / 6
            qs.append(Coordinate(x: a.out.x + t * (bo.x - a.out.x), y: a.out.y + t * (bo.y - a.out.y)))
        }
        let lls = try frame.toCompute(qs)
        var worst = 0.0
        for (k, ll) in lls.enumerated() {
            let t = Double(k + 1) / 6
            let dev = abs(distance(ll, a.u + t * (b.u - a.u)) - required)
            if !dev.isFinite { return .infinity }
            worst = max(worst, dev)
        }
        return worst
    }

    /// Samples a boundary curve adaptively from `a` to `b` (parameters increasing): greedy longest chords whose
    /// deviation from the curve is within `accept`, steps at most `maxStep`, a vertex placed exactly on ±180° where
    /// the curve crosses it (geographic output), and no chord spanning more than 90° of longitude.
    /// With a `metric` (a small circle in identical compute and output lon/lat), chords are measured by its
    /// closed-form estimate instead of inverse geodesics.
    ///
    /// Work: the samples are counted against the `WorkBudget` as vertices, and the attempts beyond
    /// `attemptsPerVertex` per sample kept as one vertex each `attemptsPerVertex` (an attempt costs one direct
    /// problem and five foot points, each a few inverse problems: about what placing a vertex costs), counted in
    /// unions too. Ordinary curves take about two attempts per sample and are charged their samples only.
    /// - Returns: The samples after `a`, ending with `b`.
    func sampleCurve(from a: CurveSample, to b: CurveSample, maxStep: Double, required: Double,
                     point: (Double) throws(EngineError) -> CurveSample,
                     distance: (Coordinate, Double) -> Double,
                     metric: LocalCircleMetric? = nil) throws(EngineError) -> [CurveSample] {
        var result: [CurveSample] = []
        var current = a
        var h = min(maxStep, b.u - a.u)
        var safety = 0
        var attempts = 0, chargedAttempts = 0
        func chargeAttempts() throws(EngineError) {
            let excess = attempts / Self.attemptsPerVertex - result.count
            guard excess > chargedAttempts else { return }
            try WorkBudget.spend(vertices: excess - chargedAttempts, by: "the geodesic buffer's chord attempts")
            chargedAttempts = excess
        }
        while current.u < b.u {
            safety += 1
            if safety > 200_000 {
                throw .invalidDistance("the geodesic buffer needs more than 200,000 vertices on one boundary curve (a long "
                    + "segment at a small maxDeviation); raise maxDeviation or the distance")
            }
            let remaining = b.u - current.u
            var candidateStep = min(h, maxStep, remaining)
            var best: (CurveSample, Double)?
            var grows = 0
            for _ in 0..<80 {
                attempts += 1
                let (candidate, deviation, terminal) = try attempt(from: current, step: candidateStep, to: b,
                                                                   required: required, point: point, distance: distance,
                                                                   metric: metric)
                if deviation <= accept || candidateStep <= remaining * 1e-12 {
                    best = (candidate, candidateStep)
                    if terminal || grows >= 4 { break }
                    // With the closed-form estimate (cheap, so each attempt costs one direct problem): a chord this
                    // close to `accept` would fail the ≥ 1.1× longer step (its deviation grows as the step's square).
                    if metric != nil && deviation > 0.87 * accept { break }
                    let factor = deviation > 0 ? min(2, max(1.1, 0.95 * (accept / deviation).squareRoot())) : 2
                    let next = min(candidateStep * factor, maxStep, remaining)
                    if next <= candidateStep * 1.000001 { break }
                    grows += 1
                    candidateStep = next
                } else {
                    if best != nil { break }
                    let factor = deviation.isFinite ? min(0.9, max(0.05, 0.95 * (accept / deviation).squareRoot())) : 0.5
                    candidateStep *= factor
                }
            }
            guard let (next, step) = best else {
                throw .geos("geodesic buffer: could not sample a boundary curve within the deviation")
            }
            result.append(next)
            if result.count % 1024 == 0 {
                try WorkBudget.produce(vertices: 1024, by: "the geodesic buffer")
                try chargeAttempts()
            }
            current = next
            h = step
        }
        try WorkBudget.produce(vertices: result.count % 1024, by: "the geodesic buffer")
        try chargeAttempts()
        return result
    }

    /// The chord attempts `sampleCurve` makes per sample kept without charging them to the `WorkBudget`, and the
    /// attempts charged as one vertex beyond them.
    static let attemptsPerVertex = 4

    private func attempt(from current: CurveSample, step: Double, to end: CurveSample, required: Double,
                         point: (Double) throws(EngineError) -> CurveSample,
                         distance: (Coordinate, Double) -> Double,
                         metric: LocalCircleMetric?) throws(EngineError) -> (CurveSample, Double, Bool) {
        var isEnd = step >= end.u - current.u
        var candidate = isEnd ? end : try point(current.u + step)
        if frame.geographicOutput {
            let cx = current.out.x
            let bx = near(candidate.out, current.out).x
            if abs(bx - cx) > 90 { return (candidate, .infinity, false) }
            let k1 = ((cx + 180) / 360).rounded(.down), k2 = ((bx + 180) / 360).rounded(.down)
            if k1 != k2 {
                let line = -180 + 360 * max(k1, k2)
                if line != cx && line != bx {
                    candidate = try crossing(from: current, to: candidate, at: line, point: point)
                    isEnd = true
                }
            }
        }
        if let metric {
            return (candidate, metric.chordDeviation(current.out, near(candidate.out, current.out)), isEnd)
        }
        let deviation = try chordDeviation(current, candidate, required: required, distance: distance)
        return (candidate, deviation, isEnd)
    }

    /// The sample where the curve between `a` and `b` reaches the longitude `line` (an odd multiple of 180°,
    /// relative to `a`'s unwrapped longitude), by bisection on the parameter; its output longitude is exactly ±180°.
    private func crossing(from a: CurveSample, to b: CurveSample, at line: Double,
                          point: (Double) throws(EngineError) -> CurveSample) throws(EngineError) -> CurveSample {
        var lo = a.u, hi = b.u
        let increasing = near(b.out, a.out).x > a.out.x
        var best = b
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if mid <= lo || mid >= hi { break }
            let s = try point(mid)
            let x = near(s.out, a.out).x
            best = s
            if abs(x - line) < 1e-12 { break }
            if (x < line) == increasing { lo = mid } else { hi = mid }
        }
        best.out.x = 180
        best.isCrossing = true
        return best
    }

    /// The closed ring of a small circle of `radius` m around `center` (compute lon/lat) with no mandatory
    /// azimuths, when the output is the compute lon/lat and the circle stays clear of the poles and of ±180°: its
    /// vertices at evenly spaced azimuths from a `SmallCircleSeries` (within 10 µm, and 5 % of the tolerance, of
    /// `geod_direct`), as many as the chord deviation bound below needs; `nil` otherwise (the adaptive path).
    ///
    /// Chord deviation: in the azimuthal equidistant projection centred on `center` the circle is exactly a circle
    /// of radius r and the vertices are evenly spaced on it, so a chord there deviates by r·(1 − cos(π/n)). A chord
    /// straight in longitude/latitude instead bends, relative to that one, by about ϑ·tan φ of it (ϑ the angular
    /// radius, φ the latitude farthest from the equator: the geodesic curvature of a parallel is tan φ/N), at most
    /// 0.03 here (`LocalCircleMetric.maximumSkew`). n is the smallest count with r·(1 − cos(π/n))·(1 + 2·ϑ·tan φ)
    /// within 0.8 × the tolerance (the adaptive path's acceptance), and at least 8; `SmallCircleSeriesTests`
    /// measures the resulting deviation exactly.
    /// The vertices are counted against the `WorkBudget` before they are made.
    func evenlySpacedCircle(center: Coordinate, radius: Double) throws(EngineError) -> [Coordinate]? {
        guard frame.isIdentity, frame.geographicOutput,
              let metric = LocalCircleMetric(center: center, radius: radius, ellipsoid: geod.ellipsoid)
        else { return nil }
        // A circle whose angular radius alone reaches ±180° in longitude (its longitude half-width is about ϑ/cos φ,
        // at least ϑ) goes to the adaptive path without computing a series that the check below would refuse.
        guard abs(center.x) + metric.angularRadius * 180 / Double.pi < 180,
              let series = SmallCircleSeries(center: center, radius: radius, geodesic: geod,
                                             tolerance: min(1e-5, 0.05 * tolerance))
        else { return nil }
        let allowed = accept / (radius * (1 + 2 * metric.skew))
        let exact = allowed >= 1 ? 8 : max(8, (Double.pi / acos(1 - allowed)).rounded(.up))
        try WorkBudget.produce(vertices: Int(min(exact, 1e15)), by: "the geodesic buffer")
        let ring = series.ring(vertexCount: Int(exact))
        guard ring.allSatisfy({ $0.x > -180 && $0.x < 180 }), isStrictlyConvexLoop(ring) else { return nil }
        return ring
    }

    /// Whether a closed ring turns left at every vertex (cross product above 1e-9 of the edges' lengths' product)
    /// and its edge direction passes due east exactly once: then it is a simple, strictly convex,
    /// counter-clockwise polygon. (`isStrictlyConvex` without its trigonometry: with every turn in (0, π), the
    /// number of times the direction crosses east is the winding number.)
    func isStrictlyConvexLoop(_ ring: [Coordinate]) -> Bool {
        let n = ring.count - 1
        guard n >= 3, ring[0] == ring[n] else { return false }
        var eastCrossings = 0
        var ux = ring[0].x - ring[n - 1].x, uy = ring[0].y - ring[n - 1].y
        for i in 0..<n {
            let vx = ring[i + 1].x - ring[i].x, vy = ring[i + 1].y - ring[i].y
            let cross = ux * vy - uy * vx
            guard cross > 1e-9 * ((ux * ux + uy * uy) * (vx * vx + vy * vy)).squareRoot() else { return false }
            if uy < 0 && vy >= 0 { eastCrossings += 1 }
            ux = vx
            uy = vy
        }
        return eastCrossings == 1
    }

    /// The geodesic circle of radius `radius` m around `center`, through the given mandatory azimuths.
    func circle(center: Coordinate, radius: Double, mandatory azimuths: [Double]) throws(EngineError) -> SampledCircle {
        if azimuths.isEmpty, let ring = try evenlySpacedCircle(center: center, radius: radius) {
            let n = ring.count - 1
            return SampledCircle(samples: ring.enumerated().map { k, c in
                CurveSample(u: 360 * Double(k) / Double(n), ll: c, out: c)
            })
        }
        var us = Array(Set(azimuths.map { normalizedAngle(-$0) })).sorted()
        if us.isEmpty { us = [0] }
        let point: (Double) throws(EngineError) -> CurveSample = { u throws(EngineError) in
            try self.sample(u, self.geod.move(center, azimuth: -u, distance: radius))
        }
        let distance: (Coordinate, Double) -> Double = { ll, _ in self.geod.distance(center, ll) }
        // Output lon/lat identical to compute lon/lat: small circles away from the poles use the closed-form
        // chord estimate (their vertices still come from geod_direct: circles with mandatory azimuths, and small
        // circles reaching ±180°).
        let metric = frame.isIdentity && frame.geographicOutput
            ? LocalCircleMetric(center: center, radius: radius, ellipsoid: geod.ellipsoid) : nil
        let first = try point(us[0])
        var samples = [first]
        for i in us.indices {
            let end: CurveSample
            if i + 1 < us.count {
                end = try point(us[i + 1])
            } else {
                end = CurveSample(u: us[0] + 360, ll: first.ll, out: first.out, isCrossing: first.isCrossing)
            }
            samples += try sampleCurve(from: samples[samples.count - 1], to: end, maxStep: 45, required: radius,
                                       point: point, distance: distance, metric: metric)
        }
        return SampledCircle(samples: samples)
    }

    /// The offset curve at `radius` m on one side of a geodesic segment (side +1: right, −1: left), from the
    /// sample `start` to the sample `end` (taken from the end circles). For the right side the parameter runs from
    /// the segment's start to its end; for the left side, back.
    func offset(line: Geodesic.Line, side: Double, radius: Double, start: CurveSample, end: CurveSample)
        throws(EngineError) -> [CurveSample]
    {
        let length = line.length
        let along: (Double) -> Double = { u in side > 0 ? u : length - u }
        let point: (Double) throws(EngineError) -> CurveSample = { u throws(EngineError) in
            let s = line.position(along(u))
            return try self.sample(u, self.geod.move(s.coordinate, azimuth: s.azimuth + side * 90, distance: radius))
        }
        let distance: (Coordinate, Double) -> Double = { ll, u in
            self.geod.distance(from: ll, toSegment: line, guess: along(u))
        }
        var a = start, b = end
        a.u = 0
        b.u = length
        var samples = [a]
        samples += try sampleCurve(from: a, to: b, maxStep: length, required: radius, point: point, distance: distance)
        return samples
    }

    // MARK: Pieces in output coordinates

    /// Output coordinates of a closed sequence of samples, longitudes unwrapped to be continuous (geographic).
    func unwrappedRing(_ samples: [CurveSample]) -> [Coordinate] {
        var ring: [Coordinate] = []
        ring.reserveCapacity(samples.count)
        for s in samples {
            guard frame.geographicOutput, let previous = ring.last else {
                ring.append(s.out)
                continue
            }
            ring.append(Coordinate(x: unwrappedLongitude(s.out.x, near: previous.x), y: s.out.y))
        }
        return ring
    }

    /// The GEOS polygons, within [-180, 180] × [-90, 90], of the region left of a closed ring of unwrapped
    /// longitude/latitude (counter-clockwise as seen from outside the ellipsoid). A ring whose longitude winds once
    /// eastwards encloses the north pole (closed along +90°), westwards the south pole; a non-winding ring that is
    /// clockwise in the plane encloses the rest of the world.
    func geographicRegion(_ ring: [Coordinate]) throws(EngineError) -> [GEOSGeometryRef] {
        guard var first = ring.first, var last = ring.last, ring.count >= 4 else { return [] }
        let k = ((last.x - first.x) / 360).rounded()
        var ring = ring
        if k != 0, let start = ring.indices.dropLast().first(where: { abs(ring[$0].x.truncatingRemainder(dividingBy: 360)) == 180 }) {
            // Start a ring that winds around a pole on the antimeridian, so that it spans exactly [-180, 180] and
            // its closing edges along the pole lie on ±180°.
            let body = Array(ring[start..<(ring.count - 1)]) + Array(ring[0..<start])
            var rotated: [Coordinate] = [Coordinate(x: k > 0 ? -180 : 180, y: body[0].y)]
            for c in body.dropFirst() { rotated.append(Coordinate(x: unwrappedLongitude(c.x, near: rotated.last!.x), y: c.y)) }
            rotated.append(Coordinate(x: rotated[0].x + 360 * k, y: body[0].y))
            ring = rotated
            first = ring[0]
            last = ring[ring.count - 1]
        }
        var points = Array(ring.dropLast())
        points.append(Coordinate(x: first.x + 360 * k, y: first.y))
        if k == 1 {
            points += [Coordinate(x: first.x + 360, y: 90), Coordinate(x: first.x, y: 90)]
        } else if k == -1 {
            points += [Coordinate(x: first.x - 360, y: -90), Coordinate(x: first.x, y: -90)]
        } else if k != 0 {
            throw .geos("geodesic buffer: a boundary winds \(Int(k)) times around the pole")
        }
        points.append(first)
        let area = Polygon.signedArea(points)
        if k == 0 && area > 0 && ring.first == ring.last && ring.allSatisfy({ $0.x >= -180 && $0.x <= 180 })
            && isStrictlyConvex(ring)
        {
            // A strictly convex counter-clockwise ring inside [-180, 180] (a small circle away from ±180° and the
            // poles): valid as it is and inside one tile, so neither GEOS's validity check nor the cut is needed.
            let polygon = try context.make(.polygon(Polygon(shell: ring, spatialReference: frame.outputSR)))
            for c in ring { generated.insert(XY(c)) }
            return [polygon]
        }
        let polygon = try valid(try context.make(.polygon(Polygon(shell: points, spatialReference: frame.outputSR))))
        if k == 0 && area < 0 {
            // The rest of the world: the world minus the loop's own (cut) inside.
            let loop = try tiles(polygon)
            let world = try context.make(.envelope(Envelope(xMin: -180, yMin: -90, xMax: 180, yMax: 90,
                                                            spatialReference: frame.outputSR)))
            guard !loop.isEmpty else { return [world] }
            return [try world.difference(try context.unaryUnion(of: loop))]
        }
        guard area > 0 else { throw .geos("geodesic buffer: a boundary ring has the wrong orientation") }
        let region = polygon
        return try tiles(region)
    }

    /// Whether a closed ring (first vertex repeated at the end) turns left at every vertex, each turn clearly
    /// (cross product above 1e-9 of the edges' lengths' product, far beyond rounding), and winds exactly once: then it
    /// is a simple, strictly convex, counter-clockwise polygon.
    func isStrictlyConvex(_ ring: [Coordinate]) -> Bool {
        let n = ring.count - 1
        guard n >= 3, ring[0] == ring[n] else { return false }
        var turning = 0.0
        for i in 0..<n {
            let p = ring[(i + n - 1) % n], c = ring[i], q = ring[i + 1]
            let ux = c.x - p.x, uy = c.y - p.y, vx = q.x - c.x, vy = q.y - c.y
            let cross = ux * vy - uy * vx, dot = ux * vx + uy * vy
            let lengths = (ux * ux + uy * uy).squareRoot() * (vx * vx + vy * vy).squareRoot()
            guard lengths > 0, cross > 1e-9 * lengths else { return false }
            turning += atan2(cross, dot)
        }
        return abs(turning - 2 * Double.pi) < 1e-6
    }

    private func valid(_ ref: GEOSGeometryRef) throws(EngineError) -> GEOSGeometryRef {
        if ref.isValid { return ref }
        return try ref.madeValid()
    }

    /// Cuts a region in unwrapped longitudes into the [-180, 180] tiles and shifts each piece into [-180, 180].
    func tiles(_ region: GEOSGeometryRef) throws(EngineError) -> [GEOSGeometryRef] {
        guard !region.isEmpty else { return [] }
        let (xmin, xmax) = region.xRange
        if xmin >= -180 && xmax <= 180 {
            record(region)
            return [region]
        }
        var result: [GEOSGeometryRef] = []
        let t0 = Int(((xmin + 180) / 360).rounded(.down)), t1 = Int(((xmax + 180) / 360).rounded(.up)) - 1
        for t in t0...max(t0, t1) {
            let shift = 360 * Double(t)
            let box = try context.make(.envelope(Envelope(xMin: shift - 180, yMin: -90, xMax: shift + 180, yMax: 90,
                                                          spatialReference: frame.outputSR)))
            let clipped = try region.intersection(box, "clip")
            let polygon = try context.polygon(clipped, in: frame.outputSR)
            guard !polygon.parts.isEmpty else { continue }
            let shifted = Geometry.polygon(polygon).mapCoordinates(into: frame.outputSR) { c in
                var x = c.x - shift, y = c.y
                if abs(x - 180) < 1e-9 { x = 180 } else if abs(x + 180) < 1e-9 { x = -180 }
                if abs(y - 90) < 1e-9 { y = 90 } else if abs(y + 90) < 1e-9 { y = -90 }
                return Coordinate(x: x, y: y)
            }
            guard case .polygon(let p) = shifted else { continue }
            for part in p.parts where abs(Polygon.signedArea(part.shell)) > 0 {
                let ref = try valid(try context.make(.polygon(Polygon(parts: [part], spatialReference: frame.outputSR))))
                record(ref)
                result.append(ref)
            }
        }
        return result
    }

    /// Remembers a piece's vertices as exact boundary points.
    private func record(_ ref: GEOSGeometryRef) {
        guard let p = try? context.polygon(ref, in: frame.outputSR) else { return }
        for ring in p.rings { for c in ring { generated.insert(XY(c)) } }
    }

    /// The GEOS polygons of a piece bounded by a closed ring of samples (interior on the left).
    func piece(_ samples: [CurveSample]) throws(EngineError) -> [GEOSGeometryRef] {
        let ring = unwrappedRing(samples)
        if frame.geographicOutput { return try geographicRegion(ring) }
        var closed = ring
        closed[closed.count - 1] = closed[0]
        let ref = try valid(try context.make(.polygon(Polygon(shell: closed, spatialReference: frame.outputSR))))
        record(ref)
        return [ref]
    }
}

