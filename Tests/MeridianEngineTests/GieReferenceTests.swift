import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// PROJ's own `gie` test cases for the Lambert Conformal Conic, Mercator and Web Mercator projections, and the IOGP
/// GIGS 5102/5103 (LCC) and 5111/5112 (Mercator) conformance tests, replayed through Meridian's public API
/// (`SpatialReference(projString:)`, `SpatialReference(code:)`, `GeometryEngine.project`).
///
/// An `operation` runs when it is expressible as a pair of spatial references:
/// - a single `+proj=lcc|merc|webmerc …` projection: the projected CRS is `SpatialReference(projString:)` of it, and
///   the geographic base is `+proj=longlat` on the same ellipsoid (its `ellps`, `a`, `b`, `R`, `rf`, `f`, `datum`);
/// - a two-step pipeline `step init=epsg:A inv step init=epsg:B` (optionally with a global `towgs84=0,0,0`, which
///   only turns off datum shifts that a CRS pair with the same base does not make anyway): `EPSG:A` → `EPSG:B`;
///   a step may also be a PROJ-string projection (`step proj=webmerc datum=WGS84`).
/// Forward runs base → projected, `direction inverse` the other way. Each `expect` is compared with gie's own
/// rule and the tolerance the file states (default 0.5 mm; no unit means metres): the Euclidean distance in the
/// output unit for projected output, the ellipsoidal distance in metres for angular output. `expect failure`
/// requires the API to throw. `roundtrip n [tol]` projects forward and back n times. Everything else (other
/// pipelines, geoid/datum grids, axis swapping) is skipped and counted with its reason.
@Suite("Projection: PROJ gie lcc/merc/webmerc and GIGS")
struct GieReferenceTests {
    static let files = [
        "proj_gie/gie/builtins.gie", "proj_gie/gie/more_builtins.gie", "proj_gie/gie/4D-API_cs2cs-style.gie",
        "proj_gie/gigs/5102.1.gie", "proj_gie/gigs/5103.1.gie", "proj_gie/gigs/5103.2.gie", "proj_gie/gigs/5103.3.gie",
        "proj_gie/gigs/5111.1.gie", "proj_gie/gigs/5112.gie",
    ]
    /// PROJ itself marks this GIGS file as not passing; it is counted as skipped.
    static let failingFiles = ["proj_gie/gigs/5111.2.gie.failing"]

    /// Fewer executed checks than this means the harness skipped cases it used to run (counted on this machine:
    /// see the printed summary); the test must not pass by skipping.
    static let minimumExecuted = 375

    @Test func replayGieCases() throws {
        var stats = Stats()
        for file in Self.files {
            let text = try ReferenceData.text(file)
            let inScopeByFile = file.contains("/gigs/")
            run(Gie.parse(text), file: file, allOperationsInScope: inScopeByFile, stats: &stats)
        }
        for file in Self.failingFiles {
            let pairs = Gie.parse(try ReferenceData.text(file)).filter { $0.name == "expect" }.count
            stats.skip("PROJ marks the GIGS file as failing (\(file))", count: pairs)
        }
        print(stats.summary)
        #expect(stats.executed >= Self.minimumExecuted, "only \(stats.executed) gie checks executed")
        #expect(stats.passed == stats.executed, "\(stats.executed - stats.passed) gie checks failed")
    }

    // MARK: - Running

    struct Stats {
        var executed = 0
        var passed = 0
        var expectedFailures = 0
        var roundtrips = 0
        var operationsRun = 0
        var skipped: [String: Int] = [:]
        /// The largest error / tolerance ratio seen, and where.
        var worst: (ratio: Double, error: Double, tolerance: Double, place: String) = (0, 0, 0, "")

        mutating func skip(_ reason: String, count: Int = 1) { skipped[reason, default: 0] += count }

