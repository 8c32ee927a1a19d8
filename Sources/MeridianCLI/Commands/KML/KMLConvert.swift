import Foundation
import Meridian

/// `kml convert`: KML ↔ KMZ (lossless), KML/KMZ → GeoJSON (effective styles as simplestyle properties), GeoJSON →
/// KML/KMZ (simplestyle as styles). The input is recognised by its content, the output by its name.
struct KMLConvert {
    /// The file to convert.
    let source: String
    /// The converted file.
    let destination: OutputFile
    /// `--overwrite`.
    let overwrite: Bool

    /// Converts the file.
    /// - Throws: `CommandError.usage` for GeoJSON to GeoJSON, `.failure` for an input that is neither KML, KMZ nor
    ///   GeoJSON, or that cannot be read, or an output that exists or cannot be written.
    func run(io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        let inFormat = InputFormat.sniff(try io.head(source, count: InputFormat.headLength))
        guard inFormat.isKML || inFormat == .geoJSON else {
            throw .failure("\(source): not KML, KMZ or GeoJSON: found \(inFormat.name)")
        }
        let path = destination.path ?? "-"
        let toKML = destination.format == .kml || destination.format == .kmz
        if inFormat.isKML {
            progress?.begin("reading")
            let dataset = try KMLFiles.read(source, io: io)
            if toKML {
                progress?.begin("writing")
                try KMLFiles.save(dataset, to: path, overwrite: overwrite, io: io, progress: progress)
                progress?.finish()
                io.note("wrote \(path)")
            } else {
                try writeGeoJSON(dataset, to: path, io: io, progress: progress)
            }
            return
        }
        guard toKML else { throw .usage("GeoJSON → GeoJSON is not a KML conversion") }
        let input = try FeatureInput.read(source, inputSpatialReference: nil, defaultXYSpatialReference: nil, io: io,
                                          progress: progress)
        let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        let document = try KMLFiles.document(named: name, from: input, style: nil, numbering: false, progress: progress)
        progress?.begin("writing")
        try KMLFiles.save(KMLDataset(rootNode: document), to: path, overwrite: overwrite, io: io, progress: progress)
        progress?.finish()
        io.note("wrote \(input.features.count) placemark(s) to \(path)")
    }

    /// KML/KMZ → GeoJSON: each placemark a feature with its effective style as simplestyle properties.
    private func writeGeoJSON(_ dataset: KMLDataset, to path: String, io: CommandIO, progress: ProgressLine?)
        throws(CommandError)
    {
        let resolver = dataset.styleResolver
        var features: [Feature] = []
        var dropped = 0
        dataset.document.forEachPlacemark { p in
            let f = KMLFeatureConversion.feature(from: p, effectiveStyle: resolver.effectiveStyle(for: p))
            if f.geometry == nil, p.geometry != nil { dropped += 1 }
            features.append(f)
        }
        progress?.finish()  // before any message
        if dropped > 0 { io.note("\(dropped) placemark geometr\(dropped == 1 ? "y" : "ies") (mixed MultiGeometry, gx:Track, Model) have no GeoJSON equivalent here and were written as null") }
        if !overwrite && FileManager.default.fileExists(atPath: path) {
            throw .failure("\(path) already exists (add --overwrite to replace it)")
        }
        try destination.stream(io: io) { out throws(CommandError) in
            GeoJSON.beginFeatureCollection(to: &out)
            for (i, f) in features.enumerated() { GeoJSON.appendFeature(f, first: i == 0, to: &out) }
            GeoJSON.endFeatureCollection(to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        io.note("wrote \(features.count) feature(s) to \(path)")
    }
}
