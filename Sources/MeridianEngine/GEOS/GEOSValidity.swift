import CGEOS
import MeridianCore

// MARK: - Validity and simplicity (GEOS isValid, isValidReason, isSimple, makeValid)

extension GEOSGeometryRef {
    /// Whether GEOS finds the geometry valid (an error in the check counts as not valid).
    var isValid: Bool { GEOSisValid_r(context.handle, pointer) == 1 }

    /// `nil` when the geometry is valid, else GEOS's diagnosis (e.g. "Self-intersection[1 1]"), or "not valid"
    /// when GEOS gives no reason.
    func invalidityReason() -> String? {
        guard GEOSisValid_r(context.handle, pointer) != 1 else { return nil }
        guard let r = GEOSisValidReason_r(context.handle, pointer) else { return "not valid" }
        defer { GEOSFree_r(context.handle, r) }
        return String(cString: r)
    }

    /// GEOS's validity test, throwing GEOS's message (under `operation`) when the test itself fails.
    func checkValid(_ operation: String) throws(EngineError) -> Bool {
        try context.answer(GEOSisValid_r(context.handle, pointer), operation)
    }

    /// GEOS's simplicity test (no self-intersection of lines except at ends, no repeated point), throwing GEOS's
    /// message (under `operation`) when the test itself fails.
    func checkSimple(_ operation: String) throws(EngineError) -> Bool {
        try context.answer(GEOSisSimple_r(context.handle, pointer), operation)
    }

    /// GEOS's MakeValid of the geometry.
    func madeValid(_ operation: String = "make valid") throws(EngineError) -> GEOSGeometryRef {
        try context.own(GEOSMakeValid_r(context.handle, pointer), operation)
    }
}

extension GEOSContext {
    /// A GEOS boolean answer (1 true, 0 false, anything else an exception reported under `operation`).
    func answer(_ value: CChar, _ operation: String) throws(EngineError) -> Bool {
        switch value {
        case 1: return true
        case 0: return false
        default: throw error(operation)
        }
    }

    /// Two operands of a binary GEOS operation, made in this context: refuses operands in different spatial
    /// references, then invalid polygonal ones (see `requireValid`).
    func validPair(_ a: Geometry, _ b: Geometry) throws(EngineError) -> (GEOSGeometryRef, GEOSGeometryRef) {
        try GeometryEngine.requireSameSpatialReference(a.spatialReference, b.spatialReference)
        let ra = try make(a), rb = try make(b)
        try requireValid(ra, a)
        try requireValid(rb, b)
        return (ra, rb)
    }

    /// Refuses invalid polygonal input (self-intersections, bad nesting) with GEOS's reason.
    func requireValid(_ ref: GEOSGeometryRef, _ g: Geometry) throws(EngineError) {
        switch g {
        case .polygon, .envelope:
            guard let reason = ref.invalidityReason() else { return }
            throw .invalidGeometry(reason: reason)
        default:
            return
        }
    }

    /// Refuses a result whose non-empty members have different dimensions: `geometry(_:in:)` keeps only the
    /// highest dimension of such a collection, which for a union or symmetric difference would lose data.
    func requireSingleDimension(_ ref: GEOSGeometryRef, _ operation: String) throws(EngineError) {
        guard GEOSGeomTypeId_r(handle, ref.pointer) == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) else { return }
        var dimensions = Set<Int32>()
        let n = GEOSGetNumGeometries_r(handle, ref.pointer)
        if n > 0 {
            for i in 0..<n {
                guard let member = GEOSGetGeometryN_r(handle, ref.pointer, i), GEOSisEmpty_r(handle, member) == 0 else { continue }
                dimensions.insert(GEOSGeom_getDimensions_r(handle, member))
            }
        }
        guard dimensions.count <= 1 else { throw .mixedDimensionResult(operation: operation) }
    }
}
