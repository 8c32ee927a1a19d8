import Foundation
import Meridian

/// The local web viewer: the static page and JSON API (`ViewerAPI`) on a libmicrohttpd server (`HTTPServer`).
///
/// ```swift
/// let viewer = try ViewerServer()
/// let url = try viewer.start(host: "127.0.0.1", port: 8080)
/// // … later
/// viewer.stop()
/// ```
public final class ViewerServer: Sendable {
    /// The viewer's version, reported by `/api/health`: Meridian's (`MeridianVersion`).
    public static let version = MeridianVersion.string

    /// The API and page.
    public let api: ViewerAPI
    /// The HTTP server.
    public let server: HTTPServer

    /// Why the viewer could not start.
    public enum StartError: Error, Sendable, CustomStringConvertible {
        /// The page's resources are missing.
        case site(StaticSite.LoadError)
        /// The server could not listen.
        case server(HTTPServerError)

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .site(let e): e.description
            case .server(let e): e.description
            }
        }
    }

    /// Creates a stopped viewer.
    /// - Parameters:
    ///   - site: The static page (default: the one shipped with the package).
    ///   - limits: The API's limits.
    ///   - docs: The documentation site to serve under `/docs/` (see `ViewerAPI`), or `nil`.
    /// - Throws: `StartError.site` when the page's resources cannot be found.
    public init(site: StaticSite? = nil, limits: ViewerLimits = ViewerLimits(), docs: StaticSite? = nil)
        throws(StartError)
    {
        let resolved: StaticSite
        if let site {
            resolved = site
        } else {
            do { resolved = try StaticSite.bundled() } catch { throw .site(error) }
        }
        let api = ViewerAPI(site: resolved, limits: limits, docs: docs)
        let policy = PolicyBox()
        self.api = api
        self.policy = policy
        self.server = HTTPServer(maximumBodySize: limits.maximumBodySize, admission: { policy.value.refusal(for: $0) }) {
            api.handle($0)
        }
    }

    /// The request policy, set once the port is known (until then it admits nothing).
    private let policy: PolicyBox

    /// Holds the current `RequestPolicy` for the server's threads.
    private final class PolicyBox: @unchecked Sendable {
        private let lock = NSLock()
        private var current = RequestPolicy()  // guarded by lock
        var value: RequestPolicy {
            get { lock.withLock { current } }
            set { lock.withLock { current = newValue } }
        }
    }

    /// Starts listening.
    /// - Parameters:
    ///   - host: An IP address; loopback by default.
    ///   - port: A TCP port, or 0 for a free one.
    /// - Returns: The page's URL, e.g. `http://127.0.0.1:8080/`.
    /// - Throws: `StartError.server`.
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int = 8080) throws(StartError) -> URL {
        let bound: Int
        do { bound = try server.start(host: host, port: port) } catch { throw .server(error) }
        policy.value = RequestPolicy(host: host, port: bound)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(shownHost):\(bound)/") ?? URL(fileURLWithPath: "/")
    }

    /// Cancels the running computations (``ViewerAPI/cancelAll()``), stops the server and waits for its threads.
    /// Idempotent.
    public func stop() {
        api.cancelAll()
        server.stop()
    }
}
