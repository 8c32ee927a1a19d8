import CGEOS
import MeridianCore

// MARK: - Measures (GEOS area, length, distance, Hausdorff distance, emptiness, extent)

extension GEOSGeometryRef {
    /// The planar area; GEOS's message (under `operation`) when GEOS fails.
    func area(_ operation: String) throws(EngineError) -> Double {
        try measure(operation) { GEOSArea_r($0, $1, $2) }
    }

    /// The planar length (all rings of a polygon); GEOS's message (under `operation`) when GEOS fails.
    func length(_ operation: String) throws(EngineError) -> Double {
        try measure(operation) { GEOSLength_r($0, $1, $2) }
    }

    /// The smallest planar distance to `other`; GEOS's message (under `operation`) when GEOS fails.
    func distance(to other: GEOSGeometryRef, _ operation: String) throws(EngineError) -> Double {
        try measure(operation) { GEOSDistance_r($0, $1, other.pointer, $2) }
    }

    /// The discrete Hausdorff distance to `other`, with each segment densified by `densifyFraction` when given.
    func hausdorffDistance(to other: GEOSGeometryRef, densifyFraction: Double?, _ operation: String)
        throws(EngineError) -> Double
    {
        try measure(operation) { handle, a, d in
            if let f = densifyFraction { GEOSHausdorffDistanceDensify_r(handle, a, other.pointer, f, d) }
            else { GEOSHausdorffDistance_r(handle, a, other.pointer, d) }
        }
    }

    /// Whether the geometry is empty (an error in the test counts as not empty).
    var isEmpty: Bool { GEOSisEmpty_r(context.handle, pointer) != 0 }

    /// The smallest and largest x of a non-empty geometry.
    var xRange: (min: Double, max: Double) {
        var xmin = 0.0, xmax = 0.0
        GEOSGeom_getXMin_r(context.handle, pointer, &xmin)
        GEOSGeom_getXMax_r(context.handle, pointer, &xmax)
        return (xmin, xmax)
    }

    private func measure(
        _ operation: String, _ op: (GEOSContextHandle_t, OpaquePointer, UnsafeMutablePointer<Double>) -> Int32
    ) throws(EngineError) -> Double {
        var value = 0.0
        guard op(context.handle, pointer, &value) == 1 else { throw context.error(operation) }
        return value
    }
}
