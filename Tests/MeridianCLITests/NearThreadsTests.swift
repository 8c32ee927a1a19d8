import Foundation
import MeridianTestSupport
import Testing

/// `meridian near` on several threads: each LEFT batch is searched (and a CSV of pairs written) in chunks by
/// whichever thread is free, and the chunks are put back in order, so the output is the same bytes for every
/// `--threads`; the CSV of pairs, written straight from the batch's columns, is checked against a brute force.
@Suite struct NearThreadsTests {
    /// A random case: LEFT `count` points (5 batches of 4096: two groups of batches searched together, several
    /// chunks each) and RIGHT 400, integer
    /// coordinates in [0, 2000) US ft (so that every squared distance is exact, and so the pairs a brute force
    /// finds), with attributes CSV must quote.
    struct Case {
        var left: [(x: Int, y: Int, note: String)] = []
        var right: [(x: Int, y: Int, kind: String)] = []

        init(seed: UInt64, count: Int = 17_000) {
            var rng = SplitMix64(seed: seed)
            let notes = ["", "a,b", "say \"hi\"", "plain", "x y"], kinds = ["k", "k,2", "", "q\"q"]
            for _ in 0..<count {
                left.append((Int(rng.next() % 2000), Int(rng.next() % 2000), notes[Int(rng.next() % 5)]))
            }
            for _ in 0..<400 {
                right.append((Int(rng.next() % 2000), Int(rng.next() % 2000), kinds[Int(rng.next() % 4)]))
            }
        }

