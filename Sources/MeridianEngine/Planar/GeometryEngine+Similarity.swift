import MeridianCore

// MARK: - Similarity

extension GeometryEngine {
    /// The discrete Hausdorff distance between two geometries: the largest distance from a vertex of either one to
    /// the nearest point of the other, in the spatial reference's unit. It measures how far apart two shapes are
    /// at worst (0 for identical vertex sets), e.g. how far a computed buffer's boundary strays from a reference.
    ///
    /// Only vertices are sampled. With `densifyFraction` f, every segment is first split into equal pieces no
    /// longer than f of its length (GEOS's densified discrete Hausdorff distance), which bounds the error of the
    /// sampling on long segments; f must be in (0, 1].
    /// - Parameters:
    ///   - a: A geometry in a projected spatial reference.
    ///   - b: A geometry in the same spatial reference.
    ///   - densifyFraction: Optional segment densification fraction in (0, 1].
    /// - Returns: The distance, in the spatial reference's unit.
    /// - Throws: `EngineError.spatialReferenceMismatch`, `.geographicCoordinatesRefused` (degrees are not a
    ///   distance), `.badGeometry` for an empty geometry or a densify fraction out of range, `.geos`.
    public static func hausdorffDistance(
        _ a: some GeometryConvertible, _ b: some GeometryConvertible, densifyFraction: Double? = nil
    ) throws(EngineError) -> Double {
        let (ga, gb) = (a.geometry, b.geometry)
        try requireSameSpatialReference(ga.spatialReference, gb.spatialReference)
        guard !ga.spatialReference.isGeographic else {
            throw .geographicCoordinatesRefused(operation: "a planar Hausdorff distance")
        }
        if let f = densifyFraction, !(f > 0 && f <= 1) {
            throw .badGeometry(.malformed("densify fraction must be in (0, 1], got \(f)"))
        }
        guard !ga.coordinates.isEmpty, !gb.coordinates.isEmpty else {
            throw .badGeometry(.empty("the Hausdorff distance of an empty geometry is undefined"))
        }
        let context = try GEOSContext()
        let ra = try context.make(ga), rb = try context.make(gb)
        return try ra.hausdorffDistance(to: rb, densifyFraction: densifyFraction, "Hausdorff distance")
    }
}
