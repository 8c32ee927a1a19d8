import Foundation
import Testing
@testable import MeridianKML

/// The ZIP container `KMZWriter` writes: read back by libzip (with its consistency checks) and by `unzip -t`, with
/// and without Zip64 records.
@Suite struct KMZWriterTests {
    /// Text that deflates, bytes that do not (stored), an empty entry and a non-ASCII name.
    static func entries() -> [(name: String, data: Data)] {
        var rng = SystemRandomNumberGenerator()
        let text = Data(String(repeating: "<Placemark><coordinates>1.5,2.25</coordinates></Placemark>\n", count: 5_000).utf8)
        let noise = Data((0..<4_096).map { _ in UInt8.random(in: 0...255, using: &rng) })
        return [("doc.kml", text), ("files/noise.png", noise), ("empty.txt", Data()), ("files/légende €.png", Data([7]))]
    }

    /// Writes the entries with a given Zip64 limit and checks every way of reading them back.
    static func roundTrip(zip64Limit: UInt64) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("t.kmz")
        let entries = Self.entries()
        let archive = try KMZWriter.Archive(url: url, zip64Limit: zip64Limit)
        for (name, data) in entries {
            try data.withUnsafeBytes { try archive.add(name, $0) }
        }
        try archive.finish()

        let read = try ZipArchive(url: url, limits: .default)  // opened with ZIP_CHECKCONS
        let stored = try read.entries()
        #expect(stored.map(\.name) == entries.map(\.name))
        for (entry, (_, data)) in zip(stored, entries) {
            #expect(try read.read(entry, limit: 1 << 20) == data, "\(entry.name)")
        }
        #expect(stored[0].compressedSize < stored[0].size / 10)  // deflated
        #expect(stored[1].compressedSize == stored[1].size)  // stored: random bytes do not deflate
        let bytes = try Data(contentsOf: url)
        let zip64Record = Data([0x50, 0x4B, 0x06, 0x06])  // the Zip64 end of central directory signature
        #expect((bytes.range(of: zip64Record) != nil) == (zip64Limit == 0))
        let test = TestSupport.run("/usr/bin/unzip", ["-t", url.path])
        #expect(test.status == 0 && test.output.contains("No errors detected"), "\(test.output)")
    }

    @Test func archiveReadsBack() throws {
        try Self.roundTrip(zip64Limit: 0xFFFF_FFFF)
    }

    /// Every size, offset and count written as Zip64 (the records a 4 GiB document would need).
    @Test func zip64ArchiveReadsBack() throws {
        try Self.roundTrip(zip64Limit: 0)
    }

    @Test func unwritableTargetIsAnIOError() {
        #expect(throws: KMLError.self) {
            try KMZWriter.write([("doc.kml", Data("x".utf8))], to: URL(fileURLWithPath: "/nonexistent-dir/t.kmz"))
        }
    }
}
