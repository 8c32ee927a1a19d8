import Foundation
import Meridian

/// Writes features a batch at a time in a streamable format (`OutputFormat.isStreamable`): a GeoJSON
/// FeatureCollection or text sequence (WGS84, each feature keeping its properties), WKT (one geometry per line, in
/// the features' own spatial reference) or, for buffers, CSV (the input's columns, or a `feature` number, and a
/// `wkt` column). Buffers go in as they are made, with the features they were made from (the `buffer` command);
/// other features go in as they are, in any spatial reference (`op`, `project`). The format decides everything
/// written: begin with `begin(_:)`, write the batches, end with `end(_:)`.
public struct FeatureStreamWriter {
    /// The format, one of the streamable ones.
    public let format: OutputFormat
    /// From the buffers' spatial reference to WGS84 for GeoJSON, through the interpolants checked against PROJ
    /// (nil when the buffers are already in WGS84, or for WKT and CSV).
    private let projection: InterpolatedProjection?
    private var first = true
    private var csvHeader = false

    /// A writer for buffers in `sr`.
    /// - Throws: `CommandError.failure` when no projection to WGS84 can be made.
    public init(format: OutputFormat, buffersIn sr: SpatialReference) throws(CommandError) {
        self.format = format
        projection = !format.writesInWorkingSpatialReference && sr != .wgs84
            ? try engine { () throws(EngineError) in try InterpolatedProjection(from: sr, to: .wgs84) } : nil
    }

    /// A writer for features in any spatial reference (projected to WGS84 by PROJ when the format needs it).
    /// - Parameter format: GeoJSON, a GeoJSON text sequence or WKT.
    public init(format: OutputFormat) {
        self.format = format
        projection = nil
    }

    /// Writes features whole: the output's beginning, every feature (projected `FeatureEncoding.batchSize` at a time,
    /// so only one batch of projected copies is held) and its end.
    /// - Parameters:
    ///   - features: The features, in any spatial reference.
    ///   - format: GeoJSON, a GeoJSON text sequence or WKT.
    ///   - out: The output.
    /// - Throws: As `write(_:to:)`.
    public static func write(_ features: [Feature], as format: OutputFormat, to out: inout ByteBuffer)
        throws(CommandError)
    {
        var writer = FeatureStreamWriter(format: format)
        writer.begin(&out)
        var start = 0
        while start < features.count {
            let end = min(start + FeatureEncoding.batchSize, features.count)
            try writer.write(features[start..<end], to: &out)
            start = end
        }
        writer.end(&out)
    }

    /// Writes a batch of features as they are: WKT geometries in their own spatial reference (features without a
    /// geometry write nothing), or GeoJSON features (or text-sequence records) projected to WGS84 with their
    /// properties.
    /// - Throws: `CommandError.failure` when a geometry cannot be projected to WGS84, or when the format is not
    ///   written a feature at a time (CSV, which needs the input's rows, and the whole-document formats).
    public mutating func write(_ features: ArraySlice<Feature>, to out: inout ByteBuffer) throws(CommandError) {
        switch format {
        case .wkt:
            FeatureEncoding.writeWKT(features.compactMap { $0.geometry }, to: &out)
        case .geoJSON, .geoJSONSequence:
            for f in try FeatureEncoding.wgs84(features) {
                if format == .geoJSONSequence {
                    GeoJSON.appendSequenceRecord(f, to: &out)
                } else {
                    GeoJSON.appendFeature(f, first: first, to: &out)
                    first = false
                }
            }
            out.flushIfFull()
        case .csv, .text, .svg, .kml, .kmz, .table:
            throw .failure("\(format.name) is not written a feature at a time")
        }
    }

    /// Starts the output (a FeatureCollection's opening).
    public func begin(_ out: inout ByteBuffer) {
        if format == .geoJSON { GeoJSON.beginFeatureCollection(to: &out) }
    }

    /// Writes one batch: the buffers of the batch's features, in order.
    /// - Throws: `CommandError.failure` naming the feature whose buffer cannot be projected to WGS84.
    public mutating func write(_ buffers: [Polygon], of batch: FeatureInput, to out: inout ByteBuffer) throws(CommandError) {
        switch format {
        case .wkt:
            FeatureEncoding.writeWKT(buffers.map { $0.geometry }, to: &out)
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
    public func end(_ out: inout ByteBuffer) {
        guard format == .geoJSON else { return }
        GeoJSON.endFeatureCollection(to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// GeoJSON features or text-sequence records, projected to WGS84 ring by ring: runs of features projected and
    /// formatted on `Parallelism.threadCount` threads, their texts written in order (the bytes of one thread).
    private mutating func writeGeoJSON(_ buffers: [Polygon], of batch: FeatureInput, to out: inout ByteBuffer)
        throws(CommandError)
    {
        let n = buffers.count, threads = Parallelism.threadCount
        guard n > 0 else { return }
        let runs = max(1, min(4 * threads, n / Self.featuresPerRun))
        let work = SharedBatch(features: batch.features, labels: batch.labels, projection: projection, format: format,
                               commaFirst: !first)
        let texts = try ForkJoin.map(count: runs, threads: threads) { (r: Int) throws(CommandError) -> Data in
            var text = ByteBuffer()
            for k in (n * r / runs)..<(n * (r + 1) / runs) {
                try work.append(buffers[k], feature: k, leadingComma: k > 0 || work.commaFirst, to: &text)
            }
            return text.data()
        }
        for text in texts {
            text.withUnsafeBytes { out.append($0) }
            out.flushIfFull()
        }
        first = false
    }

    /// The fewest features `writeGeoJSON` hands to a thread at once.
    public static let featuresPerRun = 64
}

/// What the threads of `FeatureStreamWriter.writeGeoJSON` share, read only: the batch's features and labels, and the
/// projection (thread-safe).
private struct SharedBatch: @unchecked Sendable {
    let features: [Feature]
    let labels: FeatureLabels
    let projection: InterpolatedProjection?
    let format: OutputFormat
    /// Whether the batch's first feature follows another in the FeatureCollection.
    let commaFirst: Bool

    /// Appends feature k's buffer, projected to WGS84, as a feature (after a comma) or a text-sequence record.
    func append(_ buffer: Polygon, feature k: Int, leadingComma: Bool, to text: inout ByteBuffer)
        throws(CommandError)
    {
        var polygon = buffer
        if let projection {
            do throws(EngineError) {
                try projection.project(&polygon)
            } catch {
                throw .failure("\(labels[k]): buffer: \(error.description)")
            }
        }
        let made = Feature(geometry: .polygon(polygon), properties: features[k].properties, id: features[k].id)
        for f in try FeatureEncoding.wgs84([made][...]) {
            if format == .geoJSONSequence {
                GeoJSON.appendSequenceRecord(f, to: &text)
            } else {
                GeoJSON.appendFeature(f, first: !leadingComma, to: &text)
            }
        }
    }
}
