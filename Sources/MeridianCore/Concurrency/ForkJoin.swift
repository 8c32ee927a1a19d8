import Foundation

/// Runs work on several threads at once, the calling thread among them, and returns when all of it is done (fork,
/// then join): `run` for two pieces of work, `forEach` for `count` independent pieces spread over N threads.
///
/// Helper threads are `BackgroundTask`s (a thread with an 8 MiB stack, as a main thread's: the work may run deep
/// library code such as GEOS). Nothing a fork captured is used after it has returned: it always waits for every
/// helper. When several pieces throw, the error of the first in order is rethrown.
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
        let slot = Slots<B>(count: 1)
        let task = BackgroundTask { () throws(Failure) in slot.set(0, try background()) }
        let first: Result<A, Failure>
        do throws(Failure) { first = .success(try foreground()) } catch { first = .failure(error) }
        let second = Result { () throws(Failure) in try task.wait() }
        let a = try first.get()
        try second.get()
        return (a, slot.take(0)!)
    }

    /// Runs `body(k)` for every k in 0..<count on up to `threads` threads: the calling thread and `threads − 1`
    /// helpers, each taking the next k that no thread has taken. With `threads` 1 (or `count` below 2) everything
    /// runs on the calling thread, in order.
    ///
    /// What each k does must not depend on which thread runs it or when (write results into slot k, not onto a
    /// shared list); then the outcome is the same for every thread count.
    /// - Parameters:
    ///   - count: How many pieces (0 or more).
    ///   - threads: The most threads to use (1 or more; at most `count` are started).
    ///   - body: Piece k; it must not depend on the calling thread's task locals.
    /// - Throws: The error of the smallest k that threw; once a piece has thrown, no piece after it is started.
    public static func forEach<Failure: Error>(
        count: Int, threads: Int, _ body: @escaping @Sendable (Int) throws(Failure) -> Void
    ) throws(Failure) {
        let helpers = min(max(threads, 1), count) - 1
        guard helpers > 0 else {
            for k in 0..<count { try body(k) }
            return
        }
        let work = SharedCounter(count: count)
        let failures = Slots<Failure>(count: count)
        let drain: @Sendable () -> Void = {
            while let k = work.claim() {
                do throws(Failure) { try body(k) } catch {
                    failures.set(k, error)
                    work.stop(after: k)
                }
            }
        }
        let tasks = (0..<helpers).map { _ in BackgroundTask<Never> { drain() } }
        drain()
        for task in tasks { task.wait() }
        if let first = failures.first() { throw first }
    }

    /// `forEach` collecting a result per piece, in order.
    /// - Parameters:
    ///   - count: How many pieces (0 or more).
    ///   - threads: The most threads to use (1 or more).
    ///   - body: Makes piece k's result.
    /// - Returns: The results, piece 0 first.
    /// - Throws: As `forEach`.
    public static func map<T: Sendable, Failure: Error>(
        count: Int, threads: Int, _ body: @escaping @Sendable (Int) throws(Failure) -> T
    ) throws(Failure) -> [T] {
        let results = Slots<T>(count: count)
        try forEach(count: count, threads: threads) { (k: Int) throws(Failure) in results.set(k, try body(k)) }
        return (0..<count).map { results.take($0)! }
    }

    /// One slot per piece, written by whichever thread made it and read once all threads have finished.
    private final class Slots<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [T?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ k: Int, _ value: T) { lock.withLock { values[k] = value } }
        func take(_ k: Int) -> T? { lock.withLock { values[k] } }
        func first() -> T? { lock.withLock { values.lazy.compactMap { $0 }.first } }
    }

    /// The next piece to take, shared by the threads.
    private final class SharedCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var next = 0
        private var end: Int
        init(count: Int) { end = count }
        func claim() -> Int? {
            lock.withLock {
                guard next < end else { return nil }
                next += 1
                return next - 1
            }
        }
        /// No piece after k is started any more.
        func stop(after k: Int) { lock.withLock { end = min(end, k + 1) } }
    }
}
