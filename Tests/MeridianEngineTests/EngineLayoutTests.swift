import Foundation
import Testing

/// The engine's rooms: the GEOS bridge in `GEOS/` and projection in `PROJ/` are the only files that
/// import the C libraries, and no file outside `GEOS/` touches a GEOS handle or pointer. A file outside those
/// folders that called GEOS or PROJ directly would need the import, so these checks keep every C call in its room.
@Suite struct EngineLayoutTests {
    /// `Sources/MeridianEngine` (#filePath = <package>/Tests/MeridianEngineTests/EngineLayoutTests.swift).
    static let engine = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MeridianEngine", isDirectory: true)

    /// Every Swift file of the engine: its path relative to `Sources/MeridianEngine` and its text.
    static func sources() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: engine.path))
        var files: [(String, String)] = []
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: engine.appendingPathComponent(path), encoding: .utf8)
            files.append((path, text))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The lines of `text` that are code (doc and line comments dropped), for the checks below.
    static func codeLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
    }

    /// The files, outside `folder`, whose code contains any of `needles`.
    static func offenders(outside folder: String, containing needles: [String]) throws -> [String] {
        try sources().filter { file in
            !file.path.hasPrefix(folder + "/")
                && codeLines(file.text).contains { line in needles.contains { line.contains($0) } }
        }.map(\.path)
    }

    @Test func onlyTheGEOSBridgeImportsGEOS() throws {
        #expect(try Self.sources().count > 40, "the engine's sources were not found at \(Self.engine.path)")
        #expect(try Self.offenders(outside: "GEOS", containing: ["import CGEOS"]) == [])
        // A GEOS handle or pointer outside the bridge: `.handle`/`.pointer` of a GEOSContext or GEOSGeometryRef,
        // an OpaquePointer, or a GEOS C symbol.
        #expect(try Self.offenders(outside: "GEOS", containing: ["GEOSContextHandle_t", "_r(", "GEOS_", "OpaquePointer"])
                    .filter { !$0.hasPrefix("PROJ/") } == [])
        let geosSources = try Self.sources().filter { !$0.path.hasPrefix("GEOS/") && !$0.path.hasPrefix("PROJ/") }
        for file in geosSources {
            for line in Self.codeLines(file.text) where line.contains(".pointer") || line.contains(".handle") {
                Issue.record("\(file.path): a GEOS handle or pointer outside GEOS/: \(line)")
            }
        }
    }

    @Test func onlyPROJImportsPROJ() throws {
        #expect(try Self.offenders(outside: "PROJ", containing: ["import CPROJ", "proj_", "geod_"]) == [])
    }
}
