/// Why a feature source could not be read or a feature table could not be written. Every case names the source or
/// destination (a PostGIS connection string with its password replaced by `***`) and, where known, the table and the
/// feature; the description is one line.
public enum FeatureDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The source cannot be opened: it does not exist, cannot be read, is not a format this module reads, or is
    /// corrupt (GDAL's own diagnosis is in `reason`).
    case cannotOpen(source: String, reason: String)
    /// A PostGIS database could not be reached; `reason` is the server's or libpq's message.
    case connectionFailed(source: String, reason: String)
    /// The source has no table (layer) of that name; `available` lists the ones it has.
    case noSuchTable(source: String, table: String, available: [String])
    /// The source has several tables and none was chosen; `tables` lists them.
    case severalTables(source: String, tables: [String])
    /// The source has no table at all.
    case noTables(source: String)
    /// A feature cannot be read (a corrupt record, a geometry Meridian cannot hold, a value out of range).
    case unreadableFeature(source: String, table: String, feature: Int?, reason: String)
    /// The destination cannot hold what was asked (a shapefile with several geometry types, a field type the format
    /// lacks, a file beyond the format's size limit); refused before anything is written.
    case unsupportedByFormat(format: String, destination: String, reason: String)
    /// Writing failed; nothing was left at the destination.
    case cannotWrite(destination: String, table: String?, reason: String)
    /// A limit of ``FeatureDataLimits`` was reached.
    case limitExceeded(source: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let source, let reason):
            "\(source): cannot open: \(reason)"
        case .connectionFailed(let source, let reason):
            "\(source): cannot connect: \(reason)"
        case .noSuchTable(let source, let table, let available):
            "\(source): no layer named '\(table)'; "
                + (available.isEmpty ? "it has none" : "it has " + FeatureDataError.list(available))
        case .severalTables(let source, let tables):
            "\(source) has \(tables.count) layers: choose one with --layer (\(FeatureDataError.list(tables)))"
        case .noTables(let source):
            "\(source): no layer with features"
        case .unreadableFeature(let source, let table, let feature, let reason):
            "\(source), layer '\(table)'\(feature.map { ", feature \($0)" } ?? ""): \(reason)"
        case .unsupportedByFormat(let format, let destination, let reason):
            "\(destination): a \(format) cannot hold this: \(reason)"
        case .cannotWrite(let destination, let table, let reason):
            "\(destination)\(table.map { ", layer '\($0)'" } ?? ""): cannot write: \(reason)"
        case .limitExceeded(let source, let reason):
            "\(source): \(reason)"
        }
    }

    /// Names in quotes, at most 20 of them ("… and 5 more").
    static func list(_ names: [String]) -> String {
        let shown = names.prefix(20).map { "'\($0)'" }.joined(separator: ", ")
        return names.count > 20 ? "\(shown) and \(names.count - 20) more" : shown
    }
}
