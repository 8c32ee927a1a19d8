import CPROJ
import Foundation
import MeridianCore

/// A shorter way to run the commonest operation out of a projected spatial reference, with PROJ still doing the
/// projection's mathematics.
///
/// From a projected CRS to its own geographic CRS (or one PROJ relates to it by a null transformation, as NAD83 and
/// WGS 84 by "NAD83 to WGS 84 (1)"), PROJ's operation, in longitude/latitude order, is the pipeline
/// `+proj=pipeline +step +inv +proj=… +step +proj=unitconvert +xy_in=rad +xy_out=deg`. Running its projection step
/// alone backwards (`PJ_INV` on `+proj=…`) and multiplying by 180/π does the same arithmetic without the pipeline's
/// per-coordinate bookkeeping (its second step's preparation and finalisation): about 12 % less CPU time per
/// vertex for EPSG:5070's inverse Albers, 249 against 283 ns on this machine (`proj_trans_generic`, 1,024
/// coordinates a call), and the same doubles bit for bit on a million points of its area of use.
///
/// It is used only when both hold: PROJ's definition of the operation is exactly that pipeline, and on points
/// spread over the source's area of use (and a margin around it) the two agree to `tolerance`; otherwise the whole
/// operation runs.
enum BareInverse {
    /// Degrees per radian, the factor PROJ's `unitconvert` step (rad → deg) multiplies by (the products are the
    /// same doubles).
    static let degreesPerRadian = 180 / Double.pi

    /// The largest difference in degrees allowed between the two ways on the sample points (PROJ's own arithmetic
    /// makes them equal; 1e-12° is 0.1 µm).
    static let tolerance = 1e-12

    /// Sample points per side of the grid over the area of use (checked: `sampleCount`² of them at most).
    static let sampleCount = 9

    /// The operation's projection step alone, to be run with `PJ_INV` and converted with `toDegrees`, when it is
    /// equivalent to `operation` (see the type's description); nil otherwise.
    /// - Parameters:
    ///   - operation: The operation PROJ chose, normalised to longitude/latitude and easting/northing order.
    ///   - context: The operation's context (the projection step is made in it).
    ///   - sourceArea: The source spatial reference's area of use, where the two are compared (nil: no check is
    ///     possible, so no shortcut).
    static func make(for operation: PROJObject, context: PROJContext, sourceArea: AreaOfUse?) -> PROJObject? {
        guard let area = sourceArea,
              let text = proj_as_proj_string(context.handle, operation.pointer, PJ_PROJ_5, nil),
              let step = projectionStep(of: String(cString: text))
        else {
            context.clearMessages()
            return nil
        }
        guard let raw = proj_create(context.handle, step) else {
            context.clearMessages()
            return nil
        }
        let bare = PROJObject(raw, context: context)
        guard proj_pj_info(raw).has_inverse != 0 else { return nil }
        let (x, y) = samplePoints(in: area, through: operation)
        guard x.count >= sampleCount, agrees(bare, with: operation, atX: x, y: y) else { return nil }
        return bare
    }

    /// The projection step of `+proj=pipeline +step +inv +proj=… +step +proj=unitconvert +xy_in=rad +xy_out=deg`
    /// (`+proj=…` with its parameters), or nil for any other definition (more steps, another unit conversion, flags
    /// that change how a step runs).
    /// - Parameter pipeline: A PROJ string as `proj_as_proj_string` writes it (`PJ_PROJ_5`, on one line).
    static func projectionStep(of pipeline: String) -> String? {
        let prefix = "+proj=pipeline +step +inv +proj="
        let suffix = " +step +proj=unitconvert +xy_in=rad +xy_out=deg"
        guard pipeline.hasPrefix(prefix), pipeline.hasSuffix(suffix),
              pipeline.count > prefix.count + suffix.count
        else { return nil }
        let step = String(pipeline.dropFirst(prefix.count - "+proj=".count).dropLast(suffix.count))
        for word in ["+step", "+inv", "+omit_", "+proj=pipeline"] where step.contains(word) { return nil }
        guard !step.dropFirst().contains("+proj=") else { return nil }
        return step
    }

