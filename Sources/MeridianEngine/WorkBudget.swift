import Dispatch
import MeridianCore

/// A bound on how long engine work may run: a deadline and a cancellation test, checked cooperatively by the
/// engine's long loops (one check per buffered geometry and per refinement pass of geodesic buffers and unions).
///
/// Work run inside `run(_:)` throws `EngineError.interrupted` at the first check after the deadline has passed or
/// after `isCancelled` has returned `true`; work outside any budget is never interrupted. The budget is a task
/// local, so it follows the calling thread's synchronous work and never leaks to other requests.
///
/// ```swift
/// let budget = WorkBudget(seconds: 20, isCancelled: { clientClosedTheConnection() })
/// let polygons = try budget.run { try GeometryEngine.geodeticBuffer(around: points, distances: [r], shouldUnion: true) }
/// ```
public final class WorkBudget: Sendable {
    /// The budget of the work running on this thread, if any.
    @TaskLocal public static var current: WorkBudget?

    /// The deadline, in `DispatchTime` uptime nanoseconds.
    public let deadline: UInt64
    /// The seconds the budget allowed when created.
    public let seconds: Double
    private let isCancelled: @Sendable () -> Bool

    /// Creates a budget.
    /// - Parameters:
    ///   - seconds: Wall-clock seconds from now, > 0 (at most about 292 years).
    ///   - isCancelled: Polled at each check; `true` stops the work (e.g. the client went away). Default: never.
    public init(seconds: Double, isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.seconds = seconds
        let span = seconds.isFinite ? UInt64(max(0, min(seconds, 9e9)) * 1e9) : UInt64.max / 2
        deadline = DispatchTime.now().uptimeNanoseconds &+ span
        self.isCancelled = isCancelled
    }

    /// Runs `body` under this budget (it becomes `WorkBudget.current` for the engine calls `body` makes).
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, including `EngineError.interrupted` from the engine's checks.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$current.withValue(self, operation: body)
    }

    /// Throws `EngineError.interrupted` if the current budget (if any) is exhausted or cancelled.
    public static func check() throws(EngineError) {
        guard let budget = current else { return }
        if DispatchTime.now().uptimeNanoseconds > budget.deadline {
            throw .interrupted("the work took longer than its budget of \(budget.seconds) s")
        }
        if budget.isCancelled() { throw .interrupted("the work was cancelled") }
    }
}

extension WorkBudget {
    /// `foreground` on the calling thread and `background` on another (`ForkJoin`), both under the calling thread's
    /// budget (a task local, which a new thread does not inherit: it is handed over explicitly); with `parallel`
    /// false, both on the calling thread, `foreground` first.
    /// - Parameters:
    ///   - parallel: Whether to use a second thread (false when the work is too small to pay for one).
    ///   - foreground: Work for the calling thread.
    ///   - background: Work for the other thread.
    /// - Returns: Both results.
    /// - Throws: The first error of either side (see `ForkJoin.run`).
    static func forkJoin<A, B: Sendable>(
        _ parallel: Bool = true, _ foreground: () throws(EngineError) -> A,
        background: @escaping @Sendable () throws(EngineError) -> B
    ) throws(EngineError) -> (A, B) {
        guard parallel else { return (try foreground(), try background()) }
        let budget = current
        return try ForkJoin.run(foreground) { () throws(EngineError) in
            guard let budget else { return try background() }
            return try budget.run { () -> Result<B, EngineError> in
                do throws(EngineError) { return .success(try background()) } catch { return .failure(error) }
            }.get()
        }
    }
}

extension WorkBudget {
    /// `ForkJoin.forEach` with every piece under the calling thread's budget (handed over to the helper threads).
    /// - Parameters:
    ///   - count: How many pieces.
    ///   - threads: The most threads to use (the calling thread among them).
    ///   - body: Piece k.
    /// - Throws: The error of the first piece (in order) that threw.
    static func forEach(count: Int, threads: Int, _ body: @escaping @Sendable (Int) throws(EngineError) -> Void)
        throws(EngineError)
    {
        _ = try map(count: count, threads: threads, body)
    }

    /// `forEach` collecting a result per piece, in order.
    /// - Parameters:
    ///   - count: How many pieces.
    ///   - threads: The most threads to use (the calling thread among them).
    ///   - body: Makes piece k's result.
    /// - Returns: The results, piece 0 first.
    /// - Throws: The error of the first piece (in order) that threw.
    static func map<T: Sendable>(count: Int, threads: Int, _ body: @escaping @Sendable (Int) throws(EngineError) -> T)
        throws(EngineError) -> [T]
    {
        let budget = current
        return try ForkJoin.map(count: count, threads: threads) { (k: Int) throws(EngineError) -> T in
            guard let budget else { return try body(k) }
            return try budget.run { () -> Result<T, EngineError> in
                do throws(EngineError) { return .success(try body(k)) } catch { return .failure(error) }
            }.get()
        }
    }
}
