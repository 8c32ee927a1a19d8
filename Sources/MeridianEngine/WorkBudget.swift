import Dispatch
import Foundation
import MeridianCore

/// A bound on engine work: how long it may run (a deadline and a cancellation test) and how many vertices it may
/// make, checked cooperatively by the engine.
///
/// Time: work run inside `run(_:)` throws `EngineError.interrupted` at the first check after the deadline has
/// passed or after `isCancelled` has returned `true` (one check per buffered geometry, per refinement pass of
/// geodesic buffers and unions, per 64 KiB of KML read).
///
/// Vertices: every operation that can multiply vertices — planar and geodesic buffers, offsets, densify,
/// generalize and simplify, geodesic shapes — first estimates what it will make and asks `admit(vertices:for:)`,
/// which refuses with `EngineError.limitExceeded` when that is more than the budget has left, and then counts
/// what it makes with `produce(vertices:by:)` while it works, which stops it as soon as the total passes
/// `maximumVertices`. Work that takes time without making vertices is charged too, as vertex equivalents
/// (`spend(vertices:by:)`; a geodesic buffer's chord attempts beyond four per vertex kept, four attempts a vertex).
/// So no input can make such an operation exhaust memory or run unbounded: a 157 km line buffered by 1 m, a
/// square densified every micrometre, a buffer of a million segments per quarter circle are refused before or
/// while they grow. The command line runs every command under a budget of `--max-vertices` (default 5 million),
/// the viewer every request under one of `ViewerLimits.maximumWorkVertices`.
///
/// Work outside any budget is neither interrupted nor bounded. The budget is a task local, so it follows the
/// calling thread's synchronous work (and is handed to the engine's second thread by `forkJoin`), and never
/// leaks to other requests.
///
/// ```swift
/// let budget = WorkBudget(seconds: 20, maximumVertices: 5_000_000, isCancelled: { clientClosedTheConnection() })
/// let polygons = try budget.run { try GeometryEngine.geodeticBuffer(around: points, distances: [r], shouldUnion: true) }
/// ```
public final class WorkBudget: @unchecked Sendable {
    /// The budget of the work running on this thread, if any.
    @TaskLocal public static var current: WorkBudget?

    /// The deadline, in `DispatchTime` uptime nanoseconds.
    public let deadline: UInt64
    /// The seconds the budget allowed when created.
    public let seconds: Double
    /// The most vertices the work may make in all (`Int.max`: no bound).
    public let maximumVertices: Int
    private let isCancelled: @Sendable () -> Bool
    private let lock = NSLock()
    private var produced = 0  // guarded by lock

    /// Creates a budget.
    /// - Parameters:
    ///   - seconds: Wall-clock seconds from now, > 0 (at most about 292 years; `.infinity`: no deadline).
    ///   - maximumVertices: The most vertices the work may make in all, > 0 (default: no bound).
    ///   - isCancelled: Polled at each check; `true` stops the work (e.g. the client went away). Default: never.
    public init(seconds: Double, maximumVertices: Int = .max, isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.seconds = seconds
        self.maximumVertices = max(1, maximumVertices)
        let span = seconds.isFinite ? UInt64(max(0, min(seconds, 9e9)) * 1e9) : UInt64.max / 2
        deadline = DispatchTime.now().uptimeNanoseconds &+ span
        self.isCancelled = isCancelled
    }

    /// The vertices counted so far by `produce(vertices:by:)`.
    public var verticesProduced: Int { lock.withLock { produced } }

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

    /// Refuses work estimated to make more vertices than the current budget (if any) has left, before it starts.
    /// - Parameters:
    ///   - estimate: The vertices the work will make (an estimate at least as large as a typical result; a
    ///     `Double`, so that an absurd request is said as it is rather than overflowing).
    ///   - operation: What the work is, for the message (e.g. "densify").
    /// - Throws: `EngineError.limitExceeded` naming the estimate and the limit.
    public static func admit(vertices estimate: Double, for operation: String) throws(EngineError) {
        guard let budget = current, budget.maximumVertices != .max else { return }
        let made = budget.verticesProduced
        guard estimate <= Double(budget.maximumVertices - made) else {
            let already = made == 0 ? "" : " after the \(Self.count(Double(made))) already made"
            throw .limitExceeded("\(operation) would make about \(Self.count(estimate)) vertices\(already), more than the "
                + "\(Self.count(Double(budget.maximumVertices))) the work may make")
        }
    }

