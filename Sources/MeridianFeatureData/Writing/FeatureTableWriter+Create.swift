import CGDAL
import Foundation
import MeridianCore
import MeridianEngine

extension FeatureTableWriter {
    /// Creates the dataset (a new file in the scratch folder, or the database opened for update with a transaction
    /// started), the layer and its fields; a GeoPackage for `largeGeometries` with 64 KiB pages and its spatial index
    /// made before the first feature; a FlatGeobuf with `spatialIndex` written by GDAL in two passes at close (used
    /// only for an empty table: see `rewriteEmptyFlatGeobuf()`).
    /// - Returns: The dataset handle (owned by the writer) and the layer.
    static func create(
        _ target: WriteTarget, format: FeatureDataFormat, table: TableDescription, schema: OutputSchema,
        overwrite: Bool, largeGeometries: Bool = false, spatialIndex: Bool = false, name: String
    ) throws(FeatureDataError) -> (UnsafeMutableRawPointer, OGRLayerH) {
        let handle = try openDataset(target, format: format,
                                     sqlitePragma: format == .geoPackage && largeGeometries ? "page_size=65536" : nil,
                                     name: name)
        do throws(FeatureDataError) {
            let layer = try GDALRuntime.capturing { messages throws(FeatureDataError) -> OGRLayerH in
                let fail = { (reason: String) in
                    FeatureDataError.cannotWrite(destination: name, table: table.name, reason: reason)
                }
                if format == .postGIS {
                    try dropOrRefuseExisting(handle, table: table.name, overwrite: overwrite, fail: fail)
                }
                let srs: OGRSpatialReferenceH?
                do {
                    srs = try table.spatialReference.flatMap { sr throws(EngineError) in try OGRSpatialReference.make(sr) }
                } catch {
                    throw fail("its spatial reference cannot be given to GDAL: \(error)")
                }
                defer { if let srs { gdal.OSRRelease(srs) } }
                let layer = withCStringList(layerOptions(format, schema: schema, spatialIndex: spatialIndex)) { options in
                    gdal.GDALDatasetCreateLayer(handle, table.name, srs, schema.layerGeometryType(table), options.base)
                }
                guard let layer else { throw fail(messages.reason("GDAL could not create the layer")) }
                for column in schema.columns {
                    guard let definition = schema.definition(column) else { throw fail("GDAL could not define a field") }
                    defer { gdal.OGR_Fld_Destroy(definition) }
                    guard gdal.OGR_L_CreateField(layer, definition, 0) == OGRERR_NONE else {
                        throw fail(messages.reason("GDAL could not create field '\(column.outputName)'"))
                    }
                }
                // GDAL defers a new GeoPackage table's spatial index to the end and then fills it with
                // `ST_MinX(geom)` … `ST_IsEmpty(geom)` over the table: five reads of each geometry from the file.
                // For a few huge geometries, the index is made now, on the empty table, and the GeoPackage's own
                // triggers fill it as each feature is inserted, from the geometry in memory.
                if format == .geoPackage, largeGeometries, gdal.OGR_L_SyncToDisk(layer) != OGRERR_NONE {
                    throw fail(messages.reason("GDAL could not create the spatial index"))
                }
                if format == .geoPackage, gdal.GDALDatasetStartTransaction(handle, 0) != OGRERR_NONE {
                    throw fail(messages.reason("GDAL could not start a transaction"))
                }
                return layer
            }
            return (handle, layer)
        } catch {
            GDALRuntime.capturing { _ in
                if format == .postGIS { _ = gdal.GDALDatasetRollbackTransaction(handle) }
                gdal.GDALClose(handle)
            }
            throw error.scrubbed(by: target)
        }
    }

    /// A new file dataset (created with GDAL's `OGR_SQLITE_PRAGMA` set to `sqlitePragma` on this thread, if given),
    /// or the database opened for update inside a transaction.
    private static func openDataset(_ target: WriteTarget, format: FeatureDataFormat, sqlitePragma: String?, name: String)
        throws(FeatureDataError) -> UnsafeMutableRawPointer
    {
        if case .database(let connection) = target {
            guard let open = connection.openString else {
                throw .connectionFailed(source: name, reason: connection.refusal ?? "")
            }
            let location = LocatedSource(format: .postGIS, gdalName: open, displayName: name,
                                          connection: connection, isZipped: false)
            let dataset = try GDALDataset(opening: location, update: true)
            let handle = dataset.release()
            let started = GDALRuntime.capturing { messages in
                gdal.GDALDatasetStartTransaction(handle, 0) == OGRERR_NONE ? nil : messages.reason("no transaction")
            }
            if let reason = started {
                GDALRuntime.capturing { _ in gdal.GDALClose(handle) }
                throw .cannotWrite(destination: name, table: nil, reason: connection.scrub(reason))
            }
            return handle
        }
        let created: (UnsafeMutableRawPointer?, String) = GDALRuntime.capturing { messages in
            guard let driver = gdal.GDALGetDriverByName(format.driverName) else { return (nil, "no GDAL driver \(format.driverName)") }
            let key = "OGR_SQLITE_PRAGMA"
            let before = gdal.CPLGetThreadLocalConfigOption(key, nil).map { String(cString: $0) }
            if let sqlitePragma { gdal.CPLSetThreadLocalConfigOption(key, sqlitePragma) }
            defer { if sqlitePragma != nil { gdal.CPLSetThreadLocalConfigOption(key, before) } }
            let handle = gdal.GDALCreate(driver, target.gdalName, 0, 0, 0, GDT_Unknown, nil)
            return (handle, messages.reason("GDAL could not create the file"))
        }
        guard let handle = created.0 else { throw .cannotWrite(destination: name, table: nil, reason: created.1) }
        return handle
    }

    /// In a database: drops an existing table of that name inside the transaction, or refuses without `overwrite`.
    private static func dropOrRefuseExisting(
        _ handle: UnsafeMutableRawPointer, table: String, overwrite: Bool, fail: (String) -> FeatureDataError
    ) throws(FeatureDataError) {
        guard let existing = gdal.GDALDatasetGetLayerByName(handle, table) else { return }
        guard overwrite else { throw fail("the table already exists (overwriting was not requested)") }
        let count = gdal.GDALDatasetGetLayerCount(handle)
        guard let index = (0..<count).first(where: { gdal.GDALDatasetGetLayer(handle, $0) == existing }),
              gdal.GDALDatasetDeleteLayer(handle, index) == OGRERR_NONE
        else { throw fail("the existing table could not be dropped") }
    }

    /// Layer creation options per driver, as the format declares them (`FeatureDataFormat.declaration`): a FlatGeobuf without a spatial index unless `spatialIndex` (GDAL then
    /// writes features to a temporary file and the whole file again at close).
    private static func layerOptions(_ format: FeatureDataFormat, schema: OutputSchema, spatialIndex: Bool) -> [String] {
        format.declaration.layerOptions(schema.geometryColumn, schema.fidColumn, spatialIndex)
    }
}

extension FeatureDataError {
    /// The error with a database password removed from its text.
    func scrubbed(by target: WriteTarget) -> FeatureDataError {
        guard case .database(let connection) = target else { return self }
        switch self {
        case .cannotWrite(let d, let t, let r): return .cannotWrite(destination: d, table: t, reason: connection.scrub(r))
        default: return self
        }
    }
}
