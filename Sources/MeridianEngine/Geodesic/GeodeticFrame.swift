import Foundation
import MeridianCore

/// Where a geodetic operation computes and where it writes: the ellipsoid and longitude/latitude of the input's
/// datum ("compute" coordinates, x = longitude, y = latitude in degrees), and the output spatial reference.
struct GeodeticFrame {
    let geodesic: Geodesic
    /// Longitude/latitude on the input's datum.
    let computeSR: SpatialReference
    /// The spatial reference of results.
    let outputSR: SpatialReference
    /// Whether results are longitude/latitude (edges straight in degrees, split at ±180°).
    var geographicOutput: Bool { outputSR.isGeographic }
    private let toOutputT: Transformation?
    private let toComputeT: Transformation?

    /// A frame for inputs in `inputSR`, writing results in `outputSR` (default: `inputSR`).
    init(input inputSR: SpatialReference, output outputSR: SpatialReference?) throws(EngineError) {
        let compute = try inputSR.geographicBase()
        let output = outputSR ?? inputSR
        guard output.kind != .other else {
            throw .proj("the output spatial reference \(output) is neither geographic nor projected")
        }
        computeSR = compute
        self.outputSR = output
        geodesic = Geodesic(compute.ellipsoid)
        if output == compute {
            toOutputT = nil
            toComputeT = nil
        } else {
            toOutputT = try Transformation.between(compute, output)
            toComputeT = try Transformation.between(output, compute)
        }
    }

    /// Whether output coordinates are the compute coordinates themselves.
    var isIdentity: Bool { toOutputT == nil }

    /// Compute lon/lat → output coordinates (geographic output longitudes in [-180, 180]).
    func toOutput(_ c: [Coordinate]) throws(EngineError) -> [Coordinate] {
        guard let t = toOutputT else { return c }
        var cs = c.map { Coordinate(x: $0.x, y: $0.y) }
        _ = try t.transform(&cs, reportsOperation: false)
        if geographicOutput { for i in cs.indices { cs[i].x = normalizedLongitude(cs[i].x) } }
        return cs
    }

    /// One coordinate, compute → output.
    func toOutput(_ c: Coordinate) throws(EngineError) -> Coordinate {
        guard toOutputT != nil else { return c }
        return try toOutput([c])[0]
    }

    /// Output → compute lon/lat (identity when the output is the compute system; longitudes may be unrolled).
    func toCompute(_ c: [Coordinate]) throws(EngineError) -> [Coordinate] {
        guard let t = toComputeT else { return c }
        var cs = c.map { Coordinate(x: $0.x, y: $0.y) }
        _ = try t.transform(&cs, reportsOperation: false)
        return cs
    }

    /// One coordinate, output → compute.
    func toCompute(_ c: Coordinate) throws(EngineError) -> Coordinate {
        guard toComputeT != nil else { return c }
        return try toCompute([c])[0]
    }
}

/// A longitude in degrees brought into [-180, 180] (180 stays 180, -180 stays -180).
func normalizedLongitude(_ x: Double) -> Double {
    if x >= -180 && x <= 180 { return x }
    var r = x.truncatingRemainder(dividingBy: 360)
    if r > 180 { r -= 360 } else if r < -180 { r += 360 }
    return r
}

/// `x` shifted by a multiple of 360 to lie within 180 of `reference`.
func unwrappedLongitude(_ x: Double, near reference: Double) -> Double {
    x + 360 * ((reference - x) / 360).rounded()
}

/// Geometry vertices converted into a frame's compute lon/lat.
extension GeodeticFrame {
    func computeCoordinates(of geometry: Geometry) throws(EngineError) -> Geometry {
        if geometry.spatialReference == computeSR { return geometry.mapCoordinates(into: computeSR) { Coordinate(x: $0.x, y: $0.y) } }
        let projected = try GeometryEngine.project(geometry, into: computeSR)
        return projected.mapCoordinates(into: computeSR) { Coordinate(x: $0.x, y: $0.y) }
    }
}
