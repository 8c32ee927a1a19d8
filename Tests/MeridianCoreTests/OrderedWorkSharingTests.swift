import Foundation
import Testing

@testable import MeridianCore

/// `OrderedWorkSharing` on its own: every item made once and consumed in order whatever the timing, at most `window`
/// items claimed ahead of the consumer, the helper thread taking items when the consumer is slow, and an error from
/// either side delivered in order and stopping further work.
@Suite struct OrderedWorkSharingTests {
    struct Stop: Error, Equatable { let item: Int }

    /// Counts items claimed but not yet consumed, the most at once, every item made, and which threads made them.
    final class Held: @unchecked Sendable {
        let lock = NSLock()
        var now = 0, most = 0, made: [Int] = [], byCaller = 0, byHelper = 0
        let caller = Thread.current
        func make(_ k: Int) {
            lock.withLock {
                now += 1
                made.append(k)
                most = max(most, now)
                if Thread.current == caller { byCaller += 1 } else { byHelper += 1 }
            }
        }
        func consumed() { lock.withLock { now -= 1 } }
    }

    @Test(arguments: [0, 1, 2, 4])
    func inOrderOnceAndBounded(window: Int) throws {
        let held = Held()
        var got: [Int] = []
        try OrderedWorkSharing.run(count: 200, window: window) { (k: Int) throws(Stop) -> Int in
            held.make(k)
            usleep(UInt32((k * 7919) % 5 * 100))  // uneven work on both sides
            return k * k
        } consume: { (item: Int, k: Int) throws(Stop) in
            usleep(UInt32((k * 104_729) % 4 * 150))
            got.append(item)
            held.consumed()
        }
        #expect(got == (0..<200).map { $0 * $0 })
        #expect(held.made.sorted() == Array(0..<200))
        #expect(held.most <= max(window, 1) && held.most >= 1)
        if window == 0 { #expect(held.byHelper == 0) }
    }

    /// Several helpers: the same items in the same order, at most `window` held, and every helper thread making
    /// items at the same time as the others: the first item each helper takes waits until all `helpers` helper
    /// threads hold one (a rendezvous, not a timing assumption; it gives up after 60 s, which only a helper that never
    /// runs can cause).
    @Test(arguments: [2, 3, 7])
    func severalHelpers(helpers: Int) throws {
        let held = Held()
        let meeting = Rendezvous(threads: helpers, caller: Thread.current)
        var got: [Int] = []
        try OrderedWorkSharing.run(count: 300, window: 2 * (helpers + 1), helpers: helpers) {
            (k: Int) throws(Stop) -> Int in
            held.make(k)
            meeting.arrive()
            usleep(UInt32((k * 7919) % 5 * 100))
            return k * k
        } consume: { (item: Int, _: Int) throws(Stop) in
            usleep(300)
            got.append(item)
            held.consumed()
        }
        #expect(got == (0..<300).map { $0 * $0 })
        #expect(held.made.sorted() == Array(0..<300))
        #expect(held.most <= 2 * (helpers + 1))
        #expect(meeting.met, "fewer than \(helpers) helper threads made items at the same time")
    }

    /// Holds each helper thread (not the caller) at its first item until `threads` distinct helper threads have
    /// arrived, or 60 s have passed.
    final class Rendezvous: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = Set<ObjectIdentifier>()
        private let threads: Int
        private let caller: Thread
        private var allArrived = false
        /// Whether all the threads met.
        var met: Bool { condition.withLock { allArrived } }
        init(threads: Int, caller: Thread) { self.threads = threads; self.caller = caller }
        func arrive() {
            guard Thread.current != caller else { return }
            condition.lock()
            defer { condition.unlock() }
            guard !allArrived, arrived.insert(ObjectIdentifier(Thread.current)).inserted else { return }
            if arrived.count >= threads {
                allArrived = true
                condition.broadcast()
                return
            }
            let deadline = Date(timeIntervalSinceNow: 60)
            while !allArrived && condition.wait(until: deadline) {}
        }
    }

    @Test func slowConsumerLeavesTheMakingToTheHelper() throws {
        let held = Held()
        var got: [Int] = []
        try OrderedWorkSharing.run(count: 100, window: 3) { (k: Int) throws(Stop) -> Int in
            held.make(k)
            return k
        } consume: { (item: Int, _: Int) throws(Stop) in
            usleep(2000)
            got.append(item)
            held.consumed()
        }
        #expect(got == Array(0..<100))
        // While the consumer sleeps, only the helper can make items.
        #expect(held.byHelper >= 1)
        #expect(held.byCaller + held.byHelper == 100)
    }

    @Test(arguments: [0, 5, 9])
    func producerErrorAfterTheItemsBeforeIt(failing: Int) {
        var got: [Int] = []
        let held = Held()
        #expect(throws: Stop(item: failing)) {
            try OrderedWorkSharing.run(count: 10, window: 3) { (k: Int) throws(Stop) -> Int in
                held.make(k)
                if k == failing { throw Stop(item: failing) }
                return k
            } consume: { (item: Int, _: Int) throws(Stop) in
                got.append(item)
                held.consumed()
            }
        }
        #expect(got == Array(0..<failing))
        // Nothing after the failing item is started once it has failed; at most the window's items were claimed.
        #expect(held.lock.withLock { held.made.allSatisfy { $0 < failing + 3 } })
    }

    @Test func consumerErrorStopsTheWork() {
        let held = Held()
        #expect(throws: Stop(item: 3)) {
            try OrderedWorkSharing.run(count: 1000, window: 2) { (k: Int) throws(Stop) -> Int in
                held.make(k)
                return k
            } consume: { (item: Int, _: Int) throws(Stop) in
                if item == 3 { throw Stop(item: 3) }
                held.consumed()
            }
        }
        // Items 0…3 consumed, at most the window's items claimed past them before the helper was stopped and joined.
        let made = held.lock.withLock { held.made.count }
        #expect(made >= 4 && made <= 6)
    }
}
