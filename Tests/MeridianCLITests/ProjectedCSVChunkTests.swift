import Foundation
import Meridian
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// `meridian project` CSV → CSV formats its rows in chunks of `ProjectedCSV.rowsPerChunk` on `--threads N` threads
/// (issue 29's scaling): every row written once, in order, with its own other fields (a quoted one with a comma, a
/// quote and a line break among them), for one thread and three, across several chunks and a partial last one.
@Suite struct ProjectedCSVChunkTests {
    @Test(arguments: [1, 3])
    func everyRowOnceInOrder(threads: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let n = 3 * ProjectedCSV.rowsPerChunk + 17
        var text = "id,lon,name,lat\n"
        for i in 0..<n {
            let name = i % 1000 == 7 ? "\"r\(i), \"\"quoted\"\"\nline\"" : "r\(i)"
            text += "\(i),\(-97 + Double(i % 997) * 1e-3),\(name),\(32.5 + Double(i % 991) * 1e-3)\n"
        }
        let input = folder.appendingPathComponent("points.csv"), out = folder.appendingPathComponent("out.csv")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let result = runCommand(["project", input.path, "--to", "EPSG:32038", "-o", out.path, "--threads", "\(threads)",
                                 "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let table = try CSV.decode(Data(contentsOf: out))
        #expect(table.header == ["id", "x", "name", "y"])
        let ids = table.rows.map { $0[0] }, names = table.rows.map { $0[2] }
        // (Booleans: Swift Testing would print every row.)
        let inOrder = ids == (0..<n).map { "\($0)" }
        #expect(inOrder, "\(ids.count) rows of \(n): rows lost, repeated or out of order")
        let expectedNames = (0..<n).map { i in i % 1000 == 7 ? "r\(i), \"quoted\"\nline" : "r\(i)" }
        let sameNames = names == expectedNames
        #expect(sameNames, "another row's fields, or a field changed")
        // Easting/northing in feet, 4 decimals, in the zone's range.
        #expect(table.rows.allSatisfy { row in
            row[1].split(separator: ".").last?.count == 4 && (Double(row[1]) ?? 0) > 1_000_000 && (Double(row[3]) ?? 0) > 0
        })
    }
}
