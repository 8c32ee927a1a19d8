import Foundation
import Testing
@testable import MeridianKML

/// libxml2 2.9 checks each attribute of an element against all the earlier ones, so one element with many
/// attributes costs quadratic time (400,000 attributes took 35 s). The reader refuses an element
/// with more than `MarkupScanner.maximumAttributes` before the parser sees it — in every encoding it reads and
/// whatever quotes, comments, CDATA, instructions or DOCTYPEs surround it — and refuses the encodings and
/// declarations through which markup could reach the parser unseen.
@Suite struct KMLAttributeBoundTests {
    static let limit = MarkupScanner.maximumAttributes

    /// A placemark whose start tag has `n` attributes, inside `before` … `after`.
    static func document(attributes n: Int, before: String = "", after: String = "", value: String = "v") -> String {
        let attributes = (0..<n).map { "a\($0)=\"\(value)\"" }.joined(separator: " ")
        return "\(before)<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark \(attributes)><name>p</name>"
            + "<Point><coordinates>1,2</coordinates></Point></Placemark>\(after)</kml>"
    }

    static func isTooMany(_ error: KMLError, line: Int? = nil) -> Bool {
        guard case .tooManyAttributes(let limit, let l, _) = error else { return false }
        return limit == Self.limit && (line == nil || l == line)
    }

    static func expectRefused(_ data: Data, line: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try KMLDataset(data: data)
            Issue.record("read without error", sourceLocation: sourceLocation)
        } catch {
            #expect(isTooMany(error, line: line), "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// Whether `MarkupScanner` alone refuses a UTF-8 document for too many attributes.
    static func scannerRefuses(_ data: Data) -> Bool {
        let layout = (try? XMLPrologGuard.layout(of: Array(data))) ?? (.bytes, false)
        var scanner = MarkupScanner(layout: layout.layout, startsWithDeclaration: layout.startsWithDeclaration)
        let bytes = Array(data)
        do throws(KMLError) {
            try scanner.scan(bytes, count: bytes.count)
            return false
        } catch {
            return isTooMany(error)
        }
    }

    /// The line and column of a refusal, counted from the text itself (the character `>` that closes `<?p?>`), are
    /// the scanner's whatever the chunks: character data is skipped to the next `<` in one step in a one-byte-per-
    /// character layout and character by character in UTF-16, and a run may be split between chunks.
    @Test func aRefusalHasTheSameLineAndColumnForEveryChunking() throws {
        let text = "<?xml version=\"1.0\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document><name>ab é\ncd</name>\n"
            + "  <name>x é</name>   <?p?></Document></kml>\n"
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = lines.firstIndex { $0.contains("<?p?>") }! + 1
        let refused = lines[line - 1]
        let column = refused.distance(from: refused.startIndex, to: refused.range(of: "<?p?>")!.upperBound)
        var utf16 = [UInt8(0xFF), 0xFE]
        for u in text.utf16 { utf16 += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        for (bytes, characterColumn) in [(Array(text.utf8), column + 1), (utf16, column)] {
            // In UTF-8 (the bytes layout) the column counts bytes: "é" is two.
            let layout = try XMLPrologGuard.layout(of: bytes)
            for chunk in [1, 2, 3, 7, 64, bytes.count] {
                var scanner = MarkupScanner(layout: layout.layout, startsWithDeclaration: layout.startsWithDeclaration)
                var place: (Int, Int)?
                do throws(KMLError) {
                    for start in stride(from: 0, to: bytes.count, by: chunk) {
                        let end = min(start + chunk, bytes.count)
                        try bytes[start..<end].withUnsafeBufferPointer { (b) throws(KMLError) in
                            try scanner.scan(b.baseAddress!, count: b.count)
                        }
                    }
                } catch {
                    if case .malformedXML(_, let l, let c) = error { place = (l, c) }
                }
                #expect(place?.0 == line && place?.1 == characterColumn, "chunks of \(chunk): \(String(describing: place))")
            }
        }
    }

    @Test func anElementWithMoreThanTheLimitIsRefusedWithItsPlace() throws {
        let fine = try KMLDataset(data: Data(Self.document(attributes: Self.limit).utf8))
        #expect(fine.document.allPlacemarks.map(\.name) == ["p"])
        Self.expectRefused(Data(Self.document(attributes: Self.limit + 1, before: "\n\n").utf8), line: 3)
        Self.expectRefused(Data(Self.document(attributes: 400_000).utf8), line: 1)
        // Namespace declarations are attributes too.
        let namespaces = (0...Self.limit).map { "xmlns:n\($0)=\"urn:\($0)\"" }.joined(separator: " ")
        Self.expectRefused(Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\" \(namespaces)/>".utf8))
        // The streaming reader and a KMZ are read through the same stream.
        #expect(throws: KMLError.self) {
            try KMLDataset.forEachPlacemark(data: Data(Self.document(attributes: Self.limit + 1).utf8)) { _ in true }
        }
    }

