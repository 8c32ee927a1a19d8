import Foundation
import Meridian
import MeridianIO

/// `kml convert`: KML ↔ KMZ (lossless), KML/KMZ → GeoJSON (effective styles as simplestyle properties), GeoJSON →
/// KML/KMZ (simplestyle as styles), and a GeoPackage, shapefile, FlatGeobuf or PostGIS table → KML/KMZ (projected
/// to WGS84, attributes as ExtendedData). The input is recognised by its content, the output by its name.
struct KMLConvert {
    /// The file to convert.
    let source: String
    /// `--layer`: the layer of a feature table source that has several.
    let layer: String?
    /// The converted file.
    let destination: OutputFile
    /// `--overwrite`.
    let overwrite: Bool

    /// Converts the file.
    /// - Throws: `CommandError.usage` for GeoJSON to GeoJSON, `.failure` for an input that is neither KML, KMZ nor
    ///   GeoJSON, or that cannot be read, or an output that exists or cannot be written.
    func run(io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        let table = FeatureDataInput.format(of: source) != nil
        let inFormat = table ? .geoJSON : InputFormat.sniff(try io.head(source, count: InputFormat.headLength))
        guard inFormat.isKML || inFormat == .geoJSON else {
            let readable = ["KML", "KMZ", "GeoJSON"] + FeatureDataFormat.files.map { $0.declaration.outputName }
            throw .failure("\(source): not \(MessageText.list(readable, conjunction: "or")): found \(inFormat.name)")
        }
        if layer != nil, !table { throw .usage("--layer chooses a layer of \(FeatureDataFormat.layeredSources), not of \(source)") }
        let path = destination.path ?? "-"
        let toKML = destination.format.isKML
        if inFormat.isKML {
            guard toKML else {
                try writeGeoJSON(to: path, io: io, progress: progress)
                return
            }
            progress?.begin("reading")
            let dataset = try KMLFiles.read(source, io: io)
            progress?.begin("writing")
            try KMLFiles.save(dataset, to: path, overwrite: overwrite, io: io, progress: progress)
            progress?.finish()
            io.note("wrote \(path)")
            return
        }
        guard toKML else { throw .usage("\(table ? "a feature table" : "GeoJSON") → GeoJSON is not a KML conversion") }
        let name = PostGISConnection.isConnectionString(source) ? (layer ?? "PostGIS")
            : URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let count = try KMLFiles.create(named: name, from: (source, layer, nil), style: nil, numbering: false, to: path,
                                        overwrite: overwrite, io: io, progress: progress)
        progress?.finish()
        io.note("wrote \(count) placemark(s) to \(path)")
    }

    /// KML/KMZ → GeoJSON: each placemark a feature with its effective style as simplestyle properties, streamed
    /// (one pass for the shared styles, one for the placemarks: memory does not grow with the file). A placemark
    /// whose geometry GeoJSON cannot hold as Meridian reads it back (a ring of fewer than 4 positions, a latitude
    /// beyond ±90°, …; `ReadBack`) is refused with its place, and nothing is written.
    private func writeGeoJSON(to path: String, io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        if !overwrite && FileManager.default.fileExists(atPath: path) {
            throw .failure("\(path) already exists (add --overwrite to replace it)")
        }
        let url = URL(fileURLWithPath: source)
        var count = 0, dropped = 0
        progress?.begin("reading styles")
        let styles: KMLStyleResolver
        do { styles = try KMLDataset.sharedStyles(in: url) } catch { throw failure(error) }
        try destination.stream(io: io, progress: progress) { out throws(CommandError) in
            GeoJSON.beginFeatureCollection(to: &out)
            do {
                try KMLDataset.forEachPlacemark(in: url, styles: styles) { record in
                    let f = KMLFeatureConversion.feature(from: record.placemark, effectiveStyle: record.effectiveStyle)
                    if let g = f.geometry, let problem = ReadBack.geoJSONProblem(g) ?? ReadBack.longitudeLatitudeProblem(g) {
                        throw CommandError.failure("\(source): placemark \(record.index) (line \(record.line)): \(problem)")
                    }
                    if f.geometry == nil, record.placemark.geometry != nil { dropped += 1 }
                    GeoJSON.appendFeature(f, first: count == 0, to: &out)
                    count += 1
                    return true
                }
            } catch { throw failure(error) }
            GeoJSON.endFeatureCollection(to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        progress?.finish()  // before any message
        if dropped > 0 { io.note("\(dropped) placemark geometr\(dropped == 1 ? "y" : "ies") (mixed MultiGeometry, gx:Track, Model) have no GeoJSON equivalent here and were written as null") }
        io.note("wrote \(count) feature(s) to \(path)")
    }

    /// A reading error as the command says it: its own refusals as they are, the reader's naming the file.
    private func failure(_ error: any Error) -> CommandError {
        if let e = error as? CommandError { return e }
        if let e = error as? KMLError { return KMLFiles.failure(source, e) }
        return .failure("\(source): \(error)")
    }
}
