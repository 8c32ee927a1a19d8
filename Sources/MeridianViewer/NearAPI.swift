import Foundation
import Meridian
import MeridianIO

// MARK: - POST /api/near: which premises lie within a buffer's radius of its point

extension ViewerAPI {
    /// The body of `POST /api/near`: the buffers' points and radii as `POST /api/buffer` takes them, and the
    /// premises — tapped ones and the rows of a CSV file.
    struct NearRequest: Decodable {
        /// The spatial reference of the points and premises (default EPSG:32038).
        var wkid: Int?
        /// "planar" (default) or "geodesic", as for the buffers.
        var mode: String?
        /// The buffers' points (the turbines); may be empty.
        var points: [XY]
        /// One radius for all points or one per point, in miles; may be empty when `points` is.
        var radiiMiles: [Double]
        /// Premises in the spatial reference's coordinates (tapped on the map).
        var premises: [XY]?
        /// A CSV file of premises, added after `premises`.
        var premisesCSV: CSVUpload?
    }

    /// A CSV file sent as text: a header naming `x,y` (the request's spatial reference) or `lon,lat` (WGS84)
    /// columns, a premise a row; read by MeridianIO's reader, the one `meridian` reads its input with.
    struct CSVUpload: Decodable {
        /// The file's name, for messages (default "the CSV file").
        var name: String?
        /// The file's text.
        var text: String
    }

    /// The most points searched at a time, between two checks of the work budget (fewer when there are so many
    /// premises that a batch could find more pairs than an answer may hold).
    static let nearBatch = 64

    /// Answers `POST /api/near`: every pair of a point and a premise within the point's radius (the boundary
    /// included), measured planar in the spatial reference or geodesic on its ellipsoid, by the engine's proximity
    /// search (`GeometryEngine.nearPairs` / `geodeticNearPairs`, what `meridian near` runs), with the premises as
    /// read and which points and premises are in a pair.
    func near(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let body = try decode(NearRequest.self, from: r)
        let mode: BufferMode, info: SpatialReferenceInfo, job: BufferJob?
        if body.points.isEmpty {
            (mode, info) = try setting(mode: body.mode, wkid: body.wkid)
            job = nil
        } else {
            // The buffers' own rules: counts, radii, mode, spatial reference and the projection's horizon.
            let checked = try validate(BufferRequest(wkid: body.wkid, points: body.points, radiiMiles: body.radiiMiles,
                                                     union: false, mode: body.mode, format: nil))
            (mode, info, job) = (checked.mode, checked.info, checked)
        }
        let tapped = body.premises ?? []
        // The file is read whole before it is counted: it is bounded by the request body's limit.
        let file = try body.premisesCSV.map { (upload) throws(APIError) in try Self.csvPremises(upload, in: info) }
        let count = tapped.count + (file?.points?.count ?? 0)
        guard count <= limits.maximumPoints else {
            throw .tooLarge("too many premises: \(count) (limit \(limits.maximumPoints))")
        }
        var premises = try Self.checkedPremises(tapped, in: info)
        if let file { premises += try Self.projected(file, in: info) }
        let located = premises.map { Point($0, spatialReference: info.spatialReference) }
        let pairs = try job.map { (job) throws(APIError) in try nearPairs(job, located) } ?? []
        return .json(NearResponse(mode: mode, wkid: info.wkid, premises: premises, pairs: pairs))
    }

    /// The answer of `POST /api/near`: `{"mode", "wkid", "unit": "mi", "premises": [{"x", "y"}], "pairs": [{"point",
    /// "premise", "distance", "rank"}], "pointsInBreach": [i…], "premisesInReach": [j…]}`, numbers to 9 decimals (a
    /// nanomile, 1.6 µm; a nanofoot).
    struct NearResponse: Encodable {
        /// One row of the near table: a point, a premise within its radius, their distance in miles and the
        /// premise's rank among the point's (1 the nearest).
        struct Pair: Encodable {
            let point: Int
            let premise: Int
            let distance: Double
            let rank: Int
        }

        /// "planar" or "geodesic".
        let mode: String
        /// The spatial reference of the premises.
        let wkid: Int
        /// The distances' unit: "mi".
        let unit: String
        /// The premises as read (tapped ones, then the CSV file's rows projected), in the spatial reference.
        let premises: [XY]
        /// The pairs within reach.
        let pairs: [Pair]
        /// The points with a premise within reach, ascending.
        let pointsInBreach: [Int]
        /// The premises within reach of a point, ascending.
        let premisesInReach: [Int]

        init(mode: BufferMode, wkid: Int, premises: [Coordinate], pairs: [NearPair]) {
            let d = Decimals.tabulated
            self.mode = mode.rawValue
            self.wkid = wkid
            unit = "mi"
            self.premises = premises.map { XY(x: d($0.x), y: d($0.y)) }
            self.pairs = pairs.map { Pair(point: $0.leftIndex, premise: $0.rightIndex, distance: d($0.distance), rank: $0.rank) }
            pointsInBreach = Set(pairs.map { $0.leftIndex }).sorted()
            premisesInReach = Set(pairs.map { $0.rightIndex }).sorted()
        }
    }

