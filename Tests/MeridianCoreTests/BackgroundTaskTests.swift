import Foundation
import Testing

@testable import MeridianCore

/// `BackgroundTask`: the work runs on another thread while the caller goes on, `wait()` returns once it has ended
/// and rethrows its error every time, and `hasFailed` tells a failure without waiting.
@Suite struct BackgroundTaskTests {
    struct Failure: Error, Equatable { let code: Int }

    /// A flag set on one thread and read on another.
    final class Flag: @unchecked Sendable {
        let lock = NSLock()
        var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    @Test func runsAlongsideTheCaller() throws {
        let go = DispatchSemaphore(value: 0)
        let released = Flag(), ended = Flag()
        let task = BackgroundTask { () throws(Failure) in
            // Only the caller, running on after `init`, can release this (10 s guards against a hang).
            if go.wait(timeout: .now() + 10) == .success { released.set() }
            ended.set()
        }
        #expect(!ended.isSet)
        go.signal()
        try task.wait()
        #expect(released.isSet, "the work did not run while the caller went on")
        #expect(ended.isSet)
        #expect(!task.hasFailed)
    }

    @Test func theErrorOnEveryWait() {
        let task = BackgroundTask { () throws(Failure) in
            usleep(20_000)
            throw Failure(code: 7)
        }
        #expect(throws: Failure(code: 7)) { try task.wait() }
        #expect(task.hasFailed)
        #expect(throws: Failure(code: 7)) { try task.wait() }
    }
}
