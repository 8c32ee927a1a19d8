import CGDAL
import Foundation
import MeridianCore

/// Writes one feature table to a GeoPackage, a shapefile, a FlatGeobuf or a PostGIS table, streaming: features are
/// handed to GDAL one at a time, so memory does not grow with their number.
///
/// Atomic: a file is written in a scratch folder beside the target and renamed into place by ``finish()``; a PostGIS
/// table is written in one transaction (an existing table of that name is dropped inside it) committed by
/// ``finish()``. Anything thrown before — a feature the table cannot hold, a full disk, a lost connection — and
/// ``cancel()`` (or releasing the writer unfinished) leave the destination as it was.
///
/// What a format cannot hold is refused before anything is written (a shapefile's one geometry type, blob fields),
/// or adapted with a note in ``notes`` (shapefile field names cut to 10 bytes, date-times written as text); see
/// ``TableDescription``. Each feature must then match the description: its geometry of the table's type, in its
/// spatial reference, with z exactly when the table has z, and its properties of the fields' types (properties that
/// are not fields are not written); a FlatGeobuf's, with a geometry that is not empty. A write that fails is an
/// error in every format (a FlatGeobuf, whose GDAL writer does not report every failed write, is checked whole by
/// ``finish()``).
public final class FeatureTableWriter {
    /// The format written.
    public let format: FeatureDataFormat
    /// The table as described.
    public let table: TableDescription
    /// How messages name the destination: its path, or the connection string without its password.
    public let destinationName: String
    /// What was adapted to fit the format, one sentence each (empty when nothing was).
    public var notes: [String] { schema.notes }
    /// How many features were added.
    public private(set) var featuresWritten = 0

    private let schema: OutputSchema
    private let target: WriteTarget
    private let connection: PostGISConnection?
    private var handle: UnsafeMutableRawPointer?
    private let layer: OGRLayerH
    private var budget: ShapefileBudget?
    private var geometryBuilder: OGRGeometryBuilder
    /// The polygon feature being assembled by ``addPiece(_:)``: its properties, GDAL's MultiPolygon so far, and the
    /// rings and vertices it holds (for the shapefile budget).
    private var pending: (feature: Feature, geometry: OGRGeometryH, rings: Int, vertices: Int)?
    private var isOpen = true

    /// Features per GeoPackage transaction: SQLite writes fast inside one, and the journal stays bounded.
    static let transactionSize = 100_000

    /// Creates the table (in a scratch file, or inside a transaction) after checking the description against the
    /// format.
    /// - Parameters:
    ///   - path: A file path ending in `.gpkg`, `.shp` or `.fgb` (the format is chosen by the name), or a `PG:`
    ///     connection string (the table is `table.name`).
    ///   - table: What the table holds.
    ///   - overwrite: Whether an existing file or table of that name may be replaced (default `true`).
    ///   - largeGeometries: Whether the table will hold a few very large geometries (a union of buffers: one
    ///     geometry of hundreds of megabytes) rather than many small ones. A GeoPackage then uses SQLite's largest
    ///     page, 64 KiB instead of 4 KiB (16 times fewer page writes), and its spatial index is created with the
    ///     empty table, so that the GeoPackage's triggers index each geometry as it is inserted instead of GDAL
    ///     reading every geometry back from the file five times to fill the index at the end (a 1M-point union:
    ///     about 2 s less). A small table written so takes about 1.3 MB instead of 0.1 MB. Other formats ignore it.
    ///     Default `false`.
    /// - Throws: `FeatureDataError.unsupportedByFormat` for what the format cannot hold, `.cannotWrite` for an
    ///   existing destination without `overwrite`, a folder that cannot be written, or GDAL's refusal, and
    ///   `.connectionFailed`.
    public convenience init(
        path: String, table: TableDescription, overwrite: Bool = true, largeGeometries: Bool = false
    ) throws(FeatureDataError) {
        try self.init(path: path, table: table, overwrite: overwrite, largeGeometries: largeGeometries,
                      shapefileLimit: ShapefileBudget.defaultLimit)
    }

