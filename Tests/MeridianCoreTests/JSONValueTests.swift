import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore

/// Parses `text` and returns the error it throws (or records a failure when it parses).
func jsonError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> FormatError? {
    do {
        let v = try JSONValue.decode(Data(text.utf8))
        Issue.record("expected an error, parsed \(v)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Converts JSONSerialization's output into a JSONValue (an independent parse of the same text).
func jsonValue(fromFoundation any: Any) -> JSONValue {
    switch any {
    case is NSNull: return .null
    case let s as String: return .string(s)
    case let a as [Any]: return .array(a.map(jsonValue(fromFoundation:)))
    case let o as [String: Any]: return .object(o.mapValues(jsonValue(fromFoundation:)))
    case let n as NSNumber:
        // Foundation's booleans are NSNumbers of Objective-C type "c" (char).
        return String(cString: n.objCType) == "c" ? .bool(n.boolValue) : .number(n.doubleValue)
    default: return .string("unexpected \(type(of: any))")
    }
}

@Suite struct JSONValueTests {
    @Test func literalsAndAccessors() {
        let v: JSONValue = ["a": 1, "b": [true, nil, "x", 2.5], "c": ["d": "e"]]
        #expect(v["a"]?.doubleValue == 1)
        #expect(v["a"]?.intValue == 1)
        #expect(v["b"]?[0]?.boolValue == true)
        #expect(v["b"]?[1]?.isNull == true)
        #expect(v["b"]?[2]?.stringValue == "x")
        #expect(v["b"]?[3]?.intValue == nil)
        #expect(v["b"]?[3]?.doubleValue == 2.5)
        #expect(v["b"]?[4] == nil)
        #expect(v["c"]?["d"] == "e")
        #expect(v["c"]?.objectValue?.count == 1)
        #expect(v["b"]?.arrayValue?.count == 4)
        #expect(v["zz"] == nil)
        #expect(v[0] == nil)
        #expect(JSONValue.number(1e300).intValue == nil)
    }

    @Test func parsesScalarsAndStructures() throws {
        let text =
            #" { "s": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00", "n": -12.5e-1, "t": true, "f": false, "z": null, "e": [], "o": {} } "#
        let v = try JSONValue.decode(Data(text.utf8))
        #expect(v["s"] == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀"))
        #expect(v["n"] == .number(-1.25))
        #expect(v["t"] == true)
        #expect(v["f"] == false)
        #expect(v["z"] == .null)
        #expect(v["e"] == .array([]))
        #expect(v["o"] == .object([:]))
    }

    @Test func agreesWithJSONSerialization() throws {
        // An independent parser (Foundation) must see the same values.
        let text = """
            {"name": "Zürich \\u2014 \\"HB\\"", "values": [0, -0.5, 1e-7, 123456789012, 3.141592653589793, 1.7976931348623157e308,
             5e-324, 0.1, 2.5E+3], "nested": {"deep": [[[{"k": "v"}]]], "empty": {}}, "text": "tab\\there"}
            """
        let data = Data(text.utf8)
        let ours = try JSONValue.decode(data)
        let theirs = jsonValue(fromFoundation: try JSONSerialization.jsonObject(with: data))
        #expect(ours == theirs)
    }

    @Test func roundTripsThroughText() throws {
        let v: JSONValue = [
            "a": [1, -2, 0.1, 1e21, 1e-7, 123456.789, -0.0, 9007199254740993.0],
            "b": ["quote\"", "back\\slash", "ctl\u{01}\u{1F}", "nl\n", "é😀", ""],
            "c": [:], "d": [], "e": nil, "f": true,
        ]
        #expect(try JSONValue.decode(v.encoded()) == v)
        #expect(try JSONValue.decode(v.encoded(pretty: true)) == v)
        // Foundation reads our output the same way.
        let theirs = jsonValue(fromFoundation: try JSONSerialization.jsonObject(with: v.encoded()))
        #expect(theirs == v)
    }

    @Test func writesDeterministicCompactText() {
        // Expected text typed by hand from the documented rules: sorted keys, shortest numbers, integers bare, -0 as 0.
        let v: JSONValue = ["b": [1, 2.5, -0.0, 1e21, 0.1, 1e-7], "a": "x\u{01}\"", "é": nil, "Z": false]
        #expect(v.description == #"{"Z":false,"a":"x\u0001\"","b":[1,2.5,0,1e+21,0.1,1e-07],"é":null}"#)
        #expect(JSONValue.number(.nan).description == "null")
        #expect(JSONValue.number(-.infinity).description == "null")
        #expect(JSONValue.number(123456789012345).description == "123456789012345")
        #expect(JSONValue.number(-1e15).description == "-1000000000000000")
        #expect(JSONValue.number(9007199254740994).description == "9007199254740994")
        #expect(JSONValue.number(1e16).description == "1e+16")
        #expect(JSONValue.number(-1.2345678901234568e20).description == "-1.2345678901234568e+20")
    }

    @Test func writesPrettyText() {
        let v: JSONValue = ["b": [1, 2], "a": ["c": [["x": 1]]], "e": [:], "f": []]
        let expected = """
            {
              "a": {
                "c": [
                  {
                    "x": 1
                  }
                ]
              },
              "b": [1, 2],
              "e": {},
              "f": []
            }
            """
        #expect(String(decoding: v.encoded(pretty: true), as: UTF8.self) == expected)
    }

    @Test func codableAgreesWithParser() throws {
        let text = #"{"a":[1,2.5,"s",null,true,{"b":false}],"c":"d"}"#
        let viaDecoder = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(viaDecoder == (try JSONValue.decode(Data(text.utf8))))
        let reencoded = try JSONEncoder().encode(viaDecoder)
        #expect(try JSONValue.decode(reencoded) == viaDecoder)
    }

    /// Numbers: our fast paths must give exactly what the standard library's (strtod-based) parser gives.
    @Test func numbersAreCorrectlyRounded() throws {
        var rng = SplitMix64(seed: 7946)
        var texts: [String] = [
            "9007199254740993", "9007199254740995", "9007199254740993.0000000000001", "-97.77852999999999",
            "28.756961999999998", "0.30000000000000004", "2.2250738585072014e-308", "4.9e-324",
            "1.7976931348623157e308",
            "1e23", "8.98846567431158e307", "123456789012345678901234567890", "0.000000000000000000000000000001",
            "7.2057594037927933e16", "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
        ]
        for _ in 0..<20_000 {
            // Random decimal strings: 1-20 significant digits, a decimal point somewhere, an optional exponent.
            let digits = Int.random(in: 1...20, using: &rng)
            var s = String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<digits { s.append(String(Int.random(in: 0...9, using: &rng))) }
            let dot = Int.random(in: 0...digits, using: &rng)
            if dot > 0 && dot < digits { s.insert(".", at: s.index(s.startIndex, offsetBy: dot)) }
            if Bool.random(using: &rng) { s += "e\(Int.random(in: -40...40, using: &rng))" }
            if Bool.random(using: &rng) { s = "-" + s }
            texts.append(s)
        }
        for _ in 0..<20_000 {
            // Random doubles written shortest (round trip) and with 17 significant digits.
            let d = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)
            texts.append(d.description)
            texts.append(String(format: "%.17g", d))
        }
        for _ in 0..<20_000 {
            // Near-halfway 17-19 digit values, the Float80 path's hard cases.
            let d = Double.random(in: -180...180, using: &rng)
            texts.append(String(format: "%.18f", d))
            texts.append(String(format: "%.19e", d))
        }
        let document = "[" + texts.joined(separator: ",") + "]"
        let parsed = try JSONValue.decode(Data(document.utf8))
        let values = try #require(parsed.arrayValue)
        #expect(values.count == texts.count)
        var mismatches = 0
        for (text, value) in zip(texts, values) where value.doubleValue?.bitPattern != Double(text)?.bitPattern {
            if mismatches < 5 { Issue.record("\(text): got \(value), stdlib \(Double(text)!)") }
            mismatches += 1
        }
        #expect(mismatches == 0)
    }

    @Test func reportsLineAndColumn() {
        // Columns count Unicode scalars, not bytes; positions typed by hand.
        var e = jsonError(#"{"a": 1,}"#)
        #expect(e?.line == 1 && e?.column == 9)
        #expect(e?.message.contains("string key") == true)

        e = jsonError("{\n  \"a\": [1, 2,\n  ]\n}")
        #expect(e?.line == 3 && e?.column == 3)

        e = jsonError(#"{"é": tru}"#)
        #expect(e?.line == 1 && e?.column == 7)
        #expect(e?.message.contains("true") == true)

        e = jsonError("[1,\r\n2,\r\nx]")
        #expect(e?.line == 3 && e?.column == 1)

        e = jsonError("[1,\r2,\rx]")  // lone CR ends a line too
        #expect(e?.line == 3 && e?.column == 1)

        e = jsonError("\u{FEFF}[1 2]")  // the byte-order mark is not a column
        #expect(e?.line == 1 && e?.column == 4)

        e = jsonError(#"["abc"#)
        #expect(e?.line == 1 && e?.column == 2)
        #expect(e?.message.contains("unterminated") == true)

        e = jsonError("[01]")
        #expect(e?.column == 2)
        e = jsonError("{} x")
        #expect(e?.column == 4)
        e = jsonError("[1.]")
        #expect(e?.column == 4)
        e = jsonError("[1e]")
        #expect(e?.column == 4)
        e = jsonError("[-]")
        #expect(e?.column == 3)
        e = jsonError("[1,]")
        #expect(e?.column == 4)
        e = jsonError(#"{"a" 1}"#)
        #expect(e?.column == 6)
        e = jsonError("[\"a\u{01}\"]")
        #expect(e?.column == 4)
        e = jsonError(#"["\x"]"#)
        #expect(e?.column == 3)
        e = jsonError("[1,\n\n   ")
        #expect(e?.line == 3 && e?.column == 4)
        #expect(e?.message.contains("end of input") == true)
    }

    @Test func rejectsWhatJSONDoesNotAllow() {
        for text in [
            "", "   ", "\u{FEFF}", "NaN", "[NaN]", "[Infinity]", "[-Infinity]", "[1e400]", "[-1e309]", "[+1]", "[.5]",
            "[0x10]", "[1 2]", "{'a':1}", "{\"a\":1 \"b\":2}", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
            "[\"\\u12\"]", "[tru]", "[nul]", "{\"a\"}", "{1:2}", "[1]]", "[[1]", "\"\u{7F}", "[,1]",
        ] {
            let e = jsonError(text)
            #expect(e?.format == "JSON", "\(text)")
            #expect(e?.line != nil && e?.column != nil, "\(text)")
        }
        #expect(jsonError("")?.message.contains("empty") == true)
        #expect(jsonError("[NaN]")?.message.contains("NaN") == true)
        #expect(jsonError("[1e400]")?.message.contains("range") == true)
        // Invalid UTF-8 inside a string.
        #expect(throws: FormatError.self) { try JSONValue.decode(Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test func boundsNesting() throws {
        let ok =
            String(repeating: "[", count: JSONScanner.maxDepth) + String(repeating: "]", count: JSONScanner.maxDepth)
        #expect(throws: Never.self) { try JSONValue.decode(Data(ok.utf8)) }
        let tooDeep =
            String(repeating: "[", count: JSONScanner.maxDepth + 1)
            + String(repeating: "]", count: JSONScanner.maxDepth + 1)
        #expect(jsonError(tooDeep)?.message.contains("nesting") == true)
        // Hostile input: far deeper than any stack could recurse.
        let hostile = String(repeating: "[{\"a\":", count: 200_000)
        // `[{"a":` is 6 characters and opens 2 levels: level 513 is the `[` of the 257th repetition.
        let e = jsonError(hostile)
        #expect(e?.message.contains("nesting") == true)
        #expect(e?.line == 1 && e?.column == 256 * 6 + 1)
    }

    @Test func surrogatesAndUnicode() throws {
        #expect(try JSONValue.decode(Data(#"["\ud83d\ude00\u00e9\u0000"]"#.utf8)) == ["😀é\u{0}"])
        #expect(try JSONValue.decode(Data("[\"😀é\"]".utf8)) == ["😀é"])
        #expect(try JSONValue.decode(Data("\u{FEFF} {\"a\":1} ".utf8)) == ["a": 1])
    }
}
