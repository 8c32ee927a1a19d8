import Foundation
import Meridian

/// The limits the API enforces on every request.
public struct ViewerLimits: Sendable, Hashable {
    /// The largest request body, in bytes (default 8 MiB).
    public var maximumBodySize: Int
    /// The most points in one buffer request, and the most premises in one near request (default 5,000).
    public var maximumPoints: Int
    /// The most vertices in one KML document sent or opened (default 100,000).
    public var maximumVertices: Int
    /// The most placemarks in one KML document (default 2,000).
    public var maximumPlacemarks: Int
    /// Buffer radii must be strictly between 0 and this many miles (default 300, as in the sample).
    public var maximumRadiusMiles: Double
    /// Seconds one computing request (buffers, exports, KML save and open) may run before it is stopped and
    /// answered 503 (default 20). It also stops as soon as its client closes the connection.
    public var workSeconds: Double
    /// Computing requests run at the same time (default 2); more wait for a slot.
    public var maximumConcurrentJobs: Int
    /// Seconds a computing request waits for a slot before it is answered 503 (default 10).
    public var jobQueueSeconds: Double
    /// The largest KML text opened, in bytes: a plain KML is bounded by `maximumBodySize`, the KML inside a KMZ by
    /// this, counted while it is inflated (default 32 MiB).
    public var maximumKMLBytes: Int
    /// The most bytes of icons and other files read from an opened KMZ, in total (default 16 MiB).
    public var maximumKMZResourceBytes: Int
    /// The most vertices one computing request's work may make (its `WorkBudget`; default 5,000,000): buffers
    /// are refused from their estimate, or stopped while they grow, beyond it.
    public var maximumWorkVertices: Int = 5_000_000
    /// The most point–premise pairs one `/api/near` answer may hold (default 20,000): more is refused with 413.
    public var maximumNearPairs: Int = 20_000

    /// Creates limits.
    /// - Parameters:
    ///   - maximumBodySize: Bytes per request body, > 0 (default 8 MiB).
    ///   - maximumPoints: Points per buffer request, > 0 (default 5,000).
    ///   - maximumVertices: Vertices per KML document, > 0 (default 100,000).
    ///   - maximumPlacemarks: Placemarks per KML document, > 0 (default 2,000).
    ///   - maximumRadiusMiles: Exclusive upper bound of a radius in statute miles, > 0 (default 300).
    ///   - workSeconds: Seconds a computing request may run, > 0 (default 20).
    ///   - maximumConcurrentJobs: Computing requests run at once, ≥ 1 (default 2).
    ///   - jobQueueSeconds: Seconds a computing request waits for a slot, ≥ 0 (default 10).
    ///   - maximumKMLBytes: Bytes of KML text opened from a KMZ, > 0 (default 32 MiB).
    ///   - maximumKMZResourceBytes: Bytes of other files read from an opened KMZ in total, > 0 (default 16 MiB).
    public init(maximumBodySize: Int = 8 << 20, maximumPoints: Int = 5_000, maximumVertices: Int = 100_000,
                maximumPlacemarks: Int = 2_000, maximumRadiusMiles: Double = 300, workSeconds: Double = 20,
                maximumConcurrentJobs: Int = 2, jobQueueSeconds: Double = 10, maximumKMLBytes: Int = 32 << 20,
                maximumKMZResourceBytes: Int = 16 << 20) {
        self.maximumBodySize = maximumBodySize
        self.maximumPoints = maximumPoints
        self.maximumVertices = maximumVertices
        self.maximumPlacemarks = maximumPlacemarks
        self.maximumRadiusMiles = maximumRadiusMiles
        self.workSeconds = workSeconds
        self.maximumConcurrentJobs = maximumConcurrentJobs
        self.jobQueueSeconds = jobQueueSeconds
        self.maximumKMLBytes = maximumKMLBytes
        self.maximumKMZResourceBytes = maximumKMZResourceBytes
    }
}

