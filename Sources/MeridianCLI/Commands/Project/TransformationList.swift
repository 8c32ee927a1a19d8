import Foundation
import Meridian
import MeridianIO

/// The datum transformations PROJ knows from one spatial reference to another, numbered, most suitable first: what
/// `project --list-transformations` prints and `--transformation N|NAME` chooses from.
struct TransformationList {
    /// `--from`.
    let source: SpatialReference
    /// `--to`.
    let target: SpatialReference
    /// The transformations, in PROJ's order.
    let candidates: [DatumTransformation]

    /// Asks PROJ for the transformations.
    /// - Throws: `CommandError.failure` when PROJ cannot list them.
    init(from source: SpatialReference, to target: SpatialReference) throws(CommandError) {
        self.source = source
        self.target = target
        candidates = try engine { () throws(EngineError) in try GeometryEngine.transformations(from: source, to: target) }
    }

    /// The transformation `text` names: its 1-based number in the list, or its exact name.
    /// - Throws: `CommandError.usage` when there is none such, `.failure` when it needs a grid that is not installed.
    func choose(_ text: String) throws(CommandError) -> DatumTransformation {
        let found: DatumTransformation?
        if let n = Int(text), text.allSatisfy({ $0.isASCII }) {
            found = n >= 1 && n <= candidates.count ? candidates[n - 1] : nil
        } else {
            found = candidates.first { $0.name == text }
        }
        guard let found else {
            throw .usage("no transformation '\(text)' from \(source.name) to \(target.name) (there are \(candidates.count); list them with --list-transformations)")
        }
        guard found.isAvailable else {
            throw .failure("transformation '\(text)', \(found.name), needs a grid file that is not installed under PROJ_DATA")
        }
        return found
    }

    /// Prints the list: numbered text, or a JSON array with `json`.
    /// - Throws: `CommandError.failure` when the JSON cannot be encoded.
    func print(json: Bool, io: CommandIO) throws(CommandError) {
        if json {
            try printJSON(io: io)
            return
        }
        guard !candidates.isEmpty else {
            io.print("no transformation from \(source.name) to \(target.name)")
            return
        }
        var lines: [String] = []
        for (i, t) in candidates.enumerated() {
            let accuracy = t.accuracy.map { "accuracy \($0) m" } ?? "accuracy unknown (ballpark)"
            let state = t.isAvailable ? "available" : "needs a grid that is not installed"
            // Area names run to hundreds of characters (every state of the CONUS): the start, and --json for all.
            let area = t.areaOfUse.map { a in
                "; area of use: " + (a.name.count > 80 ? a.name.prefix(79) + "…" : a.name)
            } ?? ""
            lines.append("\(i + 1). \(t.name)\n   \(accuracy); \(state)\(area)\n   \(t.pipeline)")
        }
        io.print(lines.joined(separator: "\n"))
    }

    /// One transformation as `--json` writes it: unknown accuracy and area as null, not left out.
    private struct Listed: Encodable {
        let number: Int, name: String, accuracy: Double?, available: Bool, pipeline: String, areaOfUse: AreaOfUse?
        enum CodingKeys: CodingKey { case number, name, accuracy, available, pipeline, areaOfUse }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(number, forKey: .number)
            try c.encode(name, forKey: .name)
            try c.encode(accuracy, forKey: .accuracy)
            try c.encode(available, forKey: .available)
            try c.encode(pipeline, forKey: .pipeline)
            try c.encode(areaOfUse, forKey: .areaOfUse)
        }
    }

    private func printJSON(io: CommandIO) throws(CommandError) {
        let listed = candidates.enumerated().map { i, t in
            Listed(number: i + 1, name: t.name, accuracy: t.accuracy, available: t.isAvailable,
                   pipeline: t.pipeline, areaOfUse: t.areaOfUse)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(listed) else { throw .failure("could not encode JSON") }
        io.output(data + Data("\n".utf8))
    }
}
