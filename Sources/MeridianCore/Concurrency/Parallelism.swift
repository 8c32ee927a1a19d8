import Foundation

/// How many threads Meridian's work on many features may use at once: the union's clusters, per-feature buffers,
/// projection and writing (`ForkJoin.forEach`, `OrderedWorkSharing`). The CLI sets it from `--threads N`.
///
/// Results never depend on it: every parallel step hands out work in pieces fixed by the input alone and puts the
/// pieces back in their order, so output is byte-identical for every thread count.
public enum Parallelism {
    /// Threads to use, 1 or more: the calling thread and `threadCount − 1` helpers. Default: the processors this
    /// process may run on (`ProcessInfo.activeProcessorCount`). Setting it affects work started afterwards.
    public static var threadCount: Int {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = max(1, min(newValue, maximumThreads)) } }
    }

    /// The largest thread count accepted (more is clamped to it).
    public static let maximumThreads = 1024

    /// The default thread count: every processor this process may use.
    public static var processorCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    private static let storage = LockedValue(processorCount)
}

/// A value guarded by a lock.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
