import Foundation

/// Work that runs on a background thread from the moment it is made, while the caller does something else; the
/// caller collects its end, and its error, with `wait()`, where it chooses (and can see a failure early with
/// `hasFailed`); `ForkJoin` is for two pieces of work that simply end together. Every task must be waited for (e.g.
/// in a `defer`) before what it uses goes away: the caller's own work and the task's then overlap on two cores, and
/// the caller decides whose error comes first.
public final class BackgroundTask<Failure: Error>: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var result: Result<Void, Failure>?

    /// Starts `body` on another thread (`WorkerThreads`; it runs with the caller's `Parallelism.threadCount`), or
    /// runs it at once on the calling thread when `inline` (for one thread: `Parallelism.threadCount` is 1).
    /// - Parameters:
    ///   - inline: Whether to run `body` here and now instead.
    ///   - body: The work; what it throws is rethrown by `wait()`.
    public init(inline: Bool = false, _ body: @escaping @Sendable () throws(Failure) -> Void) {
        let work = Parallelism.carryingThreadCount { [self] in
            let outcome: Result<Void, Failure>
            do throws(Failure) { outcome = .success(try body()) } catch { outcome = .failure(error) }
            condition.lock()
            result = outcome
            condition.broadcast()
            condition.unlock()
        }
        guard !inline else {
            work()
            return
        }
        WorkerThreads.start(work)
    }

    /// Whether the work has ended with an error (without waiting for it).
    public var hasFailed: Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .failure = result { return true }
        return false
    }

    /// Waits until the work has ended; rethrows its error (on every call).
    /// - Throws: What the work threw.
    public func wait() throws(Failure) {
        condition.lock()
        while result == nil { condition.wait() }
        let outcome = result!
        condition.unlock()
        try outcome.get()
    }
}
