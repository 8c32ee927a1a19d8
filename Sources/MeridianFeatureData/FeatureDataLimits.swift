/// Limits that keep a hostile or broken source from exhausting memory: GDAL streams features one at a time, and these
/// bound what one feature, one table and one archive may hold.
public struct FeatureDataLimits: Sendable, Hashable {
    /// Largest geometry of one feature, in WKB bytes (16 bytes per 2D vertex). Default 256 MiB, about 16 million
    /// vertices.
    public var maximumGeometryBytes: Int
    /// Most fields of one table. Default 4,096.
    public var maximumFields: Int
    /// Most tables (layers) one source may list. Default 10,000.
    public var maximumTables: Int
    /// Most entries of a zipped shapefile archive. Default 4,096.
    public var maximumZipEntries: Int
    /// Largest total uncompressed size of a zipped shapefile archive's entries, as the archive declares them. Default
    /// 8 GiB.
    public var maximumZipBytes: UInt64

    /// Creates limits.
    /// - Parameters:
    ///   - maximumGeometryBytes: Largest WKB size of one geometry, in bytes (default 256 MiB).
    ///   - maximumFields: Most fields of one table (default 4,096).
    ///   - maximumTables: Most tables of one source (default 10,000).
    ///   - maximumZipEntries: Most entries of a zipped shapefile (default 4,096).
    ///   - maximumZipBytes: Largest uncompressed total of a zipped shapefile (default 8 GiB).
    public init(
        maximumGeometryBytes: Int = 256 << 20, maximumFields: Int = 4096, maximumTables: Int = 10_000,
        maximumZipEntries: Int = 4096, maximumZipBytes: UInt64 = 8 << 30
    ) {
        self.maximumGeometryBytes = maximumGeometryBytes
        self.maximumFields = maximumFields
        self.maximumTables = maximumTables
        self.maximumZipEntries = maximumZipEntries
        self.maximumZipBytes = maximumZipBytes
    }

    /// The defaults.
    public static let `default` = FeatureDataLimits()
}