/// The viewer's JSON API and static page. Every geometry operation (containment, buffers, projection, KML/KMZ) is
/// done here with the Meridian library; the browser only draws and collects clicks.
///
/// Endpoints (all JSON unless noted; errors are `{"error": "…"}` with a 4xx/5xx status):
/// - `GET /api/health` → `{"ok": true, "version": …, "cancelled": n, "stoppedAtDeadline": n}`: the counts of
///   computing requests stopped because their client went away and because their work budget ran out
/// - `GET /api/srs/{wkid}` → the spatial reference's name, unit, area of use and that area as a polygon projected
///   into it (the red dashed boundary of page 1)
/// - `POST /api/contains` `{"wkid"?, "x", "y"}` → `{"inside": Bool}`: whether the point lies within the spatial
///   reference's horizon (`GeometryEngine.isGeometry(_:withinHorizonOf:)`: its area of use widened by 5°, where
///   PROJ's round trip returns the point; the command line's rule)
/// - `POST /api/buffer` `{"wkid"?, "points": [{"x","y"}], "radiiMiles": [r…], "union"?, "mode"?: "planar"|"geodesic"}`
///   → `{"polygons": [{"parts": [{"shell", "holes"}]}], …}` in the spatial reference (EPSG:32038 US feet by default)
/// - `POST /api/buffer/export` the same plus `"format": "geojson"|"kmz"` → a file download
/// - `POST /api/near` the buffer request's `wkid`, `mode`, `points` and `radiiMiles` plus `"premises": [{"x","y"}]`
///   and `"premisesCSV": {"name", "text"}` → `{"premises", "pairs": [{"point", "premise", "distance", "rank"}],
///   "pointsInBreach", "premisesInReach"}`: the premises within each point's radius (distances in miles)
/// - `GET /api/kml/palette` → the seven icons and fourteen colors of page 2
/// - `POST /api/kml` sketched placemarks in Web Mercator, optionally with an opened file (`source`: its bytes in
///   base64 and the edits of its placemarks by id) they are added to → a KMZ download
/// - `POST /api/kml/open` a KML or KMZ file's bytes → its placemarks in Web Mercator with their styles
///
/// - `GET /docs/…` → the DocC documentation built by `scripts/docs.sh`, when the API was given it
///
/// Everything else is served from the static site.
public final class ViewerAPI: Sendable {
    /// The limits enforced.
    public let limits: ViewerLimits
    /// The page and its data.
    public let site: StaticSite
    /// The documentation site served under `/docs/`, if any.
    public let docs: StaticSite?
    let spatialReferences = SpatialReferenceCache()
    /// Slots for computing requests (`ViewerLimits.maximumConcurrentJobs`).
    private let jobSlots: DispatchSemaphore
    /// How many computing requests were stopped, and why (reported by `/api/health`).
    let stopped = StoppedJobs()
    /// Set by ``cancelAll()``: every running and later computation is cancelled.
    private let stopping = LockedValue(false)

    /// Cancels the work of every computing request that runs now or arrives later (each is answered 503 at its next
    /// budget check, as when its client goes away): what stopping the server does first, so that its threads finish
    /// within a budget check instead of at their deadline.
    public func cancelAll() { stopping.withLock { $0 = true } }

    /// The spatial reference page 1 uses: NAD27 / Texas North Central, US survey feet.
    public static let defaultWKID = 32038

    /// Creates the API.
    /// - Parameters:
    ///   - site: The static files.
    ///   - limits: The limits to enforce.
    ///   - docs: The documentation site to serve under `/docs/` (a folder built by `scripts/docs.sh`), or `nil`.
    public init(site: StaticSite, limits: ViewerLimits = ViewerLimits(), docs: StaticSite? = nil) {
        self.site = site
        self.docs = docs
        self.limits = limits
        jobSlots = DispatchSemaphore(value: max(1, limits.maximumConcurrentJobs))
    }

