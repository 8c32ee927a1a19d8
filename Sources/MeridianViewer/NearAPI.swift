import Foundation
import Meridian

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
    /// columns, a premise a row.
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
        let rows = try body.premisesCSV.map { (upload) throws(APIError) in try Self.csvPremises(upload) } ?? []
        guard tapped.count + rows.count <= limits.maximumPoints else {
            throw .tooLarge("too many premises: \(tapped.count + rows.count) (limit \(limits.maximumPoints))")
        }
        var premises = try Self.checkedPremises(tapped, in: info)
        if let upload = body.premisesCSV {
            premises += try Self.projected(rows, of: upload, in: info)
        }
        let located = premises.map { Point($0, spatialReference: info.spatialReference) }
        let pairs = try job.map { (job) throws(APIError) in try nearPairs(job, located) } ?? []
        return Self.nearResponse(mode: mode, wkid: info.wkid, premises: premises, pairs: pairs)
    }

    /// `{"mode", "wkid", "unit": "mi", "premises": [{"x", "y"}], "pairs": [{"point", "premise", "distance", "rank"}],
    /// "pointsInBreach": [i…], "premisesInReach": [j…]}`, numbers to 9 decimals (a nanomile, 1.6 µm; a nanofoot).
    private static func nearResponse(mode: BufferMode, wkid: Int, premises: [Coordinate], pairs: [NearPair])
        -> HTTPResponse
    {
        var w = JSONWriter(decimals: 9, capacity: 64 * (premises.count + pairs.count) + 256)
        w.raw("{\"mode\":\"\(mode.rawValue)\",\"wkid\":\(wkid),\"unit\":\"mi\",\"premises\":[")
        for (i, c) in premises.enumerated() {
            w.raw(i == 0 ? "{\"x\":" : ",{\"x\":")
            w.number(c.x)
            w.raw(",\"y\":")
            w.number(c.y)
            w.raw("}")
        }
        w.raw("],\"pairs\":[")
        for (i, p) in pairs.enumerated() {
            w.raw(i == 0 ? "{" : ",{")
            w.raw("\"point\":\(p.leftIndex),\"premise\":\(p.rightIndex),\"distance\":")
            w.number(p.distance)
            w.raw(",\"rank\":\(p.rank)}")
        }
        let list = { (indices: [Int]) in Set(indices).sorted().map { String($0) }.joined(separator: ",") }
        w.raw("],\"pointsInBreach\":[\(list(pairs.map { $0.leftIndex }))]")
        w.raw(",\"premisesInReach\":[\(list(pairs.map { $0.rightIndex }))]}")
        return .json(data: w.data)
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
    private static func projected(_ rows: [CSVPremise], of upload: CSVUpload, in info: SpatialReferenceInfo)
        throws(APIError) -> [Coordinate]
    {
        let name = fileName(upload)
        guard !rows.isEmpty else { throw .unprocessable("\(name) holds no premises: its rows are missing") }
        let sr = info.spatialReference
        let source = rows.first?.longitudeLatitude == true ? SpatialReference.wgs84 : sr
        let coordinates = rows.map { $0.coordinate }
        if let outside = try firstOutside(coordinates, in: source, of: info) {
            throw .unprocessable("\(name) line \(rows[outside.vertexIndex].line): the premise "
                                 + "\(outside.reasonPhrase(for: sr))")
        }
        guard source != sr else { return coordinates }
        do {
            return try GeometryEngine.project(Multipoint(coordinates, spatialReference: source), into: sr).coordinates
        } catch {
            throw .unprocessable("\(name): cannot project its premises into EPSG:\(info.wkid): \(error.description)")
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

    /// One premise read from a CSV row: its coordinates as written and the line it starts on.
    struct CSVPremise {
        /// x,y or lon,lat as written.
        var coordinate: Coordinate
        /// Whether they are longitude/latitude.
        var longitudeLatitude: Bool
        /// The 1-based line the row starts on.
        var line: Int
    }

    /// The file's name for messages: at most 80 characters of what the page sent.
    static func fileName(_ upload: CSVUpload) -> String {
        let name = upload.name.flatMap { $0.isEmpty ? nil : $0 } ?? "the CSV file"
        return name.count > 80 ? String(name.prefix(80)) + "…" : name
    }

    /// Reads a CSV file's premises with the library's CSV reader and its rule for coordinate columns (the command
    /// line's): a header naming lon,lat (or longitude,latitude, lng,lat) or x,y, then one premise a row.
    /// - Throws: 422 naming the file and the line for a malformed record, a header without coordinate columns, a
    ///   coordinate that is not a finite number or a longitude/latitude out of range.
    static func csvPremises(_ upload: CSVUpload) throws(APIError) -> [CSVPremise] {
        let name = fileName(upload)
        var text = upload.text
        let result = text.withUTF8 { bytes -> Result<[CSVPremise], APIError> in
            var reader = CSVRecordReader(bytes)
            var premises: [CSVPremise] = []
            do throws(FormatError) {
                guard try reader.next() else {
                    return .failure(.unprocessable("\(name) is empty: it needs a header naming x,y or lon,lat columns"))
                }
                let header = try reader.strings()
                let columns = try CSVCoordinateColumns(header: header)
                while try reader.next() {
                    try reader.requireFieldCount(header.count)
                    guard let x = reader.number(columns.x), let y = reader.number(columns.y) else {
                        let pair = "'\(try reader.string(columns.x))','\(try reader.string(columns.y))'"
                        return .failure(.unprocessable("\(name) line \(reader.recordLine): \(pair) is not a finite coordinate pair"))
                    }
                    let c = Coordinate(x: x, y: y)
                    if columns.isLongitudeLatitude, let problem = ReadBack.longitudeLatitudeProblem(c) {
                        return .failure(.unprocessable("\(name) line \(reader.recordLine): \(problem)"))
                    }
                    premises.append(CSVPremise(coordinate: c, longitudeLatitude: columns.isLongitudeLatitude,
                                               line: reader.recordLine))
                }
            } catch {
                let place = error.line.map { " line \($0)" } ?? ""
                return .failure(.unprocessable("\(name)\(place): \(error.message)"))
            }
            return .success(premises)
        }
        return try result.get()
    }
}
