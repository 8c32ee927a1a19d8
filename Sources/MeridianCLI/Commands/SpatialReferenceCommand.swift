import Foundation
import Meridian

/// `meridian srs SRS [--json]`: describes a spatial reference as PROJ's database knows it.
public enum SpatialReferenceCommand: Command {
    /// The subcommand name.
    public static let name = "srs"
    /// One line for `meridian --help`.
    public static let summary = "describe a spatial reference: name, unit, area of use"
    /// The `--help` text.
    public static let help = """
        Usage: meridian srs SRS [--json]

        Describes a spatial reference: its name, whether it is projected or geographic, its unit with the exact
        meters per unit, its ellipsoid and its area of use (a WGS84 box and a name), as PROJ's database records them.

        SRS      EPSG:n, ESRI:n, a bare number (EPSG, then ESRI), WKT, or a PROJ string (+proj=...)
        --json   print a JSON object: name, definition, wkid, isProjected, isGeographic, unit, metersPerUnit,
                 ellipsoid {semiMajorAxis, inverseFlattening}, areaOfUse {west, south, east, north, name}

        Example: meridian srs EPSG:32038
        """

    /// The JSON shape of `--json`.
    struct Description: Encodable {
        struct Area: Encodable {
            let west, south, east, north: Double
            let name: String
        }
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
        let areaOfUse: Area?
    }

    /// Looks the spatial reference up and prints its description (text, or JSON with `--json`).
    /// - Throws: `CommandError.usage` for bad options, `.failure` for an unknown spatial reference.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        let json = arguments.flag("--json")
        let positionals = try arguments.finish(maximumPositionals: 1)
        guard let text = positionals.first else { throw .usage("missing SRS (e.g. EPSG:32038)") }
        let sr = try parseSpatialReference(text)
        let unitName = sr.unit?.name ?? (sr.isGeographic ? "degree" : "unknown")
        let f = sr.ellipsoid.flattening
        let description = Description(
            name: sr.name, definition: sr.definition, wkid: sr.wkid, isProjected: sr.isProjected,
            isGeographic: sr.isGeographic, unit: unitName, metersPerUnit: sr.unit?.metersPerUnit,
            ellipsoid: .init(semiMajorAxis: sr.ellipsoid.semiMajorAxis, inverseFlattening: f == 0 ? 0 : 1 / f),
            areaOfUse: sr.areaOfUse.map { .init(west: $0.west, south: $0.south, east: $0.east, north: $0.north, name: $0.name) })
        if json {
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
}

/// Parses a spatial reference given on the command line, turning engine errors into usage errors.
func parseSpatialReference(_ text: String) throws(CommandError) -> SpatialReference {
    do { return try SpatialReference(parsing: text) } catch { throw .usage(error.description) }
}
