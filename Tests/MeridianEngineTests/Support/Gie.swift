import Foundation

/// One command of PROJ's `gie` test language (see `Tests/Fixtures/proj_gie/gie_format_doc.rst`).
struct GieCommand {
    /// 1-based line of the command word.
    let line: Int
    /// `operation`, `accept`, `expect`, `tolerance`, `direction`, `roundtrip`, …
    let name: String
    /// Everything after the command word, continuation lines joined with spaces, comments removed.
    let arguments: String
}

enum Gie {
    static let commands: Set<String> = [
        "operation", "accept", "expect", "tolerance", "direction", "roundtrip", "ignore", "require_grid",
        "use_proj4_init_rules", "echo", "skip", "builtins", "crs_src", "crs_dst",
    ]

    /// The commands between `<gie>`/`<gie-strict>` and the closing tag. A command starts with a command word in
    /// column 1; it continues on lines that start with white space or after a line ending in `\`; any other line
    /// (rules of dashes, prose) ends it. `#` starts a comment.
    static func parse(_ text: String) -> [GieCommand] {
        var result: [GieCommand] = []
        var inside = false
        var current: (line: Int, name: String, arguments: String)?
        var continues = false
        func flush() {
            if let c = current { result.append(GieCommand(line: c.line, name: c.name, arguments: c.arguments)) }
            current = nil
            continues = false
        }
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if rawLine.contains("</gie") {
                flush()
                inside = false
                continue
            }
            if rawLine.contains("<gie") {
                inside = true
                continue
            }
            guard inside else { continue }
            var line = String(rawLine)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            var endsWithBackslash = false
            let trimmedRight = line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            if trimmedRight.hasSuffix("\\") {
                endsWithBackslash = true
                line = String(trimmedRight.dropLast())
            }
            let startsWithSpace = line.first.map { $0 == " " || $0 == "\t" } ?? false
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if current != nil, continues || (startsWithSpace && !words.isEmpty) {
                current?.arguments += " " + words.joined(separator: " ")
                continues = endsWithBackslash
                continue
            }
            flush()
            guard let first = words.first, !startsWithSpace, commands.contains(String(first)) else { continue }
            current = (index + 1, String(first), words.dropFirst().joined(separator: " "))
            continues = endsWithBackslash
        }
        flush()
        return result
    }

    /// A gie tolerance such as `0.1 mm`, `50 nm`, `1cm`, `3e8` (no unit: metres, as gie reads it), in metres.
    static func tolerance(_ text: String) -> Double? {
        let t = text.replacingOccurrences(of: " ", with: "")
        let units: [(String, Double)] = [("km", 1e3), ("dm", 0.1), ("cm", 0.01), ("mm", 1e-3), ("um", 1e-6), ("nm", 1e-9), ("m", 1)]
        for (suffix, scale) in units where t.hasSuffix(suffix) {
            return Double(t.dropLast(suffix.count)).map { $0 * scale }
        }
        return Double(t)
    }

    /// The numbers of an `accept`/`expect` line: decimals (with `_` as thousands separator) or DMS angles.
    static func coordinates(_ text: String) -> [Double]? {
        let values = text.split(separator: " ").map { parseAngle($0.replacingOccurrences(of: "_", with: "")) }
        guard values.count >= 2, values.allSatisfy({ $0 != nil }) else { return nil }
        return values.compactMap { $0 }
    }
}
