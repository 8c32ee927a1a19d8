import Foundation
import Meridian
import MeridianIO

/// `meridian srs SRS [--json]`: describes a spatial reference as PROJ's database knows it.
public struct SpatialReferenceCommand: Command {
    /// "srs".
    public static let name = "srs"
    /// One line for `meridian --help`.
    public static let summary = "describe a spatial reference: name, unit, area of use"
    /// What `--help` says before the options.
    public static let discussion = """
        Describes a spatial reference: its name, whether it is projected or geographic, its unit with the exact
        meters per unit, its ellipsoid and its area of use (a WGS84 box and a name), as PROJ's database records them.
        """
    /// Examples for `--help`.
    public static let examples = ["meridian srs EPSG:32038"]

    @Argument("SRS", as: .spatialReference, help: "EPSG:n, ESRI:n, a bare number (EPSG, then ESRI), WKT, or a PROJ string (+proj=...)")
    var spatialReference: SpatialReference

    @Flag("--json", help: "print a JSON object: name, definition, wkid, isProjected, isGeographic, unit, metersPerUnit, ellipsoid {semiMajorAxis, inverseFlattening}, areaOfUse {west, south, east, north, name}")
    var json: Bool

    /// A command with every option at its default.
    public init() {}

    /// The JSON shape of `--json`.
    struct Description: Encodable {
        struct EllipsoidFacts: Encodable {
            let semiMajorAxis: Double
            let inverseFlattening: Double
        }
        let name: String
        let definition: String
        let wkid: Int?
        let isProjected: Bool
        let isGeographic: Bool
        let unit: String
        let metersPerUnit: Double?
        let ellipsoid: EllipsoidFacts
        let areaOfUse: AreaOfUse?
    }

    /// Prints the description (text, or JSON with `--json`).
    /// - Throws: `CommandError.failure` when the JSON cannot be encoded.
    public func run(io: CommandIO) throws(CommandError) {
        let sr = spatialReference
        let f = sr.ellipsoid.flattening
        if json {
            let description = Description(
                name: sr.name, definition: sr.definition, wkid: sr.wkid, isProjected: sr.isProjected,
                isGeographic: sr.isGeographic, unit: unitName, metersPerUnit: sr.unit?.metersPerUnit,
                ellipsoid: .init(semiMajorAxis: sr.ellipsoid.semiMajorAxis, inverseFlattening: f == 0 ? 0 : 1 / f),
                areaOfUse: sr.areaOfUse)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(description) else { throw .failure("could not encode JSON") }
            io.output(data + Data("\n".utf8))
            return
        }
        var lines = ["name:        \(sr.name)", "definition:  \(sr.definition)",
                     "kind:        \(sr.kind.rawValue)"]
        if let unit = sr.unit {
            lines.append("unit:        \(unit.name) (\(unit.metersPerUnit) m)")
        } else {
            lines.append("unit:        \(unitName)")
        }
        lines.append("ellipsoid:   a = \(sr.ellipsoid.semiMajorAxis) m, 1/f = \(f == 0 ? 0 : 1 / f)")
        if let a = sr.areaOfUse {
            lines.append("area of use: W \(a.west), S \(a.south), E \(a.east), N \(a.north)")
            lines.append("             \(a.name)")
        } else {
            lines.append("area of use: unknown")
        }
        io.print(lines.joined(separator: "\n"))
    }

    /// The unit's name: "degree" for a geographic spatial reference without one.
    private var unitName: String {
        spatialReference.unit?.name ?? (spatialReference.isGeographic ? "degree" : "unknown")
    }
}
