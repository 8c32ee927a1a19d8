import CGDAL

/// Tells a GeoPackage feature whose geometry is NULL from one whose geometry GDAL could not read.
///
/// GDAL 3.6 reads a GeoPackage geometry blob it cannot decode (a few stray bytes, a text value, a header with invalid
/// flags) as no geometry, without an error, on both of its read paths: such a feature would pass for one without a
/// geometry. When GDAL gives a feature no geometry, the value stored in the geometry column is therefore looked at
/// with SQL (its type and its first bytes, never decoded): NULL, or a GeoPackage blob flagged empty, is a real
/// absence of geometry; anything else is an unreadable geometry, and the read fails naming the feature.
struct StoredGeometryCheck {
    /// The dataset and the layer, a GeoPackage table's.
    private let dataset: UnsafeMutableRawPointer
    /// `SELECT … FROM "table" WHERE "fid" IN (`, with the identifiers quoted; the IDs and `)` are appended.
    private let query: String

    /// A check of `layer`'s geometries, or `nil` when the table is not a GeoPackage's or has no geometry or
    /// feature ID column.
    init?(dataset: GDALDataset, layer: OGRLayerH) {
        guard dataset.location.format == .geoPackage,
              let table = gdal.OGR_L_GetName(layer).map({ String(cString: $0) }),
              let fid = gdal.OGR_L_GetFIDColumn(layer).map({ String(cString: $0) }), !fid.isEmpty,
              let geometry = gdal.OGR_L_GetGeometryColumn(layer).map({ String(cString: $0) }), !geometry.isEmpty
        else { return nil }
        func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let (g, f) = (quoted(geometry), quoted(fid))
        // A GeoPackage blob starts with "GP", a version byte and a flags byte: bits 7 and 6 reserved (0), bit 4
        // "empty", bits 3 to 1 the envelope's kind (0 to 4); in hexadecimal, an empty one's flags are [13][0-9].
        let emptyBlob = "(typeof(\(g)) = 'blob' AND length(\(g)) >= 8 AND substr(\(g), 1, 2) = X'4750'"
            + " AND hex(substr(\(g), 4, 1)) GLOB '[13][0-9]')"
        self.dataset = dataset.handle
        // The ID last and as an expression: GDAL takes a first integer column, or the table's feature ID column, for
        // the result's own feature ID rather than a field.
        query = "SELECT typeof(\(g)) AS t, length(\(g)) AS n, substr(\(g), 1, 2) = X'4750' AS gp, \(f) + 0 AS id"
            + " FROM \(quoted(table))"
            + " WHERE \(g) IS NOT NULL AND NOT \(emptyBlob) AND \(f) IN ("
    }

    /// The first of the features (by ID) that GDAL gave no geometry whose stored geometry is not NULL, with why it
    /// cannot be read; `nil` when each is NULL or empty.
    func unreadable(among fids: [Int64]) -> (fid: Int64, reason: String)? {
        guard !fids.isEmpty else { return nil }
        let sql = query + fids.map(String.init).joined(separator: ",") + ") ORDER BY 4 LIMIT 1"
        return GDALRuntime.capturing { _ in
            guard let result = gdal.GDALDatasetExecuteSQL(dataset, sql, nil, nil) else {
                return (fids[0], "GDAL gives it no geometry and its stored geometry cannot be looked at")
            }
            defer { gdal.GDALDatasetReleaseResultSet(dataset, result) }
            guard let row = gdal.OGR_L_GetNextFeature(result) else { return nil }
            defer { gdal.OGR_F_Destroy(row) }
            let type = gdal.OGR_F_GetFieldAsString(row, 0).map { String(cString: $0) } ?? "?"
            let length = gdal.OGR_F_GetFieldAsInteger64(row, 1)
            let fid = gdal.OGR_F_GetFieldAsInteger64(row, 3)
            let what = gdal.OGR_F_GetFieldAsInteger(row, 2) != 0
                ? "a GeoPackage geometry blob of \(length) byte(s) that GDAL cannot decode"
                : type == "blob" ? "a blob of \(length) byte(s) that is not a GeoPackage geometry"
                : "a value of SQL type \(type), not a GeoPackage geometry blob"
            return (fid, "its geometry cannot be read: \(what)")
        }
    }
}
