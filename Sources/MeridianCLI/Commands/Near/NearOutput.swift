import Foundation
import Meridian
import MeridianIO

/// Writes `near`'s rows as they are made, a batch at a time, atomically (nothing is left when anything fails): CSV
/// (the columns, then `wkt`: the geometry in the spatial reference measured in), a GeoJSON FeatureCollection or text
/// sequence (WGS84), or a feature table through GDAL/OGR with typed columns.
struct NearOutput {
    /// One batch of rows with what the output needs to know about them.
    struct Batch {
        /// The rows, their geometries in the spatial reference measured in (CSV and feature tables; may be empty
        /// for GeoJSON, which reads `wgs84`).
        let rows: [Feature]
        /// The same rows with their geometries as read (projected to WGS84 for GeoJSON from there; may be empty for
        /// the other formats).
        let wgs84: [Feature]
        /// A CSV output's rows already written as text (`NearCSVRows`), in order; `rows` is then empty.
        let csvText: [Data]
        /// The output's columns.
        let columns: NearColumns
        /// The spatial reference measured in.
        let spatialReference: SpatialReference
        /// The geometry type of the side the rows come from, when it has one (a feature table needs it, also when
        /// there are no rows).
        let geometryType: GeometryType?
    }

    /// Where to write, in which format.
    let file: OutputFile
    /// The command's streams.
    let io: CommandIO

    /// Opens the output, lets `produce` hand it batches, and commits it once `produce` returns.
    /// - Parameter produce: Makes the rows; given the function that writes a batch.
    /// - Throws: What `produce` throws (nothing is then written), or `CommandError.failure` for an unwritable output.
    func write(_ produce: (_ emit: (Batch) throws(CommandError) -> Void) throws(CommandError) -> Void)
        throws(CommandError)
    {
        if file.format.isFeatureTable {
            var table: FeatureTableOutput?
            try produce { batch throws(CommandError) in
                if table == nil {
                    let hasZ = batch.rows.contains { $0.geometry?.coordinates.contains { $0.z != nil } ?? false }
                    table = FeatureTableOutput(file, spatialReference: batch.spatialReference,
                                               geometryType: batch.geometryType, hasZ: hasZ)
                }
                try table?.add(batch.rows, fields: batch.columns.fields, io: io)
            }
            try table?.finish(io: io)
            return
        }
        try file.stream(io: io) { out throws(CommandError) in
            var writer = FeatureStreamWriter(format: file.format)
            writer.begin(&out)
            var header = false
            try produce { batch throws(CommandError) in
                if file.format.writesGeometryAsWKTColumn {
                    if !header {
                        CSV.appendRecord(batch.columns.names, to: &out)
                        header = true
                    }
                    for text in batch.csvText {
                        text.withUnsafeBytes { out.append($0) }
                        out.flushIfFull()
                    }
                    let columns = batch.columns.names.dropLast()  // the last is wkt
                    for row in batch.rows {
                        // Cells straight into the output, a number without a detour through JSON text.
                        for name in columns {
                            NearColumns.appendCell(row.properties[name], to: &out)
                            out.append(UInt8(ascii: ","))
                        }
                        var wkt = ByteBuffer(capacity: 64)
                        if let g = row.geometry { WKT.write(g, to: &wkt) }
                        CSV.appendField(wkt.string, alone: columns.isEmpty, to: &out)
                        CSV.endRecord(&out)
                    }
                } else {
                    var start = 0
                    while start < batch.wgs84.count {
                        let end = min(start + FeatureEncoding.batchSize, batch.wgs84.count)
                        try writer.write(batch.wgs84[start..<end], to: &out)
                        start = end
                    }
                }
            }
            writer.end(&out)
        }
    }
}