    /// The near table of a checked job: the points' batches searched against the premises indexed once, the work
    /// budget checked between batches, the table refused once it would hold more than `maximumNearPairs` rows (a
    /// batch finds at most its points × the premises, so that is what it may hold while it is checked).
    private func nearPairs(_ job: BufferJob, _ premises: [Point]) throws(APIError) -> [NearPair] {
        guard !premises.isEmpty else { return [] }
        let radius: (Int) -> Double = { job.radiiMiles.count == 1 ? job.radiiMiles[0] : job.radiiMiles[$0] }
        enum Index { case planar(SpatialIndex), geodesic(GeodeticSpatialIndex) }
        let index: Index
        do throws(EngineError) {
            index = job.mode == .planar ? .planar(try SpatialIndex(premises))
                : .geodesic(try GeodeticSpatialIndex(premises))
        } catch {
            throw failure(error, doing: .proximity)
        }
        var table: [NearPair] = []
        let batchSize = max(1, min(Self.nearBatch, limits.maximumNearPairs / premises.count))
        for start in stride(from: 0, to: job.points.count, by: batchSize) {
            let end = min(start + batchSize, job.points.count)
            let batch = Array(job.points[start..<end])
            let radii = (start..<end).map(radius)
            let found: [NearPair]
            do throws(EngineError) {
                try WorkBudget.check()
                switch index {
                case .planar(let index):
                    found = try GeometryEngine.nearPairs(from: batch, to: index, distances: radii, distanceUnit: .miles)
                case .geodesic(let index):
                    found = try GeometryEngine.geodeticNearPairs(from: batch, to: index, distances: radii,
                                                                 distanceUnit: .miles)
                }
            } catch {
                throw failure(error, doing: .proximity)
            }
            guard table.count + found.count <= limits.maximumNearPairs else {
                throw .tooLarge("more than \(limits.maximumNearPairs) point–premise pairs are within reach (the limit): "
                    + "use smaller radii, fewer points or fewer premises")
            }
            table += found.map { NearPair(leftIndex: $0.leftIndex + start, rightIndex: $0.rightIndex,
                                          distance: $0.distance, rank: $0.rank) }
        }
        return table
    }

    /// Tapped premises, checked: finite, and within the projection's horizon (the buffers' rule for their points).
    private static func checkedPremises(_ premises: [XY], in info: SpatialReferenceInfo)
        throws(APIError) -> [Coordinate]
    {
        for (i, p) in premises.enumerated() where !(p.x.isFinite && p.y.isFinite) {
            throw .unprocessable("premise \(i) has a coordinate that is not a finite number")
        }
        let coordinates = premises.map { $0.coordinate }
        if let outside = try firstOutside(coordinates, in: info.spatialReference, of: info) {
            throw .unprocessable("premise \(outside.vertexIndex) \(outside.reasonPhrase(for: info.spatialReference))"
                                 + ": tap within the projection's horizon")
        }
        return coordinates
    }

    /// A CSV file's premises in the request's spatial reference: x,y as they are, lon,lat (WGS84) projected; each
    /// row within the projection's horizon.
    private static func projected(_ file: FeatureInput, in info: SpatialReferenceInfo) throws(APIError) -> [Coordinate] {
        let sr = info.spatialReference
        let coordinates = file.points ?? []
        if let outside = try firstOutside(coordinates, in: file.spatialReference, of: info) {
            throw .unprocessable("\(file.labels[outside.vertexIndex]): the premise \(outside.reasonPhrase(for: sr))")
        }
        guard file.spatialReference != sr else { return coordinates }
        do {
            return try GeometryEngine.project(Multipoint(coordinates, spatialReference: file.spatialReference),
                                              into: sr).coordinates
        } catch {
            throw .unprocessable("\(file.labels.name): cannot project its premises into EPSG:\(info.wkid): "
                + error.description(naming: { file.labels.label(ofVertex: $0) }))
        }
    }

    /// The first of `coordinates` (in `source`) outside the horizon of `info`'s spatial reference.
    private static func firstOutside(_ coordinates: [Coordinate], in source: SpatialReference,
                                     of info: SpatialReferenceInfo) throws(APIError) -> VertexOutsideHorizon? {
        guard !coordinates.isEmpty else { return nil }
        do {
            return try GeometryEngine.firstVertexOutsideHorizon([Multipoint(coordinates, spatialReference: source)],
                                                                of: info.spatialReference)
        } catch {
            throw .unprocessable(error.description)
        }
    }

    /// The file's name for messages: at most 80 characters of what the page sent.
    static func fileName(_ upload: CSVUpload) -> String {
        let name = upload.name.flatMap { $0.isEmpty ? nil : $0 } ?? "the CSV file"
        return name.count > 80 ? String(name.prefix(80)) + "…" : name
    }

    /// Reads a CSV file's premises with MeridianIO's reader (the command line's: its rule for coordinate columns,
    /// its numbers, its messages naming the file, the feature and the line): x,y columns in the request's spatial
    /// reference, lon,lat columns in WGS84.
    /// - Throws: 422 with the reader's one-line message, or for a file that is not CSV (GeoJSON, KML, empty, …).
    static func csvPremises(_ upload: CSVUpload, in info: SpatialReferenceInfo) throws(APIError) -> FeatureInput {
        let name = fileName(upload)
        let data = Data(upload.text.utf8)
        let format = InputFormat.sniff(data)
        guard format == .csv else {
            throw .unprocessable("\(name) is \(format.name), not CSV: premises are read from a CSV file with x,y or "
                + "lon,lat columns")
        }
        do throws(CommandError) {
            return try FeatureInput.read(data, origin: InputOrigin(name: name), inputSpatialReference: nil,
                                         defaultXYSpatialReference: info.spatialReference,
                                         csv: FeatureInput.CSVOptions(pointsOnly: true))
        } catch {
            throw .unprocessable(error.description)
        }
    }
}
