import Foundation
import Meridian

extension ViewerAPI {
    func spatialReference(wkid: Int) throws(APIError) -> SpatialReferenceInfo {
        guard (1...999_999).contains(wkid) else { throw .badRequest("wkid must be a positive EPSG or ESRI code") }
        return try spatialReferences.info(wkid: wkid)
    }

    /// The answer of `GET /api/srs/{wkid}`: `{"wkid", "name", "kind", "unit", "areaOfUse": {"name", "west",
    /// "south", "east", "north"}, "boundary", "horizon", "extent": {"xmin", "ymin", "xmax", "ymax"}}`, numbers to 3
    /// decimals; `unit` and `horizon` are `null` when there is none, `extent` absent when the boundary has none.
    struct SpatialReferenceResponse: Encodable {
        /// The boundary's extent in the spatial reference's units.
        struct Extent: Encodable {
            let xmin, ymin, xmax, ymax: Double
        }

        let wkid: Int
        let name: String
        let kind: String
        let unit: String?
        let areaOfUse: AreaOfUse
        let boundary: PolygonJSON
        let horizon: PolygonJSON?
        let extent: Extent?

        private enum Keys: String, CodingKey { case wkid, name, kind, unit, areaOfUse, boundary, horizon, extent }

        /// `unit` and `horizon` written as `null` when absent (the page tests them), `extent` left out.
        func encode(to encoder: Encoder) throws {
            var o = encoder.container(keyedBy: Keys.self)
            try o.encode(wkid, forKey: .wkid)
            try o.encode(name, forKey: .name)
            try o.encode(kind, forKey: .kind)
            try o.encode(unit, forKey: .unit)
            try o.encode(areaOfUse, forKey: .areaOfUse)
            try o.encode(boundary, forKey: .boundary)
            try o.encode(horizon, forKey: .horizon)
            try o.encodeIfPresent(extent, forKey: .extent)
        }
    }

    func spatialReferenceResponse(wkid: Int) throws(APIError) -> HTTPResponse {
        let info = try spatialReference(wkid: wkid)
        let d = Decimals.described, a = info.areaOfUse
        return .json(SpatialReferenceResponse(
            wkid: wkid, name: info.spatialReference.name, kind: info.spatialReference.kind.rawValue,
            unit: info.spatialReference.unit?.name,
            areaOfUse: AreaOfUse(name: a.name, west: d(a.west), south: d(a.south), east: d(a.east), north: d(a.north)),
            boundary: PolygonJSON(info.boundary, d), horizon: info.horizon.map { PolygonJSON($0, d) },
            extent: info.boundary.geometry.extent.map {
                .init(xmin: d($0.xMin), ymin: d($0.yMin), xmax: d($0.xMax), ymax: d($0.yMax))
            }))
    }
}
