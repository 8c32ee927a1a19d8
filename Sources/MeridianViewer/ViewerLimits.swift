import Foundation
import Meridian

/// The limits the API enforces on every request.
public struct ViewerLimits: Sendable, Hashable {
    /// The largest request body, in bytes (default 8 MiB).
    public var maximumBodySize: Int
    /// The most points in one buffer request, and the most premises in one near request (default 5,000).
    public var maximumPoints: Int
    /// The most vertices in one KML document sent or opened (default 100,000).
    public var maximumVertices: Int
    /// The most placemarks in one KML document (default 2,000).
    public var maximumPlacemarks: Int
    /// Buffer radii must be strictly between 0 and this many miles (default 300, as in the sample).
    public var maximumRadiusMiles: Double
    /// Seconds one computing request (buffers, exports, KML save and open) may run before it is stopped and
    /// answered 503 (default 20). It also stops as soon as its client closes the connection.
    public var workSeconds: Double
    /// Computing requests run at the same time (default 2); more wait for a slot.
    public var maximumConcurrentJobs: Int
    /// Seconds a computing request waits for a slot before it is answered 503 (default 10).
    public var jobQueueSeconds: Double
    /// The largest KML text opened, in bytes: a plain KML is bounded by `maximumBodySize`, the KML inside a KMZ by
    /// this, counted while it is inflated (default 32 MiB).
    public var maximumKMLBytes: Int
    /// The most bytes of icons and other files read from an opened KMZ, in total (default 16 MiB).
    public var maximumKMZResourceBytes: Int
    /// The most vertices one computing request's work may make (its `WorkBudget`; default 5,000,000): buffers
    /// are refused from their estimate, or stopped while they grow, beyond it.
    public var maximumWorkVertices: Int = 5_000_000
    /// The most point–premise pairs one `/api/near` answer may hold (default 20,000): more is refused with 413.
    public var maximumNearPairs: Int = 20_000

    /// Creates limits.
    /// - Parameters:
    ///   - maximumBodySize: Bytes per request body, > 0 (default 8 MiB).
    ///   - maximumPoints: Points per buffer request, > 0 (default 5,000).
    ///   - maximumVertices: Vertices per KML document, > 0 (default 100,000).
    ///   - maximumPlacemarks: Placemarks per KML document, > 0 (default 2,000).
    ///   - maximumRadiusMiles: Exclusive upper bound of a radius in statute miles, > 0 (default 300).
    ///   - workSeconds: Seconds a computing request may run, > 0 (default 20).
    ///   - maximumConcurrentJobs: Computing requests run at once, ≥ 1 (default 2).
    ///   - jobQueueSeconds: Seconds a computing request waits for a slot, ≥ 0 (default 10).
    ///   - maximumKMLBytes: Bytes of KML text opened from a KMZ, > 0 (default 32 MiB).
    ///   - maximumKMZResourceBytes: Bytes of other files read from an opened KMZ in total, > 0 (default 16 MiB).
    public init(maximumBodySize: Int = 8 << 20, maximumPoints: Int = 5_000, maximumVertices: Int = 100_000,
                maximumPlacemarks: Int = 2_000, maximumRadiusMiles: Double = 300, workSeconds: Double = 20,
                maximumConcurrentJobs: Int = 2, jobQueueSeconds: Double = 10, maximumKMLBytes: Int = 32 << 20,
                maximumKMZResourceBytes: Int = 16 << 20) {
        self.maximumBodySize = maximumBodySize
        self.maximumPoints = maximumPoints
        self.maximumVertices = maximumVertices
        self.maximumPlacemarks = maximumPlacemarks
        self.maximumRadiusMiles = maximumRadiusMiles
        self.workSeconds = workSeconds
        self.maximumConcurrentJobs = maximumConcurrentJobs
        self.jobQueueSeconds = jobQueueSeconds
        self.maximumKMLBytes = maximumKMLBytes
        self.maximumKMZResourceBytes = maximumKMZResourceBytes
    }
}
