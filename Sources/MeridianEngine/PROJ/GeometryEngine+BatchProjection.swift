import MeridianCore

extension GeometryEngine {
    /// Projects many geometries of one spatial reference with a single PROJ call (much faster than one call per
    /// geometry: PROJ's per-call set-up, not the arithmetic, dominates for small geometries).
    /// - Parameters:
    ///   - geometries: Geometries sharing one spatial reference.
    ///   - spatialReference: The target spatial reference.
    /// - Returns: The projected geometries, in order, and the operations PROJ used.
    /// - Throws: `EngineError.spatialReferenceMismatch` when the inputs' spatial references differ,
    ///   `.projectionFailed` located at the first vertex that cannot be transformed: its geometry's index in
    ///   `geometries` and its index among that geometry's coordinates.
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
        let operation: ProjectionOperation?
        do {
            operation = try project(&all, from: source, into: spatialReference)
        } catch {
            throw locatedInGeometries(error, gs)
        }
        var iterator = all.makeIterator()
        let mapped = gs.map { $0.mapCoordinates(into: spatialReference) { _ in iterator.next()! } }
        return (mapped, operation.map { [$0] } ?? [])
    }

    /// `error` from projecting the coordinates of `geometries` end to end, its vertex (counted over them all)
    /// located in its geometry.
    private static func locatedInGeometries(_ error: EngineError, _ geometries: [Geometry]) -> EngineError {
        guard let location = error.location, location.geometry == nil, var vertex = location.vertex else { return error }
        for (i, g) in geometries.enumerated() {
            let n = g.coordinates.count
            if vertex < n { return error.at(EngineError.Location(geometry: i, vertex: vertex)) }
            vertex -= n
        }
        return error
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