    /// As the public initialiser, with the shapefile size limit as a parameter (the tests lower it).
    init(path: String, table: TableDescription, overwrite: Bool, largeGeometries: Bool = false,
         shapefileLimit: Int) throws(FeatureDataError) {
        guard let format = FeatureDataFormat.forOutput(path) else {
            throw .cannotWrite(destination: path, table: nil,
                               reason: "the name does not end in "
                                   + MessageText.list(FeatureDataFormat.allCases.compactMap { $0.fileExtension.map { "." + $0 } },
                                                      conjunction: "or") + " and is not a PG: connection string")
        }
        let connection = PostGISConnection(path)
        let name = connection?.redacted ?? path
        do throws(GDALUnavailable) {
            try GDALRuntime.prepare()
        } catch {
            throw .cannotWrite(destination: name, table: nil, reason: error.description)
        }
        do {
            schema = try OutputSchema(table, format: format)
        } catch {
            throw .unsupportedByFormat(format: format.rawValue, destination: name, reason: error.reason)
        }
        guard !table.name.isEmpty else { throw .cannotWrite(destination: name, table: nil, reason: "the layer name is empty") }
        self.format = format
        self.table = table
        self.connection = connection
        geometryBuilder = OGRGeometryBuilder(hasZ: table.hasZ, promoteToMulti: schema.promotesToMulti,
                                             clockwiseShells: format == .shapefile)
        destinationName = name
        if let connection {
            target = .database(connection)
        } else {
            target = try WriteTarget.file(URL(fileURLWithPath: path), format: format, overwrite: overwrite)
        }
        do {
            (handle, layer) = try FeatureTableWriter.create(target, format: format, table: table, schema: schema,
                                                            overwrite: overwrite, largeGeometries: largeGeometries,
                                                            name: name)
        } catch {
            target.discard()
            throw error
        }
        if format == .shapefile {
            let definition = gdal.OGR_L_GetLayerDefn(layer)
            let widths = (0..<gdal.OGR_FD_GetFieldCount(definition)).map {
                Int(gdal.OGR_Fld_GetWidth(gdal.OGR_FD_GetFieldDefn(definition, $0)))
            }
            budget = ShapefileBudget(fieldWidths: widths, hasZ: table.hasZ, limit: shapefileLimit)
        }
    }

    deinit { cancel() }

    /// Adds one feature.
    /// - Parameter feature: A feature matching the table (see the type's documentation).
    /// - Throws: `FeatureDataError.cannotWrite` naming the feature (its index among those added, from 0) and why;
    ///   the writer is then cancelled and the destination left as it was.
    public func add(_ feature: Feature) throws(FeatureDataError) {
        try adding { messages throws(FieldValueError) in
            guard pending == nil else { throw FieldValueError("a polygon was begun and not ended") }
            try check(feature.geometry)
            try budget?.add(feature.geometry)
            let geometry = try feature.geometry.map { g throws(FieldValueError) in try geometryBuilder.make(g) }
            try write(feature, geometry: geometry, messages: messages)
        }
    }

    /// Begins a polygon feature whose parts come a piece at a time (``addPiece(_:)``), as a union made batch by
    /// batch gives them (`GeometryEngine.unionOfBuffers(…batchSize:_:)`): each piece's rings go into GDAL's geometry
    /// at once, so the whole polygon is never held by the caller. ``endPolygon()`` writes it: one MultiPolygon (a
    /// shapefile's one polygon record) with every piece's parts in order.
    /// - Parameter properties: The feature's properties (as a feature's for ``add(_:)``).
    /// - Throws: `FeatureDataError.cannotWrite` when the table does not hold polygons, or a polygon is already
    ///   begun; the writer is then cancelled.
    public func beginPolygon(properties: [String: JSONValue]) throws(FeatureDataError) {
        try adding { _ throws(FieldValueError) in
            guard pending == nil else { throw FieldValueError("a polygon was begun and not ended") }
            if let type = table.geometryType, type != .polygon {
                throw FieldValueError("its geometry is a polygon, the layer holds \(type.rawValue)s")
            }
            pending = (Feature(geometry: nil, properties: properties), try geometryBuilder.multiPolygon(), 0, 0)
        }
    }

    /// Adds a piece's parts to the polygon begun by ``beginPolygon(properties:)``, checked as ``add(_:)`` checks a
    /// feature's geometry.
    /// - Throws: `FeatureDataError.cannotWrite`; the writer is then cancelled.
    public func addPiece(_ piece: Polygon) throws(FeatureDataError) {
        try adding { _ throws(FieldValueError) in
            guard var p = pending else { throw FieldValueError("no polygon was begun") }
            try check(.polygon(piece))
            try geometryBuilder.add(piece.parts, to: p.geometry)
            p.rings += piece.parts.reduce(0) { $0 + 1 + $1.holes.count }
            p.vertices += piece.vertexCount
            pending = p
        }
    }

