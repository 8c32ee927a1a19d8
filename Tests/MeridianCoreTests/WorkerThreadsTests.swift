import Foundation
import Testing

@testable import MeridianCore

/// `WorkerThreads.Pool`: work goes to a waiting thread when there is one, to a new thread otherwise (so work that
/// waits for other work never deadlocks), and no more than `idleLimit` threads stay waiting. Each test has a pool of
/// its own (the shared one serves the other tests running alongside).
@Suite struct WorkerThreadsTests {
    /// Values set on pool threads and read by the test.
    final class Record: @unchecked Sendable {
        let lock = NSLock()
        var threads: Set<UInt> = []
        var arrived = 0
        func note() { lock.withLock { _ = threads.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) } }
        func arrive() { lock.withLock { arrived += 1 } }
        var count: Int { lock.withLock { arrived } }
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test func workOneAfterAnotherRunsOnOneThread() {
        let pool = WorkerThreads.Pool(idleLimit: 2)
        let record = Record()
        for _ in 0..<50 {
            let done = DispatchSemaphore(value: 0)
            pool.start {
                record.note()
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(Self.eventually { pool.idleCount >= 1 })  // back to waiting before the next start
        }
        #expect(record.threads.count == 1, "\(record.threads.count) threads for 50 pieces of work one at a time")
        #expect(pool.threadCount == 1)
    }

    /// Six pieces that each wait until all six have started: only six threads at once can run them.
    @Test func workThatWaitsForOtherWorkGetsThreadsOfItsOwn() {
        let pool = WorkerThreads.Pool(idleLimit: 1)
        // One thread waiting first, so that the next starts find an idle thread for the first piece only.
        let warm = DispatchSemaphore(value: 0)
        pool.start { warm.signal() }
        _ = warm.wait(timeout: .now() + 10)
        #expect(Self.eventually { pool.idleCount == 1 })
        let record = Record()
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<6 {
            pool.start {
                record.arrive()
                if Self.eventually({ record.count == 6 }) { finished.signal() }
            }
        }
        for _ in 0..<6 { #expect(finished.wait(timeout: .now() + 20) == .success) }
    }

    @Test func atMostIdleLimitThreadsStay() {
        let pool = WorkerThreads.Pool(idleLimit: 2)
        let record = Record()
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<6 {
            pool.start {
                record.arrive()
                _ = Self.eventually { record.count == 6 }
                finished.signal()
            }
        }
        for _ in 0..<6 { #expect(finished.wait(timeout: .now() + 20) == .success) }
        #expect(Self.eventually { pool.threadCount == 2 }, "\(pool.threadCount) threads left")
        #expect(pool.idleCount == 2)
    }
}
