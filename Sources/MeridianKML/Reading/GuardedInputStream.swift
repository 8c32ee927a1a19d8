import Foundation

/// An input stream for `XMLParser` that pulls bytes from a reader function (a file, a buffer, a ZIP entry) and
/// refuses documents whose prolog declares entities (see `XMLPrologGuard`) before the parser sees a byte.
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
    private var instructions = EmptyProcessingInstructionScanner()

    /// The largest prolog inspected before the root element must have started.
    static let maximumPrologBytes = 1 << 20
    /// The bytes read for the first inspection of the prolog (most prologs are a few hundred bytes; longer ones are
    /// read in doubling steps). Whatever follows the prolog goes from the reader to the parser without a copy.
    static let firstPullBytes = 4096

    init(reader: @escaping Reader) {
        self.reader = reader
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { failure == nil && (!finished || pendingOffset < pending.count) }
    override var streamStatus: Stream.Status { failure != nil ? .error : .open }
    override var streamError: Error? { failure }

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
                return
            case .refused(let line): throw .entityDeclarationsRefused(line: line)
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
        do throws(KMLError) {
            let n = try deliver(buffer, maxLength: len)
            if n > 0, !instructions.scan(buffer, count: n) {
                throw .malformedXML(message: "processing instruction without data (<?name?>) not supported",
                                    line: instructions.line, column: instructions.column)
            }
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

/// Finds processing instructions without data (`<?name?>`) outside comments and CDATA sections, chunk by chunk.
///
/// libxml2 reports such an instruction with a null data pointer, on which FoundationXML's `XMLParser` crashes
/// (SIGSEGV in `_NSXMLParserProcessingInstruction`, found by fuzzing), so Meridian refuses the document first.
/// NUL bytes are skipped, so that UTF-16 and UCS-4 documents are scanned too (XML allows no NUL character).
struct EmptyProcessingInstructionScanner {
    private enum State {
        case text, open, commentOpen(Int), cdataOpen(Int), comment(Int), cdata(Int), name, nameEnd, body, bodyEnd
    }
    private var state = State.text
    /// 1-based line of the last byte scanned (at a refusal: of the instruction's end).
    private(set) var line = 1
    /// 1-based byte column of the last byte scanned.
    private(set) var column = 0

    private static let cdataOpener = Array("<![CDATA[".utf8)

    /// Scans the next chunk; returns `false` when it completes a processing instruction without data.
    mutating func scan(_ p: UnsafePointer<UInt8>, count: Int) -> Bool {
        for i in 0..<count {
            let b = p[i]
            if b == 0 { continue }
            if b == 0x0A { line += 1; column = 0 } else { column += 1 }
            switch state {
            case .text:
                if b == UInt8(ascii: "<") { state = .open }
            case .open:
                state = b == UInt8(ascii: "?") ? .name : b == UInt8(ascii: "!") ? .commentOpen(2)
                    : b == UInt8(ascii: "<") ? .open : .text
            case .commentOpen(let k):
                if k == 2, b == UInt8(ascii: "[") { state = .cdataOpen(3) }
                else if b == UInt8(ascii: "-") { state = k == 3 ? .comment(0) : .commentOpen(k + 1) }
                else { state = b == UInt8(ascii: "<") ? .open : .text }
            case .cdataOpen(let k):
                if b == Self.cdataOpener[k] { state = k + 1 == Self.cdataOpener.count ? .cdata(0) : .cdataOpen(k + 1) }
                else { state = b == UInt8(ascii: "<") ? .open : .text }
            case .comment(let k):
                state = b == UInt8(ascii: "-") ? .comment(min(k + 1, 2)) : (b == UInt8(ascii: ">") && k == 2) ? .text : .comment(0)
            case .cdata(let k):
                state = b == UInt8(ascii: "]") ? .cdata(min(k + 1, 2)) : (b == UInt8(ascii: ">") && k == 2) ? .text : .cdata(0)
            case .name:
                if b == UInt8(ascii: "?") { state = .nameEnd }
                else if b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A { state = .body }
            case .nameEnd:
                if b == UInt8(ascii: ">") { return false }
                state = b == UInt8(ascii: "?") ? .nameEnd : .name
            case .body:
                // A "<" inside an instruction's data restarts the scan there: libxml2 recovers from a malformed
                // instruction (e.g. a broken XML declaration) without taking its "?>" as this scanner would, and
                // then reports a later "<?name?>" with null data (found by fuzzing after 828,421 executions).
                if b == UInt8(ascii: "?") { state = .bodyEnd } else if b == UInt8(ascii: "<") { state = .open }
            case .bodyEnd:
                state = b == UInt8(ascii: ">") ? .text : b == UInt8(ascii: "?") ? .bodyEnd
                    : b == UInt8(ascii: "<") ? .open : .body
            }
        }
        return true
    }
}
