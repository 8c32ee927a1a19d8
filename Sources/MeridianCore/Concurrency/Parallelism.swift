import Foundation

/// How many threads Meridian's work on many features may use at once: the union's clusters, per-feature buffers,
/// projection and writing (`ForkJoin.forEach`, `OrderedWorkSharing`). The CLI sets it from `--threads N`.
///
/// Results never depend on it: every parallel step hands out work in pieces fixed by the input alone and puts the
/// pieces back in their order, so output is byte-identical for every thread count.
public enum Parallelism {
    /// Threads to use, 1 or more: the calling thread and `threadCount − 1` helpers. The count of the innermost
    /// `withThreadCount` around the caller if any (helper threads of Meridian's own work carry it over), else the
    /// process-wide setting, by default the processors this process may run on (`ProcessInfo.activeProcessorCount`).
    /// Setting it changes the process-wide setting, for work started afterwards.
    public static var threadCount: Int {
        get { scoped ?? storage.withLock { $0 } }
        set { storage.withLock { $0 = clamped(newValue) } }
    }

    /// Runs `body` with `threadCount` at `count` (clamped to 1…`maximumThreads`) for it and for the helper threads
    /// of the work it starts, leaving the process-wide setting alone (so that calls with different counts can run
    /// side by side, as the command line's tests do).
    /// - Parameters:
    ///   - count: Threads to use.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withThreadCount<R, Failure: Error>(_ count: Int, _ body: () throws(Failure) -> R)
        throws(Failure) -> R
    {
        let result: Result<R, Failure> = $scoped.withValue(clamped(count)) { Result { () throws(Failure) in try body() } }
        return try result.get()
    }

    /// `body` made to run with the caller's `threadCount` on whichever thread runs it (a new thread does not inherit
    /// `withThreadCount`'s task-local value): what Meridian's helper threads run.
    /// - Parameter body: Work for another thread.
    public static func carryingThreadCount(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard let count = scoped else { return body }
        return { withThreadCount(count, body) }
    }

    @TaskLocal private static var scoped: Int?

    private static func clamped(_ n: Int) -> Int { max(1, min(n, maximumThreads)) }

    /// The largest thread count accepted (more is clamped to it).
    public static let maximumThreads = 1024

    /// The default thread count: every processor this process may use.
    public static var processorCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    private static let storage = LockedValue(processorCount)
}

/// A value shared between threads, read and changed only under its lock.
public final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A value to share.
    /// - Parameter value: Its first value.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` on the value with the lock held.
    /// - Parameter body: Reads or changes the value.
    /// - Returns: What `body` returns.
    public func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
