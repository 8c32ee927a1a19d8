import Foundation
import Meridian

extension ViewerAPI {
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
