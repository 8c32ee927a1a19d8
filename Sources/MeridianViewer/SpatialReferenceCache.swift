import Foundation
import Meridian

/// A spatial reference with its area of use, as a polygon in its own coordinates.
struct SpatialReferenceInfo: Sendable {
    let wkid: Int
    let spatialReference: SpatialReference
    let areaOfUse: AreaOfUse
    /// The area of use (densified along its edges, so its projected sides follow the curved parallels).
    let boundary: Polygon
    /// The projection's horizon, the area of use widened by `ProjectionHorizon.margin`, drawn the same way; `nil`
    /// when the widened box cannot be projected (it reaches a pole the projection cannot map).
    let horizon: Polygon?
}

/// Caches spatial references and their projected areas of use (PROJ's database look-ups are slow).
final class SpatialReferenceCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: [Int: SpatialReferenceInfo] = [:]  // guarded by lock

    /// Vertices per edge of the densified area-of-use box.
    static let stepsPerEdge = 32

    func info(wkid: Int) throws(APIError) -> SpatialReferenceInfo {
        if let hit = lock.withLock({ cache[wkid] }) { return hit }
        let sr: SpatialReference
        do { sr = try SpatialReference(wkid: wkid) } catch {
            throw .notFound("unknown spatial reference \(wkid): \(error.description)")
        }
        guard let area = sr.areaOfUse else { throw .notFound("PROJ knows no area of use for EPSG:\(wkid)") }
        let projected: Polygon
        do {
            projected = try GeometryEngine.areaOfUsePolygon(of: sr, verticesPerEdge: Self.stepsPerEdge)
        } catch {
            throw .unprocessable("cannot project the area of use of EPSG:\(wkid): \(error)")
        }
        let horizon = try? GeometryEngine.horizonPolygon(of: sr, verticesPerEdge: Self.stepsPerEdge)
        let info = SpatialReferenceInfo(wkid: wkid, spatialReference: sr, areaOfUse: area, boundary: projected,
                                        horizon: horizon)
        lock.withLock { cache[wkid] = info }
        return info
    }
}