        static func quoted(_ s: String) -> String {
            s.contains(where: { $0 == "," || $0 == "\"" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }

        /// The inputs as CSV (`scale` divides the coordinates: 1000 makes them degrees for `--geodesic`).
        func files(scale: Double = 1) -> [String: String] {
            func number(_ v: Int) -> String { scale == 1 ? String(v) : String(Double(v) / scale) }
            var l = "id,x,y,note\n", r = "id,x,y,kind\n"
            for (i, p) in left.enumerated() { l += "\(i),\(number(p.x)),\(number(p.y)),\(Self.quoted(p.note))\n" }
            for (i, p) in right.enumerated() { r += "\(i),\(number(p.x)),\(number(p.y)),\(Self.quoted(p.kind))\n" }
            return ["l.csv": l, "r.csv": r]
        }

        /// The CSV of pairs within `distance` by brute force: √(Δx² + Δy²) as the engine measures two points,
        /// ordered by LEFT, distance, RIGHT; numbers as JSON writes them.
        func pairs(within distance: Double) -> String {
            var text = "id_left,note,id_right,kind,distance_us_ft,rank,wkt\r\n"
            for (i, a) in left.enumerated() {
                var found: [(d: Double, j: Int)] = []
                for (j, b) in right.enumerated() {
                    let dx = Double(a.x - b.x), dy = Double(a.y - b.y)
                    let d = (dx * dx + dy * dy).squareRoot()
                    if d <= distance { found.append((d, j)) }
                }
                found.sort { ($0.d, $0.j) < ($1.d, $1.j) }
                for (rank, f) in found.enumerated() {
                    let d = f.d == f.d.rounded(.towardZero) ? String(Int(f.d)) : "\(f.d)"
                    text += "\(i),\(Self.quoted(a.note)),\(f.j),\(Self.quoted(right[f.j].kind)),\(d),\(rank + 1),"
                        + "POINT (\(a.x) \(a.y))\r\n"
                }
            }
            return text
        }
    }

    /// Runs `near` on the files with `arguments` (file names relative to a fresh folder); the standard output, or
    /// the file `out.*` when one is named.
    private func near(_ files: [String: String], _ arguments: [String]) throws -> (status: Int32, output: String, stderr: String) {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        let args = arguments.map { files[$0] != nil || $0.hasPrefix("out.") ? folder.appendingPathComponent($0).path : $0 }
        let r = runCommand(["near"] + args)
        guard let out = arguments.first(where: { $0.hasPrefix("out.") }) else { return (r.status, r.stdout, r.stderr) }
        let text = (try? String(contentsOf: folder.appendingPathComponent(out), encoding: .utf8)) ?? ""
        return (r.status, text, r.stderr)
    }

    /// The pairs within 60 ft, on one thread and on two: both exactly the brute force's CSV.
    @Test func pairsAreTheBruteForcesOnOneAndTwoThreads() throws {
        let seed = SplitMix64.testSeed
        let c = Case(seed: seed)
        let expected = c.pairs(within: 60)
        for threads in ["1", "2"] {
            let r = try near(c.files(), ["l.csv", "r.csv", "--in-srs", "EPSG:32038", "--distance", "60",
                                         "--threads", threads])
            #expect(r.status == 0, "seed \(seed): \(r.stderr)")
            #expect(r.output == expected, "seed \(seed), --threads \(threads): the pairs differ from the brute force's")
        }
    }

    /// Every other shape and output, and the geodesic search: the same bytes on one thread and on two.
    @Test func everyShapeIsTheSameOnOneAndTwoThreads() throws {
        let seed = SplitMix64.testSeed
        let c = Case(seed: seed)
        let planar = ["l.csv", "r.csv", "--in-srs", "EPSG:32038"]
        let runs: [(files: [String: String], arguments: [String])] = [
            (c.files(), planar + ["--distance", "60", "--nearest", "2"]),
            (c.files(), planar + ["--nearest", "3"]),
            (c.files(), planar + ["--distance", "45", "--count"]),
            (c.files(), planar + ["--distance", "45", "--left-only"]),
            (c.files(), planar + ["--distance", "45", "--right-only"]),
            (c.files(), planar + ["--distance", "60", "-o", "out.geojson"]),
            (c.files(scale: 1000), ["l.csv", "r.csv", "--in-srs", "EPSG:4326", "--geodesic", "--distance", "5km"]),
            (c.files(scale: 1000), ["l.csv", "r.csv", "--in-srs", "EPSG:4326", "--geodesic", "--nearest", "2"]),
        ]
        for run in runs {
            let one = try near(run.files, run.arguments + ["--threads", "1"])
            let two = try near(run.files, run.arguments + ["--threads", "2"])
            #expect(one.status == 0 && two.status == 0, "seed \(seed), \(run.arguments): \(one.stderr)\(two.stderr)")
            #expect(one.output.count > 100, "seed \(seed), \(run.arguments): no rows")
            #expect(one.output == two.output, "seed \(seed), \(run.arguments): one thread and two differ")
        }
    }

    /// LEFT and RIGHT from GeoPackages, read as columns (no feature per row; LEFT a batch at a time), give the bytes
    /// the same features give from CSV, read as features: every shape, distances from LEFT's field, one and two
    /// threads (a GeoJSON output differs only in the feature IDs a GeoPackage has).
    @Test func aGeoPackageReadAsColumnsGivesWhatItsFeaturesGive() throws {
        let seed = SplitMix64.testSeed
        let c = Case(seed: seed, count: 9_000)  // three batches of LEFT
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        var rows = "id,x,y,note,reach\n"
        for (i, p) in c.left.enumerated() { rows += "\(i),\(p.x),\(p.y),\(Case.quoted(p.note)),\(i % 7 * 10)\n" }
        try Data(rows.utf8).write(to: URL(fileURLWithPath: path("l.csv")))
        try Data(c.files()["r.csv"]!.utf8).write(to: URL(fileURLWithPath: path("r.csv")))
        for side in ["l", "r"] {
            let made = runCommand(["project", path("\(side).csv"), "--from", "EPSG:32038", "--to", "EPSG:32038",
                                   "-o", path("\(side).gpkg")])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let runs: [(shape: [String], threads: String)] = [([], "1"), ([], "2"), (["--count"], "2"), (["--left-only"], "2"),
                                                           (["--right-only"], "2"), (["--nearest", "2"], "1")]
        for (shape, threads) in runs {
            do {
                let common = ["r.csv", "--distance-field", "reach", "--threads", threads] + shape
                for out in ["csv", "geojson"] {
                    let fromCSV = runCommand(["near", path("l.csv")] + common.map { $0 == "r.csv" ? path($0) : $0 }
                                             + ["--in-srs", "EPSG:32038", "-o", path("c.\(out)")])
                    let fromTable = runCommand(["near", path("l.gpkg")] + common.map { $0 == "r.csv" ? path("r.gpkg") : $0 }
                                               + ["--srs", "EPSG:32038", "-o", path("g.\(out)")])
                    #expect(fromCSV.status == 0 && fromTable.status == 0, "\(fromCSV.stderr)\(fromTable.stderr)")
                    var expected = try String(contentsOfFile: path("c.\(out)"), encoding: .utf8)
                    var got = try String(contentsOfFile: path("g.\(out)"), encoding: .utf8)
                    if out == "geojson" {
                        // The GeoPackage's features have IDs (fid 1, 2, ...), which GeoJSON writes.
                        got = got.replacingOccurrences(of: #","id":[0-9]+"#, with: "", options: .regularExpression)
                        expected = expected.replacingOccurrences(of: #","id":[0-9]+"#, with: "", options: .regularExpression)
                    }
                    #expect(expected.count > 100 && got == expected, "seed \(seed), \(shape), --threads \(threads), .\(out)")
                }
            }
        }
    }

    /// LEFT and RIGHT as GeoJSON for the failure-order tests: LEFT 18,000 points on a 0.001° lattice (five batches),
    /// feature 100 at (0, 0) when `outlier`, feature `bad` with coordinates that cannot be read; RIGHT one point.
    static func failureFiles(bad: Int, outlier: Bool) -> [String: String] {
        var features: [String] = []
        for i in 0..<18_000 {
            let (lon, lat) = outlier && i == 100 ? (0.0, 0.0) : (-97.0 + Double(i % 100) * 0.001, 33.0 + Double(i / 100) * 0.001)
            let coordinates = i == bad ? "\"x\"" : "[\(lon),\(lat)]"
            features.append("{\"type\":\"Feature\",\"properties\":{\"id\":\(i)},\"geometry\":{\"type\":\"Point\",\"coordinates\":\(coordinates)}}")
        }
        let left = "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}"
        let right = "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-97,33]}}]}"
        return ["l.geojson": left, "r.geojson": right]
    }

    /// Batches searched on other threads while the next are read: when the first batch's check fails (feature 100
    /// outside --srs's area of use) and reading a later one fails too (feature `bad`'s coordinates: in the second
    /// batch, read before the first group is searched, or in the fifth, read while it is), the first failure is
    /// the one reported, as on one thread, and nothing is written.
    @Test(arguments: [5_000, 17_000]) func anEarlierBatchsFailureComesBeforeALaterReadingError(bad: Int) throws {
        for threads in ["1", "2"] {
            let r = try near(Self.failureFiles(bad: bad, outlier: true),
                             ["l.geojson", "r.geojson", "--srs", "EPSG:32038", "--distance", "1km", "--threads", threads,
                              "-o", "out.csv"])
            #expect(r.status == 1 && r.output.isEmpty, "--threads \(threads)")
            #expect(r.stderr.contains("feature 100 (line 1)") && r.stderr.contains("outside the area of use"),
                    "--threads \(threads): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "--threads \(threads): \(r.stderr)")
        }
    }

    /// What LEFT's first batch settles is checked once the first group of batches is read (RIGHT is indexed
    /// meanwhile): when it fails (degrees for a planar search) and reading a later batch fails too (feature `bad`:
    /// in the second batch, before the first group is full, or in the fifth, after), the first batch's failure is
    /// the one reported, as on one thread.
    @Test(arguments: [5_000, 17_000]) func whatTheFirstBatchSettlesComesBeforeALaterReadingError(bad: Int) throws {
        for threads in ["1", "2"] {
            let r = try near(Self.failureFiles(bad: bad, outlier: false),
                             ["l.geojson", "r.geojson", "--distance", "1km", "--threads", threads, "-o", "out.csv"])
            #expect(r.status == 1 && r.output.isEmpty, "--threads \(threads)")
            #expect(r.stderr.contains("not projected"), "--threads \(threads): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "--threads \(threads): \(r.stderr)")
        }
    }
}
