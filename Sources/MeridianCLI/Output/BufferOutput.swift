import Foundation
import Meridian

/// Writes the result of `meridian buffer` (planar or geodesic) in the format the output's extension names.
enum BufferOutput {
    /// Extensions `meridian buffer` writes ("" is standard output, GeoJSON).
    static let formats = ["", "geojson", "json", "wkt", "svg", "kml", "kmz"]

    /// Refuses an unknown output extension before any work is done.
    static func check(_ output: OutputFile) throws(CommandError) {
        guard formats.contains(output.format) else {
            throw .usage("unknown output format '.\(output.format)' (use .geojson, .wkt, .svg, .kml or .kmz)")
        }
    }

    /// Writes buffers: GeoJSON (WGS84, one feature per input keeping its properties, or one feature with a `count`
    /// when unioned), WKT (in the buffers' spatial reference), SVG (a picture with the area of use when given),
    /// KML/KMZ (styled like the sample: yellow 60% fill, green outline, red inputs).
    /// - Parameters:
    ///   - buffers: One polygon per input, or one when `union`.
    ///   - inputs: The buffered geometries, in any spatial reference.
    ///   - features: The input features (for their properties).
    ///   - union: Whether the buffers were dissolved.
    ///   - areaOfUse: The planar spatial reference's area of use, drawn in the SVG.
    ///   - output: Where to write.
    ///   - io: The command's streams.
    static func write(
        buffers: [Polygon], inputs: [Geometry], features: [Feature], union: Bool, areaOfUse: Polygon?,
        to output: OutputFile, io: CommandIO
    ) throws(CommandError) {
        switch output.format {
        case "wkt":
            try output.write(FeatureEncoding.wkt(buffers.map(\.geometry)), io: io)
        case "svg":
            guard let sr = buffers.first?.spatialReference else { throw .failure("no buffers to draw") }
            var picture = SVGPicture()
            picture.buffers = buffers
            for g in inputs {
                let projected = try engine { () throws(EngineError) in try GeometryEngine.project(g, into: sr) }
                if case .point(let p) = projected { picture.points.append(p.coordinate) }
                if case .multipoint(let m) = projected { picture.points += m.coordinates }
            }
            picture.areaOfUse = areaOfUse
            picture.title = "Buffers in \(sr.name)"
            try output.write(picture.render(), io: io)
        case "kml", "kmz":
            guard let path = output.path else { throw .usage("KML output needs a file name (-o out.kmz)") }
            do {
                let document = try KMLDocument.bufferDocument(inputs: inputs, buffers: buffers, name: "Buffers")
                try document.save(to: URL(fileURLWithPath: path), overwrite: true)
            } catch {
                throw .failure(error.description)
            }
        default:
            let out: [Feature]
            if union {
                out = [Feature(geometry: buffers.first.map(Geometry.polygon), properties: ["count": .number(Double(inputs.count))])]
            } else {
                out = zip(features, buffers).map { Feature(geometry: .polygon($1), properties: $0.properties, id: $0.id) }
            }
            try output.write(try FeatureEncoding.geoJSON(out), io: io)
        }
    }
}

/// Engine messages name items by index ("geometry 3", "vertex 3"); users know them by the input's labels
/// ("feature 3 (line 5)"). Replaces the first such mention.
/// - Parameters:
///   - message: The engine's message.
///   - word: "geometry" or "vertex".
///   - labels: The input's labels by index.
func relabel(_ message: String, _ word: String, labels: [String]) -> String {
    guard let range = message.range(of: word + #" \d+"#, options: .regularExpression),
          let index = Int(message[range].dropFirst(word.count + 1)), labels.indices.contains(index)
    else { return message }
    return message.replacingCharacters(in: range, with: labels[index])
}
