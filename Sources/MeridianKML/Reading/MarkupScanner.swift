import Foundation

/// Follows a document's markup chunk by chunk, before the parser sees each chunk, and refuses two things libxml2
/// and FoundationXML cannot be trusted with:
///
/// - a processing instruction without data (`<?name?>`): libxml2 reports it with a null data pointer, on which
///   FoundationXML's `XMLParser` crashes (SIGSEGV in `_NSXMLParserProcessingInstruction`, found by fuzzing);
/// - an element with more than `maximumAttributes` attributes (namespace declarations included): libxml2 2.9
///   checks each new attribute against all earlier ones of its element, so one element with 100,000 attributes
///   took seconds and 700,000 minutes. Bounding the count bounds that work to a constant per byte.
///
/// It tokenizes well-formed XML exactly as the parser does — comments, CDATA sections, processing instructions,
/// the XML declaration (which ends at its first `>`, where libxml2 resumes after a broken one), the DOCTYPE and
/// its internal subset, quoted attribute values — on characters decoded as `XMLCharacterLayout` says libxml2
/// decodes them, so that no encoding can show it other markup than the parser sees. After the parser's first
/// error no more bytes reach it (`GuardedInputStream.stop()`), so its recovery cannot take it elsewhere either.
struct MarkupScanner {
    /// Most attributes one element may have. KML elements have a handful; a root element declaring every namespace
    /// a dozen. libxml2's check then costs at most 256²/2 comparisons per element, about 25 per byte of input.
    static let maximumAttributes = 256

    private enum State: Equatable {
        case text, open, bang, subsetOpen, subsetBang
        case literal(matched: Int, of: Literal)
        case comment(dashes: Int), cdata(brackets: Int)
        case piStart, piName, piNameEnd, piBody, piBodyEnd, declaration
        case tag(attributes: Int, quote: UInt32?, afterEquals: Bool), endTag
        case doctype(inSubset: Bool, quote: UInt32?)
    }

    /// Keywords matched after `<!`.
    private enum Literal: Equatable {
        case comment, cdata, doctype
        var characters: [UInt8] {
            switch self {
            case .comment: Array("-".utf8)
            case .cdata: Array("CDATA[".utf8)
            case .doctype: Array("OCTYPE".utf8)
            }
        }
    }

    /// Where the scanner is inside the markup.
    private var state = State.text
    /// Whether a comment or processing instruction being scanned is inside the DOCTYPE's internal subset.
    private var inSubset = false
    /// How bytes group into characters.
    private var decoder: CharacterDecoder
    /// Whether each byte is one character (`XMLCharacterLayout.bytes`).
    private let isBytes: Bool
    /// 1-based line of the last character scanned (at a refusal: of the character refused).
    private(set) var line = 1
    /// 1-based column, in characters, of the last character scanned.
    private(set) var column = 0

    /// A scanner for a document of the given layout.
    /// - Parameters:
    ///   - layout: How the document's bytes group into characters.
    ///   - startsWithDeclaration: Whether it starts (after a byte-order mark) with an XML declaration, `<?xml` and a
    ///     blank: that ends at its first `>`.
    init(layout: XMLCharacterLayout, startsWithDeclaration: Bool) {
        decoder = CharacterDecoder(layout: layout)
        isBytes = layout == .bytes
        if startsWithDeclaration { state = .declaration }
    }

    /// Scans the next chunk.
    /// - Throws: `KMLError.malformedXML` at a processing instruction without data, `KMLError.tooManyAttributes` at
    ///   the attribute one past `maximumAttributes`; with the line and column.
    mutating func scan(_ p: UnsafePointer<UInt8>, count: Int) throws(KMLError) {
        var i = 0
        while i < count {
            if isBytes, case .text = state {
                // Character data (most of a KML: coordinates) up to the next `<`, where the state machine would
                // only count lines and columns: found with memchr, its lines counted in one pass.
                let end = memchr(p + i, Int32(UInt8(ascii: "<")), count - i)
                    .map { UnsafeRawPointer($0) - UnsafeRawPointer(p) } ?? count
                advancePosition(over: UnsafeBufferPointer(start: p + i, count: end - i))
                i = end
                guard i < count else { return }
            }
            let b = p[i]
            i += 1
            guard let c = decoder.next(b) else { continue }
            if c == 0x0A { line += 1; column = 0 } else { column += 1 }
            try step(c)
        }
    }

    /// Counts lines and columns over bytes that are one character each (the `bytes` layout), as `scan` does one
    /// character at a time.
    private mutating func advancePosition(over run: UnsafeBufferPointer<UInt8>) {
        var newlines = 0, last = -1
        for (k, b) in run.enumerated() where b == 0x0A {
            newlines += 1
            last = k
        }
        if newlines == 0 {
            column += run.count
        } else {
            line += newlines
            column = run.count - 1 - last
        }
    }

