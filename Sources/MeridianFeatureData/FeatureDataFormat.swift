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

    /// The file name extension written, without the dot (`nil` for PostGIS).
    public var fileExtension: String? {
        switch self {
        case .geoPackage: "gpkg"
        case .shapefile: "shp"
        case .flatGeobuf: "fgb"
        case .postGIS: nil
        }
    }

    /// The GDAL driver that reads and writes the format; the only one allowed to open its sources.
    var driverName: String {
        switch self {
        case .geoPackage: "GPKG"
        case .shapefile: "ESRI Shapefile"
        case .flatGeobuf: "FlatGeobuf"
        case .postGIS: "PostgreSQL"
        }
    }

    /// How many leading bytes ``recognize(header:)`` needs to see.
    public static let headerLength = 100

    /// Recognises a file by its first bytes, never by its name: a GeoPackage by the SQLite header and the GeoPackage
    /// application id (`GPKG`, or `GP10`/`GP11` of GeoPackage 1.0 and 1.1) at byte 68; a shapefile's `.shp` by its
    /// file code 9994 (big-endian) and version 1000 (little-endian); a FlatGeobuf by its magic bytes `fgb`, a major
    /// version of 3, `fgb` and a patch version. A zip archive (a zipped shapefile) is not recognised here: see
    /// ``FeatureDataSource``.
    /// - Parameter header: The file's first ``headerLength`` bytes (or all of a shorter file).
    /// - Returns: The format, or `nil` for anything else.
    public static func recognize(header: some Collection<UInt8>) -> FeatureDataFormat? {
        let h = Array(header.prefix(headerLength))
        if h.starts(with: Array("SQLite format 3\0".utf8)), h.count >= 72 {
            let id = String(decoding: h[68..<72], as: UTF8.self)
            return ["GPKG", "GP10", "GP11"].contains(id) ? .geoPackage : nil
        }
        if h.count >= 100, h[0..<4] == [0x00, 0x00, 0x27, 0x0A], h[28..<32] == [0xE8, 0x03, 0x00, 0x00] {
            return .shapefile
        }
        if h.count >= 8, h[0..<3] == [0x66, 0x67, 0x62], h[3] == 3, h[4..<7] == [0x66, 0x67, 0x62] {
            return .flatGeobuf
        }
        return nil
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
        for format in [FeatureDataFormat.geoPackage, .shapefile, .flatGeobuf] {
            if let ext = format.fileExtension, lower.hasSuffix("." + ext) { return format }
        }
        return nil
    }
}
