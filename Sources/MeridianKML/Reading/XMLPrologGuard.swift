import Foundation

/// Inspects the start of an XML document for a DOCTYPE declaring entities, before any parser sees it.
///
/// Entity declarations have no use in KML and are the vehicle of "billion laughs" expansion and external-entity
/// (XXE) attacks, so a document declaring any is refused outright rather than parsed with limits.
enum XMLPrologGuard {
    /// What the inspected bytes tell.
    enum Verdict: Equatable {
        /// No DOCTYPE with entities before the root element: parse.
        case safe
        /// Entity declarations found, at a 1-based line.
        case refused(line: Int)
        /// The prolog is not finished within the bytes given; more are needed.
        case needMore
    }

    /// Inspects a prefix of the document.
    /// - Parameters:
    ///   - bytes: The first bytes of the document.
    ///   - isComplete: Whether `bytes` is the whole document.
    static func inspect(_ bytes: [UInt8], isComplete: Bool) -> Verdict {
        var b = bytes
        if b.count >= 2, (b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF) {
            // UTF-16: transcode the prefix (an odd trailing byte is dropped) and inspect it as UTF-8.
            let bigEndian = b[0] == 0xFE
            var units: [UInt16] = []
            var i = 2
            while i + 1 < b.count {
                units.append(bigEndian ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i]))
                i += 2
            }
            b = Array(String(decoding: units, as: UTF16.self).utf8)
        }
        var i = 0
        let n = b.count
        func starts(_ s: String, at j: Int) -> Bool {
            let u = Array(s.utf8)
            guard j + u.count <= n else { return false }
            for k in 0..<u.count where b[j + k] != u[k] { return false }
            return true
        }
        func line(at j: Int) -> Int { 1 + b[0..<min(j, n)].reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
        /// The index after the first occurrence of `end` from `j`, or nil.
        func skip(past end: String, from j: Int) -> Int? {
            let u = Array(end.utf8)
            var k = j
            while k + u.count <= n {
                if b[k] == u[0] && starts(end, at: k) { return k + u.count }
                k += 1
            }
            return nil
        }
        if starts("\u{FEFF}", at: 0) { i = 3 }
        while i < n {
            let c = b[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1; continue }
            if c != UInt8(ascii: "<") { return .safe }  // not XML; the parser reports it
            if starts("<?", at: i) {
                guard let j = skip(past: "?>", from: i + 2) else { return isComplete ? .safe : .needMore }
                i = j
            } else if starts("<!--", at: i) {
                guard let j = skip(past: "-->", from: i + 4) else { return isComplete ? .safe : .needMore }
                i = j
            } else if starts("<!DOCTYPE", at: i) {
                // Walk to the DOCTYPE's closing '>', outside quotes, comments and the internal subset.
                var j = i + 9
                var depth = 0
                var quote: UInt8? = nil
                while j < n {
                    let d = b[j]
                    if let q = quote {
                        if d == q { quote = nil }
                    } else if d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") {
                        quote = d
                    } else if starts("<!--", at: j) {
                        guard let k = skip(past: "-->", from: j + 4) else { return isComplete ? .safe : .needMore }
                        j = k
                        continue
                    } else if starts("<!ENTITY", at: j) {
                        return .refused(line: line(at: j))
                    } else if d == UInt8(ascii: "[") {
                        depth += 1
                    } else if d == UInt8(ascii: "]") {
                        depth -= 1
                    } else if d == UInt8(ascii: ">") && depth <= 0 {
                        break
                    }
                    j += 1
                }
                if j >= n { return isComplete ? .safe : .needMore }
                i = j + 1
            } else {
                return .safe  // the root element starts
            }
        }
        return isComplete ? .safe : .needMore
    }
}
