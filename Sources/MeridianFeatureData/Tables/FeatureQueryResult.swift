import CGDAL
import MeridianCore

/// The features of a ``FeatureTable`` query (ArcGIS's `FeatureQueryResult`), read one at a time from the source:
/// memory holds one feature (or one batch) however large the table.
///
/// Each feature carries its attributes in ``/MeridianCore/Feature/properties`` (see ``FieldType`` for how values are
/// represented), its geometry in the table's spatial reference, and its ID in the source (OGR's feature ID: a
/// GeoPackage's `fid`, a shapefile's record number from 0) as ``/MeridianCore/Feature/id``.
public final class FeatureQueryResult {
    private let table: FeatureTable
    private let parameters: QueryParameters
    private let generation: Int
    private var geometryCodec: OGRGeometryCodec
    /// The fields read (all, or those of `outFields`), with their index in the layer.
    private let readers: [(index: Int32, reader: OGRFieldReader)]
    /// GDAL's Arrow stream of the layer, where the driver has one and it gives the same features (see
    /// `OGRArrowReader`); features are then taken from `pending`, one Arrow batch at a time.
    private var arrow: OGRArrowReader?
    /// Whether the query reads GDAL's Arrow stream (until its end).
    var usesArrow: Bool { arrow != nil }
    private var pending: FeatureColumns
    /// For a GeoPackage: tells a NULL geometry from one GDAL could not read (see `StoredGeometryCheck`).
    private let storedGeometryCheck: StoredGeometryCheck?
    /// The IDs of the features of the current batch that GDAL gave no geometry, for `storedGeometryCheck`.
    private var withoutGeometry: [Int64] = []
    private var pendingStart = 0
    private var finished = false

    /// How many features have been returned so far.
    public private(set) var featuresRead = 0

    deinit {
        arrow = nil  // before the table (and the dataset that owns the layer) can go
    }

    init(table: FeatureTable, parameters: QueryParameters, generation: Int, allowingArrow: Bool) {
        self.table = table
        self.parameters = parameters
        self.generation = generation
        geometryCodec = OGRGeometryCodec(spatialReference: table.spatialReference ?? .unspecified, limits: table.limits)
        readers = table.fieldReaders.enumerated().compactMap { i, reader in
            parameters.outFields.map { $0.contains(reader.field.name) } ?? true ? (Int32(i), reader) : nil
        }
        pending = FeatureColumns(names: readers.map { $0.reader.field.name })
        storedGeometryCheck = parameters.returnsGeometry && table.hasGeometry
            ? GDALRuntime.capturing { _ in StoredGeometryCheck(dataset: table.dataset, layer: table.layer) } : nil
        arrow = !allowingArrow ? nil : GDALRuntime.capturing { _ in
            OGRArrowReader(layer: table.layer, format: table.format, readers: readers.map { $0.reader }, returnsGeometry: parameters.returnsGeometry,
                           batchSize: min(parameters.maxFeatures ?? .max, parameters.batchSize ?? 65_536))
        }
    }

    /// The next feature, or `nil` after the last.
    /// - Throws: `FeatureDataError.unreadableFeature` naming the source, the table and the feature ID for a record
    ///   GDAL cannot read, a geometry Meridian cannot hold or a value out of range; `.cannotOpen` when another query
    ///   of the same table was started since.
    public func next() throws(FeatureDataError) -> Feature? {
        try nextBatch(maximumCount: 1).first
    }

    /// The next features, at most `maximumCount` of them; empty after the last.
    /// - Parameter maximumCount: The batch size (at least 1).
    /// - Throws: As ``next()``.
    public func nextBatch(maximumCount: Int) throws(FeatureDataError) -> [Feature] {
        guard let wanted = try wantedCount(maximumCount) else { return [] }
        if arrow != nil { return try nextFromArrow(wanted).features }
        return try nextFeatures(wanted)
    }

