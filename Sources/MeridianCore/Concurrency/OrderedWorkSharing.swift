import Foundation

/// Makes items 0, 1, … `count − 1` on several threads, the calling thread and `helpers` helper threads, whichever is
/// free taking the next item, and hands them to a consumer on the calling thread, in order, one at a time.
///
/// Unlike `LookaheadPipeline`, where the background thread makes every item and the calling thread only consumes, the
/// split adapts: the calling thread consumes each item as soon as it is due and makes items only while the next one
/// to consume is not ready, so when consuming costs time (writing to a file) the helpers make more of the items and
/// every thread stays busy.
///
/// What the consumer sees does not depend on the threads' timing: the same items in the same order as
/// `for k in 0..<count { try consume(try produce(k), k) }`, which is what runs when `window` is 0 or `count` is
/// below 2. At most `window` items are claimed (being made, or made and waiting) ahead of the consumer. The first
/// error in item order ends the run: no item after it is started, the helper threads are joined, and the error is
/// rethrown once the items before it have been consumed (an error from `consume` at once).
public enum OrderedWorkSharing {
    /// Runs the work (see the type's description); returns once every item is consumed and the helper threads have
    /// finished.
    /// - Parameters:
    ///   - count: How many items (0 or more).
    ///   - window: How many items may be claimed and not yet consumed (0 runs everything on the calling thread;
    ///     `helpers` + 1 or more lets every thread make items while the consumer is behind).
    ///   - helpers: How many helper threads (default 1; 0 runs everything on the calling thread).
    ///   - produce: Makes item k, on any of the threads (so it must not touch state of the calling thread).
    ///   - consume: Receives item k, in order, on the calling thread.
    /// - Throws: The first error (in item order) `produce` throws, or the first `consume` throws.
    public static func run<Item: Sendable, Failure: Error>(
        count: Int, window: Int, helpers: Int = 1, produce: @escaping @Sendable (Int) throws(Failure) -> Item,
        consume: (Item, Int) throws(Failure) -> Void
    ) throws(Failure) {
        let helpers = min(max(helpers, 0), max(window - 1, 1), count - 1)
        guard window > 0, helpers > 0 else {
            for k in 0..<count { try consume(try produce(k), k) }
            return
        }
        let state = State<Item, Failure>(count: count, window: window, helpers: helpers)
        for _ in 0..<helpers {
            WorkerThreads.start(Parallelism.carryingThreadCount {
                while let k = state.claimForHelper() {
                    state.finish(k, Result { () throws(Failure) in try produce(k) })
                }
                state.helperFinished()
            })
        }
        defer { state.cancelAndJoin() }
        for k in 0..<count {
            while true {
                switch state.nextStep(consuming: k) {
                case .consume(let result):
                    try consume(try result.get(), k)
                    state.consumed(k)
                case .produce(let j):
                    state.finish(j, Result { () throws(Failure) in try produce(j) })
                    continue
                }
                break
            }
        }
    }

    /// What the calling thread does next.
    private enum Step<Item, Failure: Error> {
        /// Item k is ready: consume it (or throw its error).
        case consume(Result<Item, Failure>)
        /// Item j is claimed for the calling thread to make.
        case produce(Int)
    }

    /// The items' state shared by the threads, guarded by one condition variable.
    private final class State<Item: Sendable, Failure: Error>: @unchecked Sendable {
        private let condition = NSCondition()
        private let count: Int, window: Int
        // Guarded by `condition`.
        private var ready: [Int: Result<Item, Failure>] = [:]
        private var nextClaim = 0
        private var nextConsume = 0
        /// The first item whose `produce` failed: no item after it is claimed.
        private var failedAt = Int.max
        private var cancelled = false
        private var helpersRunning: Int

        init(count: Int, window: Int, helpers: Int) {
            self.count = count
            self.window = window
            helpersRunning = helpers
        }

        /// Whether another item may be claimed now.
        private var mayClaim: Bool {
            !cancelled && nextClaim < count && nextClaim < failedAt && nextClaim - nextConsume < window
        }

        /// Whether no item will ever be claimed again.
        private var claimingOver: Bool { cancelled || nextClaim >= count || nextClaim > failedAt }

        /// Helper: the next item to make, waiting for room; nil when there is nothing left to make.
        func claimForHelper() -> Int? {
            condition.lock()
            defer { condition.unlock() }
            while !mayClaim {
                if claimingOver { return nil }
                condition.wait()
            }
            nextClaim += 1
            return nextClaim - 1
        }

        /// Either thread: item k is made (or failed).
        func finish(_ k: Int, _ result: Result<Item, Failure>) {
            condition.lock()
            if case .failure = result { failedAt = min(failedAt, k) }
            ready[k] = result
            condition.broadcast()
            condition.unlock()
        }

        /// Calling thread: item k if it is ready, else an item to make if one may be claimed, else waits.
        func nextStep(consuming k: Int) -> Step<Item, Failure> {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let result = ready.removeValue(forKey: k) { return .consume(result) }
                if mayClaim {
                    nextClaim += 1
                    return .produce(nextClaim - 1)
                }
                condition.wait()
            }
        }

        /// Calling thread: item k is consumed, which makes room for another.
        func consumed(_ k: Int) {
            condition.lock()
            nextConsume = k + 1
            condition.broadcast()
            condition.unlock()
        }

        /// Helper: says that it makes no more items (the last thing its work does).
        func helperFinished() {
            condition.lock()
            helpersRunning -= 1
            condition.broadcast()
            condition.unlock()
        }

        /// Calling thread: stops the helpers (after the items they are making, if any) and waits until their threads
        /// are done.
        func cancelAndJoin() {
            condition.lock()
            defer { condition.unlock() }
            cancelled = true
            condition.broadcast()
            while helpersRunning > 0 { condition.wait() }
        }
    }
}
