import Foundation
import MeridianCore
import MeridianTestSupport
import Testing

@testable import MeridianEngine

/// The seeded attempt for line buffers (`SeededLineBuffer`): where it is taken, its result must keep the
/// accuracy contract, checked with an independent distance (golden-section search on `geod_inverse` distances,
/// `BufferChecks`); where it must not be taken, the exact path answers.
@Suite struct SeededLineBufferTests {
    static let g = BufferChecks.wgs84

    /// The sine line of Tests/python/test_geodesic.py (lat = 32.5 + 0.8 sin(1.3 (lon + 103)), lon −103…−94) with
    /// `count` vertices, and ±`noise`° of seeded noise on each latitude.
    static func sine(_ count: Int, noise: Double = 0) -> [Coordinate] {
        var rng = SplitMix64(seed: 16)
        return (0..<count).map { i in
            let x = -103 + 9 * Double(i) / Double(count - 1)
            let y = 32.5 + 0.8 * sin(1.3 * (x + 103))
            return Coordinate(x: x, y: y + (noise > 0 ? Double.random(in: -noise...noise, using: &rng) : 0))
        }
    }

    /// The distance in meters from `p` to the path: `BufferChecks.distance(from:toSegment:)` for the segments that
    /// can be nearest (a segment is at least its nearer end's distance less its length away).
    static func distance(from p: Coordinate, toPath path: [Coordinate]) -> Double {
        let ends = path.map { g.distance(p, $0) }
        var best = ends.min()!
        for i in 0..<(path.count - 1) {
            let length = g.distance(path[i], path[i + 1])
            guard min(ends[i], ends[i + 1]) - length < best else { continue }
            best = min(best, BufferChecks.distance(from: p, toSegment: path[i], path[i + 1]))
        }
        return best
    }

    static func attempt(_ path: [Coordinate], distance d: Double, tolerance: Double? = nil, twoThreads: Int = 64)
        throws -> Result<Polygon, SeededLineBuffer.Refusal>
    {
        let frame = try GeodeticFrame(input: .wgs84, output: nil)
        return try SeededLineBuffer.attempt(Polyline(path, spatialReference: .wgs84), distance: d,
                                            tolerance: tolerance ?? 0.002 * d, frame: frame, context: try GEOSContext(),
                                            twoThreads: twoThreads)
    }