    /// The next features as columns, at most `maximumCount` of them (none after the last): the attributes of
    /// ``nextBatch(maximumCount:)``'s features, named by the fields read in the table's order, without a dictionary
    /// per feature where GDAL's Arrow stream is read.
    /// - Parameter maximumCount: The batch size (at least 1).
    /// - Throws: As ``next()``.
    public func nextColumns(maximumCount: Int) throws(FeatureDataError) -> FeatureColumns {
        guard let wanted = try wantedCount(maximumCount) else { return FeatureColumns(names: pending.names) }
        if arrow != nil { return try nextFromArrow(wanted) }
        return FeatureColumns(names: pending.names, features: try nextFeatures(wanted))
    }

    /// How many features the next batch of at most `maximumCount` reads (`maxFeatures` counted), or nil when the
    /// query has ended (and is then marked finished).
    private func wantedCount(_ maximumCount: Int) throws(FeatureDataError) -> Int? {
        try checkCurrent()
        guard !finished else { return nil }
        var wanted = max(1, maximumCount)
        if let most = parameters.maxFeatures { wanted = min(wanted, most - featuresRead) }
        guard wanted > 0 else { finished = true; return nil }
        return wanted
    }

    /// Up to `wanted` features read one at a time (`nextByFeature`), checked for unreadable geometries.
    private func nextFeatures(_ wanted: Int) throws(FeatureDataError) -> [Feature] {
        let features = try nextByFeature(wanted) { handle, _ throws(FeatureDataError) in try feature(handle) }
        try checkWithoutGeometry()
        return features
    }

    /// Refuses the batch when a feature GDAL gave no geometry has a stored geometry that is not NULL (GDAL could not
    /// read it); see `StoredGeometryCheck`.
    private func checkWithoutGeometry() throws(FeatureDataError) {
        defer { withoutGeometry.removeAll(keepingCapacity: true) }
        if let check = storedGeometryCheck, let problem = check.unreadable(among: withoutGeometry) {
            throw unreadable(Int(problem.fid), problem.reason)
        }
    }

    /// Up to `wanted` features read one at a time with `OGR_L_GetNextFeature`, each converted by `convert` (given
    /// the OGR feature and its ID, `nil` when it has none) while GDAL's feature is alive. Ends the query after the
    /// last feature, checking the count the file declares; a failure GDAL reports is the read's error.
    private func nextByFeature<T>(
        _ wanted: Int, _ convert: (OGRFeatureH, Int?) throws(FeatureDataError) -> T
    ) throws(FeatureDataError) -> [T] {
        let values = try GDALRuntime.capturing { messages throws(FeatureDataError) -> [T] in
            var values: [T] = []
            values.reserveCapacity(min(wanted, 65_536))
            while values.count < wanted {
                guard let handle = gdal.OGR_L_GetNextFeature(table.layer) else {
                    if !messages.failures.isEmpty { throw unreadable(nil, messages.reason("")) }
                    try checkComplete(read: featuresRead + values.count)
                    finished = true
                    break
                }
                defer { gdal.OGR_F_Destroy(handle) }
                let fid = gdal.OGR_F_GetFID(handle)
                values.append(try convert(handle, fid >= 0 ? Int(fid) : nil))
                if !messages.failures.isEmpty {
                    // GDAL says "Unable to read geometry" of some blobs it cannot decode (and nothing of others):
                    // the stored value says what it is, as for the others.
                    if gdal.OGR_F_GetGeometryRef(handle) == nil, let problem = storedGeometryCheck?.unreadable(among: [fid]) {
                        throw unreadable(Int(problem.fid), problem.reason)
                    }
                    throw unreadable(fid >= 0 ? Int(fid) : nil, messages.reason(""))
                }
            }
            return values
        }
        featuresRead += values.count
        return values
    }

