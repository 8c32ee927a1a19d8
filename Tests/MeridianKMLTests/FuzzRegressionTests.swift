import Foundation
import Testing
@testable import MeridianKML

/// Every input that crashed a reader under scripts/fuzz.sh (Tests/Fixtures/fuzz/kml, README there) is read again:
/// a typed `KMLError` or a dataset, never a crash.
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz/kml")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func theCorpusIsThere() {
        #expect(Self.files.contains("garbled-encoding-declaration-invalid-utf8-comment.kml"))
        #expect(Self.files.contains("unknown-encoding-name-invalid-utf8.kml"))
        #expect(Self.files.contains("truncated-encoding-family-name-invalid-utf8.kml"))
        #expect(Self.files.contains("processing-instruction-without-data.kml"))
        #expect(Self.files.contains("empty-processing-instruction-after-broken-declaration.kml"))
    }

    @Test(arguments: files)
    func readsWithoutCrashing(_ name: String) throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
        #expect(data.count > 50)
        do {
            _ = try KMLDataset(data: data)
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    /// The garbled declaration: the invalid UTF-8 in its comment is reported, with its line.
    @Test func aGarbledEncodingDeclarationKeepsTheUTF8Check() throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("garbled-encoding-declaration-invalid-utf8-comment.kml"))
        #expect(throws: KMLError.self) { _ = try KMLDataset(data: data) }
        #expect(XMLPrologGuard.isUTF8(Array(#"<?xml version="1.0" encoding"#.utf8) + [0xB0] + Array(#"="UTF-8"?><kml/>"#.utf8)))
        #expect(!XMLPrologGuard.isUTF8(Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><kml/>"#.utf8)))
        #expect(!XMLPrologGuard.isUTF8(Array(#"<?xml version="1.0" encoding="windows-1252"?><kml/>"#.utf8)))
        #expect(XMLPrologGuard.isUTF8(Array(#"<?xml version="1.0" encoding="utf-res"?><kml/>"#.utf8)))
        #expect(throws: KMLError.self) {
            _ = try KMLDataset(data: try Data(contentsOf: Self.folder.appendingPathComponent("unknown-encoding-name-invalid-utf8.kml")))
        }
        #expect(XMLPrologGuard.isUTF8(Array(#"<?xml version="1.0" encoding='utf-8'?><kml/>"#.utf8)))
    }

    /// A family's prefix alone (`cp125`, libxml2 falls back to UTF-8) keeps the check; the family's members, spelled
    /// exactly, turn it off, and nothing else near them does.
    @Test func onlyExactEncodingNamesTurnTheUTF8CheckOff() throws {
        #expect(throws: KMLError.self) {
            _ = try KMLDataset(data: try Data(contentsOf: Self.folder.appendingPathComponent("truncated-encoding-family-name-invalid-utf8.kml")))
        }
        func declared(_ name: String) -> [UInt8] { Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><kml/>".utf8) }
        for name in ["cp125", "cp12", "windows-125", "iso-8859-", "iso-8859-12", "iso-8859-17", "iso-8859-01",
                     "iso-8859-+1", "cp1259", "cp12500", "windows-12581"] {
            #expect(XMLPrologGuard.isUTF8(declared(name)), "\(name)")
        }
        for name in ["cp1250", "CP1258", "windows-1252", "iso-8859-2", "ISO-8859-11", "iso-8859-16"] {
            #expect(!XMLPrologGuard.isUTF8(declared(name)), "\(name)")
        }
    }

    /// A processing instruction without data (`<?name?>`) made XMLParser crash (SIGSEGV, null data): it is refused
    /// with its line, in the prolog, in the body and in UTF-16; with data, or inside a comment or CDATA, it reads.
    @Test func processingInstructionsWithoutDataAreRefused() throws {
        let kml = #"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>a</name>BODY</Placemark></kml>"#
        func read(_ text: String) throws(KMLError) -> KMLDataset { try KMLDataset(data: Data(text.utf8)) }
        func isRefusal(_ e: KMLError, line: Int) -> Bool {
            if case .malformedXML(let message, let l, _) = e { message.contains("processing instruction") && l == line } else { false }
        }
        for (text, line) in [("<?foo?>\n" + kml.replacingOccurrences(of: "BODY", with: ""), 1),
                             (kml.replacingOccurrences(of: "BODY", with: "\n\n<?x?>"), 3)] {
            do { _ = try read(text); Issue.record("read: \(text)") } catch { #expect(isRefusal(error, line: line), "\(error)") }
        }
        var utf16 = Data([0xFF, 0xFE])
        for u in ("<?a?>" + kml.replacingOccurrences(of: "BODY", with: "")).utf16 { utf16.append(UInt8(u & 0xFF)); utf16.append(UInt8(u >> 8)) }
        #expect(throws: KMLError.self) { _ = try KMLDataset(data: utf16) }
        let found = try Data(contentsOf: Self.folder.appendingPathComponent("processing-instruction-without-data.kml"))
        do { _ = try KMLDataset(data: found); Issue.record("read") } catch { #expect(isRefusal(error, line: 1), "\(error)") }
        for body in ["<?foo bar?>", "<?foo ?>", "<!-- <?x?> -->", "<![CDATA[<?x?>]]>", "<!-- -> - <?x?> -->", "<![CDATA[ ]> ] <?x?>]]>"] {
            let d = try read(#"<?xml version="1.0"?>"# + kml.replacingOccurrences(of: "BODY", with: body))
            #expect(d.document.allPlacemarks.map(\.name) == ["a"], "\(body)")
        }
    }

    /// `<Placemark "<?p?>` (found after 760,293 executions of xml-attributes): the scanner skipped what it took for a
    /// quoted value and never saw the empty instruction, which libxml2 then reported to XMLParser (SIGSEGV). A quote
    /// that does not follow `=` is refused at its column; a `<` inside a broken end tag is scanned as markup; quoted
    /// values with blanks around `=` still read. The same for an instruction without a target name hiding an empty
    /// one (`<?=m <?p?>`, found after 281,342 more executions).
    @Test func aQuoteWithoutAnAttributeNameIsRefused() throws {
        let found = try Data(contentsOf: Self.folder.appendingPathComponent("quoted-value-without-name-hiding-empty-instruction.kml"))
        let noTarget = try Data(contentsOf: Self.folder.appendingPathComponent("instruction-without-target-hiding-empty-instruction.kml"))
        for (data, expected) in [(found, "quoted value"), (noTarget, "without a target name"),
                                 (Data(#"<kml><Placemark/></Placemark "<?p?>></kml>"#.utf8), "processing instruction")] {
            do {
                _ = try KMLDataset(data: data)
                Issue.record("read: \(expected)")
            } catch {
                guard case .malformedXML(let message, let line, _) = error else { Issue.record("\(error)"); continue }
                #expect(message.contains(expected) && line == 1, "\(error)")
            }
        }
        let fine = #"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark id = 'p"1' a ="x'y" ><name>a</name></Placemark></kml>"#
        #expect(try KMLDataset(data: Data(fine.utf8)).document.allPlacemarks.map(\.name) == ["a"])
    }

    /// A broken XML declaration that never ends in "?>" (libxml2 recovers from it) followed, 33 lines on, by
    /// `<?xml?>`: the scanner took that "?>" as the end of the broken declaration and let the empty instruction
    /// through, and XMLParser crashed (found after 828,421 executions). A "<" inside an instruction's data now
    /// restarts the scan, so the empty instruction is refused with its line.
    @Test func anEmptyInstructionAfterABrokenDeclarationIsRefused() throws {
        let found = try Data(contentsOf: Self.folder.appendingPathComponent("empty-processing-instruction-after-broken-declaration.kml"))
        do {
            _ = try KMLDataset(data: found)
            Issue.record("read")
        } catch {
            guard case .malformedXML(let message, let line, _) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("processing instruction") && line == 34, "\(error)")
        }
        // An instruction whose data holds a "<" still reads when nothing empty follows.
        let fine = #"<?xml version="1.0"?><?app a<b?><kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>a</name></Placemark></kml>"#
        #expect(try KMLDataset(data: Data(fine.utf8)).document.allPlacemarks.map(\.name) == ["a"])
    }
}
