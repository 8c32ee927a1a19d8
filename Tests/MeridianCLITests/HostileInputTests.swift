import Foundation
import Testing

/// Every command facing bad paths and hostile input: one clear line on stderr, exit 1 or 2, no partial file.
@Suite struct HostileInputTests {
    static let point = "{\"type\":\"Point\",\"coordinates\":[-97,32.5]}"
    static let kmlText = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><Point><coordinates>-97,32.5</coordinates></Point></Placemark></kml>
        """

    /// Exactly one line on stderr, starting with `prefix`.
    static func expectOneLine(_ r: CommandResult, status: Int32, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix(prefix), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasSuffix("\n") && r.stderr.dropLast().split(separator: "\n").count == 1, "\(r.stderr)",
                sourceLocation: sourceLocation)
    }

    @Test func noCommandIsOneLine() {
        let r = runCommand([])
        Self.expectOneLine(r, status: 2, "meridian: missing command: buffer, project, srs, measure, kml")
    }

    @Test func aDirectoryAsInputSaysSo() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dir = folder.appendingPathComponent("points.geojson")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        let p = dir.path
        for (command, args) in [("buffer", ["buffer", p, "--srs", "EPSG:32038", "--distance", "1mi"]),
                                ("project", ["project", p, "--to", "EPSG:3857"]), ("measure", ["measure", p]),
                                ("kml", ["kml", "create", p, "-o", folder.appendingPathComponent("o.kmz").path])] {
            Self.expectOneLine(runCommand(args), status: 1, "meridian \(command): cannot read \(p): it is a directory")
        }
        for args in [["kml", "info", p], ["kml", "info", p, "--stream"]] {
            let r = runCommand(args)
            Self.expectOneLine(r, status: 1, "meridian kml: \(p): is a directory")
            #expect(r.stderr.components(separatedBy: p).count == 2, "the path once: \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["points.geojson"])
    }

    @Test func devNullIsAnEmptyInput() {
        Self.expectOneLine(runCommand(["measure", "/dev/null"]), status: 1, "meridian measure: /dev/null: the input is empty")
    }
}