    /// The attempt's halves on two threads (the elements beside the frame and seed; the ring's vertices and edges
    /// in two halves) give the polygon one thread gives, on the sine lines, a short line (each half a few
    /// vertices) and the refusals; and under a work budget that has run out, both stop.
    @Test func twoThreadsGiveWhatOneGives() throws {
        let short = [Coordinate(x: -100, y: 30), Coordinate(x: -99.5, y: 30.2), Coordinate(x: -99, y: 30.1)]
        let zigzag = (0..<400).map { Coordinate(x: -104 + 0.008 * Double($0), y: 31 + 0.3 * Double($0 % 2)) }
        for (label, path) in [("smooth", Self.sine(150)), ("noisy", Self.sine(150, noise: 0.01)), ("short", short),
                              ("zigzag", zigzag)]
        {
            let one = try Self.attempt(path, distance: 100_000, twoThreads: .max)
            for threshold in [2, 64] {
                #expect(try Self.attempt(path, distance: 100_000, twoThreads: threshold) == one,
                        "\(label), two threads from \(threshold)")
            }
        }
        // The budget reaches the second thread: its checks are made from two threads.
        let threads = ThreadSet()
        let watching = WorkBudget(seconds: 600, isCancelled: { threads.insert(pthread_self()); return false })
        _ = try watching.run { try Self.attempt(Self.sine(150), distance: 100_000, twoThreads: 2) }
        #expect(threads.count >= 2)
        let spent = WorkBudget(seconds: 0)
        do {
            _ = try spent.run { try Self.attempt(Self.sine(150), distance: 100_000, twoThreads: 2) }
            Issue.record("the attempt ran on under a spent budget")
        } catch EngineError.interrupted {
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// The smooth and the noisy sine line at 100 km take the seeded path (the public call returns its polygon),
    /// and every vertex is within 1 mm of 100 km from the line, every edge within 160 m at its five interior sixths:
    /// what the attempt checks there (0.8 × the 200 m tolerance), plus 1 mm for the reference's own error.
    @Test func sineLinesTakeTheSeededPathAndKeepTheContract() throws {
        for (label, path) in [("smooth", Self.sine(150)), ("noisy", Self.sine(150, noise: 0.01))] {
            let result = try Self.attempt(path, distance: 100_000)
            guard case .success(let seeded) = result else {
                Issue.record("\(label): the seeded attempt was refused: \(result)")
                continue
            }
            let line = Polyline(path, spatialReference: .wgs84)
            #expect(try GeometryEngine.geodeticBuffer(around: line, distance: 100_000) == seeded, "\(label)")
            var stats = BufferStats()
            try BufferChecks.check(seeded, required: 100_000, maxDeviation: 0.8 * 200 + 1e-3, label: label,
                                   stats: &stats, samplesPerEdge: 5) { Self.distance(from: $0, toPath: path) }
            #expect(seeded.parts.count == 1 && seeded.parts[0].holes.isEmpty, "\(label)")
            print("SEEDED LINE BUFFER \(label): \(stats)")
        }
    }

    /// Repeated vertices (the same coordinates, or within 1e-9 m) are dropped before the attempt: the line with
    /// every vertex doubled, and with copies moved by one unit in the last place of latitude where that is within
    /// 1e-9 m, gives the same polygon as the line.
    @Test func repeatedVerticesAreDropped() throws {
        let path = Self.sine(60)
        guard case .success(let plain) = try Self.attempt(path, distance: 100_000) else {
            Issue.record("the seeded attempt was refused")
            return
        }
        let doubled = path.flatMap { [$0, $0] }
        // One ulp of latitude is 0.7–1.8e-9 m here (PROJ): only the copies within 1e-9 m are nudged.
        var moved = 0
        let nudged = path.flatMap { c -> [Coordinate] in
            let copy = Coordinate(x: c.x, y: c.y.nextUp)
            guard Self.g.distance(c, copy) <= 1e-9 else { return [c, c] }
            moved += 1
            return [c, copy]
        }
        #expect(moved >= 10)
        #expect(try Self.attempt(doubled, distance: 100_000) == .success(plain))
        #expect(try Self.attempt(nudged, distance: 100_000) == .success(plain))
    }

    /// The exact path, which these lines no longer reach through the public call, still keeps the contract on them
    /// (it stays the fallback of every refusal).
    @Test func theExactPathStillKeepsTheContractOnTheSameLines() throws {
        for (label, path) in [("smooth", Self.sine(150)), ("noisy", Self.sine(150, noise: 0.01))] {
            let exact = try GeometryEngine.geodeticBuffer(
                around: [Geometry.polyline(Polyline(path, spatialReference: .wgs84))], distances: [100_000],
                distanceUnit: .meters, maxDeviation: nil, shouldUnion: false, outputSpatialReference: nil,
                mergingPolygons: true, seedingLines: false)[0]
            var stats = BufferStats()
            try BufferChecks.check(exact, required: 100_000, maxDeviation: 200, label: "exact \(label)", stats: &stats,
                                   samplesPerEdge: 3) { Self.distance(from: $0, toPath: path) }
            print("EXACT LINE BUFFER \(label): \(stats)")
        }
    }

    /// A closed loop whose buffer has a hole: the planar seed has one, so the attempt is refused and the exact path
    /// gives the hole, within the contract.
    @Test func aBufferWithAHoleIsLeftToTheExactPath() throws {
        let loop = [Coordinate(x: -100, y: 30), Coordinate(x: -97, y: 30), Coordinate(x: -97, y: 33),
                    Coordinate(x: -100, y: 33), Coordinate(x: -100, y: 30)]
        #expect(try Self.attempt(loop, distance: 100_000) == .failure(.seedShape))
        let b = try GeometryEngine.geodeticBuffer(around: Polyline(loop, spatialReference: .wgs84), distance: 100_000)
        #expect(b.parts.count == 1 && b.parts[0].holes.count == 1)
        var stats = BufferStats()
        try BufferChecks.check(b, required: 100_000, maxDeviation: 200, label: "loop", stats: &stats,
                               samplesPerEdge: 3) { Self.distance(from: $0, toPath: loop) }
    }

    /// An arc whose ends are 2 × 50 km + 300 m apart: the planar seed at 50 km is open, but at 50 km plus the
    /// frame's error the gap closes into a hole, so a hole of the true buffer could hide there: refused
    /// (`possibleHole`), and the exact path's polygon keeps the contract.
    @Test func aGapNearTwiceTheDistanceIsLeftToTheExactPath() throws {
        let center = Coordinate(x: -99, y: 40)
        let radius = 150_000.0, d = 50_000.0
        // Half the gap angle: chord 2 R sin(θ/2) = 2 d + 300 m.
        let half = asin((2 * d + 300) / (2 * radius)) * 180 / .pi
        let arc = stride(from: half, through: 360 - half, by: (360 - 2 * half) / 120).map {
            Self.g.move(center, azimuth: $0, distance: radius)
        }
        #expect(Self.g.distance(arc.first!, arc.last!) > 2 * d)
        #expect(try Self.attempt(arc, distance: d) == .failure(.possibleHole))
        let b = try GeometryEngine.geodeticBuffer(around: Polyline(arc, spatialReference: .wgs84), distance: d)
        var stats = BufferStats()
        try BufferChecks.check(b, required: d, maxDeviation: 100, label: "gap", stats: &stats, samplesPerEdge: 3) {
            Self.distance(from: $0, toPath: arc)
        }
    }

    /// Lines the attempt does not take on: a dense zigzag (GEOS's planar buffer of it takes seconds), a line near
    /// ±180°, one near a pole, a distance over 1,000 km.
    @Test func linesOutsideItsRangeAreRefused() throws {
        let zigzag = (0..<400).map { Coordinate(x: -104 + 0.008 * Double($0), y: 31 + 0.3 * Double($0 % 2)) }
        #expect(try Self.attempt(zigzag, distance: 100_000) == .failure(.notApplicable))
        let antimeridian = [Coordinate(x: 179, y: 10), Coordinate(x: 179.5, y: 11)]
        #expect(try Self.attempt(antimeridian, distance: 100_000) == .failure(.notApplicable))
        let polar = [Coordinate(x: 10, y: 78), Coordinate(x: 12, y: 79)]
        #expect(try Self.attempt(polar, distance: 100_000) == .failure(.notApplicable))
        #expect(try Self.attempt(Self.sine(20), distance: 1_500_000) == .failure(.notApplicable))
    }
}

/// The threads that called `insert`, for `twoThreadsGiveWhatOneGives`.
private final class ThreadSet: @unchecked Sendable {
    private let lock = NSLock()
    private var threads: Set<UInt> = []
    func insert(_ t: pthread_t) { lock.withLock { _ = threads.insert(UInt(t)) } }
    var count: Int { lock.withLock { threads.count } }
}
