import Foundation
import Testing

@testable import MeridianCore

/// `ForkJoin`: both results, the two sides running at the same time, the background joined before `run` returns
/// or throws, and which error wins; `forEach` and `map` over N threads: every piece once, results in order, the
/// threads at work together, the first piece's error in order.
@Suite struct ForkJoinTests {
    struct Stop: Error, Equatable { let side: String }

    /// A flag set by the background side (guarded by a lock).
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    @Test func returnsBothResults() throws {
        let (a, b) = try ForkJoin.run { () throws(Stop) -> [Int] in
            (0..<1000).map { $0 * 2 }
        } background: { () throws(Stop) -> Int in
            (0..<1000).reduce(0, +)
        }
        #expect(a == (0..<1000).map { $0 * 2 })
        #expect(b == 499_500)
    }

    /// The foreground waits for a signal only the background gives: run one after the other, it would time out.
    @Test func bothSidesRunAtTheSameTime() throws {
        let signal = DispatchSemaphore(value: 0)
        let (signalled, _) = try ForkJoin.run { () throws(Stop) -> Bool in
            signal.wait(timeout: .now() + 10) == .success
        } background: { () throws(Stop) in
            signal.signal()
        }
        #expect(signalled)
    }

    /// A foreground error is thrown only after the background has finished (nothing it uses outlives `run`).
    @Test func foregroundErrorWaitsForTheBackground() {
        let finished = Flag()
        #expect(throws: Stop(side: "foreground")) {
            _ = try ForkJoin.run { () throws(Stop) -> Int in
                throw Stop(side: "foreground")
            } background: { () throws(Stop) -> Int in
                usleep(200_000)
                finished.set()
                return 1
            }
        }
        #expect(finished.isSet)
    }

    @Test func backgroundErrorIsThrown() {
        #expect(throws: Stop(side: "background")) {
            _ = try ForkJoin.run { () throws(Stop) -> Int in 1 } background: { () throws(Stop) -> Int in
                throw Stop(side: "background")
            }
        }
    }

    @Test func foregroundErrorWinsWhenBothThrow() {
        #expect(throws: Stop(side: "foreground")) {
            _ = try ForkJoin.run { () throws(Stop) -> Int in
                throw Stop(side: "foreground")
            } background: { () throws(Stop) -> Int in
                throw Stop(side: "background")
            }
        }
    }

    /// Every piece once, results in piece order, for thread counts from 1 to more than the pieces.
    @Test(arguments: [1, 2, 3, 8, 50])
    func mapKeepsTheOrder(threads: Int) {
        let results = ForkJoin.map(count: 20, threads: threads) { (k: Int) -> Int in
            usleep(UInt32((k * 7919) % 7 * 300))
            return k * k
        }
        #expect(results == (0..<20).map { $0 * $0 })
        #expect(ForkJoin.map(count: 0, threads: threads) { (k: Int) -> Int in k }.isEmpty)
    }

    /// Three threads run three pieces at the same time: each waits until all three have started (one after the
    /// other, the first would time out).
    @Test func forEachRunsThePiecesTogether() {
        let started = DispatchGroup()
        for _ in 0..<3 { started.enter() }
        let together = Counter()
        ForkJoin.forEach(count: 3, threads: 3) { (_: Int) in
            started.leave()
            if started.wait(timeout: .now() + 10) == .success { together.add() }
        }
        #expect(together.value == 3)
    }

    /// The error of the first failing piece in order, whichever thread finds its own first; pieces after it are not
    /// started once it has failed. The pieces after 40 take 5 ms each, so that the other threads cannot run all of
    /// them while the thread that claimed piece 40 waits for a core (on a loaded machine, trivial pieces once did:
    /// all 200 ran before piece 40's failure was recorded); reaching 200 now needs that thread held off ~0.25 s.
    @Test(arguments: [1, 2, 4])
    func forEachThrowsTheFirstPiecesError(threads: Int) {
        let ran = Counter()
        #expect(throws: Stop(side: "piece 5")) {
            try ForkJoin.forEach(count: 200, threads: threads) { (k: Int) throws(Stop) in
                ran.add()
                if k == 40 { throw Stop(side: "piece 40") }
                if k > 40 { usleep(5_000) }
                if k == 5 {
                    usleep(100_000)
                    throw Stop(side: "piece 5")
                }
            }
        }
        #expect(ran.value < 200)
    }

    /// A count guarded by a lock.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.withLock { n += 1 } }
        var value: Int { lock.withLock { n } }
    }
}
