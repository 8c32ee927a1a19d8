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
        let tracker = ConnectionTracker(evictionThreshold: 2, limit: 4, deadlineNanoseconds: 10_000 * Self.ms)
        tracker.started(Self.handle(1), fd: a, now: 0)
        tracker.started(Self.handle(2), fd: b, now: 300 * Self.ms)
        #expect(tracker.isShutDown(Self.handle(1)))
        #expect(!tracker.isShutDown(Self.handle(2)))
    }

    /// A connection past the deadline is shut down; one within it is not.
    @Test func shutsDownConnectionsPastTheDeadline() throws {
        let (a, b) = try Self.socketPair()
        defer { close(a); close(b) }
        let tracker = ConnectionTracker(evictionThreshold: 100, limit: 100, deadlineNanoseconds: 1_000 * Self.ms)
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
        let tracker = ConnectionTracker(evictionThreshold: 2, limit: 4, deadlineNanoseconds: 1_000 * Self.ms)
        tracker.started(Self.handle(1), fd: a, now: 0)
        tracker.answered(Self.handle(1), now: 2_000 * Self.ms)
        tracker.started(Self.handle(2), fd: b, now: 1_900 * Self.ms)
        tracker.shutDownExpired(now: 1_950 * Self.ms)
        #expect(!tracker.isShutDown(Self.handle(1)))
        #expect(!tracker.isShutDown(Self.handle(2)))
    }

    /// A burst of new connections beyond the limit: the oldest receiving ones are shut down however young, so
    /// that a connection arriving right after the burst finds a slot (it used to be reset); below the limit,
    /// young connections are left alone.
    @Test func beyondTheLimitTheOldestIsShutDownWhateverItsAge() throws {
        let pairs = try (0..<5).map { _ in try Self.socketPair() }
        defer { for (a, b) in pairs { close(a); close(b) } }
        let tracker = ConnectionTracker(evictionThreshold: 2, limit: 3, deadlineNanoseconds: 10_000 * Self.ms)
        for k in 0..<3 { tracker.started(Self.handle(k + 1), fd: pairs[k].0, now: UInt64(k) * Self.ms) }
        #expect((1...3).allSatisfy { !tracker.isShutDown(Self.handle($0)) })  // at the limit, all young: kept
        tracker.started(Self.handle(4), fd: pairs[3].0, now: 4 * Self.ms)
        #expect(tracker.isShutDown(Self.handle(1)))
        #expect((2...4).allSatisfy { !tracker.isShutDown(Self.handle($0)) })
        // A connection being answered is never shut down for a newcomer.
        tracker.answering(Self.handle(2))
        tracker.started(Self.handle(5), fd: pairs[4].0, now: 5 * Self.ms)
        #expect(!tracker.isShutDown(Self.handle(2)) && tracker.isShutDown(Self.handle(3)))
        #expect(!tracker.isShutDown(Self.handle(4)) && !tracker.isShutDown(Self.handle(5)))
    }
}
