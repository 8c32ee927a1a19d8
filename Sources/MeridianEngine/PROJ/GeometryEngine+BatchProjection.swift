import MeridianCore

extension GeometryEngine {
    /// Projects many geometries of one spatial reference with a single PROJ call (much faster than one call per
    /// geometry: PROJ's per-call set-up, not the arithmetic, dominates for small geometries).
    /// - Parameters:
    ///   - geometries: Geometries sharing one spatial reference.
    ///   - spatialReference: The target spatial reference.
    /// - Returns: The projected geometries, in order, and the operations PROJ used.
    /// - Throws: `EngineError.spatialReferenceMismatch` when the inputs' spatial references differ,
    ///   `.projectionFailed` naming the first vertex (counted over all geometries) that cannot be transformed.
    public static func projectReportingOperations(
        _ geometries: [some GeometryConvertible], into spatialReference: SpatialReference
    ) throws(EngineError) -> (geometries: [Geometry], operations: [ProjectionOperation]) {
        let gs = geometries.map { $0.geometry }
        guard let source = gs.first?.spatialReference else { return ([], []) }
        if let other = gs.first(where: { $0.spatialReference != source }) {
            throw .spatialReferenceMismatch(source, other.spatialReference)
        }
        if source == spatialReference { return (gs, []) }
        var all: [Coordinate] = []
        all.reserveCapacity(gs.reduce(0) { $0 + $1.coordinates.count })
        for g in gs { all += g.coordinates }
        let operation = try project(&all, from: source, into: spatialReference)
        var iterator = all.makeIterator()
        let mapped = gs.map { $0.mapCoordinates(into: spatialReference) { _ in iterator.next()! } }
        return (mapped, operation.map { [$0] } ?? [])
    }

    /// Projects many geometries of one spatial reference with a single PROJ call; see
    /// `projectReportingOperations(_:into:)` for the batch form that also reports the operation.
    /// - Parameters:
    ///   - geometries: Geometries sharing one spatial reference.
    ///   - spatialReference: The target spatial reference.
    public static func project(_ geometries: [some GeometryConvertible], into spatialReference: SpatialReference)
        throws(EngineError) -> [Geometry]
    {
        try projectReportingOperations(geometries, into: spatialReference).geometries
    }
}