    /// Whether a character is XML white space.
    @inline(__always)
    private static func isBlank(_ c: UInt32) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    private static func ascii(_ s: Unicode.Scalar) -> UInt32 { s.value }
    /// Whether a character may start an XML name (any character outside ASCII counts: the parser judges those).
    private static func isNameStart(_ c: UInt32) -> Bool {
        c >= 0x80 || c == ascii("_") || c == ascii(":") || (0x61...0x7A).contains(c | 0x20)
    }

    /// Where the markup goes after a comment or processing instruction.
    private var resume: State { inSubset ? .doctype(inSubset: true, quote: nil) : .text }

    private mutating func step(_ c: UInt32) throws(KMLError) {
        switch state {
        case .text:
            if c == Self.ascii("<") { state = .open }
        case .open:
            open(c)
        case .bang, .subsetBang:
            if c == Self.ascii("-") { state = .literal(matched: 0, of: .comment) }
            else if state == .bang, c == Self.ascii("[") { state = .literal(matched: 0, of: .cdata) }
            else if state == .bang, c == Self.ascii("D") { state = .literal(matched: 0, of: .doctype) }
            else { state = inSubset ? .doctype(inSubset: true, quote: nil) : .text }  // a markup declaration, or an error
        case .subsetOpen:
            if c == Self.ascii("!") { state = .subsetBang }
            else if c == Self.ascii("?") { state = .piStart }
            else { state = .doctype(inSubset: true, quote: nil) }
        case .literal(let k, let literal):
            literalStep(c, matched: k, of: literal)
        case .comment(let dashes):
            state = c == Self.ascii("-") ? .comment(dashes: min(dashes + 1, 2))
                : (c == Self.ascii(">") && dashes == 2) ? resume : .comment(dashes: 0)
        case .cdata(let brackets):
            state = c == Self.ascii("]") ? .cdata(brackets: min(brackets + 1, 2))
                : (c == Self.ascii(">") && brackets == 2) ? .text : .cdata(brackets: 0)
        case .piStart, .piName, .piNameEnd, .piBody, .piBodyEnd, .declaration:
            try instructionStep(c)
        case .tag(let attributes, let quote, let afterEquals):
            try tagStep(c, attributes: attributes, quote: quote, afterEquals: afterEquals)
        case .endTag:
            if c == Self.ascii(">") { state = .text }
            else if c == Self.ascii("<") { state = .open }  // not well-formed: what follows is markup to follow
        case .doctype(let subset, let quote):
            doctypeStep(c, inSubset: subset, quote: quote)
        }
    }

    /// After `<`: a processing instruction, `<!…`, an end tag or a start tag.
    private mutating func open(_ c: UInt32) {
        if c == Self.ascii("?") { state = .piStart }
        else if c == Self.ascii("!") { state = .bang }
        else if c == Self.ascii("/") { state = .endTag }
        else if c == Self.ascii("<") { state = .open }
        else if Self.isNameStart(c) {
            state = .tag(attributes: 0, quote: nil, afterEquals: false)
        } else {
            state = .text  // not markup: the parser reports an error
        }
    }

    private mutating func literalStep(_ c: UInt32, matched k: Int, of literal: Literal) {
        let characters = literal.characters
        guard c == UInt32(characters[k]) else {
            state = inSubset ? .doctype(inSubset: true, quote: nil) : .text
            return
        }
        guard k + 1 == characters.count else {
            state = .literal(matched: k + 1, of: literal)
            return
        }
        switch literal {
        case .comment: state = .comment(dashes: 0)
        case .cdata: state = .cdata(brackets: 0)
        case .doctype: state = .doctype(inSubset: false, quote: nil)
        }
    }

    /// Processing instructions: a target name, then data up to `?>`; the XML declaration up to its first `>`.
    private mutating func instructionStep(_ c: UInt32) throws(KMLError) {
        switch state {
        case .piStart:
            // libxml2 reports an instruction without a target name and reads on, so what follows (an empty
            // instruction, say) would reach XMLParser unseen (fuzzing found `<?=m <?p?>`): refused here.
            guard Self.isNameStart(c) else {
                throw .malformedXML(message: "processing instruction without a target name", line: line, column: column)
            }
            state = .piName
        case .piName:
            if c == Self.ascii("?") { state = .piNameEnd } else if Self.isBlank(c) { state = .piBody }
        case .piNameEnd:
            if c == Self.ascii(">") {
                throw .malformedXML(message: "processing instruction without data (<?name?>) not supported",
                                    line: line, column: column)
            }
            state = c == Self.ascii("?") ? .piNameEnd : .piName
        case .piBody:
            if c == Self.ascii("?") { state = .piBodyEnd }
        case .piBodyEnd:
            state = c == Self.ascii(">") ? resume : c == Self.ascii("?") ? .piBodyEnd : .piBody
        case .declaration:
            if c == Self.ascii(">") { state = .text }
        default:
            break
        }
    }

