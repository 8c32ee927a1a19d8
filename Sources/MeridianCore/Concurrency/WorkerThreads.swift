import Foundation

/// The threads that run Meridian's background work (`BackgroundTask`, `OrderedWorkSharing`'s helpers,
/// `LookaheadPipeline`'s producer): a piece of work goes to a thread that has finished its last piece and waits for
/// another, or to a new thread when none waits. A command that starts work many times over — `near` starts a search
/// and its helper for every group of LEFT batches, ~120 times for a million features — then makes a few threads
/// instead of one per start (each start of a thread with an 8 MiB stack cost ~45 µs of CPU here, and its first
/// pages faulted in again).
///
/// Work never waits for a thread: when none is idle, a new one starts, so work that waits for other work it
/// started (a task whose helpers it joins) runs exactly as with a thread of its own each. At most `Pool.idleLimit`
/// threads wait for work; a thread that finds that many waiting ends. Work must leave nothing of its own on the
/// thread (every task-local value and GDAL error handler Meridian sets is scoped, undone before the work returns).
enum WorkerThreads {
    /// Runs `work` on a waiting thread, or on a new one (an 8 MiB stack, as a main thread's: work may run deep
    /// library code such as PROJ or GEOS).
    /// - Parameter work: The work; it runs once, on some thread other than the caller's.
    static func start(_ work: @escaping @Sendable () -> Void) {
        shared.start(work)
    }

    /// The process's threads: at most twice the processors (at least 4) wait for work.
    static let shared = Pool(idleLimit: max(4, 2 * Parallelism.processorCount))

    /// Threads and the work not yet taken, guarded by one condition variable.
    final class Pool: @unchecked Sendable {
        /// How many threads wait for work at most (one that finds that many waiting ends).
        let idleLimit: Int
        private let condition = NSCondition()
        // Guarded by `condition`.
        private var pending: [(@Sendable () -> Void)?] = []  // taken ones set to nil (their captures go with them)
        private var next = 0
        private var idle = 0
        private var living = 0

        /// A pool without threads yet.
        /// - Parameter idleLimit: How many threads may wait for work (0 or more).
        init(idleLimit: Int) { self.idleLimit = max(0, idleLimit) }

        /// How many threads wait for work now.
        var idleCount: Int { condition.withLock { idle } }

        /// How many threads the pool has now, working or waiting.
        var threadCount: Int { condition.withLock { living } }

        /// Runs `work` on a waiting thread, or on a new one.
        /// - Parameter work: The work.
        func start(_ work: @escaping @Sendable () -> Void) {
            condition.lock()
            pending.append(work)
            // Each piece not taken has a waiting thread of its own (one woken and not yet running still counts as
            // waiting), or a new thread is made for it.
            let waiting = idle >= pending.count - next
            if waiting { condition.signal() } else { living += 1 }
            condition.unlock()
            guard !waiting else { return }
            let thread = Thread { [self] in serve() }
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// A thread's life: takes pieces of work until none is left, then waits for more, or ends when `idleLimit`
        /// threads already wait.
        private func serve() {
            condition.lock()
            while true {
                if next < pending.count {
                    let work = pending[next]!
                    pending[next] = nil
                    next += 1
                    if next == pending.count {
                        pending.removeAll(keepingCapacity: true)
                        next = 0
                    }
                    condition.unlock()
                    work()
                    condition.lock()
                    continue
                }
                guard idle < idleLimit else { break }
                idle += 1
                condition.wait()
                idle -= 1
            }
            living -= 1
            condition.unlock()
        }
    }
}
