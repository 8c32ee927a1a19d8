import Foundation

/// GEOS/JTS XMLTester files (`Tests/Fixtures/geos_xml/README.md`): runs of cases, each with WKT inputs `a`
/// (and `b`) and tests `<op name=… arg1=… arg2=… arg3=…>expected</op>`.
struct XMLTestFile {
    struct Operation {
        /// Lower-cased attribute names → values (attribute names are case-insensitive in the format).
        let attributes: [String: String]
        /// The expected result: WKT, or `true`/`false`.
        let expected: String
        var name: String { attributes["name"] ?? "" }
    }

    struct Case {
        let index: Int
        let description: String
        let a: String
        let b: String?
        let operations: [Operation]
    }

    /// The run's precision model: `nil` for floating, else the fixed-precision scale.
    let scale: Double?
    let cases: [Case]

    init(_ text: String) {
        // Comments may hold commented-out elements (`<!--precisionModel scale=…/-->`): drop them first.
        let source = text.replacingOccurrences(of: "<!--[\\s\\S]*?-->", with: "", options: .regularExpression)
        if let pm = XMLTestFile.firstMatch("<precisionModel([^>]*)>", in: source)?[1] {
            let attributes = XMLTestFile.attributes(pm)
            scale = attributes["type"]?.uppercased() == "FLOATING" ? nil : attributes["scale"].flatMap(Double.init)
        } else {
            scale = nil
        }
        var cases: [Case] = []
        for (index, match) in XMLTestFile.matches("<case>([\\s\\S]*?)</case>", in: source).enumerated() {
            let body = match[1]
            let description = XMLTestFile.firstMatch("<desc>([\\s\\S]*?)</desc>", in: body)?[1] ?? ""
            let a = XMLTestFile.firstMatch("<a>([\\s\\S]*?)</a>", in: body)?[1] ?? ""
            let b = XMLTestFile.firstMatch("<b>([\\s\\S]*?)</b>", in: body)?[1]
            let operations = XMLTestFile.matches("<op\\s([^>]*)>([\\s\\S]*?)</op>", in: body).map {
                Operation(attributes: XMLTestFile.attributes($0[1]), expected: $0[2].trimmingCharacters(in: .whitespacesAndNewlines))
            }
            cases.append(Case(index: index + 1, description: description.trimmingCharacters(in: .whitespacesAndNewlines),
                              a: a.trimmingCharacters(in: .whitespacesAndNewlines),
                              b: b?.trimmingCharacters(in: .whitespacesAndNewlines), operations: operations))
        }
        self.cases = cases
    }

    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for m in matches("([A-Za-z0-9_]+)\\s*=\\s*(['\"])(.*?)\\2", in: text) {
            result[m[1].lowercased()] = m[3]
        }
        return result
    }

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (0..<m.numberOfRanges).map { m.range(at: $0).location == NSNotFound ? "" : ns.substring(with: m.range(at: $0)) }
        }
    }

    static func firstMatch(_ pattern: String, in text: String) -> [String]? { matches(pattern, in: text).first }
}
