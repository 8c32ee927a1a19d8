import Foundation

/// The progress line of a long command on a terminal: `buffer: reading 412,000 of 1,000,000 points · 205,000/s ·
/// ETA 3 s`. It appears only once the command has run for `delay` seconds, is redrawn in place (carriage return,
/// erase line) a few times a second by a background thread — also while one long engine call runs — and is erased by
/// `finish()`. Commands get one from `CommandIO.progress(_:)`, which gives none when standard error is not a
/// terminal or `--quiet` was given, so nothing reaches a pipe or a log.
public final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let write: (String) -> Void
    private let prefix: String
    private let delay: Double
    private let start: Double
    // Guarded by lock.
    private var phase = ""
    private var unit = ""
    private var count = 0
    private var total: Int?
    private var phaseStart: Double
    private var shown = false
    private var finished = false
    private let done = DispatchSemaphore(value: 0)

    /// Starts the line (hidden until `delay` seconds have passed).
    /// - Parameters:
    ///   - command: The command's name, the line's prefix.
    ///   - delay: Seconds before the line first appears (0 or more; about 1 s for commands).
    ///   - interval: Seconds between redraws (more than 0).
    ///   - write: Writes text to the terminal (standard error).
    public init(command: String, delay: Double = 1.0, interval: Double = 0.2, write: @escaping (String) -> Void) {
        prefix = command
        self.delay = delay
        self.write = write
        start = Self.now()
        phaseStart = start
        let thread = Thread { [weak self] in
            while let line = self {
                if line.done.wait(timeout: .now() + interval) == .success { return }
                line.redraw()
            }
        }
        thread.start()
    }

    deinit { done.signal() }

    private static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// Starts a phase: its name, what it counts and how many there are, if known (for the ETA). With a delay of 0
    /// the line is drawn at once.
    /// - Parameters:
    ///   - name: What is being done, e.g. "reading".
    ///   - unit: What is counted, e.g. "points" ("" for a phase without a count).
    ///   - total: How many there will be (0 or more), or nil when unknown.
    public func begin(_ name: String, unit: String = "", total: Int? = nil) {
        lock.withLock {
            phase = name
            self.unit = unit
            self.total = total
            count = 0
            phaseStart = Self.now()
        }
        if delay == 0 { redraw() }  // every phase drawn at least once, however fast (MERIDIAN_PROGRESS_DELAY=0)
    }

    /// Sets how many of the phase's items are done (cheap: call it every few thousand items).
    /// - Parameter count: Items done so far (0 or more).
    public func update(_ count: Int) {
        lock.withLock { self.count = count }
    }

    /// Stops redrawing and erases the line if it was shown.
    public func finish() {
        lock.withLock {
            guard !finished else { return }
            finished = true
            if shown { write("\r\u{1B}[K") }
        }
        done.signal()
    }

    private func redraw() {
        lock.withLock {
            guard !finished else { return }
            let t = Self.now()
            guard t - start >= delay else { return }
            shown = true
            write("\r\u{1B}[K" + Self.text(prefix: prefix, phase: phase, unit: unit, count: count, total: total,
                                             elapsed: t - phaseStart))
        }
    }

    /// The line's text: `PREFIX: PHASE COUNT[ of TOTAL] UNIT · RATE/s[ · ETA N s]`, or `PREFIX: PHASE · N s` for a
    /// phase without a count.
    /// - Parameters:
    ///   - prefix: The command's name.
    ///   - phase: The phase's name.
    ///   - unit: What is counted ("" for none).
    ///   - count: Items done (0 or more).
    ///   - total: Items in all, if known (0 or more).
    ///   - elapsed: Seconds since the phase began (0 or more).
    public static func text(prefix: String, phase: String, unit: String, count: Int, total: Int?, elapsed: Double)
        -> String
    {
        guard !unit.isEmpty else { return "\(prefix): \(phase) · \(Int(elapsed.rounded())) s" }
        var s = "\(prefix): \(phase) \(grouped(count))"
        if let total { s += " of \(grouped(total))" }
        s += " \(unit)"
        guard elapsed > 0.05, count > 0 else { return s }
        let rate = Double(count) / elapsed
        s += " · \(grouped(Int(rate.rounded())))/s"
        if let total, total >= count { s += " · ETA \(Int((Double(total - count) / rate).rounded(.up))) s" }
        return s
    }

    /// 1234567 → "1,234,567".
    /// - Parameter n: Any integer.
    public static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = n < 0 ? "-" : ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
