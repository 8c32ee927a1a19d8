import CGEOS
import MeridianCore

// MARK: - Constructive operations (boundary, hull, point on surface, densify, simplify, line merge, polygonize)

extension GEOSGeometryRef {
    /// A copy of the geometry, owned separately.
    func clone(_ operation: String = "clone") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSGeom_clone_r(context.handle, pointer), operation)
    }

    /// The geometry's boundary (OGC rules).
    func boundary(_ operation: String = "boundary") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSBoundary_r(context.handle, pointer), operation)
    }

    /// The smallest convex geometry containing this one.
    func convexHull(_ operation: String = "convex hull") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSConvexHull_r(context.handle, pointer), operation)
    }

    /// A point guaranteed to lie in the geometry (GEOS `pointOnSurface`).
    func pointOnSurface(_ operation: String) throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSPointOnSurface_r(context.handle, pointer), operation)
    }

    /// The geometry with its segments split so that none is longer than `maxSegmentLength`.
    func densified(_ maxSegmentLength: Double, _ operation: String = "densify") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSDensify_r(context.handle, pointer, maxSegmentLength), operation)
    }

    /// The geometry simplified by Douglas–Peucker within `tolerance` (GEOS `simplify`).
    func simplified(_ tolerance: Double, _ operation: String = "simplify") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSSimplify_r(context.handle, pointer, tolerance), operation)
    }

    /// The geometry simplified within `tolerance` keeping its topology (GEOS `topologyPreserveSimplify`).
    func topologyPreservingSimplified(_ tolerance: Double, _ operation: String = "simplify")
        throws(EngineError) -> GEOSGeometryRef
    {
        try context.own(GEOSTopologyPreserveSimplify_r(context.handle, pointer, tolerance), operation)
    }

    /// The line work merged into the longest possible line strings.
    func lineMerged(_ operation: String) throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSLineMerge_r(context.handle, pointer), operation)
    }

    /// The polygons GEOS's polygonizer forms from this (noded) line work.
    func polygonized(_ operation: String) throws(EngineError) -> GEOSGeometryRef {
        var input: OpaquePointer? = pointer
        return try context.own(GEOSPolygonize_r(context.handle, &input, 1), operation)
    }

    /// GEOS's full polygonization of this (noded) line work: the faces, the cut edges, the dangles and the invalid
    /// rings.
    func polygonizedFully(_ operation: String) throws(EngineError)
        -> (faces: GEOSGeometryRef, cuts: GEOSGeometryRef, dangles: GEOSGeometryRef, invalidRings: GEOSGeometryRef)
    {
        var cuts: OpaquePointer?, dangles: OpaquePointer?, invalid: OpaquePointer?
        let faces = GEOSPolygonize_full_r(context.handle, pointer, &cuts, &dangles, &invalid)
        let facesRef = try context.own(faces, operation)
        let cutsRef = try context.own(cuts, operation), danglesRef = try context.own(dangles, operation)
        return (facesRef, cutsRef, danglesRef, try context.own(invalid, operation))
    }
}
