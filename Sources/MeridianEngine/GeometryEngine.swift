import Foundation
import MeridianCore

/// Geometry operations, with the names ArcGIS users know. Planar operations run in GEOS in the geometries' own
/// spatial reference; projection runs in PROJ; geodetic operations run on the ellipsoid (see `geodetic…`).
///
/// Every function is thread-safe and throws an `EngineError` with GEOS's or PROJ's message on failure.
///
/// The functions are the entry points; the work is done in one folder of `Sources/MeridianEngine` per job:
/// `Planar/` (buffers, overlay, relations, topology and editing in a geometry's own spatial reference), `PROJ/`
/// (spatial references, projection, datum transformations, areas of use, Karney's geodesics: every PROJ call),
/// `Geodesic/` (work on the ellipsoid; geodesic buffers run through `GeodeticBufferPipeline`), `Union/` (the circle
/// union behind unions of point buffers), `Index/` (the packed R-tree and the point grid behind the spatial indexes
/// of proximity searches) and `GEOS/` (the bridge to GEOS: every GEOS call).
public enum GeometryEngine {}

extension GeometryEngine {
    /// Refuses two spatial references that differ (operands of one operation must share theirs).
    static func requireSameSpatialReference(_ a: SpatialReference, _ b: SpatialReference) throws(EngineError) {
        guard a == b else { throw .spatialReferenceMismatch(a, b) }
    }

    /// Refuses a geometry not in `sr`, comparing in place (`Geometry.isIn`): a check of many geometries copies none
    /// of them, nor retains the spatial reference they share.
    static func requireSameSpatialReference(_ sr: SpatialReference, of g: Geometry) throws(EngineError) {
        if !g.isIn(sr) { try requireSameSpatialReference(sr, g.spatialReference) }
    }
}
