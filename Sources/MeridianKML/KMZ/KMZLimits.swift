/// Limits that stop hostile or broken KMZ archives (zip bombs, huge entry counts) from exhausting memory or disk.
///
/// Sizes are checked twice: against the sizes the archive announces (`zip_stat`) before inflating, and against
/// the bytes actually produced while inflating (an archive can lie about its sizes).
public struct KMZLimits: Sendable, Hashable {
    /// Largest uncompressed KML entry read (streamed, not held in memory). Default 8 GiB.
    public var maximumKMLBytes: UInt64
    /// Largest other entry (icon, image) kept in memory. Default 64 MiB.
    public var maximumResourceBytes: UInt64
    /// Largest total of other entries kept in memory. Default 512 MiB.
    public var maximumTotalResourceBytes: UInt64
    /// Largest uncompressed/compressed ratio accepted for entries above `ratioThresholdBytes`. Default 1000
    /// (KML text typically deflates 5–30×; a 1 GB file of repeated placemarks about 100–200×).
    public var maximumCompressionRatio: Double
    /// Entries smaller than this are not ratio-checked (tiny files of zeros compress absurdly well). Default 1 MiB.
    public var ratioThresholdBytes: UInt64
    /// Most entries accepted in one archive. Default 65 536.
    public var maximumEntries: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maximumKMLBytes: Largest KML entry, in uncompressed bytes (default 8 GiB).
    ///   - maximumResourceBytes: Largest other entry, in uncompressed bytes (default 64 MiB).
    ///   - maximumTotalResourceBytes: Largest total of other entries, in uncompressed bytes (default 512 MiB).
    ///   - maximumCompressionRatio: Largest uncompressed/compressed size ratio, > 1 (default 1000).
    ///   - ratioThresholdBytes: Uncompressed size in bytes below which the ratio is not checked (default 1 MiB).
    ///   - maximumEntries: Most entries in the archive, > 0 (default 65,536).
    public init(maximumKMLBytes: UInt64 = 8 << 30, maximumResourceBytes: UInt64 = 64 << 20,
                maximumTotalResourceBytes: UInt64 = 512 << 20, maximumCompressionRatio: Double = 1000,
                ratioThresholdBytes: UInt64 = 1 << 20, maximumEntries: Int = 65_536) {
        self.maximumKMLBytes = maximumKMLBytes
        self.maximumResourceBytes = maximumResourceBytes
        self.maximumTotalResourceBytes = maximumTotalResourceBytes
        self.maximumCompressionRatio = maximumCompressionRatio
        self.ratioThresholdBytes = ratioThresholdBytes
        self.maximumEntries = maximumEntries
    }

    /// The defaults.
    public static let `default` = KMZLimits()
}
