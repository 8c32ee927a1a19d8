import Foundation
import Testing

/// Locates the reference data the tests read: `Tests/Fixtures` in the repository (provenance and licences in its
/// README and in each source's folder). A missing file fails the tests that need it, rather than letting them pass
/// by reading nothing.
enum ReferenceData {
    /// `Tests/Fixtures` (#filePath = <package>/Tests/MeridianEngineTests/Support/ReferenceData.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures", isDirectory: true)

    /// The text of a reference file, e.g. `text("stateplane/epsg_gn7-2_examples.csv")`.
    static func text(_ relativePath: String) throws -> String {
        let url = root.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MissingReference(path: url.path)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The files in a reference folder whose names end with `suffix`, sorted.
    static func files(in folder: String, suffix: String) throws -> [String] {
        let url = root.appendingPathComponent(folder, isDirectory: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { "\(folder)/\($0)" }
    }

    struct MissingReference: Error, CustomStringConvertible {
        let path: String
        var description: String { "reference file missing: \(path)" }
    }
}

/// Simple comma-separated rows with a header; fields contain no quoted commas in the reference CSVs we read
/// (checked: a row with the wrong number of fields throws).
struct CSVTable {
    let header: [String]
    let rows: [[String: String]]

    init(_ text: String) throws {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw CSVError(message: "empty CSV") }
        let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        self.header = header
        rows = try lines.map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == header.count else {
                throw CSVError(message: "\(fields.count) fields for \(header.count) columns: \(line)")
            }
            return Dictionary(uniqueKeysWithValues: zip(header, fields))
        }
    }

    struct CSVError: Error { let message: String }
}

/// Typed access to a CSV row's fields; a missing or unreadable field throws (failing the test).
extension Dictionary where Key == String, Value == String {
    func field(_ name: String) throws -> String {
        guard let v = self[name] else { throw CSVTable.CSVError(message: "no column \(name)") }
        return v
    }

    func number(_ name: String) throws -> Double {
        guard let v = Double(try field(name)) else { throw CSVTable.CSVError(message: "\(name) is not a number") }
        return v
    }

    func angle(_ name: String) throws -> Double {
        guard let v = parseAngle(try field(name)) else { throw CSVTable.CSVError(message: "\(name) is not an angle") }
        return v
    }
}

/// Sexagesimal angles as PROJ writes them: `-97d06'00.000`, `83d10'W`, `43d45'N`, `44d11'N`, `2D32`, or decimal
/// degrees. Returns `nil` for anything else.
func parseAngle(_ text: String) -> Double? {
    var s = Substring(text.trimmingCharacters(in: .whitespaces))
    var sign = 1.0
    if let last = s.last, "NSEWnsew".contains(last) {
        if "SWsw".contains(last) { sign = -1 }
        s = s.dropLast()
    }
    if s.hasPrefix("-") { sign = -sign; s = s.dropFirst() } else if s.hasPrefix("+") { s = s.dropFirst() }
    let parts = s.split(omittingEmptySubsequences: false) { $0 == "d" || $0 == "D" || $0 == "°" || $0 == "'" || $0 == "\"" }
    guard !parts.isEmpty, parts.count <= 4 else { return nil }
    var value = 0.0
    var scale = 1.0
    for (i, p) in parts.enumerated() {
        if p.isEmpty {
            guard i == parts.count - 1 else { return nil }
            continue
        }
        guard let v = Double(p) else { return nil }
        value += v / scale
        scale *= 60
    }
    return sign * value
}