    /// Quoted values holding `>`, `=` and the other quote; comments, CDATA sections and instructions holding fake
    /// tags and quotes; a DOCTYPE with quoted literals and an internal subset; a broken XML declaration: none of
    /// them hides the attributes that follow from the count, and none makes a normal document fail.
    @Test func noMarkupAroundTheElementHidesItsAttributes() throws {
        // (text before the root, whether a document with it and few attributes reads: libxml2's push parser fails
        // on a quote inside a comment or instruction of the internal subset, but must still see no more attributes)
        let decoys: [(String, Bool)] = [
            ("", true), ("<!-- <a \" ' = > -->", true), ("<?app <a \"?>", true), ("<?app a<b?>", true),
            ("<!DOCTYPE kml SYSTEM \"a'b\" [ <!ELEMENT x ANY> <!-- ] > --> <?p ]?> ]>", true),
            ("<!DOCTYPE kml SYSTEM \"a'>\" [ <!ELEMENT x ANY> <!-- \" ] > --> <?p \"]>?> ]>", false),
            ("<?xml version=\"1.0\" enc/x \"?>", false), ("<?xml version='1.0' encoding='UTF-8'?>", true),
        ]
        for (before, reads) in decoys {
            for value in ["v", "a>b", "'=&quot;'", "&lt;![CDATA[", "-->"] {
                let many = Data(Self.document(attributes: Self.limit + 1, before: before, value: value).utf8)
                #expect(Self.scannerRefuses(many), "\(before) \(value)")
                guard reads else {
                    #expect(throws: KMLError.self) { try KMLDataset(data: many) }  // the parser may stop first
                    continue
                }
                Self.expectRefused(many)
                let fine = Self.document(attributes: 3, before: before, after: "<!-- \" -->", value: value)
                #expect((try? KMLDataset(data: Data(fine.utf8)))?.document.allPlacemarks.count == 1, "\(before) \(value)")
            }
        }
        // Inside CDATA the text is not markup: a long fake tag there is no element.
        let cdata = "<![CDATA[<x " + (0...Self.limit).map { "a\($0)=''" }.joined(separator: " ") + ">]]>"
        let d = try KMLDataset(data: Data(Self.document(attributes: 1).replacingOccurrences(of: "<name>p", with: "<name>\(cdata)p").utf8))
        #expect(d.document.allPlacemarks.first?.name?.hasSuffix("p") == true)
    }

