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