    /// Writes the polygon begun by ``beginPolygon(properties:)`` with every piece added.
    /// - Throws: `FeatureDataError.cannotWrite` (a shapefile past its size limit, GDAL's refusal); the writer is
    ///   then cancelled.
    public func endPolygon() throws(FeatureDataError) {
        try adding { messages throws(FieldValueError) in
            guard let p = pending else { throw FieldValueError("no polygon was begun") }
            pending = nil
            if p.vertices == 0, !schema.holdsFeaturesWithoutGeometry {
                gdal.OGR_G_DestroyGeometry(p.geometry)
                throw FieldValueError(OutputSchema.noGeometryReason("an empty geometry"))
            }
            do throws(FieldValueError) {
                try budget?.add(contentBytes: ShapefileBudget.polygonContentBytes(rings: p.rings, vertices: p.vertices,
                                                                                   hasZ: table.hasZ))
            } catch {
                gdal.OGR_G_DestroyGeometry(p.geometry)
                throw error
            }
            try write(p.feature, geometry: p.geometry, messages: messages)
        }
    }

    /// Runs one step of adding a feature with GDAL's messages captured; a failure cancels the writer and names the
    /// feature.
    private func adding(_ body: (GDALMessages) throws(FieldValueError) -> Void) throws(FeatureDataError) {
        guard isOpen, handle != nil else {
            throw .cannotWrite(destination: destinationName, table: table.name, reason: "the writer was finished or cancelled")
        }
        do {
            try GDALRuntime.capturing { messages throws(FieldValueError) in try body(messages) }
        } catch {
            cancel()
            throw .cannotWrite(destination: destinationName, table: table.name,
                               reason: "feature \(featuresWritten): \(scrub(error.reason))")
        }
    }

    /// Adds features in order (see ``add(_:)``).
    /// - Parameter features: Features matching the table.
    public func add(contentsOf features: some Sequence<Feature>) throws(FeatureDataError) {
        for feature in features { try add(feature) }
    }

    /// Commits: closes the dataset (GDAL finishes its indexes) and renames the files into place, or commits the
    /// database transaction.
    /// - Throws: `FeatureDataError.cannotWrite`; the destination is then left as it was.
    public func finish() throws(FeatureDataError) {
        guard isOpen, let handle else {
            throw .cannotWrite(destination: destinationName, table: table.name, reason: "the writer was finished or cancelled")
        }
        guard pending == nil else {
            cancel()
            throw .cannotWrite(destination: destinationName, table: table.name, reason: "a polygon was begun and not ended")
        }
        isOpen = false
        self.handle = nil
        let reason: String? = GDALRuntime.capturing { messages in
            if format == .geoPackage || format == .postGIS {
                guard gdal.GDALDatasetCommitTransaction(handle) == OGRERR_NONE else {
                    gdal.GDALClose(handle)
                    return messages.reason("GDAL could not commit the transaction")
                }
            }
            gdal.GDALClose(handle)
            return messages.failures.first
        }
        if let reason {
            target.discard()
            throw .cannotWrite(destination: destinationName, table: table.name, reason: scrub(reason))
        }
        defer { target.discard() }
        if format == .flatGeobuf {
            if featuresWritten == 0 { try rewriteEmptyFlatGeobuf() }
            if let problem = FlatGeobufCheck.problem(path: target.gdalName, features: featuresWritten) {
                throw .cannotWrite(destination: destinationName, table: table.name, reason: problem)
            }
        }
        do {
            try target.commit(format: format)
        } catch {
            throw .cannotWrite(destination: destinationName, table: table.name, reason: "\(error)")
        }
    }

    /// Writes the table again, empty, with GDAL's FlatGeobuf spatial index option: without it (as the writer
    /// creates tables, streaming) GDAL writes a FlatGeobuf's header with its first feature, so a table that gets
    /// none is a file of 0 bytes, which no reader opens; with it, GDAL writes the header of an empty table at close.
    private func rewriteEmptyFlatGeobuf() throws(FeatureDataError) {
        _ = unlink(target.gdalName)
        let (handle, _) = try FeatureTableWriter.create(target, format: format, table: table, schema: schema,
                                                        overwrite: true, spatialIndex: true, name: destinationName)
        if let reason = GDALRuntime.capturing({ messages in
            gdal.GDALClose(handle)
            return messages.failures.first
        }) {
            throw .cannotWrite(destination: destinationName, table: table.name, reason: scrub(reason))
        }
    }

