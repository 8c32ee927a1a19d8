import Foundation
import Meridian
import MeridianIO

/// A GeoJSON file (a document, an RFC 8142 text sequence or newline-delimited), a CSV of points (lon,lat columns)
/// or a WKT file opened in the KML page: read by MeridianIO's readers (`FeatureInput`), the ones `meridian` reads
/// its input with, so the page opens what the commands read and refuses it with their messages. The features become
/// placemarks without styles (attributes as ExtendedData, `name`/`title` as the name; `KMLFeatureConversion`), as a
/// feature table's do (`FeatureTableBridge`); from then on the document is edited and saved as KMZ like any opened
/// KML. The same bytes give the same document every time (the page sends them back when it saves).
///
/// Read a batch at a time, each feature counted against the viewer's limits on placemarks and vertices and the
/// request's work budget as it comes, so an upload over a limit is refused without being held whole as placemarks.
enum FeatureTextBridge {
    /// How messages name the upload (the page has the file's name; the server has only its bytes).
    static let name = "the file"

    /// Features handed over at a time by the reader.
    static let batchSize = 4096

    /// The document for a GeoJSON, CSV or WKT upload, or `nil` when the bytes are none of them (KML, KMZ, a
    /// feature table, anything else).
    /// - Parameters:
    ///   - data: The uploaded file's bytes.
    ///   - limits: The viewer's limits.
    ///   - failure: Turns an engine error (the work budget running out) into the API's answer.
    /// - Throws: `APIError.unprocessable` with the reader's one-line message (naming the feature and the line), or
    ///   for coordinates without a spatial reference (CSV x,y columns, WKT); `.tooLarge` beyond the limits.
    static func dataset(_ data: Data, limits: ViewerLimits, failure: (EngineError) -> APIError)
        throws(APIError) -> KMLDataset?
    {
        guard InputFormat.sniff(data).isFeatureText else { return nil }
        var counter = FeatureTableBridge.Counter(limits: limits)
        var placemarks: [KMLPlacemark] = []
        var refusal: APIError?  // what stopped the reading from inside a batch
        let input: FeatureInput
        do throws(CommandError) {
            input = try FeatureInput.read(
                data, origin: InputOrigin(name: name), inputSpatialReference: nil, defaultXYSpatialReference: nil,
                csv: FeatureInput.CSVOptions(batchSize: batchSize)
            ) { (batch: FeatureInput) throws(CommandError) in
                do throws(APIError) {
                    for (i, feature) in batch.features.enumerated() {
                        do throws(EngineError) { try WorkBudget.check() } catch { throw failure(error) }
                        try counter.add(feature)
                        placemarks.append(try placemark(feature, label: batch.labels[i]))
                    }
                } catch {
                    refusal = error
                    throw .failure(error.message)
                }
            }
        } catch {
            switch error {
            case .usage:
                // The readers ask the command line for a spatial reference it can give (--in-srs); the page cannot.
                throw .unprocessable("\(name) has coordinates without a spatial reference (CSV x,y columns or WKT): the page opens GeoJSON and CSV with lon,lat columns, which are WGS84")
            case .failure(let message):
                throw refusal ?? .unprocessable(message)
            }
        }
        var document = KMLDocument(name: input.format.name)
        placemarks.forEach { document.addChildNode($0) }
        return KMLDataset(rootNode: document)
    }

    /// A feature as a placemark; its style properties checked (`KMLFeatureConversion`).
    private static func placemark(_ feature: Feature, label: String) throws(APIError) -> KMLPlacemark {
        do {
            return try KMLFeatureConversion.placemark(from: feature)
        } catch {
            throw .unprocessable("\(label): \(error.description)")
        }
    }
}
