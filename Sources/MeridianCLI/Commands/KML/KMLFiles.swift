import Foundation
import Meridian
import MeridianIO

/// Reading and saving KML files the same way in every `kml` subcommand: content sniffed, errors naming the file.
enum KMLFiles {
    /// Saves a dataset as .kml or .kmz (by the name), refusing to replace a file unless `overwrite`; then (the
    /// progress line finished) prints a warning for each icon kept as a link instead of being packed.
    static func save(_ dataset: KMLDataset, to path: String, overwrite: Bool, io: CommandIO, progress: ProgressLine?)
        throws(CommandError)
    {
        do {
            let warnings = try dataset.save(to: URL(fileURLWithPath: path), overwrite: overwrite)
            progress?.finish()
            for warning in warnings { io.note("warning: \(warning)") }
        } catch .fileExists(let p) {
            throw .failure("\(p) already exists (add --overwrite to replace it)")
        } catch {
            throw .failure(error.description)
        }
    }

    /// Reads a KML or KMZ file, refusing any other content.
    static func read(_ path: String, io: CommandIO) throws(CommandError) -> KMLDataset {
        try requireKML(path, io: io)
        do { return try KMLDataset(url: URL(fileURLWithPath: path)) } catch { throw failure(path, error) }
    }

    /// Refuses a file whose content is not KML or KMZ, naming what it is instead (whatever its name says).
    static func requireKML(_ path: String, io: CommandIO) throws(CommandError) {
        let format = InputFormat.sniff(try io.head(path, count: InputFormat.headLength))
        guard format.isKML else { throw .failure("\(path): not KML or KMZ: found \(format.name)") }
    }

    /// A read failure naming the file once (archive and I/O errors already start with it).
    static func failure(_ path: String, _ error: KMLError) -> CommandError {
        .failure(error.description.hasPrefix(path) ? error.description : "\(path): \(error.description)")
    }

    /// Saves a document of placemarks made from the features of a GeoJSON, CSV or WKT input
    /// (`KMLFeatureConversion`), read and written a batch of features at a time: memory holds the input's bytes
    /// and one batch, whatever the number of features (WKT is parsed whole first). Written atomically: a feature
    /// with no KML equivalent leaves no file.
    /// - Parameters:
    ///   - name: The document's name.
    ///   - input: The input's path (`-` for stdin, or a feature table's), `--layer` and the spatial reference of CSV
    ///     x,y and WKT coordinates.
    ///   - style: A shared style every placemark uses, if any.
    ///   - numbering: Whether a placemark without a name is named "Feature N" (N from 1).
    ///   - target: The .kml or .kmz file.
    ///   - overwrite: Whether an existing file may be replaced.
    /// - Returns: The number of placemarks written.
    /// - Throws: `CommandError.failure` for unreadable input, a feature with no KML equivalent (naming it) or an
    ///   output that exists or cannot be written.
    static func create(
        named name: String, from input: (path: String, layer: String?, spatialReference: SpatialReference?),
        style: KMLStyle?, numbering: Bool, to target: String, overwrite: Bool, io: CommandIO, progress: ProgressLine?
    ) throws(CommandError) -> Int {
        var document = KMLDocument(name: name)
        if let style { document.addStyle(style) }
        var count = 0
        do {
            let warnings = try KMLDataset(rootNode: document).save(to: URL(fileURLWithPath: target), overwrite: overwrite) { add in
                _ = try FeatureInput.read(
                    input.path, layer: input.layer, inputSpatialReference: input.spatialReference,
                    defaultXYSpatialReference: nil, io: io,
                    csv: FeatureInput.CSVOptions(batchSize: FeatureEncoding.batchSize), progress: progress
                ) { batch throws(CommandError) in
                    for (i, feature) in batch.features.enumerated() {
                        do throws(KMLError) {
                            var p = try KMLFeatureConversion.placemark(from: feature)
                            if numbering, p.name == nil { p.name = "Feature \(count + 1)" }
                            if let id = style?.id { p.styleUrl = "#" + id }
                            try add(p)
                        } catch {
                            throw .failure("\(batch.labels[i]): \(error.description)")
                        }
                        count += 1
                    }
                }
            }
            progress?.finish()
            for warning in warnings { io.note("warning: \(warning)") }
        } catch let error as CommandError {
            throw error
        } catch KMLError.fileExists(let p) {
            throw .failure("\(p) already exists (add --overwrite to replace it)")
        } catch let error as KMLError {
            throw .failure(error.description)
        } catch {
            throw .failure("cannot write \(target): \(error)")
        }
        return count
    }
}