    /// Abandons the table: the scratch files are removed or the transaction rolled back. Does nothing after
    /// ``finish()``.
    public func cancel() {
        if let p = pending { gdal.OGR_G_DestroyGeometry(p.geometry) }
        pending = nil
        guard isOpen else { return }
        isOpen = false
        if let handle {
            GDALRuntime.capturing { _ in
                if format == .geoPackage || format == .postGIS { _ = gdal.GDALDatasetRollbackTransaction(handle) }
                gdal.GDALClose(handle)
            }
        }
        handle = nil
        target.discard()
    }

    /// Checks a feature's geometry against the table.
    private func check(_ geometry: Geometry?) throws(FieldValueError) {
        if !schema.holdsFeaturesWithoutGeometry, geometry.map(FeatureTableWriter.isEmpty) ?? true {
            throw FieldValueError(OutputSchema.noGeometryReason(geometry == nil ? "no geometry" : "an empty geometry"))
        }
        guard let geometry else { return }
        if let type = table.geometryType, GeometryType(of: geometry) != type {
            throw FieldValueError("its geometry is a \(geometry.typeName), the layer holds \(type.rawValue)s")
        }
        let sr = table.spatialReference ?? .unspecified
        guard geometry.spatialReference == sr else {
            throw FieldValueError("its geometry is in \(geometry.spatialReference), the layer in \(sr); project it first")
        }
        // Ring by ring: a union's vertices are not copied into one array to be checked.
        let hasZ = table.hasZ
        let mismatched = FeatureTableWriter.anyVertices(of: geometry) { vertices in
            vertices.contains { hasZ ? !($0.z?.isFinite ?? false) : $0.z != nil }
        }
        guard !mismatched else {
            throw FieldValueError(hasZ ? "the layer has z values and a vertex of its geometry has none"
                                       : "its geometry has z values and the layer was described without z")
        }
    }

    /// Whether a geometry has no vertex (a multipoint, polyline or polygon without parts, as an empty result is).
    static func isEmpty(_ geometry: Geometry) -> Bool {
        !anyVertices(of: geometry) { !$0.isEmpty }
    }

    /// Whether any of a geometry's vertex arrays (a ring, a path, a multipoint's) satisfies `predicate`; read in
    /// place, without collecting the vertices into one array.
    static func anyVertices(of geometry: Geometry, where predicate: ([Coordinate]) -> Bool) -> Bool {
        let part = { (p: Polygon.Part) in predicate(p.shell) || p.holes.contains(where: predicate) }
        return switch geometry {
        case .point(let p): predicate([p.coordinate])
        case .multipoint(let m): predicate(m.coordinates)
        case .polyline(let l): l.parts.contains(where: predicate)
        case .polygon(let p): p.parts.contains(where: part)
        case .envelope(let e): e.polygon.parts.contains(where: part)
        }
    }

    /// Hands one feature to GDAL with its geometry (owned by this call: given to the feature, or destroyed), and
    /// commits a GeoPackage's transaction every `transactionSize` features.
    private func write(_ feature: Feature, geometry: OGRGeometryH?, messages: GDALMessages) throws(FieldValueError) {
        guard let ogrFeature = gdal.OGR_F_Create(gdal.OGR_L_GetLayerDefn(layer)) else {
            if let geometry { gdal.OGR_G_DestroyGeometry(geometry) }
            throw FieldValueError("GDAL could not create a feature")
        }
        defer { gdal.OGR_F_Destroy(ogrFeature) }
        if let geometry { _ = gdal.OGR_F_SetGeometryDirectly(ogrFeature, geometry) }
        for (i, column) in schema.columns.enumerated() {
            try column.set(feature.properties[column.field.name], on: ogrFeature, at: Int32(i), format: format)
        }
        guard gdal.OGR_L_CreateFeature(layer, ogrFeature) == OGRERR_NONE, messages.failures.isEmpty else {
            throw FieldValueError(messages.reason("GDAL could not write it"))
        }
        featuresWritten += 1
        if format == .geoPackage, featuresWritten % FeatureTableWriter.transactionSize == 0, let handle {
            guard gdal.GDALDatasetCommitTransaction(handle) == OGRERR_NONE, gdal.GDALDatasetStartTransaction(handle, 0) == OGRERR_NONE
            else { throw FieldValueError(messages.reason("GDAL could not commit a transaction")) }
        }
    }

    private func scrub(_ text: String) -> String {
        GDALDataset.oneLine(connection?.scrub(text) ?? text)
    }
}
