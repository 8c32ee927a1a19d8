import Foundation
import Meridian

extension ViewerAPI {
    /// The answer of `GET /api/health` (see the type's documentation).
    struct HealthResponse: Encodable {
        /// Always `true`: the viewer answers.
        let ok: Bool
        /// Meridian's version.
        let version: String
        /// Computing requests stopped because their client went away.
        let cancelled: Int
        /// Computing requests stopped at their deadline.
        let stoppedAtDeadline: Int
    }

    func health() -> HTTPResponse {
        .json(HealthResponse(ok: true, version: ViewerServer.version, cancelled: stopped.cancelled,
                             stoppedAtDeadline: stopped.atDeadline))
    }
}
