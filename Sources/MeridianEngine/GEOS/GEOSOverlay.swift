import CGEOS
import MeridianCore

// MARK: - Overlay (GEOS union, unary and coverage union, intersection, difference, symmetric difference, clip)

extension GEOSGeometryRef {
    /// GEOS's union of this geometry and `other` (both in this context).
    func union(_ other: GEOSGeometryRef, _ operation: String = "union") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSUnion_r(context.handle, pointer, other.pointer), operation)
    }

    /// GEOS's (cascaded) unary union of this geometry's members.
    func unaryUnion(_ operation: String = "union") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSUnaryUnion_r(context.handle, pointer), operation)
    }

    /// GEOS's coverage union of this collection's members (polygons that meet only along shared edges).
    func coverageUnion(_ operation: String = "coverage union") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSCoverageUnion_r(context.handle, pointer), operation)
    }

    /// The part common to this geometry and `other`.
    func intersection(_ other: GEOSGeometryRef, _ operation: String = "intersection") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSIntersection_r(context.handle, pointer, other.pointer), operation)
    }

    /// The part of this geometry not in `other`.
    func difference(_ other: GEOSGeometryRef, _ operation: String = "difference") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSDifference_r(context.handle, pointer, other.pointer), operation)
    }

    /// The parts in exactly one of this geometry and `other`.
    func symmetricDifference(_ other: GEOSGeometryRef, _ operation: String = "symmetric difference")
        throws(EngineError) -> GEOSGeometryRef
    {
        try context.own(GEOSSymDifference_r(context.handle, pointer, other.pointer), operation)
    }

    /// The part of this geometry inside an axis-aligned rectangle (GEOS `clipByRect`).
    func clipped(to e: Envelope, _ operation: String = "clip") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSClipByRect_r(context.handle, pointer, e.xMin, e.yMin, e.xMax, e.yMax), operation)
    }
}

extension GEOSContext {
    /// GEOS's unary union of a geometry collection of `members` (GEOS takes ownership of them).
    func unaryUnion(of members: [GEOSGeometryRef], _ operation: String = "union") throws(EngineError) -> GEOSGeometryRef {
        try collection(members).unaryUnion(operation)
    }
}
