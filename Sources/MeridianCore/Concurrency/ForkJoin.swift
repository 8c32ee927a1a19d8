import Foundation

/// Runs two pieces of work at the same time: one on a background thread, the other on the calling thread, and
/// returns both results once both are done (fork, then join). For work that splits into two independent halves
/// on a two-core machine.
///
/// The background side is a `BackgroundTask` (a thread with an 8 MiB stack, as a main thread's: the work may run
/// deep library code such as GEOS).
/// `run` always waits for the background work to end before it returns or throws, so nothing it captured is used
/// after `run` has returned. When both sides throw, the calling thread's error is rethrown.
public enum ForkJoin {
    /// Runs `background` on a new thread and `foreground` on the calling thread, then waits for both.
    /// - Parameters:
    ///   - foreground: Work for the calling thread.
    ///   - background: Work for the new thread; it must not depend on the calling thread's task locals (pass what
    ///     it needs, such as a work budget, explicitly).
    /// - Returns: Both results, foreground first.
    /// - Throws: The foreground's error if it threw, else the background's.
    public static func run<A, B: Sendable, Failure: Error>(
        _ foreground: () throws(Failure) -> A, background: @escaping @Sendable () throws(Failure) -> B
    ) throws(Failure) -> (A, B) {
        let slot = Slot<B>()
        let task = BackgroundTask { () throws(Failure) in slot.value = try background() }
        let first: Result<A, Failure>
        do throws(Failure) { first = .success(try foreground()) } catch { first = .failure(error) }
        let second = Result { () throws(Failure) in try task.wait() }
        let a = try first.get()
        try second.get()
        return (a, slot.value!)
    }

    /// The background result: written by the task before it ends, read after `wait()` (which orders the two).
    private final class Slot<B: Sendable>: @unchecked Sendable {
        var value: B?
    }
}
