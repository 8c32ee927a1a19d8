import Foundation

/// Growable bytes for the writer's output: appends are a bounds check and a copy (no uniqueness check or
/// retain, as `[UInt8]` has), growth is `realloc` (which remaps large blocks instead of copying them), and the
/// finished bytes become `Data` without a copy.
///
/// Noncopyable: exactly one owner frees the memory (on deinit, or `Data`'s deallocator after `data(from:)`).
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written (including any reserved at the start).
    private(set) var count: Int

    /// An empty buffer, or one whose first `reserved` bytes are set aside (see `data(from:)`).
    init(capacity: Int = 4096, reserved: Int = 0) {
        self.capacity = max(capacity, reserved, 16)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
        count = reserved
    }

    deinit { free(base) }

    /// Makes room for `n` more bytes and returns where they go; `advance(by:)` then counts those written.
    @inline(__always) mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < n { grow(to: count + n) }
        return base + count
    }

    /// Counts `n` bytes written at `reserve`'s pointer.
    @inline(__always) mutating func advance(by n: Int) {
        count += n
    }

    private mutating func grow(to minimum: Int) {
        var c = capacity
        while c < minimum { c *= 2 }
        base = realloc(base, c)!.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends a string's UTF-8.
    mutating func append(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil { for u in s.utf8 { append(u) } }
    }

    mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `n` copies of a byte.
    mutating func append(repeating byte: UInt8, count n: Int) {
        guard n > 0 else { return }
        reserve(n).initialize(repeating: byte, count: n)
        count += n
    }

    /// Overwrites bytes already counted (the reserved start), at `offset`.
    mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) {
        precondition(offset >= 0 && offset + bytes.count <= count)
        guard let source = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(base + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    /// The bytes written so far, from `start`.
    func withBytes<R>(from start: Int = 0, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base + start, count: count - start))
    }

    /// The bytes from `start` as `Data` that takes over the memory (no copy).
    consuming func data(from start: Int = 0) -> Data {
        let memory = base, length = count - start
        discard self  // the memory now belongs to the Data: no deinit
        return Data(bytesNoCopy: memory + start, count: length, deallocator: .custom { _, _ in free(memory) })
    }
}