    /// The coordinates of the next point features, up to 65,536 at a time, without building ``/MeridianCore/Feature``
    /// values (nor reading attributes): the fast way to read a table of points for bulk work such as buffering and
    /// union. Empty after the last. Query with ``QueryParameters/outFields`` empty to read no attributes at all.
    /// - Throws: `FeatureDataError.unreadableFeature` for a feature without a point geometry (a multipoint, a line,
    ///   none), and as ``next()``.
    public func nextPoints() throws(FeatureDataError) -> [Coordinate] {
        try checkCurrent()
        if pendingStart == pending.count, arrow == nil { return try nextPointsByFeature() }
        guard pendingStart == pending.count else {
            // What an earlier Arrow batch left: the points of those features.
            let features = try nextBatch(maximumCount: 65_536)
            var coordinates: [Coordinate] = []
            coordinates.reserveCapacity(features.count)
            for f in features {
                guard let p = f.geometry?.point else {
                    throw unreadable(f.id?.intValue, "its geometry is \(f.geometry?.typeName ?? "missing"), not a point")
                }
                coordinates.append(p.coordinate)
            }
            return coordinates
        }
        guard !finished else { return [] }
        var coordinates: [Coordinate] = []
        let more = try GDALRuntime.capturing { messages throws(FeatureDataError) -> Bool in
            let more: Bool
            do throws(FieldValueError) {
                more = try arrow?.nextPoints(into: &coordinates) ?? false
            } catch {
                if let fid = arrow?.pointlessFID, let problem = storedGeometryCheck?.unreadable(among: [fid]) {
                    throw unreadable(Int(problem.fid), problem.reason)
                }
                throw unreadable(error.feature.map { Int($0) },
                                 FeatureQueryResult.joined(error.reason, messages.failures.first))
            }
            // GDAL may say a read failed and still hand over a batch, or end the stream: either way, its error.
            if !messages.failures.isEmpty { throw unreadable(nil, messages.reason("")) }
            return more
        }
        if let most = parameters.maxFeatures, featuresRead + coordinates.count > most {
            coordinates.removeLast(featuresRead + coordinates.count - most)
            finished = true
        }
        if !more {
            try checkComplete(read: featuresRead)
            finished = true
            arrow = nil
        }
        featuresRead += coordinates.count
        return coordinates
    }

    /// The coordinates of the next point features (up to 65,536) read feature by feature from OGR, for layers without
    /// a native Arrow stream (a shapefile): each point is taken from OGR's geometry as it is, no ``/MeridianCore/Feature``
    /// built (which took half of the time of reading a million points).
    private func nextPointsByFeature() throws(FeatureDataError) -> [Coordinate] {
        guard !finished else { return [] }
        var wanted = 65_536
        if let most = parameters.maxFeatures { wanted = min(wanted, most - featuresRead) }
        guard wanted > 0 else { finished = true; return [] }
        return try nextByFeature(wanted) { handle, fid throws(FeatureDataError) -> Coordinate in
            let geometry = gdal.OGR_F_GetGeometryRef(handle).flatMap { gdal.OGR_G_IsEmpty($0) == 0 ? $0 : nil }
            guard let g = geometry, gdal.OGR_GT_Flatten(gdal.OGR_G_GetGeometryType(g)) == wkbPoint else {
                if gdal.OGR_F_GetGeometryRef(handle) == nil, let fid,
                   let problem = storedGeometryCheck?.unreadable(among: [Int64(fid)]) {
                    throw unreadable(fid, problem.reason)
                }
                let what = geometry.flatMap { gdal.OGR_G_GetGeometryName($0) }.map { "a " + String(cString: $0) }
                throw unreadable(fid, "its geometry is \(what ?? "missing or empty"), not a point")
            }
            do throws(FieldValueError) { return try OGRGeometryCodec.pointCoordinate(ogr: g) } catch {
                throw unreadable(fid, error.reason)
            }
        }
    }