    /// The encodings the reader accepts are scanned character by character, as libxml2 decodes them.
    @Test func everyEncodingReadIsScannedAsDecoded() throws {
        let text = Self.document(attributes: Self.limit + 1)
        func utf16(_ s: String, bigEndian: Bool, mark: Bool) -> Data {
            var d = Data(mark ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : [])
            for u in s.utf16 { d.append(contentsOf: bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)]) }
            return d
        }
        let declared = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"
        for (bigEndian, mark) in [(false, true), (true, true), (false, false), (true, false)] {
            Self.expectRefused(utf16(declared + text, bigEndian: bigEndian, mark: mark))
            // A character whose bytes look like '>' and '"' (U+3E22) in a value does not hide the rest.
            let tricky = Self.document(attributes: Self.limit + 1, value: "\u{3E22}\u{223E}")
            Self.expectRefused(utf16(declared + tricky, bigEndian: bigEndian, mark: mark))
            let fine = utf16(declared + Self.document(attributes: 2, value: "\u{3E22}"), bigEndian: bigEndian, mark: mark)
            #expect(try KMLDataset(data: fine).document.allPlacemarks.count == 1)
        }
        // Shift_JIS: a second byte can look like ASCII. 0x81 0x5D is one character (a hyphen), so 81 5D 5D 3E is
        // "‐]>", not the end of a CDATA section: read as bytes, the section would end there, and the fake tag and
        // quote after it would swallow the real attributes that follow.
        let head = Data("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document><Placemark><name><![CDATA[".utf8)
        func sjis(attributes n: Int) -> Data {
            var d = head
            d.append(contentsOf: [0x81, 0x5D])
            d.append(Data("]><x y=\"]]></name></Placemark>".utf8))
            let next = Self.document(attributes: n).replacingOccurrences(of: "<kml xmlns=\"http://www.opengis.net/kml/2.2\">", with: "")
            d.append(Data(next.replacingOccurrences(of: "</kml>", with: "</Document></kml>").utf8))
            return d
        }
        #expect(try KMLDataset(data: sjis(attributes: 3)).document.allPlacemarks.count == 2)
        Self.expectRefused(sjis(attributes: Self.limit + 1))
        // ISO-2022-JP: two-byte characters between ESC $ B and ESC ( B can look like quotes and '>' (ア is 25 22,
        // ぞ is 24 3E); in the first attribute's value they would end it early when read as bytes.
        func jis(attributes n: Int) -> Data {
            var d = Data("<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark k=\"".utf8)
            d.append(contentsOf: [0x1B, 0x24, 0x42, 0x25, 0x22, 0x24, 0x3E, 0x1B, 0x28, 0x42])
            d.append(Data(("\" " + (1..<n).map { "a\($0)=\"v\"" }.joined(separator: " ") + "><name>p</name></Placemark></kml>").utf8))
            return d
        }
        #expect(try KMLDataset(data: jis(attributes: 3)).document.allPlacemarks.count == 1)
        Self.expectRefused(jis(attributes: Self.limit + 1))
    }

    /// Encodings and declarations through which the parser could see markup the scanner does not are refused.
    @Test func encodingsThatCouldHideMarkupAreRefused() throws {
        func isUnsupported(_ data: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try KMLDataset(data: data)
                Issue.record("read without error", sourceLocation: sourceLocation)
            } catch {
                guard case .unsupportedEncoding(let text) = error else { Issue.record("\(error)", sourceLocation: sourceLocation); return }
                #expect(text.contains(what), "\(text)", sourceLocation: sourceLocation)
            }
        }
        // UTF-7 writes '=' and '"' as +AD0- and +ACI-: libxml2 decodes them, a byte scanner would not.
        let utf7 = "<?xml version=\"1.0\" encoding=\"UTF-7\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark "
            + (0...Self.limit).map { "a\($0)+AD0AIg-v+ACI-" }.joined(separator: " ") + "/></kml>"
        isUnsupported(Data(utf7.utf8), "\"utf-7\"")
        isUnsupported(Data("<?xml version=\"1.0\" encoding=\"IBM037\"?><kml/>".utf8), "\"ibm037\"")
        isUnsupported(Data("<?xml version=\"1.0\" encoding=\"utf-8\" encoding=\"utf-7\"?><kml/>".utf8), "more than once")
        isUnsupported(Data(("<?xml version=\"1.0\"" + String(repeating: " ", count: 5000) + "encoding=\"utf-7\"?><kml/>").utf8), "4,096")
        var ucs4 = Data()
        for u in "<kml/>".unicodeScalars { ucs4.append(contentsOf: [0, 0, 0, UInt8(u.value)]) }
        isUnsupported(ucs4, "UCS-4")
        // A UTF-16 document whose declaration switches the rest to another encoding.
        var switching = Data([0xFF, 0xFE])
        for u in "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>".utf16 { switching.append(contentsOf: [UInt8(u & 0xFF), UInt8(u >> 8)]) }
        switching.append(Data("<kml/>".utf8))
        isUnsupported(switching, "UTF-16 document declaring")
        // Latin-1, windows-1252 and UTF-8 spelled either way still read.
        for name in ["ISO-8859-1", "windows-1252", "utf8", "UTF-8"] {
            let d = try KMLDataset(data: Data("<?xml version=\"1.0\" encoding=\"\(name)\"?>\(Self.document(attributes: 1))".utf8))
            #expect(d.document.allPlacemarks.count == 1, "\(name)")
        }
    }

    /// Attribute defaults in a DOCTYPE are added to every element they name: refused, in UTF-8 before parsing and
    /// in a UTF-16 document without a byte-order mark too.
    @Test func attributeDefaultsAreRefused() throws {
        let defaults = "<!DOCTYPE kml [" + (0..<3).map { "<!ATTLIST Placemark d\($0) CDATA \"v\">" }.joined() + "]>"
        #expect(throws: KMLError.attributeListDeclarationsRefused(line: 1)) {
            try KMLDataset(data: Data((defaults + Self.document(attributes: 1)).utf8))
        }
        var utf16 = Data()
        for u in ("<?xml version=\"1.0\"?>" + defaults + Self.document(attributes: 1)).utf16 { utf16.append(contentsOf: [UInt8(u & 0xFF), UInt8(u >> 8)]) }
        #expect(throws: KMLError.attributeListDeclarationsRefused(line: 1)) { try KMLDataset(data: utf16) }
    }
}