        mutating func record(error: Double, tolerance: Double, place: String) -> Bool {
            executed += 1
            let ratio = tolerance > 0 ? error / tolerance : (error == 0 ? 0 : .infinity)
            if ratio > worst.ratio { worst = (ratio, error, tolerance, place) }
            if error <= tolerance { passed += 1; return true }
            return false
        }

        var summary: String {
            var s = "gie: \(operationsRun) operations run, \(executed) checks executed (\(expectedFailures) expected "
                + "failures, \(roundtrips) roundtrips), \(passed) passed; worst error \(worst.error) vs tolerance "
                + "\(worst.tolerance) (ratio \(worst.ratio)) at \(worst.place)\n"
            s += "gie skipped checks: \(skipped.values.reduce(0, +))\n"
            for (reason, n) in skipped.sorted(by: { $0.key < $1.key }) { s += "  \(n) × \(reason)\n" }
            return s
        }
    }

    /// What an operation became: a CRS pair, a reason to skip it, or the error PROJ gave while building it.
    enum Plan {
        case pair(SpatialReference, SpatialReference)
        case skip(String)
        case creationFailed(EngineError)
    }

    static let projection = try! NSRegularExpression(pattern: #"(^|\s)\+?(o_)?proj=(lcc|merc|webmerc)(\s|$)"#)

    static func isInScope(_ operation: String) -> Bool {
        projection.firstMatch(in: operation, range: NSRange(operation.startIndex..., in: operation)) != nil
    }

    /// `key=value` tokens without the optional `+`.
    static func tokens(_ operation: String) -> [String] {
        operation.split(separator: " ").map { $0.hasPrefix("+") ? String($0.dropFirst()) : String($0) }
    }

    /// Cases newer than the installed PROJ (9.1.1): its own command-line tools give the same result as Meridian,
    /// so these test PROJ's version, not Meridian. Checked with
    /// `echo 2 49 | proj +proj=merc +R_C +ellps=WGS84 +lat_0=45` → 222638.98 6242596.00 (R_C ignored), and
    /// `echo 0 0 | proj +proj=lcc +lat_1=2D32 +lat_2=0 +a=6378137 +b=0.2` → 0.00 0.00 (no failure).
    static let newerThanInstalledPROJ: [String: String] = [
        "+proj=merc +R_C +ellps=WGS84 +lat_0=45": "+R_C on an ellipsoid (conformal sphere) is not in PROJ 9.1.1",
        "+proj=lcc +lat_1=2D32 +lat_2=0 +a=6378137 +b=0.2": "the ossfuzz division by zero is not refused by PROJ 9.1.1",
    ]

    static func plan(_ operation: String) -> Plan {
        if let reason = newerThanInstalledPROJ[operation] { return .skip("newer than the installed PROJ: \(reason)") }
        let tokens = tokens(operation)
        if let grid = tokens.first(where: { $0.hasPrefix("geoidgrids=") || $0.hasPrefix("nadgrids=") }) {
            return .skip("needs a grid (\(grid)); none is installed")
        }
        if tokens.contains(where: { $0.hasPrefix("axis=") }) {
            return .skip("axis swapping (axis=…) is not a CRS property; Meridian normalises to east/north")
        }
        do throws(EngineError) {
            if tokens.contains("proj=pipeline") {
                var steps: [[String]] = []
                for t in tokens where t != "proj=pipeline" && t != "towgs84=0,0,0" {
                    if t == "step" { steps.append([]); continue }
                    guard !steps.isEmpty else { return .skip("pipeline with parameters outside its steps") }
                    steps[steps.count - 1].append(t)
                }
                guard steps.count == 2, steps[0].contains("inv"), !steps[1].contains("inv") else {
                    return .skip("PROJ pipeline that is not 'inverse of CRS A, then CRS B'")
                }
                var crs: [SpatialReference] = []
                for step in steps {
                    let body = step.filter { $0 != "inv" }
                    if body.count == 1, body[0].lowercased().hasPrefix("init=epsg:") {
                        crs.append(try SpatialReference(code: "EPSG:" + body[0].dropFirst("init=epsg:".count)))
                    } else if body.contains(where: { $0.hasPrefix("proj=") }), !body.contains(where: { $0.hasPrefix("init=") }) {
                        crs.append(try SpatialReference(projString: body.map { "+" + $0 }.joined(separator: " ")))
                    } else {
                        return .skip("PROJ pipeline step that is not a CRS")
                    }
                }
                return .pair(crs[0], crs[1])
            }
            let projected = try SpatialReference(projString: tokens.map { "+" + $0 }.joined(separator: " "))
            let shapeKeys: Set<String> = ["ellps", "a", "b", "R", "rf", "f", "datum"]
            let shape = tokens.filter { shapeKeys.contains(String($0.split(separator: "=").first ?? "")) && $0.contains("=") }
            let base = try SpatialReference(projString: (["proj=longlat"] + shape).map { "+" + $0 }.joined(separator: " "))
            return .pair(base, projected)
        } catch {
            return .creationFailed(error)
        }
    }

    /// Distance between two coordinates in `sr`: metres along the ellipsoid for geographic (a local metric, exact
    /// to far better than any tolerance here for the sub-metre differences compared), else Euclidean in its unit.
    static func distance(_ a: Coordinate, _ b: Coordinate, in sr: SpatialReference) -> Double {
        guard sr.isGeographic else { return hypot(a.x - b.x, a.y - b.y) }
        let f = sr.ellipsoid.flattening, e2 = f * (2 - f), semiMajor = sr.ellipsoid.semiMajorAxis
        let phi = b.y * .pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        let meridian = semiMajor * (1 - e2) / (w * w.squareRoot())
        let normal = semiMajor / w.squareRoot()
        var dLon = (a.x - b.x).truncatingRemainder(dividingBy: 360)
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return hypot((a.y - b.y) * .pi / 180 * meridian, dLon * .pi / 180 * normal * cos(phi))
    }

    /// A `roundtrip n` on the last accepted point. They are run together per operation and count (all points
    /// of one group go through PROJ in one call per iteration), which is the same computation as one at a time.
    struct Roundtrip {
        let start: Coordinate
        let count: Int
        let tolerance: Double
        let inverse: Bool
        let place: String
    }

    func runRoundtrips(_ roundtrips: inout [Roundtrip], plan: Plan?, stats: inout Stats) {
        defer { roundtrips = [] }
        guard case .pair(let base, let projected) = plan, !roundtrips.isEmpty else { return }
        let groups = Dictionary(grouping: roundtrips) { "\($0.count) \($0.inverse)" }
        for (_, group) in groups.sorted(by: { $0.key < $1.key }) {
            let (source, target) = group[0].inverse ? (projected, base) : (base, projected)
            var cs = group.map(\.start)
            do {
                for _ in 0..<group[0].count {
                    try GeometryEngine.project(&cs, from: source, into: target)
                    try GeometryEngine.project(&cs, from: target, into: source)
                }
            } catch {
                stats.executed += group.count
                Issue.record("\(group[0].place): roundtrip: \(error)")
                continue
            }
            for (r, c) in zip(group, cs) {
                stats.roundtrips += 1
                let d = Self.distance(c, r.start, in: source)
                if !stats.record(error: d, tolerance: r.tolerance, place: r.place + " (roundtrip \(r.count))") {
                    Issue.record("\(r.place): roundtrip \(r.count) drifted \(d) > \(r.tolerance)")
                }
            }
        }
    }

    func run(_ commands: [GieCommand], file: String, allOperationsInScope: Bool, stats: inout Stats) {
        var plan: Plan?  // nil: no operation yet, or one out of scope
        var inverse = false
        var tolerance = 0.0005
        var accepted: [Double]?
        var operationText = ""
        var roundtrips: [Roundtrip] = []
        defer { runRoundtrips(&roundtrips, plan: plan, stats: &stats) }
        for command in commands {
            let place = "\(file):\(command.line)"
            switch command.name {
            case "operation":
                runRoundtrips(&roundtrips, plan: plan, stats: &stats)
                operationText = command.arguments
                inverse = false
                tolerance = 0.0005
                accepted = nil
                if allOperationsInScope || Self.isInScope(command.arguments) {
                    plan = Self.plan(command.arguments)
                    if case .pair = plan { stats.operationsRun += 1 }
                } else {
                    plan = nil
                }
            case "direction":
                inverse = command.arguments.lowercased().hasPrefix("inv")
            case "tolerance":
                if let t = Gie.tolerance(command.arguments) {
                    tolerance = t
                } else {
                    Issue.record("unreadable tolerance '\(command.arguments)' at \(place)")
                }
            case "accept":
                accepted = Gie.coordinates(command.arguments)
                if accepted == nil, plan != nil { Issue.record("unreadable accept '\(command.arguments)' at \(place)") }
            case "expect":
                guard let plan else { continue }
                let expectsFailure = command.arguments.hasPrefix("failure")
                switch plan {
                case .skip(let reason):
                    stats.skip(reason)
                case .creationFailed(let error):
                    stats.executed += 1
                    if expectsFailure {
                        stats.passed += 1
                        stats.expectedFailures += 1
                    } else {
                        Issue.record("\(place): could not build '\(operationText)': \(error)")
                    }
                case .pair(let base, let projected):
                    let (source, target) = inverse ? (projected, base) : (base, projected)
                    if expectsFailure {
                        stats.executed += 1
                        stats.expectedFailures += 1
                        // With no accepted point, gie checks that the operation cannot be built; it was built, so
                        // it must at least refuse to transform (probe with the origin of the input space).
                        let input = accepted ?? [0, 0]
                        var c = [Coordinate(x: input[0], y: input[1])]
                        do {
                            try GeometryEngine.project(&c, from: source, into: target)
                            Issue.record("\(place): expected failure, got \(c[0]) from '\(operationText)'")
                        } catch {
                            stats.passed += 1
                        }
                        continue
                    }
                    guard let input = accepted, let expected = Gie.coordinates(command.arguments) else {
                        Issue.record("\(place): expect without a readable accept/expect")
                        continue
                    }
                    var c = [Coordinate(x: input[0], y: input[1])]
                    do {
                        try GeometryEngine.project(&c, from: source, into: target)
                        let e = Coordinate(x: expected[0], y: expected[1])
                        let d = Self.distance(c[0], e, in: target)
                        if !stats.record(error: d, tolerance: tolerance, place: place) {
                            Issue.record("\(place): \(c[0].x) \(c[0].y), expected \(e.x) \(e.y): error \(d) > \(tolerance) (\(operationText), \(inverse ? "inverse" : "forward"))")
                        }
                    } catch {
                        stats.executed += 1
                        Issue.record("\(place): \(error) (\(operationText))")
                    }
                }
            case "roundtrip":
                guard let plan else { continue }
                guard case .pair = plan else {
                    if case .skip(let reason) = plan { stats.skip(reason) }
                    continue
                }
                let words = command.arguments.split(separator: " ")
                let count = words.first.flatMap { Int($0) } ?? 100
                let rtTolerance = words.count > 1 ? Gie.tolerance(words.dropFirst().joined(separator: " ")) ?? tolerance : tolerance
                guard let input = accepted else { continue }
                roundtrips.append(Roundtrip(start: Coordinate(x: input[0], y: input[1]), count: count,
                                            tolerance: rtTolerance, inverse: inverse, place: place))
            case "require_grid":
                if plan != nil { plan = .skip("requires grid \(command.arguments)") }
            default:
                continue
            }
        }
    }
}
