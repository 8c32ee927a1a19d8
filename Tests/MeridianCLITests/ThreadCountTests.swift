import Foundation
import Meridian
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// `--threads N` (issue 29): the commands that work on many features write the same bytes for N = 1, 2 and 3 — the
/// union of point buffers (its clusters in N runs), per-feature buffers (runs of features, projected to WGS84 on N
/// threads), `project` (the interpolated projection in N pieces) and `op` (runs of features) — and refuse a count
/// that is not a positive whole number. (The streamed union's batches and chunks: `UnionStreamTests`.)
@Suite struct ThreadCountTests {
    /// The next number in [0, 1) of a fixed linear congruential sequence.
    static func unit(_ state: inout UInt64) -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) * 0x1p-53
    }

    /// Runs `meridian ARGUMENTS… -o OUT.EXT --threads N` for N = 1, 2, 3 and returns the files written.
    static func outputs(_ arguments: [String], ext: String, in folder: URL) throws -> [Data] {
        try [1, 2, 3].map { n in
            let out = folder.appendingPathComponent("out-\(n).\(ext)")
            let result = runCommand(arguments + ["-o", out.path, "--threads", "\(n)", "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
            return try Data(contentsOf: out)
        }
    }

    /// Whether the three outputs are the same bytes (a Boolean: Swift Testing would diff megabytes otherwise).
    static func same(_ outputs: [Data]) -> Bool { outputs.count == 3 && outputs[0] == outputs[1] && outputs[0] == outputs[2] }

    /// 40,000 points in EPSG:32038 where a 200 ft circle meets about one other: more than `PointBufferUnion`'s
    /// 32,768 circles worth sharing (`defaultMinimumToShare`), fewer than a streamed union's batch (65,536).
    @Test(arguments: ["geojson", "wkt"])
    func unionOfPointBuffers(format: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random: UInt64 = 29
        let side = (40_000 * Double.pi * 4 * 200 * 200).squareRoot()
        let rows = (0..<40_000).map { _ in "\(2_300_000 + side * Self.unit(&random)),\(420_000 + side * Self.unit(&random))" }
        let input = folder.appendingPathComponent("points.csv")
        try ("x,y\n" + rows.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let written = try Self.outputs(["buffer", input.path, "--srs", "EPSG:32038", "--distance", "200", "--union"],
                                       ext: format, in: folder)
        #expect(Self.same(written) && written[0].count > 1_000_000)
    }

    /// 3,000 points buffered one by one (runs of features on N threads) and projected to WGS84 for GeoJSON.
    @Test func perFeatureBuffers() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random: UInt64 = 7
        let rows = (0..<3_000).map { i in "\(i),\(-97.6 + 0.6 * Self.unit(&random)),\(32.6 + 0.4 * Self.unit(&random))" }
        let input = folder.appendingPathComponent("points.csv")
        try ("id,lon,lat\n" + rows.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let written = try Self.outputs(["buffer", input.path, "--srs", "EPSG:32038", "--distance", "0.3mi"],
                                       ext: "geojson", in: folder)
        #expect(Self.same(written) && written[0].count > 3_000 * 64 * 30)
    }

    /// 40,000 longitude/latitude points into EPSG:32038: two interpolated pieces from two threads on.
    @Test func project() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random: UInt64 = 11
        let rows = (0..<40_000).map { _ in "\(-103 + 9 * Self.unit(&random)),\(31.8 + 2.7 * Self.unit(&random))" }
        let input = folder.appendingPathComponent("points.csv")
        try ("lon,lat\n" + rows.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let written = try Self.outputs(["project", input.path, "--to", "EPSG:32038"], ext: "csv", in: folder)
        #expect(Self.same(written) && written[0].count > 40_000 * 20)
    }

    /// `op convex-hull` over 2,000 multipoints (runs of features on N threads).
    @Test func operationPerFeature() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random: UInt64 = 13
        let lines = (0..<2_000).map { _ in
            "MULTIPOINT (" + (0..<6).map { _ in "\(1000 * Self.unit(&random)) \(1000 * Self.unit(&random))" }
                .joined(separator: ", ") + ")"
        }
        let input = folder.appendingPathComponent("points.wkt")
        try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let written = try Self.outputs(["op", "convex-hull", input.path, "--in-srs", "EPSG:32038"], ext: "wkt",
                                       in: folder)
        #expect(Self.same(written) && written[0].count > 2_000 * 60)
    }

    /// A count that is not a positive whole number is a usage error (exit 2) naming the option.
    @Test(arguments: ["0", "-2", "two", "1.5"])
    func badCountsAreRefused(count: String) {
        let result = runCommand(["project", "--to", "EPSG:3857", "--threads", count], stdin: "lon,lat\n1,2\n")
        #expect(result.status == 2 && result.stderr.contains("--threads"), "\(result.stderr)")
    }
}
