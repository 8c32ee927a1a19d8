import Foundation
import MeridianEngine

/// An input stream for `XMLParser` that pulls bytes from a reader function (a file, a buffer, a ZIP entry) and
/// refuses, before the parser sees a byte of them, documents whose prolog declares entities or attribute defaults
/// or names an encoding Meridian does not read (see `XMLPrologGuard`), and chunks `MarkupScanner` refuses.
///
/// Each chunk also checks the caller's `WorkBudget` (if any): a server reading a document under a deadline stops
/// within one chunk's parsing of it, however long the whole parse would take.
final class GuardedInputStream: InputStream {
    /// Reads up to `count` bytes into the buffer; returns the count read, 0 at the end, or throws.
    typealias Reader = (UnsafeMutablePointer<UInt8>, Int) throws(KMLError) -> Int

    private let reader: Reader
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    private var inspected = false
    private var finished = false
    /// The error that stopped the stream, if any (reported instead of the parser's generic error).
    private(set) var failure: KMLError?
    /// How many bytes were handed to the parser.
    private(set) var bytesDelivered: UInt64 = 0
    private var validator: UTF8Validator?
    private var markup = MarkupScanner(layout: .bytes, startsWithDeclaration: false)

    /// The largest prolog inspected before the root element must have started.
    static let maximumPrologBytes = 1 << 20
    /// The bytes read for the first inspection of the prolog (most prologs are a few hundred bytes; longer ones are
    /// read in doubling steps). Whatever follows the prolog goes from the reader to the parser without a copy.
    static let firstPullBytes = 4096
    /// The most bytes handed to the parser at a time. After the parser's first error the stream stops
    /// (`stop()`), so at most this many bytes are parsed in libxml2's recovery mode, where the parser's view of
    /// the markup could part from `MarkupScanner`'s.
    static let maximumChunkBytes = 64 << 10

    init(reader: @escaping Reader) {
        self.reader = reader
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { failure == nil && !stopped && (!finished || pendingOffset < pending.count) }
    override var streamStatus: Stream.Status { failure != nil ? .error : .open }
    override var streamError: Error? { failure }
    /// Whether the reader stopped delivering bytes (`stop()`).
    private var stopped = false

    /// Delivers no more bytes: the parser sees the end of the input at its next read. Called when parsing is
    /// abandoned (an error, or the handler has read enough), so that nothing more is read, inflated or parsed.
    func stop() { stopped = true }

    /// Reads up to `count` more bytes into `pending`, without zero-filling a buffer first.
    private func pull(_ count: Int) throws(KMLError) -> Int {
        var error: KMLError?
        let chunk = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(KMLError) {
                initialized = min(count, try reader(buffer.baseAddress!, count))
            } catch let e {
                error = e
                initialized = 0
            }
        }
        if let error { throw error }
        if pending.isEmpty { pending = chunk } else { pending.append(contentsOf: chunk) }
        if chunk.isEmpty { finished = true }
        return chunk.count
    }

    private func inspectProlog() throws(KMLError) {
        inspected = true
        while true {
            switch XMLPrologGuard.inspect(pending, isComplete: finished) {
            case .safe:
                if XMLPrologGuard.isUTF8(pending) { validator = UTF8Validator() }
                let (layout, declaration) = try XMLPrologGuard.layout(of: pending)
                markup = MarkupScanner(layout: layout, startsWithDeclaration: declaration)
                return
            case .refused(let line): throw .entityDeclarationsRefused(line: line)
            case .refusedAttributeDefaults(let line): throw .attributeListDeclarationsRefused(line: line)
            case .needMore:
                guard pending.count < Self.maximumPrologBytes else {
                    throw .malformedXML(message: "the XML prolog (before the root element) exceeds 1 MiB", line: 1, column: 1)
                }
                // Doubling what is held, so that re-inspecting from the start stays linear in the prolog's length.
                _ = try pull(max(Self.firstPullBytes, pending.count))
            }
        }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard failure == nil else { return -1 }
        if stopped { return 0 }
        do throws(KMLError) {
            do { try WorkBudget.check() } catch { throw .interrupted(error.description) }
            let n = try deliver(buffer, maxLength: min(len, Self.maximumChunkBytes))
            try markup.scan(buffer, count: n)
            if validator != nil {
                if !validator!.validate(buffer, count: n) || (n == 0 && validator!.isIncomplete) {
                    throw .malformedXML(message: "invalid UTF-8 byte sequence", line: validator!.line,
                                        column: validator!.column)
                }
            }
            return n
        } catch {
            failure = error
            return -1
        }
    }

    private func deliver(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) throws(KMLError) -> Int {
        do {
            if !inspected {
                _ = try pull(Self.firstPullBytes)
                try inspectProlog()
            }
            if pendingOffset < pending.count {
                let n = min(len, pending.count - pendingOffset)
                pending.withUnsafeBufferPointer { p in buffer.update(from: p.baseAddress! + pendingOffset, count: n) }
                pendingOffset += n
                if pendingOffset == pending.count { pending = []; pendingOffset = 0 }
                bytesDelivered += UInt64(n)
                return n
            }
            if finished { return 0 }
            let n = try reader(buffer, len)
            if n == 0 { finished = true }
            bytesDelivered += UInt64(n)
            return n
        }
    }
}
