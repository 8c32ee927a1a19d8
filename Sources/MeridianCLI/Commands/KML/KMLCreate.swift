import Foundation
import Meridian
import MeridianIO

/// `kml create`: a styled KML or KMZ document of placemarks from GeoJSON, CSV or WKT.
struct KMLCreate {
    /// The command's options.
    let command: KMLCommand

    /// Reads the input and saves the document, a batch of features at a time (`KMLFiles.create`).
    /// - Throws: `CommandError.usage` for a bad `--icon`, `.failure` for unreadable input, a feature with no KML
    ///   equivalent or an unwritable output.
    func run(io: CommandIO, progress: ProgressLine?) throws(CommandError) {
        guard let target = try command.output.file(standardOutput: nil).path else {
            throw .usage("kml create needs -o OUT.kmz or OUT.kml")
        }
        let style = try command.style.sharedStyle()
        let path = command.input.path ?? "-"
        let inputName = path == "-" ? "stdin" : URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let count = try KMLFiles.create(named: command.style.documentName ?? inputName,
                                        from: (path, command.input.layer, command.input.spatialReference), style: style,
                                        numbering: true, to: target, overwrite: command.overwrite, io: io,
                                        progress: progress)
        progress?.finish()
        io.note("wrote \(count) placemark(s) to \(target)")
    }
}
