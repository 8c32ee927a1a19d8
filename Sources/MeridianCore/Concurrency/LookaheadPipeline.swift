import Foundation

/// Produces items 0, 1, … `count − 1` on background threads at most `ahead` items ahead of the consumer, which
/// receives them on the calling thread, in order, one at a time: a producer/consumer pipeline with a bounded queue, so
/// the production of the next items overlaps the consumption of item k (two cores at once) while at most `ahead + 1`
/// items are held.
///
/// With one worker the items are made one after another on one background thread; with more, each worker takes the
/// next item not yet taken (so several are made at once, each on one thread) and the consumer still receives them in
/// order. What the consumer sees does not depend on the threads' timing nor on the number of workers: the same items
/// in the same order as `for k in 0..<count { try consume(try produce(k), k) }`, which is what runs when `ahead` is
/// 0. The first error in item order ends the run: no worker starts another item, the background threads are joined,
/// and the error is rethrown (a producer's error once the items before it have been consumed; items after a failed
/// one are never consumed).
public enum LookaheadPipeline {
    /// Runs the pipeline (see the type's description); returns once every item is consumed and the background
    /// threads have finished.
    /// - Parameters:
    ///   - count: How many items (0 or more).
    ///   - ahead: How many items may be made or in the making beyond the one being consumed (0 runs everything on the
    ///     calling thread; 1 overlaps one item's production with the consumption of the previous one; more holds
    ///     more, and lets several workers make items at once).
    ///   - workers: Background threads that make items (1 or more; at most `ahead` are ever busy at once).
    ///   - produce: Makes item k; runs on a background thread when `ahead` > 0, possibly at the same time as other
    ///     items on other workers.
    ///   - consume: Receives item k, in order, on the calling thread.
    /// - Throws: The first error `produce` or `consume` throws, in item order.
    public static func run<Item: Sendable, Failure: Error>(
        count: Int, ahead: Int, workers: Int = 1, produce: @escaping @Sendable (Int) throws(Failure) -> Item,
        consume: (Item, Int) throws(Failure) -> Void
    ) throws(Failure) {
        guard ahead > 0, count > 1 else {
            for k in 0..<count { try consume(try produce(k), k) }
            return
        }
        let queue = Queue<Item, Failure>(count: count, ahead: ahead)
        let threads = min(max(1, workers), ahead, count)
        queue.running = threads
        for _ in 0..<threads {
            let thread = Thread {
                while let k = queue.claim() {
                    let item: Result<Item, Failure>
                    do throws(Failure) { item = .success(try produce(k)) } catch { item = .failure(error) }
                    queue.put(item, k)
                }
                queue.finishProducing()
            }
            thread.stackSize = 8 << 20  // as a main thread's: the producer may run deep library code (GEOS)
            thread.start()
        }
        defer { queue.cancelAndJoin() }
        for k in 0..<count {
            try consume(try queue.take(k).get(), k)
        }
    }

    /// The state shared by the workers and the consumer, guarded by one condition variable.
    private final class Queue<Item: Sendable, Failure: Error>: @unchecked Sendable {
        private let condition = NSCondition()
        private let count: Int
        private let ahead: Int
        // Guarded by `condition`.
        private var finished: [Int: Result<Item, Failure>] = [:]
        private var next = 0  // the next item a worker may claim
        private var taken = 0  // items the consumer has taken
        private var failed = false
        private var cancelled = false
        var running = 0  // workers that have not finished (set before they start)

        init(count: Int, ahead: Int) {
            self.count = count
            self.ahead = ahead
        }

        /// Worker: the next item to make, waiting until it is at most `ahead` beyond the consumer's; nil when all
        /// are claimed, an item failed, or the consumer has stopped.
        func claim() -> Int? {
            condition.lock()
            defer { condition.unlock() }
            while next < count && next >= taken + ahead && !failed && !cancelled { condition.wait() }
            guard next < count, !failed, !cancelled else { return nil }
            next += 1
            return next - 1
        }

        /// Worker: hands over item k.
        func put(_ item: Result<Item, Failure>, _ k: Int) {
            condition.lock()
            finished[k] = item
            if case .failure = item { failed = true }
            condition.broadcast()
            condition.unlock()
        }

        /// Worker: says that it makes no more items (the last thing its thread does).
        func finishProducing() {
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }

        /// Consumer: item k (the one after the last taken), waiting for it. Every item is claimed in order and
        /// claiming stops only after a failure, so item k comes (or a failure of an earlier item came first).
        func take(_ k: Int) -> Result<Item, Failure> {
            condition.lock()
            defer { condition.unlock() }
            while finished[k] == nil { condition.wait() }
            taken = k + 1
            condition.broadcast()
            return finished.removeValue(forKey: k)!
        }

        /// Consumer: stops the workers (after the items they are making, if any) and waits until their threads are
        /// done.
        func cancelAndJoin() {
            condition.lock()
            defer { condition.unlock() }
            cancelled = true
            condition.broadcast()
            while running > 0 { condition.wait() }
        }
    }
}
