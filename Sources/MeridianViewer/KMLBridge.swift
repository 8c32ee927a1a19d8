import Foundation
import Meridian

/// Page 2's KML operations, all done with MeridianKML and the engine: sketched placemarks (Web Mercator) → KML
/// document with styles → KMZ with the icons packed; and KML/KMZ bytes → placemarks in Web Mercator with their
/// resolved styles for drawing.
///
/// One concept a file: `KMLSaveRequest.swift` (the body of `POST /api/kml`), `KMLSave.swift` (the document it
/// saves, as KMZ), `KMLEdits.swift` (the page's edits of an opened file), `KMLReading.swift` (reading a file within
/// the limits), `KMLOpen.swift` (the answer of `POST /api/kml/open`), and here the Web Mercator conversions the page
/// and the files meet through.
enum KMLBridge {
    /// Half the width of the Web Mercator world, in meters.
    static let webMercatorHalfWorld = 20_037_508.342789244
    /// Latitudes beyond this are clamped before projecting to Web Mercator (EPSG:3857's own limit).
    static let webMercatorLatitudeLimit = 85.051128
    /// Embedded icons larger than this are not sent to the page (it draws the default icon instead).
    static let maximumInlineIconBytes = 512 * 1024

    /// The page's vertices, `[x, y]` in Web Mercator meters, checked: finite and within the projection's square.
    static func webMercatorCoordinates(_ raw: [[Double]], of what: String) throws(APIError) -> [Coordinate] {
        var result: [Coordinate] = []
        result.reserveCapacity(raw.count)
        for (j, c) in raw.enumerated() {
            guard c.count == 2, c[0].isFinite, c[1].isFinite,
                abs(c[0]) <= webMercatorHalfWorld * 1.0001, abs(c[1]) <= webMercatorHalfWorld * 1.0001
            else {
                throw .unprocessable("\(what), vertex \(j): expected [x, y] in Web Mercator meters "
                    + "(|x|, |y| ≤ 20037508.34)")
            }
            result.append(Coordinate(x: c[0], y: c[1]))
        }
        return result
    }

    /// WGS84 vertices in Web Mercator as `POST /api/kml/open` gives them to the page (latitudes clamped).
    static func webMercatorLeaf(_ cs: [Coordinate], placemark what: String) throws(APIError) -> [Coordinate] {
        guard let g = webMercator(.multipoint(Multipoint(cs, spatialReference: .wgs84))) else {
            throw .unprocessable("\(what): its vertices cannot be shown in Web Mercator")
        }
        return g.coordinates
    }

    /// A WGS84 leaf geometry in Web Mercator, latitudes clamped to its limit; `nil` when it cannot be projected.
    static func webMercator(_ g: Geometry) -> Geometry? {
        let limit = webMercatorLatitudeLimit
        let clamped = g.mapCoordinates(into: .wgs84) { c in
            Coordinate(x: c.x, y: min(max(c.y, -limit), limit))
        }
        guard clamped.coordinates.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.x) <= 540 }) else { return nil }
        return try? GeometryEngine.project(clamped, into: .webMercator)
    }
}
