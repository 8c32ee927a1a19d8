import Foundation
import Meridian

/// The viewer's JSON API and static page. Every geometry operation (containment, buffers, projection, KML/KMZ) is
/// done here with the Meridian library; the browser only draws and collects clicks.
///
/// Endpoints (all JSON unless noted; errors are `{"error": "…"}` with a 4xx/5xx status):
/// - `GET /api/health` → `{"ok": true, "version": "…", "cancelled": 0, "stoppedAtDeadline": 0}`: the viewer's
///   version (`ViewerServer.version`) and, as numbers, how many computing requests were answered 503 because their
///   client went away and because they ran past their deadline (`ViewerLimits.workSeconds`)
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
}
