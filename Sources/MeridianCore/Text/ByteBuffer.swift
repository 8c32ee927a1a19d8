import Foundation

/// Growable bytes for every text writer's output (WKT, GeoJSON, CSV, SVG, KML): appends are a bounds check and a
/// copy (no uniqueness check or retain, as `[UInt8]` has), growth is `realloc` (which remaps large blocks instead of
/// copying them), and the finished bytes become `Data` without a copy.
///
/// A buffer made with `init(chunkSize:drain:)` streams: writers call `flushIfFull()` between records (features,
/// geometries, rows), which hands the bytes written so far to the drain (a file, standard output) and starts again,
/// so memory stays at about one chunk whatever the output's size. The first error a drain throws is kept, later
/// output is discarded, and `flush()` throws it.
///
/// Noncopyable: exactly one owner frees the memory (on deinit, or `Data`'s deallocator after `data(from:)`).
public struct ByteBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var used: Int
    /// Bytes written and not yet drained.
    public var count: Int { used }
    /// Bytes handed to the drain so far.
    public private(set) var drainedCount = 0
    private let chunkSize: Int
    private let drain: ((UnsafeRawBufferPointer) throws -> Void)?
    private var drainError: (any Error)?

    /// An empty buffer.
    /// - Parameter capacity: Bytes to allocate at first (at least 16); the buffer grows as needed.
    public init(capacity: Int = 4096) {
        self.capacity = max(capacity, 16)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
        used = 0
        chunkSize = .max
        drain = nil
    }

    /// A streaming buffer: `flushIfFull()` hands the bytes to `drain` once `chunkSize` bytes are waiting.
    /// - Parameters:
    ///   - chunkSize: Bytes to collect before draining (at least 1; 1 MiB is a good size for files and pipes).
    ///   - drain: Consumes a chunk (e.g. writes it to a file); what it throws is reported by `flush()`.
    public init(chunkSize: Int, drain: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.chunkSize = max(1, chunkSize)
        capacity = max(16, self.chunkSize + self.chunkSize / 4)
        base = malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
        used = 0
        self.drain = drain
    }

    deinit { free(base) }

    /// Makes room for `n` more bytes and returns where they go; `advance(by:)` then counts those written.
    /// - Parameter n: The most bytes that will be written (0 or more).
    @inlinable @inline(__always)
    public mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - used < n { grow(to: used + n) }
        return base + used
    }

    /// Counts `n` bytes written at `reserve`'s pointer.
    /// - Parameter n: Bytes written, at most the number reserved.
    @inlinable @inline(__always)
    public mutating func advance(by n: Int) {
        used += n
    }

    @usableFromInline mutating func grow(to minimum: Int) {
        var c = capacity
        while c < minimum { c *= 2 }
        base = realloc(base, c)!.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    /// Appends one byte.
    /// - Parameter byte: Any byte.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if used == capacity { grow(to: used + 1) }
        base[used] = byte
        used += 1
    }

    /// Appends bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
    }

    /// Appends a string's UTF-8.
    public mutating func append(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil { for u in s.utf8 { append(u) } }
    }

    /// Appends a static string's UTF-8.
    public mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `n` copies of a byte.
    /// - Parameters:
    ///   - byte: The byte.
    ///   - n: How many (0 or more).
    public mutating func append(repeating byte: UInt8, count n: Int) {
        guard n > 0 else { return }
        reserve(n).initialize(repeating: byte, count: n)
        used += n
    }

    /// Appends the shortest decimal that reads back as exactly `value`, laid out as Swift's `description` without a
    /// trailing `.0` (`1`, `-0.5`, `1e-07`, `1.7976931348623157e+308`); `nan`, `inf`, `-inf` for the others.
    /// - Parameter value: Any double.
    public mutating func appendNumber(_ value: Double) {
        guard value.isFinite else {
            append(value.description)
            return
        }
        advance(by: ShortestDecimal.writeRoundTrip(value, to: reserve(ShortestDecimal.maximumLength)))
    }

    /// Appends an integer in decimal (a `-` before negative ones).
    /// - Parameter value: Any integer.
    public mutating func appendInteger(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude))
    }

    /// Appends the decimal digits of `value` (no sign).
    private mutating func appendDigits(_ value: UInt64) {
        var v = value
        let digits = v == 0 ? 1 : ShortestDecimal.digitCount(v)
        var end = reserve(digits) + digits
        repeat {
            end -= 1
            end.pointee = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
        } while v > 0
        advance(by: digits)
    }

    /// Appends `value` rounded to `decimals` decimals, as C's `printf("%.*f")` writes it (correctly rounded).
    /// - Parameters:
    ///   - value: A finite number of magnitude below 1e21 (others are written as `appendNumber` would).
    ///   - decimals: Digits after the point, 0…17.
    public mutating func appendFixed(_ value: Double, decimals: Int) {
        guard value.isFinite, value.magnitude < 1e21, (0...17).contains(decimals) else {
            appendNumber(value)
            return
        }
        guard let n = Self.scaledAndRounded(value.magnitude, decimals: decimals) else {
            let p = reserve(48)
            advance(by: withVaList([value]) { Self.format(decimals, into: p, $0) })
            return
        }
        // printf writes the sign of every negative number, even one that rounds to zero (and of -0.0).
        if value.sign == .minus { append(UInt8(ascii: "-")) }
        let scale = Self.powersOfTen[decimals]
        appendDigits(n / scale)
        guard decimals > 0 else { return }
        var fraction = n % scale
        let p = reserve(decimals + 1)
        p[0] = UInt8(ascii: ".")
        for k in stride(from: decimals, to: 0, by: -1) {
            p[k] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        advance(by: decimals + 1)
    }

    /// 10⁰ … 10¹⁹.
    private static let powersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { p, _ in p * 10 } }

    /// `value` × 10^`decimals` rounded to an integer as printf rounds it (the exact product, ties to even), for a
    /// non-negative `value` whose product is below 10¹⁹; nil for a larger one.
    static func scaledAndRounded(_ value: Double, decimals: Int) -> UInt64? {
        let scale = powersOfTen[decimals]
        guard value * Double(scale) < 1e19 else { return nil }
        // Below 1e-18 the product is below 0.1: zero.
        guard value >= 1e-18 else { return 0 }
        let m = value.significandBitPattern | (1 << 52), shift = Int(value.exponent) - 52
        if shift >= 0 { return (m << UInt64(shift)) * scale }  // an integer: exact, below 10¹⁹
        // m × scale as 128 bits, then shifted right by s with the remainder compared to half of 2^s.
        let (high, low) = m.multipliedFullWidth(by: scale)
        let s = -shift  // 1 … 112, as value ≥ 1e-18
        let quotient: UInt64, remainderHigh: UInt64, remainderLow: UInt64, halfHigh: UInt64, halfLow: UInt64
        if s < 64 {
            quotient = (low >> UInt64(s)) | (high << UInt64(64 - s))
            (remainderHigh, remainderLow) = (0, low & ((1 << UInt64(s)) - 1))
            (halfHigh, halfLow) = (0, 1 << UInt64(s - 1))
        } else {
            let t = s - 64
            quotient = high >> UInt64(t)
            (remainderHigh, remainderLow) = (t == 0 ? 0 : high & ((1 << UInt64(t)) - 1), low)
            (halfHigh, halfLow) = t == 0 ? (0, 1 << 63) : (1 << UInt64(t - 1), 0)
        }
        let above = remainderHigh > halfHigh || (remainderHigh == halfHigh && remainderLow > halfLow)
        let tie = remainderHigh == halfHigh && remainderLow == halfLow
        return above || (tie && quotient & 1 == 1) ? quotient + 1 : quotient
    }

    private static func format(_ decimals: Int, into p: UnsafeMutablePointer<UInt8>, _ args: CVaListPointer) -> Int {
        let formats: [StaticString] = ["%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f",
                                       "%.10f", "%.11f", "%.12f", "%.13f", "%.14f", "%.15f", "%.16f", "%.17f"]
        return formats[decimals].withUTF8Buffer { f in
            f.withMemoryRebound(to: CChar.self) { f in
                Int(vsnprintf(UnsafeMutableRawPointer(p).assumingMemoryBound(to: CChar.self), 48, f.baseAddress!, args))
            }
        }
    }

    /// Forgets the bytes written (and not drained), keeping the memory: a scratch buffer reused between records.
    public mutating func removeAll() {
        used = 0
    }

    /// The bytes written (and not drained) so far, from `start`.
    /// - Parameters:
    ///   - start: The first byte's offset (0 or more).
    ///   - body: Reads the bytes; they are valid only during the call.
    public func withBytes<R>(from start: Int = 0, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base + start, count: count - start))
    }

    /// The bytes as text (invalid UTF-8 repaired).
    public var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Hands the waiting bytes to the drain once at least a chunk is waiting (a streaming buffer only; a no-op
    /// otherwise). Call it between records.
    @inlinable @inline(__always)
    public mutating func flushIfFull() {
        if used >= chunkSizeValue { drainNow() }
    }

    @usableFromInline var chunkSizeValue: Int { chunkSize }

    @usableFromInline mutating func drainNow() {
        guard let drain, count > 0 else { return }
        if drainError == nil {
            do { try withBytes { try drain($0) } } catch { drainError = error }
        }
        drainedCount += count
        used = 0
    }

    /// Hands every waiting byte to the drain (a streaming buffer) and reports the first error the drain threw.
    /// - Throws: What the drain threw.
    public mutating func flush() throws {
        drainNow()
        if let drainError { throw drainError }
    }

    /// The bytes from `start` as `Data` that takes over the memory (no copy).
    /// - Parameter start: The first byte's offset (0 or more).
    public consuming func data(from start: Int = 0) -> Data {
        let memory = base, length = count - start
        // The memory now belongs to the Data; deinit frees a small placeholder instead.
        base = malloc(16)!.assumingMemoryBound(to: UInt8.self)
        capacity = 16
        used = 0
        return Data(bytesNoCopy: memory + start, count: length, deallocator: .custom { _, _ in free(memory) })
    }
}
