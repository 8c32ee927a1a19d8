import Foundation
import Testing

@testable import MeridianViewer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `ConnectionTracker` with explicit clock readings: which connections it shuts down, and a `since` stored by another
/// thread after this thread read the clock (which crashed the viewer with an arithmetic overflow in
/// `keepSlotsFree`, seen once in CI under `test_slow_header_clients_cannot_shut_others_out`).
@Suite struct ConnectionTrackerTests {
    static let ms: UInt64 = 1_000_000

    /// Two connected sockets that `shutdown(2)` accepts; closed by the caller.
    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    static func handle(_ k: Int) -> OpaquePointer { OpaquePointer(bitPattern: 0x1000 * k)! }

    /// The oldest receiving connection (≥ 250 ms) is shut down when a new one reaches the eviction threshold.
    @Test func evictsTheOldestReceivingConnectionForANewOne() throws {
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let tracker = ConnectionTracker(evictionThreshold: 2, deadlineNanoseconds: 10_000 * Self.ms)
        tracker.started(Self.handle(1), fd: a, now: 0)
        tracker.started(Self.handle(2), fd: b, now: 300 * Self.ms)
        #expect(tracker.isShutDown(Self.handle(1)))
        #expect(!tracker.isShutDown(Self.handle(2)))
    }

    /// A connection past the deadline is shut down; one within it is not.
    @Test func shutsDownConnectionsPastTheDeadline() throws {
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let tracker = ConnectionTracker(evictionThreshold: 100, deadlineNanoseconds: 1_000 * Self.ms)
        tracker.started(Self.handle(1), fd: a, now: 0)
        tracker.started(Self.handle(2), fd: b, now: 600 * Self.ms)
        tracker.shutDownExpired(now: 1_200 * Self.ms)
        #expect(tracker.isShutDown(Self.handle(1)))
        #expect(!tracker.isShutDown(Self.handle(2)))
    }

    /// A `since` later than the clock reading being used (another thread's `answered` stored between this
    /// thread's reading and its taking the lock) counts as age 0: no overflow, nothing shut down.
    @Test func aSinceAfterTheClockReadingIsAgeZero() throws {
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let tracker = ConnectionTracker(evictionThreshold: 2, deadlineNanoseconds: 1_000 * Self.ms)
        tracker.started(Self.handle(1), fd: a, now: 0)
        tracker.answered(Self.handle(1), now: 2_000 * Self.ms)
        tracker.started(Self.handle(2), fd: b, now: 1_900 * Self.ms)
        tracker.shutDownExpired(now: 1_950 * Self.ms)
        #expect(!tracker.isShutDown(Self.handle(1)))
        #expect(!tracker.isShutDown(Self.handle(2)))
    }
}
