import Foundation
import Testing

@testable import MeridianCore

private func table(_ text: String) throws -> CSVTable { try CSV.decode(Data(text.utf8)) }

private func csvError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> FormatError? {
    do {
        let t = try CSV.decode(Data(bytes))
        Issue.record("expected an error, read \(t.rows.count) rows", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

private func csvError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> FormatError? {
    csvError(Array(text.utf8), sourceLocation: sourceLocation)
}

@Suite struct CSVTests {
    /// The examples of RFC 4180 §2 (rules 1–7), read with their first record as the header.
    @Test func rfc4180Section2Examples() throws {
        // Rule 1: records end with CRLF.
        var t = try table("aaa,bbb,ccc\r\nzzz,yyy,xxx\r\n")
        #expect(t.header == ["aaa", "bbb", "ccc"] && t.rows == [["zzz", "yyy", "xxx"]] && t.lineNumbers == [2])
        // Rule 2: the last record may lack the line break.
        t = try table("aaa,bbb,ccc\r\nzzz,yyy,xxx")
        #expect(t.rows == [["zzz", "yyy", "xxx"]])
        // Rule 3: a header line.
        t = try table("field_name,field_name,field_name\r\naaa,bbb,ccc\r\nzzz,yyy,xxx\r\n")
        #expect(t.header == ["field_name", "field_name", "field_name"])
        #expect(t.rows == [["aaa", "bbb", "ccc"], ["zzz", "yyy", "xxx"]] && t.lineNumbers == [2, 3])
        // Rule 4: spaces are part of a field.
        t = try table("a, b ,c\r\n x,y , z\r\n")
        #expect(t.header == ["a", " b ", "c"] && t.rows == [[" x", "y ", " z"]])
        // Rule 5: fields may be quoted.
        t = try table("h1,h2,h3\r\n\"aaa\",\"bbb\",\"ccc\"\r\nzzz,yyy,xxx")
        #expect(t.rows == [["aaa", "bbb", "ccc"], ["zzz", "yyy", "xxx"]])
        // Rule 6: quoted fields may hold line breaks, quotes and commas.
        t = try table("h1,h2,h3\r\n\"aaa\",\"b\r\nbb\",\"ccc\"\r\nzzz,yyy,xxx")
        #expect(t.rows == [["aaa", "b\r\nbb", "ccc"], ["zzz", "yyy", "xxx"]] && t.lineNumbers == [2, 4])
        // Rule 7: a quote inside a quoted field is doubled.
        t = try table("h1,h2,h3\r\n\"aaa\",\"b\"\"bb\",\"ccc\"")
        #expect(t.rows == [["aaa", "b\"bb", "ccc"]])
    }

    @Test func lineEndsBOMAndBlankLines() throws {
        let expected = CSVTable(header: ["a", "b"], rows: [["1", "2"], ["3", "4"]], lineNumbers: [2, 3])
        #expect(try table("a,b\n1,2\n3,4\n") == expected)
        #expect(try table("a,b\r1,2\r3,4") == expected)
        #expect(try table("a,b\r\n1,2\n3,4\r") == expected)
        #expect(try table("\u{FEFF}a,b\n1,2\n3,4") == expected)
        // Blank lines are skipped but still counted.
        #expect(
            try table("\n\na,b\n\n1,2\r\n\r\n3,4\n\n")
                == CSVTable(
                    header: ["a", "b"], rows: [["1", "2"], ["3", "4"]], lineNumbers: [5, 7]))
        // Quoted line breaks move the following rows' line numbers.
        let t = try table("id,text\n1,\"one\ntwo\rthree\r\nfour\"\n2,\"\"\n")
        #expect(t.rows == [["1", "one\ntwo\rthree\r\nfour"], ["2", ""]])
        #expect(t.lineNumbers == [2, 6])
    }

    @Test func emptyFieldsAndHeaderOnly() throws {
        #expect(try table("a,b,c\n,,\n\"\",x,\n").rows == [["", "", ""], ["", "x", ""]])
        #expect(try table("a\n\"\"\nb\n").rows == [[""], ["b"]])
        let h = try table("only,a,header\r\n")
        #expect(h.header == ["only", "a", "header"] && h.rows.isEmpty && h.lineNumbers.isEmpty)
        #expect(h.columnIndex(named: "a") == 1)
        #expect(h.columnIndex(named: "A") == nil)
        #expect(try table("é,😀\n\"ü,\",x\n").rows == [["ü,", "x"]])
    }

    @Test func reportsErrorsWithLine() {
        var e = csvError("a,b\n1,2\n3\n")
        #expect(e?.format == "CSV" && e?.line == 3 && e?.column == nil)
        #expect(e?.message == "the row has 1 field, the header has 2")
        e = csvError("a,b\n1,2,3")
        #expect(e?.line == 2 && e?.message.contains("3 fields") == true)
        e = csvError("a,b\n\"x\ny\",1,2\n")  // the ragged row starts on line 2
        #expect(e?.line == 2)
        e = csvError("a,b\n1,\"abc\n")
        #expect(e?.line == 2 && e?.column == 3 && e?.message.contains("unterminated") == true)
        e = csvError("a,b\n1,ab\"c\n")
        #expect(e?.line == 2 && e?.column == 5 && e?.message.contains("quote") == true)
        e = csvError("a,b\n\"x\"y,1\n")
        #expect(e?.line == 2 && e?.column == 4 && e?.message.contains("closing quote") == true)
        e = csvError("é,b\n\"ü\" ,1\n")  // columns count characters
        #expect(e?.line == 2 && e?.column == 4)
        for empty in ["", "\n", "\r\n\r\n", "\u{FEFF}"] {
            #expect(csvError(empty)?.message.contains("empty") == true)
        }
        e = csvError([0x61, 0x2C, 0x62, 0x0A, 0x31, 0x2C, 0xFF, 0x0A])
        #expect(e?.line == 2 && e?.column == 3 && e?.message.contains("UTF-8") == true)
    }

    @Test func writesRFC4180() {
        let data = CSV.encode(
            header: ["name", "note"],
            rows: [
                ["plain", "a,b"], ["quote\"d", "line\nbreak"], ["", "cr\r"], [" spaced ", "\u{FEFF}bom"],
            ])
        // Expected text typed by hand from RFC 4180: CRLF after every record, quotes only where needed.
        let expected =
            "name,note\r\nplain,\"a,b\"\r\n\"quote\"\"d\",\"line\nbreak\"\r\n,\"cr\r\"\r\n"
            + " spaced ,\"\u{FEFF}bom\"\r\n"
        #expect(String(decoding: data, as: UTF8.self) == expected)
        // A lone empty field is quoted so that its line is not blank.
        #expect(
            String(decoding: CSV.encode(header: ["x"], rows: [[""], ["y"]]), as: UTF8.self) == "x\r\n\"\"\r\ny\r\n")
    }

    @Test func randomTablesRoundTrip() throws {
        var rng = SplitMix64(seed: 4180)
        let alphabet: [String] = ["a", "Z", "0", " ", ",", "\"", "\r", "\n", "\r\n", "é", "😀", "\t", "\u{FEFF}", ";"]
        for _ in 0..<500 {
            let columns = Int.random(in: 1...5, using: &rng)
            func field() -> String {
                (0..<Int.random(in: 0...6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            }
            let header = (0..<columns).map { _ in field() }
            let rows = (0..<Int.random(in: 0...8, using: &rng)).map { _ in (0..<columns).map { _ in field() } }
            let data = CSV.encode(header: header, rows: rows)
            let t = try CSV.decode(data)
            #expect(t.header == header && t.rows == rows)
            // The reported line numbers are where each record starts: count line ends before it independently.
            let text = String(decoding: data, as: UTF8.self)
            let starts = text.components(separatedBy: "\r\n").dropLast()
            var line = 1
            var recordStartLines: [Int] = []
            var record = ""
            for piece in starts {  // rejoin records split inside quoted fields (odd number of quotes so far)
                if record.isEmpty { recordStartLines.append(line) } else { record += "\r\n" }
                record += piece
                line +=
                    1 + piece.unicodeScalars.filter { $0 == "\n" }.count
                    + piece.replacingOccurrences(of: "\r\n", with: "").unicodeScalars.filter { $0 == "\r" }.count
                if record.filter({ $0 == "\"" }).count % 2 == 0 { record = "" }
            }
            #expect(Array(recordStartLines.dropFirst()) == t.lineNumbers)
        }
    }

    @Test func fuzzMutatedInputNeverCrashes() {
        let seed = Array("id,name,note\r\n1,\"a, \"\"b\"\"\",x\r\n2,c,\"multi\nline\"\r\n3,,\r\n".utf8)
        var rng = SplitMix64(seed: 99)
        let interesting = Array(",\"\r\n a".utf8) + [0xFF, 0xC3]
        var thrown = 0
        for _ in 0..<5000 {
            var m = seed
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !m.isEmpty {
                let i = Int.random(in: 0..<m.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: m[i] = interesting.randomElement(using: &rng)!
                case 1: m.remove(at: i)
                default: m.insert(interesting.randomElement(using: &rng)!, at: i)
                }
            }
            do {
                let t = try CSV.decode(Data(m))
                #expect(t.rows.allSatisfy { $0.count == t.header.count } && t.rows.count == t.lineNumbers.count)
            } catch {
                thrown += 1
                #expect(error.format == "CSV" && error.line != nil)
            }
        }
        #expect(thrown > 0)
    }

    /// A reader of a range (`init(_:range:line:)`), split just after each line feed of a text with LF, CRLF and lone
    /// CR line ends, blank lines and no final line end: its records and lines, then the second range's from where the
    /// first left off, are those of one reader of the whole text.
    @Test func rangeReadersReadWhatTheWholeTextReads() throws {
        let bytes = Array("a,b\r\n1,2\n\n3,4\r\r\n5,6 \r\n\r\n\n7,8\n9,10".utf8)
        func records(_ reader: inout CSVRecordReader) throws -> [String] {
            var out: [String] = []
            while try reader.next() { out.append("\(reader.recordLine):\(try reader.strings().joined(separator: "|"))") }
            return out
        }
        try bytes.withUnsafeBufferPointer { all in
            var whole = CSVRecordReader(all)
            let expected = try records(&whole)
            for split in bytes.indices where bytes[split] == 0x0A {
                var first = CSVRecordReader(all, range: 0..<(split + 1), line: 1)
                var read = try records(&first)
                var second = CSVRecordReader(all, range: (split + 1)..<all.count, line: first.line)
                read += try records(&second)
                #expect(read == expected, "split after byte \(split)")
                #expect(second.line == whole.line)
            }
        }
    }
}
