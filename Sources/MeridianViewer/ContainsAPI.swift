import Foundation
import Meridian

extension ViewerAPI {
    private struct ContainsRequest: Decodable {
        var wkid: Int?
        var x: Double
        var y: Double
    }

    /// The answer of `POST /api/contains`: `{"inside": true}`.
    struct ContainsResponse: Encodable {
        /// Whether the point lies within the spatial reference's horizon.
        let inside: Bool
    }

    func contains(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let body = try decode(ContainsRequest.self, from: r)
        guard body.x.isFinite, body.y.isFinite else { throw .unprocessable("x and y must be finite numbers") }
        let info = try spatialReference(wkid: body.wkid ?? Self.defaultWKID)
        let point = Point(x: body.x, y: body.y, spatialReference: info.spatialReference)
        do {
            // The engine's one rule (the command line's too): the projection's horizon.
            return .json(ContainsResponse(inside: try GeometryEngine.isGeometry(point,
                                                                               withinHorizonOf: info.spatialReference)))
        } catch {
            throw .unprocessable(error.description)
        }
    }
}
