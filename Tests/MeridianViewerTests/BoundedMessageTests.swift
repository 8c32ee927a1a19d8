import Foundation
import Meridian
import Testing

@testable import MeridianViewer

/// The viewer's error responses follow the one length rule of messages (`MessageText.bounded`).
@Suite struct BoundedMessageTests {
    /// A 70 KB message (a spatial reference's name echoed in an error) is sent as its ends and a count of the rest.
    @Test func anErrorResponseIsBounded() throws {
        let name = String(repeating: "A", count: 70_000)
        let message = "points.gpkg, layer 't': feature 0 cannot be projected into \(name); it lies outside"
        let response = HTTPResponse.jsonError(422, message)
        struct Body: Decodable { let error: String }
        let sent = try JSONDecoder().decode(Body.self, from: response.body).error
        #expect(sent == message.prefix(600) + "…(\(message.count - 900) characters elided)…" + message.suffix(300))
        #expect(response.body.count < 2_000)
        let short = "points.gpkg: no layer named 't'"
        #expect(try JSONDecoder().decode(Body.self, from: HTTPResponse.jsonError(404, short).body).error == short)
    }
}
