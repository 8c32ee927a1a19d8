import Foundation
import Testing

@testable import MeridianCore

/// `ForkJoin`: both results, the two sides running at the same time, the background joined before `run` returns
/// or throws, and which error wins.
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
}
