import Foundation
import Meridian

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

    /// A document of placemarks made from features (`KMLFeatureConversion`).
    /// - Parameters:
    ///   - name: The document's name.
    ///   - input: The features.
    ///   - style: A shared style every placemark uses, if any.
    ///   - numbering: Whether a placemark without a name is named "Feature N" (N from 1).
    ///   - progress: Where to count the features converted.
    static func document(
        named name: String, from input: FeatureInput, style: KMLStyle?, numbering: Bool, progress: ProgressLine?
    ) throws(CommandError) -> KMLDocument {
        var document = KMLDocument(name: name)
        if let style { document.addStyle(style) }
        progress?.begin("converting", unit: "features", total: input.features.count)
        for (i, feature) in input.features.enumerated() {
            if i & 1023 == 0 { progress?.update(i) }
            do {
                var p = try KMLFeatureConversion.placemark(from: feature)
                if numbering, p.name == nil { p.name = "Feature \(i + 1)" }
                if let id = style?.id { p.styleUrl = "#" + id }
                document.addChildNode(p)
            } catch {
                throw .failure("\(input.labels[i]): \(error.description)")
            }
        }
        return document
    }
}
