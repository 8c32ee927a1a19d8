import Foundation
import Meridian

extension ViewerAPI {
    /// The answer of `GET /api/kml/palette`: `{"icons": [{"id", "title", "file"}], "colors": [{"name", "hex"}]}`.
    struct PaletteResponse: Encodable {
        /// The point icons, in the sample's order.
        let icons: [KMLPalette.Icon]
        /// The line and fill colors, in the sample's order.
        let colors: [KMLPalette.Color]
    }

    func saveKML(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let sketch = try decode(KMLBridge.SketchDocument.self, from: r)
        let dataset = try KMLBridge.dataset(for: sketch, site: site, limits: limits) { failure($0, doing: .savingFile) }
        // An opened file is saved under the name the page gives (the file's), its document keeping its own <name>.
        let given = sketch.source == nil ? nil : sketch.name.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        let name = given ?? dataset.document.name ?? "Untitled"
        return .attachment(try KMLBridge.kmzData(dataset), contentType: "application/vnd.google-earth.kmz",
                           filename: "\(name).kmz")
    }

    func openKML(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard !r.body.isEmpty else { throw .badRequest("the request body is empty: send a KML or KMZ file") }
        return .json(try KMLBridge.openResponse(r.body, limits: limits) { failure($0, doing: .openingFile) })
    }
}
