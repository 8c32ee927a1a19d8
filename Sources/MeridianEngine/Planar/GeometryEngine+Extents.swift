import Foundation
import MeridianCore

// MARK: - Extents

extension GeometryEngine {
    /// The envelope around two geometries (ArcGIS `combineExtents(_:_:)`).
    /// - Throws: `.spatialReferenceMismatch`, `.badGeometry` when both are empty.
    public static func combineExtents(_ geometry1: some GeometryConvertible, _ geometry2: some GeometryConvertible)
        throws(EngineError) -> Envelope
    {
        try combineExtents(of: [geometry1.geometry, geometry2.geometry])
    }

    /// The envelope around several geometries (ArcGIS `combineExtents(of:)`); empty geometries add nothing.
    /// - Throws: `.spatialReferenceMismatch`, `.badGeometry` when every geometry is empty.
    public static func combineExtents(of geometries: [some GeometryConvertible]) throws(EngineError) -> Envelope {
        let gs = geometries.map { $0.geometry }
        guard let sr = gs.first?.spatialReference else { throw .badGeometry(.empty("no geometries to combine")) }
        if let other = gs.first(where: { $0.spatialReference != sr }) { throw .spatialReferenceMismatch(sr, other.spatialReference) }
        guard let envelope = Envelope(around: gs.flatMap({ $0.coordinates }), spatialReference: sr) else {
            throw .badGeometry(.empty("every geometry is empty: there is no extent"))
        }
        return envelope
    }
}
