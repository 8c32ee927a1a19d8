import Foundation
import Meridian

/// Writes buffers a feature at a time in a streamable format (`OutputFormat.isStreamable`): a GeoJSON
/// FeatureCollection or text sequence (WGS84, each buffer keeping its feature's properties), WKT (one geometry per
/// line, in the buffers' spatial reference) or CSV (the input's columns, or a `feature` number, and a `wkt` column).
/// Batches of features go in as they are buffered (`StreamedBuffers`), or all at once (`GeodesicBuffers`).
struct FeatureStreamWriter {
    /// The format, one of the streamable ones.
    let format: OutputFormat
    /// From the buffers' spatial reference to WGS84 for GeoJSON, through the interpolants checked against PROJ
    /// (nil when the buffers are already in WGS84, or for WKT and CSV).
    private let projection: InterpolatedProjection?
    private var first = true
    private var csvHeader = false

    /// A writer for buffers in `sr`.
    /// - Throws: `CommandError.failure` when no projection to WGS84 can be made.
    init(format: OutputFormat, buffersIn sr: SpatialReference) throws(CommandError) {
        self.format = format
        projection = format.isWGS84 && sr != .wgs84
            ? try engine { () throws(EngineError) in try InterpolatedProjection(from: sr, to: .wgs84) } : nil
    }

    /// Starts the output (a FeatureCollection's opening).
    func begin(_ out: inout ByteBuffer) {
        if format == .geoJSON { GeoJSON.beginFeatureCollection(to: &out) }
    }

    /// Writes one batch: the buffers of the batch's features, in order.
    /// - Throws: `CommandError.failure` naming the feature whose buffer cannot be projected to WGS84.
    mutating func write(_ buffers: [Polygon], of batch: FeatureInput, to out: inout ByteBuffer) throws(CommandError) {
        switch format {
        case .wkt:
            FeatureEncoding.writeWKT(buffers.map(\.geometry), to: &out)
        case .csv:
            if !csvHeader {
                CSV.appendRecord((batch.table?.header ?? ["feature"]) + ["wkt"], to: &out)
                csvHeader = true
            }
            for (i, b) in buffers.enumerated() {
                var wkt = ByteBuffer(capacity: 64 + 40 * b.vertexCount)
                WKT.write(b.geometry, to: &wkt)
                let fields = batch.table?.rows[i] ?? [String(batch.labels.first + i)]
                CSV.appendRecord(fields + [wkt.string], to: &out)
            }
        default:
            try writeGeoJSON(buffers, of: batch, to: &out)
        }
    }

    /// Ends the output (a FeatureCollection's closing and a line feed).
    func end(_ out: inout ByteBuffer) {
        guard format == .geoJSON else { return }
        GeoJSON.endFeatureCollection(to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// GeoJSON features or text-sequence records, projected to WGS84 ring by ring.
    private mutating func writeGeoJSON(_ buffers: [Polygon], of batch: FeatureInput, to out: inout ByteBuffer)
        throws(CommandError)
    {
        var polygons = buffers
        if let projection {
            for k in polygons.indices {
                do throws(EngineError) {
                    try projection.project(&polygons[k])
                } catch {
                    throw .failure("\(batch.labels[k]): buffer: \(error.description)")
                }
            }
        }
        let features = zip(batch.features, polygons).map {
            Feature(geometry: .polygon($1), properties: $0.properties, id: $0.id)
        }
        for f in try FeatureEncoding.wgs84(features[...]) {
            if format == .geoJSONSequence {
                GeoJSON.appendSequenceRecord(f, to: &out)
            } else {
                GeoJSON.appendFeature(f, first: first, to: &out)
                first = false
            }
        }
    }
}
