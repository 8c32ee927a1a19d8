import Foundation
import Testing

@testable import MeridianCore

/// `LookaheadPipeline` on its own: items in order whatever the timing, at most `ahead + 1` items made and not yet
/// consumed, and an error from either side delivered in order and stopping the producer.
@Suite struct LookaheadPipelineTests {
    struct Stop: Error, Equatable { let item: Int }

    /// Counts items made but not yet consumed, the most at once, and all made.
    final class Held: @unchecked Sendable {
        let lock = NSLock()
        var now = 0, most = 0, made = 0
        func make() { lock.withLock { now += 1; made += 1; most = max(most, now) } }
        func consumed() { lock.withLock { now -= 1 } }
    }

    @Test(arguments: [0, 1, 2])
    func inOrderAndBounded(ahead: Int) throws {
        let held = Held()
        var got: [Int] = []
        try LookaheadPipeline.run(count: 200, ahead: ahead) { (k: Int) throws(Stop) -> Int in
            usleep(UInt32((k * 7919) % 5 * 100))  // uneven work on both sides: each waits for the other by turns
            held.make()
            return k * k
        } consume: { (item: Int, k: Int) throws(Stop) in
            usleep(UInt32((k * 104_729) % 4 * 150))
            got.append(item)
            held.consumed()
        }
        #expect(got == (0..<200).map { $0 * $0 })
        #expect(held.most <= ahead + 1 && held.most >= 1)
    }

    @Test func producerErrorAfterTheItemsBeforeIt() {
        var got: [Int] = []
        #expect(throws: Stop(item: 5)) {
            try LookaheadPipeline.run(count: 10, ahead: 1) { (k: Int) throws(Stop) -> Int in
                if k == 5 { throw Stop(item: 5) }
                return k
            } consume: { (item: Int, _: Int) throws(Stop) in
                got.append(item)
            }
        }
        #expect(got == [0, 1, 2, 3, 4])
    }

    @Test func consumerErrorStopsTheProducer() {
        let held = Held()
        #expect(throws: Stop(item: 3)) {
            try LookaheadPipeline.run(count: 1000, ahead: 1) { (k: Int) throws(Stop) -> Int in
                held.make()
                return k
            } consume: { (item: Int, _: Int) throws(Stop) in
                if item == 3 { throw Stop(item: 3) }
            }
        }
        // Items 0…3 consumed, at most one more made ahead of item 3 before the producer was stopped and joined.
        let made = held.lock.withLock { held.made }
        #expect(made >= 4 && made <= 5)
    }
}

/// `LookaheadPipeline` with several workers: items still consumed in order whatever the timing, at most `ahead`
/// items in the making and `ahead + 1` held, and the first error in item order delivered.
@Suite struct LookaheadPipelineWorkersTests {
    struct Stop: Error, Equatable { let item: Int }

    /// Counts items in the making and made but not yet consumed, the most of each at once.
    final class Counts: @unchecked Sendable {
        let lock = NSLock()
        var making = 0, mostMaking = 0, held = 0, mostHeld = 0, made = 0
        func start() { lock.withLock { making += 1; mostMaking = max(mostMaking, making) } }
        func finish() { lock.withLock { making -= 1; held += 1; made += 1; mostHeld = max(mostHeld, held) } }
        func consumed() { lock.withLock { held -= 1 } }
    }

    @Test(arguments: [(2, 2), (2, 4), (3, 3), (4, 2)])
    func inOrderAndBounded(workers: Int, ahead: Int) throws {
        let counts = Counts()
        var got: [Int] = []
        try LookaheadPipeline.run(count: 300, ahead: ahead, workers: workers) { (k: Int) throws(Stop) -> Int in
            counts.start()
            usleep(UInt32((k * 7919) % 7 * 60))  // uneven: later items often finish before earlier ones
            counts.finish()
            return k * k
        } consume: { (item: Int, k: Int) throws(Stop) in
            usleep(UInt32((k * 104_729) % 3 * 40))
            got.append(item)
            counts.consumed()
        }
        #expect(got == (0..<300).map { $0 * $0 })
        #expect(counts.mostMaking <= min(workers, ahead))
        #expect(counts.mostMaking >= 2, "the workers never made two items at once")
        #expect(counts.mostHeld <= ahead + 1)
    }

    @Test func theFirstFailureInItemOrder() {
        var got: [Int] = []
        #expect(throws: Stop(item: 5)) {
            try LookaheadPipeline.run(count: 20, ahead: 4, workers: 2) { (k: Int) throws(Stop) -> Int in
                if k == 5 { usleep(20_000); throw Stop(item: 5) }  // fails after item 6 has failed
                if k == 6 { throw Stop(item: 6) }
                return k
            } consume: { (item: Int, _: Int) throws(Stop) in
                got.append(item)
            }
        }
        #expect(got == [0, 1, 2, 3, 4])
    }

    @Test func consumerErrorStopsTheWorkers() {
        let counts = Counts()
        #expect(throws: Stop(item: 3)) {
            try LookaheadPipeline.run(count: 1000, ahead: 3, workers: 2) { (k: Int) throws(Stop) -> Int in
                counts.start()
                counts.finish()
                return k
            } consume: { (item: Int, _: Int) throws(Stop) in
                if item == 3 { throw Stop(item: 3) }
            }
        }
        // Items 0…3 taken, at most `ahead` more made before the workers were stopped and joined.
        let made = counts.lock.withLock { counts.made }
        #expect(made >= 4 && made <= 7)
    }
}
