import Foundation
import Meridian

extension ViewerAPI {
    /// One endpoint of the API: the only place a route is declared. 404 (no route has the path) and 405 (routes
    /// have the path, none the method; `Allow` lists theirs) are derived from the table.
    struct Route: Sendable {
        /// The HTTP method, e.g. "POST".
        let method: String
        /// The path's segments after `/api/`; `*` matches any one segment (the handler reads it from `segments`).
        let pattern: [String]
        /// The largest body accepted, in bytes, from the limits (0: none). A larger one is answered 413.
        let bodyLimit: @Sendable (ViewerLimits) -> Int
        /// Answers the request; `segments` are the path's segments after `/api/`.
        let handler: @Sendable (ViewerAPI, HTTPRequest, _ segments: [String]) throws(APIError) -> HTTPResponse

        /// Whether the path's segments match the pattern.
        func matches(_ segments: [String]) -> Bool {
            segments.count == pattern.count && zip(pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    /// The body limit of every computing (POST) endpoint.
    private static let requestBody: @Sendable (ViewerLimits) -> Int = { $0.maximumBodySize }
    /// The body limit of the endpoints that read none.
    private static let noBody: @Sendable (ViewerLimits) -> Int = { _ in 0 }

    /// Every API endpoint (see the type's documentation for what each answers).
    static let routes: [Route] = [
        Route(method: "GET", pattern: ["health"], bodyLimit: noBody) { api, _, _ in api.health() },
        Route(method: "HEAD", pattern: ["health"], bodyLimit: noBody) { api, _, _ in api.health() },
        Route(method: "GET", pattern: ["srs", "*"], bodyLimit: noBody) { api, _, s throws(APIError) in
            guard let wkid = Int(s[1]), (1...999_999).contains(wkid) else {
                throw .badRequest("the spatial reference must be a positive number such as 32038, got '\(s[1])'")
            }
            return try api.spatialReferenceResponse(wkid: wkid)
        },
        Route(method: "POST", pattern: ["contains"], bodyLimit: requestBody) { api, r, _ throws(APIError) in
            try api.contains(r)
        },
        Route(method: "POST", pattern: ["buffer"], bodyLimit: requestBody) { api, r, _ throws(APIError) in
            try api.buffer(r)
        },
        Route(method: "POST", pattern: ["buffer", "export"], bodyLimit: requestBody) { api, r, _ throws(APIError) in
            try api.exportBuffers(r)
        },
        Route(method: "POST", pattern: ["near"], bodyLimit: requestBody) { api, r, _ throws(APIError) in try api.near(r) },
        Route(method: "GET", pattern: ["kml", "palette"], bodyLimit: noBody) { _, _, _ in
            .json(PaletteResponse(icons: KMLPalette.icons, colors: KMLPalette.colors))
        },
        Route(method: "POST", pattern: ["kml"], bodyLimit: requestBody) { api, r, _ throws(APIError) in
            try api.saveKML(r)
        },
        Route(method: "POST", pattern: ["kml", "open"], bodyLimit: requestBody) { api, r, _ throws(APIError) in
            try api.openKML(r)
        },
    ]

    /// Finds the request's route in `routes` and runs it.
    func route(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let segments = r.path.split(separator: "/", omittingEmptySubsequences: true).dropFirst().map(String.init)
        let candidates = Self.routes.filter { $0.matches(segments) }
        guard !candidates.isEmpty else { throw .notFound("no API endpoint \(r.path)") }
        guard let route = candidates.first(where: { $0.method == r.method }) else {
            var refusal = APIError(405, "\(r.method) is not allowed on \(r.path)").response
            refusal.headers["Allow"] = candidates.map { $0.method }.joined(separator: ", ")
            return refusal
        }
        let limit = route.bodyLimit(limits)
        guard r.body.count <= limit else {
            throw .tooLarge(limit == 0 ? "\(r.method) \(r.path) takes no request body"
                                      : "request body too large (limit \(limit) bytes)")
        }
        return try route.handler(self, r, segments)
    }
}