    /// The next features from the Arrow stream: what is left of the current Arrow batch, then further batches.
    private func nextFromArrow(_ wanted: Int) throws(FeatureDataError) -> FeatureColumns {
        var batch = FeatureColumns(names: pending.names)
        while batch.count < wanted {
            if pendingStart == pending.count {
                pending = FeatureColumns(names: pending.names)
                pendingStart = 0
                geometryCodec.startBatch()
                let more = try GDALRuntime.capturing { messages throws(FeatureDataError) -> Bool in
                    let more: Bool
                    do throws(FieldValueError) {
                        more = try arrow?.next(into: &pending, withoutGeometry: &withoutGeometry, codec: &geometryCodec)
                            ?? false
                    } catch {
                        throw unreadable(error.feature.map { Int($0) },
                                         FeatureQueryResult.joined(error.reason, messages.failures.first))
                    }
                    // GDAL may say a read failed and still hand over a batch, or end the stream: either way, its error.
                    if !messages.failures.isEmpty { throw unreadable(nil, messages.reason("")) }
                    return more
                }
                try checkWithoutGeometry()
                if !more {
                    try checkComplete(read: featuresRead + batch.count)
                    finished = true
                    arrow = nil
                    break
                }
                continue
            }
            let take = min(wanted - batch.count, pending.count - pendingStart)
            if batch.count == 0, pendingStart == 0, take == pending.count {
                swap(&batch, &pending)  // a whole Arrow batch: handed over, not copied
                pendingStart = 0
                continue
            }
            batch.append(contentsOf: pending.slice(pendingStart..<pendingStart + take))
            pendingStart += take
        }
        featuresRead += batch.count
        return batch
    }

    /// One OGR feature as a Meridian feature.
    private func feature(_ handle: OGRFeatureH) throws(FeatureDataError) -> Feature {
        let fid = gdal.OGR_F_GetFID(handle)
        if storedGeometryCheck != nil, gdal.OGR_F_GetGeometryRef(handle) == nil { withoutGeometry.append(fid) }
        do {
            let geometry = parameters.returnsGeometry ? try geometryCodec.geometry(of: handle) : nil
            var properties: [String: JSONValue] = [:]
            if !readers.isEmpty { properties.reserveCapacity(readers.count) }
            for (i, reader) in readers {
                properties[reader.field.name] = try reader.value(of: handle, at: i)
            }
            return Feature(geometry: geometry, properties: properties, id: fid >= 0 ? .number(Double(fid)) : nil)
        } catch {
            throw unreadable(fid >= 0 ? Int(fid) : nil, error.reason)
        }
    }

    /// The Arrow stream's error and GDAL's message, once when the stream repeats GDAL's message.
    static func joined(_ streamError: String, _ message: String?) -> String {
        guard let message, !streamError.contains(message) else { return streamError }
        return "\(streamError): \(message)"
    }

    /// Throws when another query of the table was started since this one (they share the layer's read position).
    private func checkCurrent() throws(FeatureDataError) {
        guard generation == table.queryGeneration else {
            throw .cannotOpen(source: table.sourceName,
                              reason: "layer '\(table.tableName)': another query of this table was started; this one stopped")
        }
    }

    /// Ends the query: the Arrow stream is released (GDAL allows one per layer), nothing more is read. Called when
    /// the table starts another query.
    func stop() {
        arrow = nil
        finished = true
    }

    /// A shapefile's and a FlatGeobuf's header count their features: a file that ends before that many were read is
    /// truncated (GDAL stops there without a word). A GeoPackage's or database's count is not checked: it is kept by
    /// triggers that other tools may have bypassed.
    private func checkComplete(read: Int) throws(FeatureDataError) {
        guard parameters.maxFeatures == nil, table.format == .shapefile || table.format == .flatGeobuf,
              let declared = table.numberOfFeatures, read < declared else { return }
        throw unreadable(nil, "the file declares \(declared) features but ends after \(read) (it is truncated or corrupt)")
    }

    private func unreadable(_ fid: Int?, _ reason: String) -> FeatureDataError {
        finished = true
        let clean = GDALDataset.oneLine(table.dataset.location.connection?.scrub(reason) ?? reason)
        return .unreadableFeature(source: table.sourceName, table: table.tableName, feature: fid,
                                  reason: clean.isEmpty ? "GDAL could not read it" : clean)
    }
}
