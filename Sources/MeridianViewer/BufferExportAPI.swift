import Foundation
import Meridian

extension ViewerAPI {
    func exportBuffers(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let body = try decode(BufferRequest.self, from: r)
        guard let format = body.format, ["geojson", "kmz"].contains(format) else {
            throw .badRequest("format must be \"geojson\" or \"kmz\"")
        }
        let job = try validate(body)
        let wgs84 = try exportPolygons(for: job)
        switch format {
        case "geojson":
            let features = wgs84.enumerated().map { i, polygon in
                Feature(geometry: .polygon(polygon), properties: exportProperties(job, index: i))
            }
            return .attachment(GeoJSON.encode(features), contentType: "application/geo+json", filename: "buffers.geojson")
        default:
            let document: KMLDocument
            do {
                document = try KMLDocument.bufferDocument(points: job.points, buffers: wgs84,
                                                          name: "Buffers (\(job.mode.rawValue))")
            } catch {
                throw .unprocessable("cannot build the KML document: \(error.description)")
            }
            return .attachment(try KMLBridge.kmzData(KMLDataset(rootNode: document)),
                               contentType: "application/vnd.google-earth.kmz", filename: "buffers.kmz")
        }
    }

    /// The job's buffers projected to WGS84 longitude/latitude for export.
    func exportPolygons(for job: BufferJob) throws(APIError) -> [Polygon] {
        if job.mode == .geodesic { return try geodesicPolygons(for: job) }
        var result: [Polygon] = []
        for polygon in try polygons(for: job) {
            do {
                result.append(try GeometryEngine.project(polygon, into: .wgs84))
            } catch {
                throw .unprocessable("cannot project the buffers to WGS84: \(error)")
            }
        }
        return result
    }

    /// The attributes of exported buffer `index`: the centre(s) in the source spatial reference and the radii.
    func exportProperties(_ job: BufferJob, index: Int) -> [String: JSONValue] {
        let radius: (Int) -> Double = { job.radiiMiles.count == 1 ? job.radiiMiles[0] : job.radiiMiles[$0] }
        var properties: [String: JSONValue] = [
            "mode": .string(job.mode.rawValue),
            "sourceCRS": .string("EPSG:\(job.info.wkid)"),
            "unioned": .bool(job.union),
        ]
        if job.union {
            properties["pointCount"] = .number(Double(job.points.count))
            properties["radiiMiles"] = .array(job.points.indices.map { .number(radius($0)) })
        } else {
            properties["radiusMiles"] = .number(radius(index))
            properties["centerX"] = .number(job.points[index].x)
            properties["centerY"] = .number(job.points[index].y)
        }
        return properties
    }
}