    /// A start tag: quoted values skipped, each `=` outside them an attribute. A quote that does not follow an `=`
    /// opens no value (XML allows none there) and is refused: libxml2 reports the error but reads on, so a value the
    /// scanner skipped could hide markup the parser then sees (fuzzing found `<Placemark "<?p?>` reaching the crash
    /// above).
    private mutating func tagStep(_ c: UInt32, attributes: Int, quote: UInt32?, afterEquals: Bool) throws(KMLError) {
        if let quote {
            if c == quote { state = .tag(attributes: attributes, quote: nil, afterEquals: false) }
        } else if c == Self.ascii("\"") || c == Self.ascii("'") {
            guard afterEquals else {
                throw .malformedXML(message: "a quoted value without an attribute name and '=' in a start tag",
                                    line: line, column: column)
            }
            state = .tag(attributes: attributes, quote: c, afterEquals: false)
        } else if c == Self.ascii("=") {
            guard attributes < Self.maximumAttributes else {
                throw .tooManyAttributes(limit: Self.maximumAttributes, line: line, column: column)
            }
            state = .tag(attributes: attributes + 1, quote: nil, afterEquals: true)
        } else if c == Self.ascii(">") {
            state = .text
        } else if c == Self.ascii("<") {
            state = .open  // not well-formed: the parser stops here
        } else if !Self.isBlank(c) {
            state = .tag(attributes: attributes, quote: nil, afterEquals: false)
        }
    }

    /// `<!DOCTYPE …>`: quoted literals skipped; in the internal subset (`[…]`), comments and processing
    /// instructions too.
    private mutating func doctypeStep(_ c: UInt32, inSubset subset: Bool, quote: UInt32?) {
        inSubset = subset
        if let quote {
            if c == quote { state = .doctype(inSubset: subset, quote: nil) }
        } else if c == Self.ascii("\"") || c == Self.ascii("'") {
            state = .doctype(inSubset: subset, quote: c)
        } else if subset {
            if c == Self.ascii("]") { inSubset = false; state = .doctype(inSubset: false, quote: nil) }
            else if c == Self.ascii("<") { state = .subsetOpen }
        } else if c == Self.ascii("[") {
            inSubset = true
            state = .doctype(inSubset: true, quote: nil)
        } else if c == Self.ascii(">") {
            state = .text
        }
    }
}

/// Groups bytes into characters as `XMLCharacterLayout` says: one character per call that completes one
/// (`nil` for a byte that does not), any character outside ASCII as its code or 0x80.
struct CharacterDecoder {
    let layout: XMLCharacterLayout
    private var held: UInt32 = 0
    private var holding = false
    /// ISO-2022-JP: whether two-byte characters are being read, and the escape sequence's bytes so far.
    private var twoByte = false
    private var escape: [UInt8] = []

    /// A decoder for a layout.
    init(layout: XMLCharacterLayout) { self.layout = layout }

    /// The character a byte completes, if any.
    mutating func next(_ b: UInt8) -> UInt32? {
        switch layout {
        case .bytes:
            return UInt32(b)
        case .utf16(let bigEndian):
            guard holding else { held = UInt32(b); holding = true; return nil }
            holding = false
            return bigEndian ? held << 8 | UInt32(b) : UInt32(b) << 8 | held
        case .doubleByte(let shiftJIS):
            if holding { holding = false; return 0x80 }  // a lead byte's partner, whatever it looks like
            let lead = shiftJIS ? (0x81...0x9F).contains(b) || (0xE0...0xFC).contains(b) : (0x81...0xFE).contains(b)
            if lead { holding = true; return nil }
            return UInt32(b)
        case .iso2022JP:
            return iso2022(b)
        }
    }

    private mutating func iso2022(_ b: UInt8) -> UInt32? {
        if b == 0x1B { escape = [b]; return nil }
        if !escape.isEmpty {
            escape.append(b)
            guard escape.count == 3 else { return nil }
            if escape[1] == UInt8(ascii: "$") { twoByte = true }
            if escape[1] == UInt8(ascii: "(") { twoByte = false }
            escape = []
            return nil
        }
        return twoByte ? 0x80 : UInt32(b)
    }
}
