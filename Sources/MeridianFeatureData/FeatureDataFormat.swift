import MeridianCore

/// The formats this module reads and writes through GDAL/OGR, beside the GeoJSON, CSV, WKT and KML that Meridian
/// reads and writes itself.
public enum FeatureDataFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An OGC GeoPackage (`.gpkg`): an SQLite database with the GeoPackage application id; several tables.
    case geoPackage = "GeoPackage"
    /// An Esri shapefile (`.shp` with its `.shx`, `.dbf` and optional `.prj` and `.cpg`), or such files in a zip
    /// archive; one table per `.shp`.
    case shapefile = "Shapefile"
    /// A FlatGeobuf file (`.fgb`); one table.
    case flatGeobuf = "FlatGeobuf"
    /// A PostgreSQL database with PostGIS, named by a connection string `PG:"dbname=… host=… …"`; several tables.
    case postGIS = "PostGIS"

    /// The format's name, e.g. "GeoPackage".
    public var description: String { rawValue }

    /// Everything the rest of Meridian needs to know about a format, stated once: the command line's input
    /// recognition (`InputFormat`) and output (`OutputFormat`) derive their handling of every format from it.
    public struct Declaration: Sendable {
        /// The file name extension written and recognised on output, without the dot (`nil`: named otherwise).
        public let fileExtension: String?
        /// The GDAL driver that reads and writes the format; the only one allowed to open its sources.
        let driverName: String
        /// How a file is recognised by its first bytes (never by its name); `nil` for a format that is not a file.
        let signature: Signature?
        /// Whether a source is a container of tables (a GeoPackage, a database), so a message names the table beside
        /// the source; a file that is its one table (a shapefile, even one of a zip, a FlatGeobuf) is named alone.
        public let holdsSeveralTables: Bool
        /// How an output message names it, e.g. "a GeoPackage".
        public let outputName: String
        /// How the help and messages name it in a list of formats, e.g. "GeoPackage", "shapefile".
        public let listName: String
        /// How the input help names a source of it, e.g. "a shapefile's .shp (or a zip of shapefiles)".
        public let inputName: String
        /// How a message names a source of it that can hold several layers (tables) to choose from with `--layer`,
        /// e.g. "a zip of shapefiles"; `nil` when a source is always one table.
        public let layeredSourceName: String?
        /// How the reader's refusal of an unrecognised file names it, e.g. "Shapefile (.shp)"; `nil` for a format
        /// that is not a file.
        let recognizedName: String?
        /// Whether an output keeps the layer name it is given (`--output-layer`); a shapefile's is its file's name.
        public let keepsLayerName: Bool
        /// Whether an output's path cannot name its table, so the layer must be named (`--layer`).
        public let needsLayerName: Bool
        /// The driver's open options, reading or writing.
        let openOptions: [String]
        /// The open options added when the source is only read.
        let readOnlyOpenOptions: [String]
        /// The driver's layer creation options, given the geometry and feature id columns' names and whether a
        /// spatial index is asked for.
        let layerOptions: @Sendable (_ geometryColumn: String, _ fidColumn: String, _ spatialIndex: Bool) -> [String]
    }

    /// How a file is recognised by its first bytes: the least it needs and a test of them.
    struct Signature: Sendable {
        /// How many bytes the test needs; a shorter file is not the format.
        let minimumLength: Int
        /// Whether the first bytes (at least `minimumLength`, at most ``headerLength``) are the format's.
        let matches: @Sendable ([UInt8]) -> Bool
    }

    /// The format's declaration: to add a format GDAL reads and writes, add a case above and its declaration here.
    public var declaration: Declaration {
        switch self {
        case .geoPackage:
            // The SQLite header and the GeoPackage application id (GPKG, or GP10/GP11 of 1.0 and 1.1) at byte 68.
            Declaration(fileExtension: "gpkg", driverName: "GPKG", signature: Signature(minimumLength: 72) { h in
                h.starts(with: Array("SQLite format 3\0".utf8))
                    && ["GPKG", "GP10", "GP11"].contains(String(decoding: h[68..<72], as: UTF8.self))
            }, holdsSeveralTables: true, outputName: "a GeoPackage", listName: "GeoPackage", inputName: "a GeoPackage",
            layeredSourceName: "a GeoPackage", recognizedName: "GeoPackage", keepsLayerName: true, needsLayerName: false,
            // Only the tables of its gpkg_contents; read-only, SQLite's trusted_schema off (no SQL functions from
            // the file's views or triggers).
            openOptions: ["LIST_ALL_TABLES=NO"], readOnlyOpenOptions: ["PRELUDE_STATEMENTS=PRAGMA trusted_schema=OFF"],
            layerOptions: { geometry, fid, _ in ["GEOMETRY_NAME=\(geometry)", "FID=\(fid)", "SPATIAL_INDEX=YES"] })
        case .shapefile:
            // The `.shp` file code 9994 (big-endian) and version 1000 (little-endian).
            Declaration(fileExtension: "shp", driverName: "ESRI Shapefile", signature: Signature(minimumLength: 100) { h in
                h[0..<4] == [0x00, 0x00, 0x27, 0x0A] && h[28..<32] == [0xE8, 0x03, 0x00, 0x00]
            }, holdsSeveralTables: false, outputName: "a shapefile", listName: "shapefile",
            inputName: "a shapefile's .shp (or a zip of shapefiles)", layeredSourceName: "a zip of shapefiles",
            recognizedName: "Shapefile (.shp)", keepsLayerName: false, needsLayerName: false,
            openOptions: [], readOnlyOpenOptions: [],
            layerOptions: { _, _, _ in ["ENCODING=UTF-8", "SPATIAL_INDEX=NO", "2GB_LIMIT=YES"] })
        case .flatGeobuf:
            // The magic bytes `fgb`, a major version of 3, `fgb` and a patch version. Its buffers are verified on
            // reading; no spatial index unless asked (GDAL then writes features to a temporary file and the whole
            // file again at close).
            Declaration(fileExtension: "fgb", driverName: "FlatGeobuf", signature: Signature(minimumLength: 8) { h in
                h[0..<3] == [0x66, 0x67, 0x62] && h[3] == 3 && h[4..<7] == [0x66, 0x67, 0x62]
            }, holdsSeveralTables: false, outputName: "a FlatGeobuf", listName: "FlatGeobuf", inputName: "a FlatGeobuf",
            layeredSourceName: nil, recognizedName: "FlatGeobuf", keepsLayerName: true, needsLayerName: false,
            openOptions: ["VERIFY_BUFFERS=YES"], readOnlyOpenOptions: [],
            layerOptions: { _, _, index in [index ? "SPATIAL_INDEX=YES" : "SPATIAL_INDEX=NO"] })
        case .postGIS:
            // Named by a `PG:` connection string, which names a database, not a table; only tables with geometry.
            Declaration(fileExtension: nil, driverName: "PostgreSQL", signature: nil,
                        holdsSeveralTables: true, outputName: "a PostGIS table", listName: "PostGIS",
                        inputName: "a PostGIS database PG:\"dbname=… host=…\"", layeredSourceName: "a PostGIS database",
                        recognizedName: nil, keepsLayerName: true, needsLayerName: true,
                        openOptions: ["LIST_ALL_TABLES=NO"], readOnlyOpenOptions: [],
                        layerOptions: { geometry, fid, _ in
                            ["GEOMETRY_NAME=\(geometry)", "FID=\(fid)", "LAUNDER=NO", "PRECISION=NO", "SPATIAL_INDEX=GIST"]
                        })
        }
    }

    /// The formats that are files (recognised by their first bytes), in declaration order.
    public static var files: [FeatureDataFormat] { allCases.filter { $0.declaration.signature != nil } }

    /// The formats that are databases, named by a connection string (PostGIS).
    public static var databases: [FeatureDataFormat] { allCases.filter { $0.declaration.signature == nil } }

    /// "a GeoPackage, a zip of shapefiles or a PostGIS database": the sources that can hold several layers, as the
    /// messages about `--layer` name them.
    public static var layeredSources: String {
        MessageText.list(allCases.compactMap { $0.declaration.layeredSourceName }, conjunction: "or")
    }

    /// The file name extension written, without the dot (`nil` for PostGIS).
    public var fileExtension: String? { declaration.fileExtension }

    /// The GDAL driver that reads and writes the format; the only one allowed to open its sources.
    var driverName: String { declaration.driverName }

    /// How many leading bytes ``recognize(header:)`` needs to see.
    public static let headerLength = 100

    /// Recognises a file by its first bytes, never by its name, with each format's declared signature: a GeoPackage
    /// by the SQLite header and the GeoPackage application id (`GPKG`, or `GP10`/`GP11` of GeoPackage 1.0 and 1.1) at
    /// byte 68; a shapefile's `.shp` by its file code 9994 (big-endian) and version 1000 (little-endian); a FlatGeobuf
    /// by its magic bytes `fgb`, a major version of 3, `fgb` and a patch version. A zip archive (a zipped shapefile)
    /// is not recognised here: see ``FeatureDataSource``.
    /// - Parameter header: The file's first ``headerLength`` bytes (or all of a shorter file).
    /// - Returns: The format, or `nil` for anything else.
    public static func recognize(header: some Collection<UInt8>) -> FeatureDataFormat? {
        let h = Array(header.prefix(headerLength))
        return allCases.first { format in
            guard let signature = format.declaration.signature else { return false }
            return h.count >= signature.minimumLength && signature.matches(h)
        }
    }

    /// The format of a source this module reads, recognised as ``FeatureDataSource`` does: a `PG:` string is PostGIS,
    /// a file is recognised by its first bytes (``recognize(header:)``), a zip archive that holds a `.shp` is a
    /// shapefile (its directory is listed; nothing is inflated). `nil` for anything else, or a file that cannot be read.
    /// - Parameter path: A file path or a `PG:` connection string.
    public static func recognize(source path: String) -> FeatureDataFormat? {
        if PostGISConnection.isConnectionString(path) { return .postGIS }
        guard let file = try? LocatedSource.fileName(path), let header = try? LocatedSource.readHeader(path) else { return nil }
        if let format = recognize(header: header) { return format }
        guard header.starts(with: [0x50, 0x4B, 0x03, 0x04]) else { return nil }
        let names = LocatedSource.zipListing(file, maximumEntries: FeatureDataLimits.default.maximumZipEntries).names
        return names.contains { $0.lowercased().hasSuffix(".shp") } ? .shapefile : nil
    }

    /// Whether the first bytes are those of an SQLite database that is not a GeoPackage (a SpatiaLite or plain
    /// SQLite file), for a message that says so.
    /// - Parameter header: The file's first bytes.
    public static func isPlainSQLite(header: some Collection<UInt8>) -> Bool {
        Array(header.prefix(16)) == Array("SQLite format 3\0".utf8) && recognize(header: header) == nil
    }

    /// The format an output path names by its extension (`.gpkg`, `.shp`, `.fgb`, case-insensitive) or its `PG:`
    /// prefix; `nil` for any other name.
    /// - Parameter path: An output file path or a `PG:` connection string.
    public static func forOutput(_ path: String) -> FeatureDataFormat? {
        if PostGISConnection.isConnectionString(path) { return .postGIS }
        let lower = path.lowercased()
        for format in allCases {
            if let ext = format.fileExtension, lower.hasSuffix("." + ext) { return format }
        }
        return nil
    }
}
