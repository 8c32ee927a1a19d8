import CGDAL
import Foundation
import MeridianCore

/// Any source of feature tables this module reads, recognised by its content rather than its name: a GeoPackage, a
/// shapefile (`.shp`, or a zip archive holding shapefiles), a FlatGeobuf, or a PostGIS database named by a
/// `PG:"dbname=… "` connection string. The tables are listed at once; each is opened on demand.
///
/// GDAL opens the source with exactly the one driver of the recognised format, reads nothing but the file named and
/// its sidecar files (a shapefile's `.shx`, `.dbf`, `.prj`, `.cpg`) and never prints (see the article "Reading and
/// writing feature data" of MeridianFeatureData's documentation).
public final class FeatureDataSource {
    let dataset: GDALDataset
    let limits: FeatureDataLimits

    /// The format of the source.
    public var format: FeatureDataFormat { dataset.location.format }
    /// How messages name the source: its path, or the connection string without its password.
    public var name: String { dataset.location.displayName }
    /// Whether the source is a zip archive of shapefiles.
    public var isZipped: Bool { dataset.location.isZipped }
    /// The names of its tables (layers), in the source's order.
    public let tableNames: [String]

    /// Opens a source.
    /// - Parameters:
    ///   - path: A file path (GeoPackage, `.shp`, zip archive of shapefiles, FlatGeobuf) or a `PG:` connection string.
    ///   - limits: Bounds on what the source may hold (default ``FeatureDataLimits/default``).
    /// - Throws: `FeatureDataError.cannotOpen` (missing, not one of the formats, corrupt),
    ///   `.connectionFailed`, or `.limitExceeded` for more tables than the limits allow.
    public init(path: String, limits: FeatureDataLimits = .default) throws(FeatureDataError) {
        let location = try LocatedSource.locate(path, limits: limits)
        let dataset = try GDALDataset(opening: location)
        self.dataset = dataset
        self.limits = limits
        let names = GDALRuntime.capturing { _ in dataset.layerNames(limit: limits.maximumTables) }
        guard names.count <= limits.maximumTables else {
            throw .limitExceeded(source: location.displayName,
                                 reason: "more than \(limits.maximumTables) layers (the limit)")
        }
        // A FlatGeobuf is one layer by definition: GDAL opens one whose header it cannot read with none.
        if location.format == .flatGeobuf, names.isEmpty {
            throw .cannotOpen(source: location.displayName, reason: "its header cannot be read (the file is cut short or corrupt)")
        }
        tableNames = names
    }

    /// Opens a file source (see ``init(path:limits:)``).
    /// - Parameters:
    ///   - fileURL: A local file.
    ///   - limits: Bounds on what the source may hold.
    public convenience init(fileURL: URL, limits: FeatureDataLimits = .default) throws(FeatureDataError) {
        try self.init(path: fileURL.path, limits: limits)
    }

    /// The table of that name; or, for `nil`, the source's only table.
    /// - Parameter name: A table name exactly as ``tableNames`` lists it, or `nil`.
    /// - Throws: `FeatureDataError.noSuchTable` listing the tables there are, `.severalTables` when `name` is `nil`
    ///   and there are several, `.noTables` when there are none.
    public func featureTable(named name: String?) throws(FeatureDataError) -> FeatureTable {
        let chosen: String
        if let name {
            chosen = name
        } else {
            guard let only = tableNames.first else { throw .noTables(source: self.name) }
            guard tableNames.count == 1 else { throw .severalTables(source: self.name, tables: tableNames) }
            chosen = only
        }
        guard let layer = dataset.layer(named: chosen, among: tableNames) else {
            throw .noSuchTable(source: self.name, table: chosen, available: tableNames)
        }
        switch format {
        case .geoPackage: return try GeoPackageFeatureTable(dataset: dataset, layer: layer, limits: limits)
        case .shapefile:
            let table = try ShapefileFeatureTable(dataset: dataset, layer: layer, limits: limits)
            try checkAttributes(of: table)
            return table
        case .flatGeobuf: return try FlatGeobufFeatureTable(dataset: dataset, layer: layer, limits: limits)
        default:  // PostGIS and any other declared format: the driver-neutral table
            return try FeatureTable(dataset: dataset, layer: layer, limits: limits)
        }
    }

