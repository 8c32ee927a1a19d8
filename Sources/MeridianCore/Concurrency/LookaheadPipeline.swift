import Foundation

/// Produces items 0, 1, … `count − 1` on a background thread at most `ahead` items ahead of the consumer, which
/// receives them on the calling thread, in order, one at a time: a producer/consumer pair with a bounded queue, so
/// the production of item k + 1 overlaps the consumption of item k (two cores at once) while at most `ahead + 1`
/// items are held.
///
/// What the consumer sees does not depend on the threads' timing: the same items in the same order as
/// `for k in 0..<count { try consume(try produce(k), k) }`, which is what runs when `ahead` is 0. The first error,
/// from either side, ends the run: the producer stops before its next item, the background thread is joined, and
/// the error is rethrown (a producer's error once the items before it have been consumed).
public enum LookaheadPipeline {
    /// Runs the pipeline (see the type's description); returns once every item is consumed and the background
    /// thread has finished.
    /// - Parameters:
    ///   - count: How many items (0 or more).
    ///   - ahead: How many finished items may wait for the consumer (0 runs everything on the calling thread; 1
    ///     overlaps one item's production with the consumption of the previous one; more holds more).
    ///   - produce: Makes item k; runs on the background thread when `ahead` > 0.
    ///   - consume: Receives item k, in order, on the calling thread.
    /// - Throws: The first error `produce` or `consume` throws.
    public static func run<Item: Sendable, Failure: Error>(
        count: Int, ahead: Int, produce: @escaping @Sendable (Int) throws(Failure) -> Item,
        consume: (Item, Int) throws(Failure) -> Void
    ) throws(Failure) {
        guard ahead > 0, count > 1 else {
            for k in 0..<count { try consume(try produce(k), k) }
            return
        }
        let queue = Queue<Item, Failure>(capacity: ahead)
        WorkerThreads.start(Parallelism.carryingThreadCount {
            for k in 0..<count {
                guard queue.waitForRoom() else { break }
                let item: Result<Item, Failure>
                do throws(Failure) { item = .success(try produce(k)) } catch { item = .failure(error) }
                queue.put(item)
                if case .failure = item { break }
            }
            queue.finishProducing()
        })
        defer { queue.cancelAndJoin() }
        for k in 0..<count {
            try consume(try queue.take().get(), k)
        }
    }

    /// The bounded queue between the two threads, guarded by one condition variable.
    private final class Queue<Item: Sendable, Failure: Error>: @unchecked Sendable {
        private let condition = NSCondition()
        private let capacity: Int
        // Guarded by `condition`.
        private var items: [Result<Item, Failure>] = []
        private var cancelled = false
        private var producing = true

        init(capacity: Int) { self.capacity = capacity }

        /// Producer: waits until an item may be made; false when the consumer has stopped.
        func waitForRoom() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while items.count >= capacity && !cancelled { condition.wait() }
            return !cancelled
        }

        /// Producer: hands over an item.
        func put(_ item: Result<Item, Failure>) {
            condition.lock()
            items.append(item)
            condition.broadcast()
            condition.unlock()
        }

        /// Producer: says that no more items will come (the last thing its work does).
        func finishProducing() {
            condition.lock()
            producing = false
            condition.broadcast()
            condition.unlock()
        }

        /// Consumer: the next item, waiting for it. The producer makes every item the consumer asks for, or stops
        /// after a failure that the consumer receives first.
        func take() -> Result<Item, Failure> {
            condition.lock()
            defer { condition.unlock() }
            while items.isEmpty { condition.wait() }
            let item = items.removeFirst()
            condition.broadcast()
            return item
        }

        /// Consumer: stops the producer (after the item it is making, if any) and waits until its thread is done.
        func cancelAndJoin() {
            condition.lock()
            defer { condition.unlock() }
            cancelled = true
            condition.broadcast()
            while producing { condition.wait() }
        }
    }
}