    /// Where `make` compares the projection step with the whole operation: the area of use widened by a tenth of its
    /// size on each side, in degrees, latitudes within ±89.9°, and `east` past 180 when the area crosses the
    /// antimeridian (so `west < east` always).
    /// - Parameter area: The area of use.
    static func comparedBox(_ area: AreaOfUse) -> (west: Double, south: Double, east: Double, north: Double) {
        let east = area.east < area.west ? area.east + 360 : area.east
        let dx = (east - area.west) / 10, dy = (area.north - area.south) / 10
        return (area.west - dx, max(area.south - dy, -89.9), east + dx, min(area.north + dy, 89.9))
    }

    /// Points in the source spatial reference: a `sampleCount` × `sampleCount` grid of longitudes/latitudes over the
    /// area of use widened by a tenth on each side, taken through `operation` backwards; those it cannot take are left
    /// out.
    /// - Parameters:
    ///   - area: The area of use, degrees (west may exceed east across the antimeridian).
    ///   - operation: The operation (longitude/latitude in degrees is its target).
    static func samplePoints(in area: AreaOfUse, through operation: PROJObject) -> (x: [Double], y: [Double]) {
        let (west, south, east, north) = comparedBox(area)
        let width = east - west
        var x: [Double] = [], y: [Double] = []
        let n = sampleCount
        for i in 0..<n {
            for j in 0..<n {
                var lon = west + width * Double(i) / Double(n - 1)
                if lon > 180 { lon -= 360 }
                x.append(lon)
                y.append(south + (north - south) * Double(j) / Double(n - 1))
            }
        }
        transform(operation, PJ_INV, &x, &y)
        let kept = x.indices.filter { x[$0].isFinite && y[$0].isFinite }
        return (kept.map { x[$0] }, kept.map { y[$0] })
    }

    /// Whether `bare` run backwards and converted to degrees gives what `operation` gives, within `tolerance`, at
    /// every point (and fails where it fails).
    /// - Parameters:
    ///   - bare: A projection (`PJ_INV` is run).
    ///   - operation: The whole operation (`PJ_FWD` is run).
    ///   - x: Eastings of the points, in the source spatial reference.
    ///   - y: Their northings.
    static func agrees(_ bare: PROJObject, with operation: PROJObject, atX x: [Double], y: [Double]) -> Bool {
        var fx = x, fy = y, bx = x, by = y
        transform(operation, PJ_FWD, &fx, &fy)
        transform(bare, PJ_INV, &bx, &by)
        for i in x.indices {
            let lon = bx[i] * degreesPerRadian, lat = by[i] * degreesPerRadian
            if fx[i].isFinite != lon.isFinite || fy[i].isFinite != lat.isFinite { return false }
            if fx[i].isFinite && !(abs(fx[i] - lon) <= tolerance) { return false }
            if fy[i].isFinite && !(abs(fy[i] - lat) <= tolerance) { return false }
        }
        return true
    }

    /// Converts the bare projection's radians to degrees in place (a non-finite value stays non-finite).
    /// - Parameter chunk: Coordinates PROJ just transformed with the bare projection.
    static func toDegrees(_ chunk: UnsafeMutableBufferPointer<Coordinate>) {
        for i in chunk.indices {
            chunk[i].x *= degreesPerRadian
            chunk[i].y *= degreesPerRadian
        }
    }

    private static func transform(_ object: PROJObject, _ direction: PJ_DIRECTION, _ x: inout [Double],
                                  _ y: inout [Double]) {
        let n = x.count
        let stride = MemoryLayout<Double>.stride
        x.withUnsafeMutableBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in
                _ = proj_trans_generic(object.pointer, direction, xs.baseAddress, stride, n, ys.baseAddress, stride, n,
                                       nil, 0, 0, nil, 0, 0)
            }
        }
    }
}