    /// GDAL opens a shapefile whose `.dbf` it cannot read (a corrupt header) as if it had no attributes, without a
    /// word: a `.dbf` beside the `.shp` must give fields.
    private func checkAttributes(of table: FeatureTable) throws(FeatureDataError) {
        guard table.fields.isEmpty, !isZipped else { return }
        let base = URL(fileURLWithPath: name).deletingPathExtension()
        let fm = FileManager.default
        guard let dbf = ["dbf", "DBF"].map({ base.appendingPathExtension($0) }).first(where: { fm.fileExists(atPath: $0.path) })
        else { return }
        throw .cannotOpen(source: name, reason: "\(dbf.lastPathComponent) gives no fields: its header is corrupt or it is not a dBase file")
    }

    /// Every table of the source.
    /// - Throws: As ``featureTable(named:)``.
    public func featureTables() throws(FeatureDataError) -> [FeatureTable] {
        var tables: [FeatureTable] = []
        for name in tableNames { tables.append(try featureTable(named: name)) }
        return tables
    }
}

/// A GeoPackage file (ArcGIS's `GeoPackage`): its feature tables.
public final class GeoPackage {
    /// The opened source.
    public let source: FeatureDataSource
    /// The feature tables, in the order of `gpkg_contents` (ArcGIS's `geoPackageFeatureTables`).
    public let geoPackageFeatureTables: [GeoPackageFeatureTable]
    /// The file.
    public let fileURL: URL

    /// Opens a GeoPackage.
    /// - Parameters:
    ///   - fileURL: The `.gpkg` file (recognised by its content).
    ///   - limits: Bounds on what it may hold.
    /// - Throws: `FeatureDataError.cannotOpen` when the file is missing, corrupt, or not a GeoPackage.
    public init(fileURL: URL, limits: FeatureDataLimits = .default) throws(FeatureDataError) {
        let source = try FeatureDataSource(fileURL: fileURL, limits: limits)
        guard source.format == .geoPackage else {
            throw .cannotOpen(source: fileURL.path, reason: "a \(source.format), not a GeoPackage")
        }
        var tables: [GeoPackageFeatureTable] = []
        for name in source.tableNames {
            if let table = try source.featureTable(named: name) as? GeoPackageFeatureTable { tables.append(table) }
        }
        self.source = source
        self.fileURL = fileURL
        geoPackageFeatureTables = tables
    }
}

/// A feature table of a GeoPackage (ArcGIS's `GeoPackageFeatureTable`); get it from
/// ``GeoPackage/geoPackageFeatureTables``.
public final class GeoPackageFeatureTable: FeatureTable {}

/// A shapefile's features (ArcGIS's `ShapefileFeatureTable`): the `.shp` with its `.shx`, `.dbf`, and optional `.prj`
/// (the spatial reference) and `.cpg` (the `.dbf`'s encoding).
public final class ShapefileFeatureTable: FeatureTable {
    /// Opens a shapefile.
    /// - Parameters:
    ///   - fileURL: The `.shp` file, or a zip archive holding exactly one shapefile.
    ///   - limits: Bounds on what it may hold.
    /// - Throws: `FeatureDataError.cannotOpen` when the file or its `.shx` is missing or corrupt, or it is not a
    ///   shapefile; `.severalTables` for an archive of several.
    public convenience init(fileURL: URL, limits: FeatureDataLimits = .default) throws(FeatureDataError) {
        let table = try FeatureTable.onlyTable(of: fileURL, format: .shapefile, limits: limits)
        try self.init(dataset: table.dataset, layer: table.layer, limits: limits)
    }
}

/// A FlatGeobuf file's features.
public final class FlatGeobufFeatureTable: FeatureTable {
    /// Opens a FlatGeobuf file.
    /// - Parameters:
    ///   - fileURL: The `.fgb` file (recognised by its content).
    ///   - limits: Bounds on what it may hold.
    /// - Throws: `FeatureDataError.cannotOpen` when the file is missing, corrupt, or not a FlatGeobuf.
    public convenience init(fileURL: URL, limits: FeatureDataLimits = .default) throws(FeatureDataError) {
        let table = try FeatureTable.onlyTable(of: fileURL, format: .flatGeobuf, limits: limits)
        try self.init(dataset: table.dataset, layer: table.layer, limits: limits)
    }
}

extension FeatureTable {
    /// The only table of a file that must be of one format, for the initialisers of ``ShapefileFeatureTable`` and
    /// ``FlatGeobufFeatureTable``.
    static func onlyTable(of fileURL: URL, format: FeatureDataFormat, limits: FeatureDataLimits)
        throws(FeatureDataError) -> FeatureTable
    {
        let source = try FeatureDataSource(fileURL: fileURL, limits: limits)
        guard source.format == format else {
            throw .cannotOpen(source: fileURL.path, reason: "a \(source.format), not a \(format)")
        }
        return try source.featureTable(named: nil)
    }
}
