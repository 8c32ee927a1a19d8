import Foundation
import Meridian

extension ViewerAPI {
    /// The body of `POST /api/buffer` and `POST /api/buffer/export`.
    struct BufferRequest: Decodable {
        var wkid: Int?
        var points: [XY]
        var radiiMiles: [Double]
        var union: Bool?
        var mode: String?
        var format: String?
    }

    /// Buffer mode: planar in the spatial reference, or geodesic on the ellipsoid.
    enum BufferMode: String {
        case planar, geodesic
    }

    /// Checked buffer inputs.
    struct BufferJob {
        var info: SpatialReferenceInfo
        var points: [Point]
        var radiiMiles: [Double]
        var union: Bool
        var mode: BufferMode
    }

    /// A request's mode (planar by default) and projected spatial reference (EPSG:32038 by default): the buffers'
    /// and the near table's.
    func setting(mode: String?, wkid: Int?) throws(APIError) -> (mode: BufferMode, info: SpatialReferenceInfo) {
        guard let parsed = BufferMode(rawValue: mode ?? "planar") else {
            throw .badRequest("mode must be \"planar\" or \"geodesic\", got \"\(mode ?? "")\"")
        }
        let info = try spatialReference(wkid: wkid ?? Self.defaultWKID)
        guard info.spatialReference.isProjected else {
            throw .unprocessable("EPSG:\(info.wkid) is not a projected spatial reference")
        }
        return (parsed, info)
    }

    func validate(_ body: BufferRequest) throws(APIError) -> BufferJob {
        guard !body.points.isEmpty else { throw .unprocessable("add at least one point") }
        guard body.points.count <= limits.maximumPoints else {
            throw .tooLarge("too many points: \(body.points.count) (limit \(limits.maximumPoints))")
        }
        guard body.radiiMiles.count == body.points.count || body.radiiMiles.count == 1 else {
            throw .unprocessable("give one radius per point or one radius for all "
                + "(\(body.points.count) points, \(body.radiiMiles.count) radii)")
        }
        let maxR = limits.maximumRadiusMiles
        for (i, r) in body.radiiMiles.enumerated() {
            guard r.isFinite && r > 0 && r < maxR else {
                throw .unprocessable("radius \(i) is \(r): enter a value between 0 and \(Int(maxR)) miles")
            }
            // The library's one rule (the command line's too): at least 1 µm, planar and geodesic alike.
            if let problem = GeometryEngine.bufferDistanceProblem(r, metersPerUnit: LinearUnit.miles.metersPerUnit,
                                                                  unit: "mi") {
                throw .unprocessable("radius \(i): \(problem)")
            }
        }
        let (mode, info) = try setting(mode: body.mode, wkid: body.wkid)
        for (i, p) in body.points.enumerated() where !(p.x.isFinite && p.y.isFinite) {
            throw .unprocessable("point \(i) has a coordinate that is not a finite number")
        }
        let points = body.points.map { Point(x: $0.x, y: $0.y, spatialReference: info.spatialReference) }
        do {
            // The engine's one rule (the command line's too): the projection's horizon.
            let all = Multipoint(points.map { $0.coordinate }, spatialReference: info.spatialReference)
            if let outside = try GeometryEngine.firstVertexOutsideHorizon([all], of: info.spatialReference) {
                throw APIError.unprocessable("point \(outside.vertexIndex) \(outside.reasonPhrase(for: info.spatialReference))"
                                             + ": tap within the projection's horizon")
            }
        } catch let e as APIError {
            throw e
        } catch {
            throw .unprocessable("\(error)")
        }
        return BufferJob(info: info, points: points, radiiMiles: body.radiiMiles, union: body.union ?? false,
                         mode: mode)
    }

    /// Runs a checked buffer job: polygons in the job's spatial reference.
    func polygons(for job: BufferJob) throws(APIError) -> [Polygon] {
        switch job.mode {
        case .planar:
            // Miles → the spatial reference's unit with LinearUnit's exact factors (1 mi = 1609.344 m).
            do {
                return try GeometryEngine.buffer(
                    around: job.points, distances: job.radiiMiles, distanceUnit: .miles, shouldUnion: job.union)
            } catch {
                throw failure(error)
            }
        case .geodesic:
            // Geodesic circles on the ellipsoid, computed in longitude/latitude as the command line computes them
            // (split at ±180°, each part within [-180°, 180°]), then projected into the job's spatial reference for
            // drawing: a buffer written straight in projected coordinates cannot cross the projection's own seam
            // (Web Mercator's ±20,037,508 m), where its curve would jump from one side of the map to the other.
            var result: [Polygon] = []
            for polygon in try geodesicPolygons(for: job) {
                do { result.append(try GeometryEngine.project(polygon, into: job.info.spatialReference)) } catch {
                    throw .unprocessable("cannot project the geodesic buffers into EPSG:\(job.info.wkid): \(error)")
                }
            }
            return result
        }
    }

    /// A geodesic job's buffers in WGS84 longitude/latitude.
    func geodesicPolygons(for job: BufferJob) throws(APIError) -> [Polygon] {
        do {
            return try GeometryEngine.geodeticBuffer(around: job.points, distances: job.radiiMiles, distanceUnit: .miles,
                                                     shouldUnion: job.union, outputSpatialReference: .wgs84)
        } catch {
            throw failure(error)
        }
    }

    /// The answer of `POST /api/buffer`: `{"mode", "wkid", "unioned", "vertexCount", "polygons"}`, coordinates to
    /// 2 decimals.
    struct BufferResponse: Encodable {
        /// "planar" or "geodesic".
        let mode: String
        /// The spatial reference of the polygons.
        let wkid: Int
        /// Whether the buffers were unioned.
        let unioned: Bool
        /// The polygons' vertices in all.
        let vertexCount: Int
        /// The buffers in the spatial reference.
        let polygons: [PolygonJSON]
    }

    func buffer(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let job = try validate(try decode(BufferRequest.self, from: r))
        let result = try polygons(for: job)
        return .json(BufferResponse(mode: job.mode.rawValue, wkid: job.info.wkid, unioned: job.union,
                                    vertexCount: result.reduce(0) { $0 + $1.vertexCount },
                                    polygons: result.map { PolygonJSON($0, .drawn) }))
    }
}
