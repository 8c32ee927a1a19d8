import MeridianCore

/// Projects rings one at a time into one buffer it reuses, for writers that format each ring as soon as it is
/// projected (a union's GeoJSON, projected to WGS84 part by part): no copy of the polygon, no allocation per ring,
/// the tiles met so far kept for the next ring. Each ring gets exactly the coordinates
/// `InterpolatedProjection.project(_:)` gives it (a vertex's image depends only on the vertex).
///
/// Noncopyable: it owns its tiles' memory, freed when it ends. Use one per thread.
public struct RingProjector: ~Copyable {
    private let projection: InterpolatedProjection
    private var local = LocalTiles()
    private var scratch: [Coordinate] = []

    /// A projector through `projection` (from its source to its target).
    /// - Parameter projection: The projection, shared by any number of projectors.
    public init(_ projection: InterpolatedProjection) {
        self.projection = projection
    }

    deinit { local.release() }

    /// Projects a ring and hands it to `body`, closed as `Polygon.close(_:)` closes it (after projection), in memory
    /// valid only during the call.
    /// - Parameters:
    ///   - ring: A ring in the projection's source.
    ///   - body: Gets the ring in the projection's target.
    /// - Returns: What `body` returns.
    /// - Throws: `EngineError.projectionFailed` naming the ring's first vertex (by its index in `ring`) that PROJ
    ///   cannot transform.
    public mutating func withProjected<R>(_ ring: [Coordinate], _ body: (UnsafeBufferPointer<Coordinate>) -> R)
        throws(EngineError) -> R
    {
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(ring.count + 1)
        scratch.append(contentsOf: ring)
        try projection.transform(&scratch, local: &local, atomically: false)
        Polygon.close(&scratch)
        return scratch.withUnsafeBufferPointer(body)
    }
}
