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
}