    /// Answers one request; never throws and never stops the process.
    ///
    /// Computing requests (every POST) wait at most `limits.jobQueueSeconds` for one of
    /// `limits.maximumConcurrentJobs` slots and then run under a `WorkBudget` of `limits.workSeconds` that also
    /// stops when the client closes its connection; either way the answer is a 503 with a message.
    /// - Parameter request: The request.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path == "/docs" || request.path.hasPrefix("/docs/") {
            guard let docs else {
                return HTTPResponse(status: 404, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(
                    "the documentation is not served: build it with scripts/docs.sh, then run meridian serve --docs .build/docs\n".utf8))
            }
            return docs.respond(to: request, mountedAt: "/docs")
        }
        guard request.path == "/api" || request.path.hasPrefix("/api/") else { return site.respond(to: request) }
        guard request.method == "POST" else {
            do { return try route(request) } catch { return error.response }
        }
        guard jobSlots.wait(timeout: .now() + max(0, limits.jobQueueSeconds)) == .success else {
            var busy = APIError(503, "the viewer is busy with other computations: try again in a moment").response
            busy.headers["Retry-After"] = "2"
            return busy
        }
        defer { jobSlots.signal() }
        let stopping = self.stopping
        let budget = WorkBudget(seconds: limits.workSeconds, maximumVertices: limits.maximumWorkVertices,
                                isCancelled: { request.isClientGone() || stopping.withLock { $0 } })
        let response: HTTPResponse
        do {
            response = try budget.run { () throws(APIError) -> HTTPResponse in try route(request) }
        } catch let error as APIError {
            response = error.response
        } catch {
            response = APIError(500, "unexpected error: \(error)").response
        }
        if response.status == 503 { stopped.count(clientGone: request.isClientGone(), budget: budget) }
        return response
    }

    /// What a computing request does, for the message of a 503 when its work budget stops it.
    enum BudgetedWork {
        /// Buffering points (`/api/buffer`, `/api/buffer/export`).
        case buffers
        /// Reading a KML or KMZ file (`/api/kml/open`).
        case openingFile
        /// Building a KMZ, reading the opened file again (`/api/kml`).
        case savingFile
        /// Finding the premises within the points' radii (`/api/near`).
        case proximity

        /// The message's start and the advice it ends with.
        var words: (stopped: String, advice: String) {
            switch self {
            case .buffers: ("the computation was stopped", "use fewer points, smaller radii or planar mode")
            case .openingFile: ("opening the file was stopped", "open a smaller file, with fewer placemarks or vertices")
            case .savingFile: ("saving was stopped", "save fewer placemarks, or start from a smaller file")
            case .proximity: ("the search was stopped", "use fewer points or premises, or smaller radii")
            }
        }
    }

    /// The API's answer to an engine error: 503 when the work budget stopped it (saying what was stopped and what
    /// to change), 422 otherwise.
    /// - Parameters:
    ///   - error: The engine's error.
    ///   - work: What the request was doing.
    func failure(_ error: EngineError, doing work: BudgetedWork = .buffers) -> APIError {
        if case .interrupted = error.unlocated {
            return APIError(503, "\(work.words.stopped): it would take longer than the \(Self.seconds(limits.workSeconds)) "
                + "allowed for one request (\(work.words.advice))")
        }
        // The engine's geodesic buffer names its own parameter (maxDeviation), which the API does not have: the
        // API's deviation is 0.2 % of the radius, so a curve that needs more vertices than the engine places is one
        // of a radius too small to compute here (larger radii need fewer vertices, not more).
        if case .invalidDistance(let message) = error.unlocated, message.contains("maxDeviation") {
            return .unprocessable("the geodesic buffer cannot be computed at a radius this small here (one curve would "
                + "need more than 200,000 vertices): use a larger radius or planar mode")
        }
        return .unprocessable(error.description(naming: { Self.requestItem(at: $0) }))
    }

    /// The item of a request an engine error is located at, named as the API's own messages name it: a point of
    /// the request ("point 3"; the engine's geometries and input features are the request's points, in order) or a
    /// premise ("premise 3"; the engine's near features).
    static func requestItem(at location: EngineError.Location) -> String? {
        guard let i = location.geometry else { return nil }
        return location.list == .nearFeatures ? "premise \(i)" : "point \(i)"
    }

    private static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }

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

    private func health() -> HTTPResponse {
        .json(["ok": "true", "version": ViewerServer.version, "cancelled": String(stopped.cancelled),
               "stoppedAtDeadline": String(stopped.atDeadline)])
    }

    /// Finds the request's route in `routes` and runs it.
    private func route(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
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

    // MARK: Decoding

    /// Decodes a JSON body, turning every failure into a 400 with a readable message.
    func decode<T: Decodable>(_ type: T.Type, from r: HTTPRequest) throws(APIError) -> T {
        guard !r.body.isEmpty else { throw .badRequest("the request body is empty: send a JSON object") }
        do {
            return try JSONDecoder().decode(T.self, from: r.body)
        } catch let error as DecodingError {
            throw .badRequest(Self.describe(error))
        } catch {
            throw .badRequest("malformed JSON")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ extra: CodingKey? = nil) -> String {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .dataCorrupted(let c) where c.codingPath.isEmpty: return "malformed JSON"
        case .dataCorrupted(let c): return "invalid value at '\(path(c))'"
        case .keyNotFound(let key, let c): return "missing field '\(path(c, key))'"
        case .typeMismatch(let type, let c): return "field '\(path(c))' must be \(Self.kind(type))"
        case .valueNotFound(let type, let c): return "field '\(path(c))' must be \(Self.kind(type)), not null"
        @unknown default: return "malformed JSON"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }

    // MARK: Spatial references

    func spatialReference(wkid: Int) throws(APIError) -> SpatialReferenceInfo {
        guard (1...999_999).contains(wkid) else { throw .badRequest("wkid must be a positive EPSG or ESRI code") }
        return try spatialReferences.info(wkid: wkid)
    }

    private func spatialReferenceResponse(wkid: Int) throws(APIError) -> HTTPResponse {
        let info = try spatialReference(wkid: wkid)
        var w = JSONWriter(decimals: 3)
        w.raw("{\"wkid\":\(wkid),\"name\":")
        w.string(info.spatialReference.name)
        w.raw(",\"kind\":")
        w.string(info.spatialReference.kind.rawValue)
        w.raw(",\"unit\":")
        if let unit = info.spatialReference.unit { w.string(unit.name) } else { w.raw("null") }
        let a = info.areaOfUse
        w.raw(",\"areaOfUse\":{\"name\":")
        w.string(a.name)
        w.raw(",\"west\":"); w.number(a.west)
        w.raw(",\"south\":"); w.number(a.south)
        w.raw(",\"east\":"); w.number(a.east)
        w.raw(",\"north\":"); w.number(a.north)
        w.raw("},\"boundary\":")
        w.polygon(info.boundary)
        w.raw(",\"horizon\":")
        if let horizon = info.horizon { w.polygon(horizon) } else { w.raw("null") }
        if let e = info.boundary.geometry.extent {
            w.raw(",\"extent\":{\"xmin\":"); w.number(e.xMin)
            w.raw(",\"ymin\":"); w.number(e.yMin)
            w.raw(",\"xmax\":"); w.number(e.xMax)
            w.raw(",\"ymax\":"); w.number(e.yMax)
            w.raw("}")
        }
        w.raw("}")
        return .json(data: w.data)
    }

    // MARK: Containment

    private struct ContainsRequest: Decodable {
        var wkid: Int?
        var x: Double
        var y: Double
    }

    private func contains(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let body = try decode(ContainsRequest.self, from: r)
        guard body.x.isFinite, body.y.isFinite else { throw .unprocessable("x and y must be finite numbers") }
        let info = try spatialReference(wkid: body.wkid ?? Self.defaultWKID)
        let point = Point(x: body.x, y: body.y, spatialReference: info.spatialReference)
        do {
            // The engine's one rule (the command line's too): the projection's horizon.
            return .json(["inside": try GeometryEngine.isGeometry(point, withinHorizonOf: info.spatialReference)])
        } catch {
            throw .unprocessable(error.description)
        }
    }

    // MARK: Buffers

    /// The body of `POST /api/buffer` and `POST /api/buffer/export`.
    struct BufferRequest: Decodable {
        var wkid: Int?
        var points: [XY]
        var radiiMiles: [Double]
        var union: Bool?
        var mode: String?
        var format: String?
    }

    /// Buffer mode: planar in the spatial reference, or geodesic on the ellipsoid.
    enum BufferMode: String {
        case planar, geodesic
    }

    /// Checked buffer inputs.
    struct BufferJob {
        var info: SpatialReferenceInfo
        var points: [Point]
        var radiiMiles: [Double]
        var union: Bool
        var mode: BufferMode
    }

    /// A request's mode (planar by default) and projected spatial reference (EPSG:32038 by default): the buffers'
    /// and the near table's.
    func setting(mode: String?, wkid: Int?) throws(APIError) -> (mode: BufferMode, info: SpatialReferenceInfo) {
        guard let parsed = BufferMode(rawValue: mode ?? "planar") else {
            throw .badRequest("mode must be \"planar\" or \"geodesic\", got \"\(mode ?? "")\"")
        }
        let info = try spatialReference(wkid: wkid ?? Self.defaultWKID)
        guard info.spatialReference.isProjected else {
            throw .unprocessable("EPSG:\(info.wkid) is not a projected spatial reference")
        }
        return (parsed, info)
    }

    func validate(_ body: BufferRequest) throws(APIError) -> BufferJob {
        guard !body.points.isEmpty else { throw .unprocessable("add at least one point") }
        guard body.points.count <= limits.maximumPoints else {
            throw .tooLarge("too many points: \(body.points.count) (limit \(limits.maximumPoints))")
        }
        guard body.radiiMiles.count == body.points.count || body.radiiMiles.count == 1 else {
            throw .unprocessable("give one radius per point or one radius for all "
                + "(\(body.points.count) points, \(body.radiiMiles.count) radii)")
        }
        let maxR = limits.maximumRadiusMiles
        for (i, r) in body.radiiMiles.enumerated() {
            guard r.isFinite && r > 0 && r < maxR else {
                throw .unprocessable("radius \(i) is \(r): enter a value between 0 and \(Int(maxR)) miles")
            }
            // The library's one rule (the command line's too): at least 1 µm, planar and geodesic alike.
            if let problem = GeometryEngine.bufferDistanceProblem(r, metersPerUnit: LinearUnit.miles.metersPerUnit,
                                                                  unit: "mi") {
                throw .unprocessable("radius \(i): \(problem)")
            }
        }
        let (mode, info) = try setting(mode: body.mode, wkid: body.wkid)
        for (i, p) in body.points.enumerated() where !(p.x.isFinite && p.y.isFinite) {
            throw .unprocessable("point \(i) has a coordinate that is not a finite number")
        }
        let points = body.points.map { Point(x: $0.x, y: $0.y, spatialReference: info.spatialReference) }
        do {
            // The engine's one rule (the command line's too): the projection's horizon.
            let all = Multipoint(points.map { $0.coordinate }, spatialReference: info.spatialReference)
            if let outside = try GeometryEngine.firstVertexOutsideHorizon([all], of: info.spatialReference) {
                throw APIError.unprocessable("point \(outside.vertexIndex) \(outside.reasonPhrase(for: info.spatialReference))"
                                             + ": tap within the projection's horizon")
            }
        } catch let e as APIError {
            throw e
        } catch {
            throw .unprocessable("\(error)")
        }
        return BufferJob(info: info, points: points, radiiMiles: body.radiiMiles, union: body.union ?? false,
                         mode: mode)
    }

    /// Runs a checked buffer job: polygons in the job's spatial reference.
    func polygons(for job: BufferJob) throws(APIError) -> [Polygon] {
        switch job.mode {
        case .planar:
            // Miles → the spatial reference's unit with LinearUnit's exact factors (1 mi = 1609.344 m).
            do {
                return try GeometryEngine.buffer(
                    around: job.points, distances: job.radiiMiles, distanceUnit: .miles, shouldUnion: job.union)
            } catch {
                throw failure(error)
            }
        case .geodesic:
            // Geodesic circles on the ellipsoid, computed in longitude/latitude as the command line computes them
            // (split at ±180°, each part within [-180°, 180°]), then projected into the job's spatial reference for
            // drawing: a buffer written straight in projected coordinates cannot cross the projection's own seam
            // (Web Mercator's ±20,037,508 m), where its curve would jump from one side of the map to the other.
            var result: [Polygon] = []
            for polygon in try geodesicPolygons(for: job) {
                do { result.append(try GeometryEngine.project(polygon, into: job.info.spatialReference)) } catch {
                    throw .unprocessable("cannot project the geodesic buffers into EPSG:\(job.info.wkid): \(error)")
                }
            }
            return result
        }
    }

    /// A geodesic job's buffers in WGS84 longitude/latitude.
    private func geodesicPolygons(for job: BufferJob) throws(APIError) -> [Polygon] {
        do {
            return try GeometryEngine.geodeticBuffer(around: job.points, distances: job.radiiMiles, distanceUnit: .miles,
                                                     shouldUnion: job.union, outputSpatialReference: .wgs84)
        } catch {
            throw failure(error)
        }
    }

    private func buffer(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let job = try validate(try decode(BufferRequest.self, from: r))
        let result = try polygons(for: job)
        let vertexCount = result.reduce(0) { $0 + $1.vertexCount }
        var w = JSONWriter(decimals: 2, capacity: 32 * vertexCount + 256)
        w.raw("{\"mode\":\"\(job.mode.rawValue)\",\"wkid\":\(job.info.wkid),\"unioned\":\(job.union)")
        w.raw(",\"vertexCount\":\(vertexCount),\"polygons\":[")
        for (i, p) in result.enumerated() {
            if i > 0 { w.raw(",") }
            w.polygon(p)
        }
        w.raw("]}")
        return .json(data: w.data)
    }

    private func exportBuffers(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let body = try decode(BufferRequest.self, from: r)
        guard let format = body.format, ["geojson", "kmz"].contains(format) else {
            throw .badRequest("format must be \"geojson\" or \"kmz\"")
        }
        let job = try validate(body)
        let wgs84 = try exportPolygons(for: job)
        switch format {
        case "geojson":
            let features = wgs84.enumerated().map { i, polygon in
                Feature(geometry: .polygon(polygon), properties: exportProperties(job, index: i))
            }
            return .attachment(GeoJSON.encode(features), contentType: "application/geo+json", filename: "buffers.geojson")
        default:
            let document: KMLDocument
            do {
                document = try KMLDocument.bufferDocument(points: job.points, buffers: wgs84,
                                                          name: "Buffers (\(job.mode.rawValue))")
            } catch {
                throw .unprocessable("cannot build the KML document: \(error.description)")
            }
            return .attachment(try KMLBridge.kmzData(KMLDataset(rootNode: document)),
                               contentType: "application/vnd.google-earth.kmz", filename: "buffers.kmz")
        }
    }

    /// The job's buffers projected to WGS84 longitude/latitude for export.
    func exportPolygons(for job: BufferJob) throws(APIError) -> [Polygon] {
        if job.mode == .geodesic { return try geodesicPolygons(for: job) }
        var result: [Polygon] = []
        for polygon in try polygons(for: job) {
            do {
                result.append(try GeometryEngine.project(polygon, into: .wgs84))
            } catch {
                throw .unprocessable("cannot project the buffers to WGS84: \(error)")
            }
        }
        return result
    }

    /// The attributes of exported buffer `index`: the centre(s) in the source spatial reference and the radii.
    func exportProperties(_ job: BufferJob, index: Int) -> [String: JSONValue] {
        let radius: (Int) -> Double = { job.radiiMiles.count == 1 ? job.radiiMiles[0] : job.radiiMiles[$0] }
        var properties: [String: JSONValue] = [
            "mode": .string(job.mode.rawValue),
            "sourceCRS": .string("EPSG:\(job.info.wkid)"),
            "unioned": .bool(job.union),
        ]
        if job.union {
            properties["pointCount"] = .number(Double(job.points.count))
            properties["radiiMiles"] = .array(job.points.indices.map { .number(radius($0)) })
        } else {
            properties["radiusMiles"] = .number(radius(index))
            properties["centerX"] = .number(job.points[index].x)
            properties["centerY"] = .number(job.points[index].y)
        }
        return properties
    }

    // MARK: KML

    private struct PaletteResponse: Encodable {
        var icons: [KMLPalette.Icon]
        var colors: [KMLPalette.Color]
    }

    private func saveKML(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let sketch = try decode(KMLBridge.SketchDocument.self, from: r)
        let dataset = try KMLBridge.dataset(for: sketch, site: site, limits: limits) { failure($0, doing: .savingFile) }
        // An opened file is saved under the name the page gives (the file's), its document keeping its own <name>.
        let given = sketch.source == nil ? nil : sketch.name.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        let name = given ?? dataset.document.name ?? "Untitled"
        return .attachment(try KMLBridge.kmzData(dataset), contentType: "application/vnd.google-earth.kmz",
                           filename: "\(name).kmz")
    }

    private func openKML(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard !r.body.isEmpty else { throw .badRequest("the request body is empty: send a KML or KMZ file") }
        return .json(data: try KMLBridge.openResponse(r.body, limits: limits) { failure($0, doing: .openingFile) })
    }
}

/// A spatial reference with its area of use, as a polygon in its own coordinates.
struct SpatialReferenceInfo: Sendable {
    let wkid: Int
    let spatialReference: SpatialReference
    let areaOfUse: AreaOfUse
    /// The area of use (densified along its edges, so its projected sides follow the curved parallels).
    let boundary: Polygon
    /// The projection's horizon, the area of use widened by `ProjectionHorizon.margin`, drawn the same way; `nil`
    /// when the widened box cannot be projected (it reaches a pole the projection cannot map).
    let horizon: Polygon?
}

/// Caches spatial references and their projected areas of use (PROJ's database look-ups are slow).
final class SpatialReferenceCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: [Int: SpatialReferenceInfo] = [:]  // guarded by lock

    /// Vertices per edge of the densified area-of-use box.
    static let stepsPerEdge = 32

    func info(wkid: Int) throws(APIError) -> SpatialReferenceInfo {
        if let hit = lock.withLock({ cache[wkid] }) { return hit }
        let sr: SpatialReference
        do { sr = try SpatialReference(wkid: wkid) } catch {
            throw .notFound("unknown spatial reference \(wkid): \(error.description)")
        }
        guard let area = sr.areaOfUse else { throw .notFound("PROJ knows no area of use for EPSG:\(wkid)") }
        let projected: Polygon
        do {
            projected = try GeometryEngine.areaOfUsePolygon(of: sr, verticesPerEdge: Self.stepsPerEdge)
        } catch {
            throw .unprocessable("cannot project the area of use of EPSG:\(wkid): \(error)")
        }
        let horizon = try? GeometryEngine.horizonPolygon(of: sr, verticesPerEdge: Self.stepsPerEdge)
        let info = SpatialReferenceInfo(wkid: wkid, spatialReference: sr, areaOfUse: area, boundary: projected,
                                        horizon: horizon)
        lock.withLock { cache[wkid] = info }
        return info
    }
}

/// Counts of computing requests the viewer stopped: because the client closed its connection, or because the work
/// budget's deadline passed.
final class StoppedJobs: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelledCount = 0  // guarded by lock
    private var deadlineCount = 0  // guarded by lock

    /// Requests stopped because their client went away.
    var cancelled: Int { lock.withLock { cancelledCount } }
    /// Requests stopped at their budget's deadline.
    var atDeadline: Int { lock.withLock { deadlineCount } }

    /// Counts a request answered 503 after its work ran: stopped at the deadline if that has passed, else
    /// cancelled if its client is gone (neither: an engine's own 503, not counted).
    func count(clientGone: Bool, budget: WorkBudget) {
        let late = DispatchTime.now().uptimeNanoseconds > budget.deadline
        lock.withLock {
            if late { deadlineCount += 1 } else if clientGone { cancelledCount += 1 }
        }
    }
}
