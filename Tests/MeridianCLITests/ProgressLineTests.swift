import Foundation
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// The progress line's text and its drawing: nothing before the delay, frames redrawn in place, erased at the end.
@Suite struct ProgressLineTests {
    @Test func text() {
        #expect(ProgressLine.text(prefix: "buffer", phase: "parsing", unit: "bytes", count: 250_000, total: 1_000_000,
                                  elapsed: 2) == "buffer: parsing 250,000 of 1,000,000 bytes · 125,000/s · ETA 6 s")
        #expect(ProgressLine.text(prefix: "buffer", phase: "writing", unit: "bytes", count: 1_234_567, total: nil,
                                  elapsed: 1) == "buffer: writing 1,234,567 bytes · 1,234,567/s")
        #expect(ProgressLine.text(prefix: "buffer", phase: "union of 5 buffers", unit: "", count: 0, total: nil,
                                  elapsed: 2.6) == "buffer: union of 5 buffers · 3 s")
        #expect(ProgressLine.text(prefix: "p", phase: "x", unit: "rows", count: 0, total: 10, elapsed: 3)
                    == "p: x 0 of 10 rows")
        #expect(ProgressLine.grouped(0) == "0" && ProgressLine.grouped(999) == "999"
                    && ProgressLine.grouped(-1_000) == "-1,000" && ProgressLine.grouped(12_345_678) == "12,345,678")
    }

    @Test func drawsAfterTheDelayAndErasesAtTheEnd() async throws {
        final class Screen: @unchecked Sendable {
            let lock = NSLock()
            var text = ""
            func add(_ s: String) { lock.withLock { text += s } }
        }
        let quick = Screen()
        // An hour's delay: never reached, even on a loaded machine where the sleep below may last seconds.
        let shortLine = ProgressLine(command: "c", delay: 3600, interval: 0.01) { quick.add($0) }
        shortLine.begin("working", unit: "items", total: 10)
        try await Task.sleep(nanoseconds: 100_000_000)
        shortLine.finish()
        #expect(quick.text == "")  // finished before the delay: never drawn, nothing to erase

        let slow = Screen()
        let line = ProgressLine(command: "c", delay: 0, interval: 0.01) { slow.add($0) }
        line.begin("working", unit: "items", total: 10)
        line.update(4)
        try await Task.sleep(nanoseconds: 200_000_000)
        line.finish()
        line.finish()
        let frames = slow.text.components(separatedBy: "\r\u{1B}[K")
        #expect(frames.count > 2 && frames.first == "" && frames.last == "")
        // With no delay, begin draws the phase at once (however fast it ends); redraws show the count.
        let drawn = frames.dropFirst().dropLast()
        #expect(drawn.first == "c: working 0 of 10 items")
        #expect(drawn.dropFirst().allSatisfy { $0.hasPrefix("c: working 4 of 10 items") })
    }
}