    /// Whether `produce(vertices:by:)` counts: false inside `uncounted(_:)`.
    @TaskLocal static var counting = true

    /// Runs work whose intermediate vertices are not counted: a union, whose pieces are dissolved as it goes and
    /// whose inputs were each admitted on their own (its result is counted by the caller).
    static func uncounted<T>(_ body: () throws(EngineError) -> T) throws(EngineError) -> T {
        try $counting.withValue(false) { () -> Result<T, EngineError> in
            do throws(EngineError) { return .success(try body()) } catch { return .failure(error) }
        }.get()
    }

    /// Counts vertices the work has made; stops it once the total passes the current budget's (if any).
    /// - Parameters:
    ///   - vertices: The vertices just made, ≥ 0.
    ///   - operation: What made them, for the message.
    /// - Throws: `EngineError.limitExceeded` naming the limit.
    public static func produce(vertices: Int, by operation: String) throws(EngineError) {
        guard counting else { return }
        try charge(vertices: vertices, by: operation)
    }

    /// Counts work done beyond the vertices it made, as its equivalent in vertices (each caller documents its exchange
    /// rate): counted even inside `uncounted(_:)`, since such work is not dissolved into a result that is counted
    /// later. So the budget bounds time too, not only memory (e.g. a geodesic chord tried again and again).
    /// - Parameters:
    ///   - vertices: The vertex equivalent of the work just done, ≥ 0.
    ///   - operation: What did the work, for the message.
    /// - Throws: `EngineError.limitExceeded` naming the limit.
    static func spend(vertices: Int, by operation: String) throws(EngineError) {
        try charge(vertices: vertices, by: operation)
    }

    /// Adds to the current budget's count (if any) and stops the work once the total passes its limit.
    private static func charge(vertices: Int, by operation: String) throws(EngineError) {
        guard let budget = current, budget.maximumVertices != .max else { return }
        let total = budget.lock.withLock { () -> Int in
            budget.produced = budget.produced.addingReportingOverflow(max(0, vertices)).overflow ? .max
                : budget.produced + max(0, vertices)
            return budget.produced
        }
        guard total <= budget.maximumVertices else {
            throw .limitExceeded("\(operation) made more than the \(Self.count(Double(budget.maximumVertices))) "
                + "vertices the work may make")
        }
    }

    /// A vertex count for messages: grouped digits up to a trillion, then scientific notation.
    static func count(_ n: Double) -> String {
        guard n.isFinite else { return "infinitely many" }
        guard n < 1e12 else { return String(format: "%.2g", n) }
        let digits = String(Int64(n.rounded(.up)))
        var grouped = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { grouped.append(",") }
            grouped.append(c)
        }
        return String(grouped.reversed())
    }
}

extension WorkBudget {
    /// `foreground` on the calling thread and `background` on another (`ForkJoin`), both under the calling thread's
    /// budget and counting (task locals, which a new thread does not inherit: they are handed over explicitly); with `parallel`
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
        let budget = current, isCounting = counting
        return try ForkJoin.run(foreground) { () throws(EngineError) in
            guard let budget else { return try background() }
            return try budget.run { () -> Result<B, EngineError> in
                $counting.withValue(isCounting) { () -> Result<B, EngineError> in
                    do throws(EngineError) { return .success(try background()) } catch { return .failure(error) }
                }
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

    /// `forEach` collecting a result per piece, in order: `ForkJoin.map` with the calling thread's budget (if any)
    /// current on every thread, so that each piece's engine calls are bounded and checked as the caller's are (a
    /// helper thread does not inherit task locals).
    /// - Parameters:
    ///   - count: How many pieces.
    ///   - threads: The most threads to use (the calling thread among them).
    ///   - body: Makes piece k's result.
    /// - Returns: The results, piece 0 first.
    /// - Throws: The error of the first piece (in order) that threw.
    public static func map<T: Sendable, Failure: Error>(
        count: Int, threads: Int, _ body: @escaping @Sendable (Int) throws(Failure) -> T
    ) throws(Failure) -> [T] {
        let budget = current
        return try ForkJoin.map(count: count, threads: threads) { (k: Int) throws(Failure) -> T in
            guard let budget else { return try body(k) }
            return try budget.run { () -> Result<T, Failure> in
                do throws(Failure) { return .success(try body(k)) } catch { return .failure(error) }
            }.get()
        }
    }
}
