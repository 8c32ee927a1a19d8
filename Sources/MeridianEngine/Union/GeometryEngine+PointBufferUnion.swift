import MeridianCore

/// The unioned buffer of many points, with how it was computed.
public struct PointBufferUnionResult: Sendable, Hashable {
    /// The union of the points' buffers: the same polygon `GeometryEngine.buffer(around:distances:shouldUnion: true)`
    /// returns.
    public let polygon: Polygon
    /// `nil` when Meridian's circle union computed all of it; otherwise why GEOS's overlay union computed part of
    /// it (a configuration too close to degenerate, e.g. tangent circles or edges touching at a vertex) and how
    /// much: only the clusters of mutually reachable circles that hold such a configuration go to GEOS.
    public let geosFallbackReason: String?
}

extension GeometryEngine {
    /// Buffers points (or multipoints) and unions the buffers, reporting whether the fast circle union ran or GEOS
    /// had to take over. The polygon equals `buffer(around:distances:shouldUnion: true, parameters:)`'s.
    /// - Parameters:
    ///   - points: Points or multipoints in one projected spatial reference.
    ///   - distances: One positive distance for all, or one per geometry, in the spatial reference's unit.
    ///   - parameters: Segments per quarter circle (end caps must be round).
    /// - Returns: The union and how it was computed.
    /// - Throws: As `buffer(around:distances:shouldUnion:parameters:)`; `.invalidDistance` when the input is not
    ///   points with positive distances and round caps.
    public static func unionOfPointBuffers(
        around points: [some GeometryConvertible], distances: [Double], parameters: BufferParameters = .default
    ) throws(EngineError) -> PointBufferUnionResult {
        let gs = points.map { $0.geometry }
        guard let sr = gs.first?.spatialReference else { throw .badGeometry(.empty("no points to buffer")) }
        guard distances.count == gs.count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: gs.count, distances: distances.count)
        }
        if let other = gs.first(where: { $0.spatialReference != sr }) {
            throw .spatialReferenceMismatch(sr, other.spatialReference)
        }
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
        guard (1...1000).contains(parameters.segmentsPerQuarterCircle) else {
            throw .invalidDistance(
                "segments per quarter circle must be in 1…1000, got \(parameters.segmentsPerQuarterCircle)")
        }
        let metersPerUnit = sr.unit?.metersPerUnit ?? 1
        for (i, d) in distances.enumerated() where !(d.isFinite && d > 0 && d * metersPerUnit <= maximumBufferDistance)
        {
            throw EngineError.invalidDistance(
                "distance \(d) must be positive, finite and at most half the Earth's circumference").at(EngineError.Location(geometry: i))
        }
        guard let c = PointBufferUnion.circles(gs, distances: distances, parameters: parameters) else {
            throw .invalidDistance("the point-buffer union needs finite points (or multipoints) and round caps")
        }
        let (polygon, method) = try PointBufferUnion.union(
            x: c.x, y: c.y, radius: c.radius, parameters: parameters, in: sr)
        switch method {
        case .circleUnion: return PointBufferUnionResult(polygon: polygon, geosFallbackReason: nil)
        case .geosFallback(let reason): return PointBufferUnionResult(polygon: polygon, geosFallbackReason: reason)
        }
    }
}
