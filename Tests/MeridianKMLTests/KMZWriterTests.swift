import Foundation
import MeridianTestSupport
import Testing
@testable import MeridianKML

/// The archives `KMZWriter` writes through libzip, read back by libzip with its consistency checks: entries in the
/// order given, identical bytes, text deflated (GDAL reading Meridian's KMZ is tested in Tests/python).
@Suite struct KMZWriterTests {
    /// Text that deflates, bytes that do not, an empty entry and a non-ASCII name.
    static func entries(seed: UInt64) -> [(name: String, data: Data)] {
        var rng = SplitMix64(seed: seed)
        let text = Data(String(repeating: "<Placemark><coordinates>1.5,2.25</coordinates></Placemark>\n", count: 5_000).utf8)
        let noise = Data((0..<4_096).map { _ in UInt8.random(in: 0...255, using: &rng) })
        return [("doc.kml", text), ("files/noise.png", noise), ("empty.txt", Data()), ("files/légende €.png", Data([7]))]
    }

    @Test func archiveReadsBack() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("t.kmz")
        let seed = SplitMix64.testSeed
        let entries = Self.entries(seed: seed)
        try KMZWriter.write(entries, to: url)

        let read = try ZipArchive(url: url, limits: .default)  // opened with ZIP_CHECKCONS
        let stored = try read.entries()
        #expect(stored.map(\.name) == entries.map(\.name))
        for (entry, (_, data)) in zip(stored, entries) {
            #expect(try read.read(entry, limit: 1 << 20) == data, "\(entry.name), seed \(seed)")
        }
        #expect(stored[0].compressedSize < stored[0].size / 10)  // the repetitive text deflates
    }

    @Test func unwritableTargetIsAnIOError() {
        #expect(throws: KMLError.self) {
            try KMZWriter.write([("doc.kml", Data("x".utf8))], to: URL(fileURLWithPath: "/nonexistent-dir/t.kmz"))
        }
    }
}
