import Foundation
import Meridian

/// A GeoPackage, a zipped shapefile or a FlatGeobuf opened in the KML page: its features become placemarks (in
/// WGS84, attributes as ExtendedData, `name`/`title` as the name; `KMLFeatureConversion`) without styles, so the page
/// draws them with its default styles; from then on the document is edited and saved as KMZ like any opened KML.
/// The same bytes give the same document every time (the page sends them back when it saves).
///
/// The upload is written to a private folder (GDAL reads files) that is removed at once, read with
/// `FeatureDataSource` (one driver, no network, nothing printed), every table in turn (a folder each when there are
/// several), within the viewer's limits on placemarks and vertices and the request's work budget.
enum FeatureTableBridge {
    /// The document for a feature table upload, or `nil` when the bytes are not one (KML, KMZ, anything else).
    /// - Parameters:
    ///   - data: The uploaded file's bytes.
    ///   - limits: The viewer's limits.
    /// - Throws: `APIError.unprocessable` for a table that cannot be read (one line naming the table and the
    ///   feature), `.tooLarge` beyond the limits.
    static func dataset(_ data: Data, limits: ViewerLimits) throws(APIError) -> KMLDataset? {
        let header = [UInt8](data.prefix(FeatureDataFormat.headerLength))
        let recognized = FeatureDataFormat.recognize(header: header)
        let isZip = header.starts(with: [0x50, 0x4B, 0x03, 0x04])
        if recognized == .shapefile {
            throw .unprocessable("a .shp alone cannot be read (its .shx and .dbf are separate files): open a zip of the shapefile")
        }
        guard recognized != nil || isZip else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-viewer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("upload.\(recognized?.fileExtension ?? "zip")")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            try data.write(to: file)
        } catch {
            throw .unprocessable("cannot keep the upload for reading: \(error.localizedDescription)")
        }
        // A zip without a shapefile in it is a KMZ (or something the KML reader will refuse).
        guard recognized != nil || FeatureDataFormat.recognize(source: file.path) == .shapefile else { return nil }
        do {
            return KMLDataset(rootNode: try document(FeatureDataSource(path: file.path), limits: limits))
        } catch let error as APIError {
            throw error
        } catch let error as FeatureDataError {
            throw .unprocessable(error.description.replacingOccurrences(of: file.path, with: "the file"))
        } catch {
            throw .unprocessable("\(error)")
        }
    }

    /// Every table's features as placemarks: in the document when there is one table, a folder per table otherwise.
    private static func document(_ source: FeatureDataSource, limits: ViewerLimits) throws -> KMLDocument {
        var counter = Counter(limits: limits)
        var document = KMLDocument(name: source.tableNames.count == 1 ? source.tableNames[0] : source.format.rawValue)
        for table in try source.featureTables() {
            let placemarks = try self.placemarks(of: table, counter: &counter)
            if source.tableNames.count == 1 {
                placemarks.forEach { document.addChildNode($0) }
            } else {
                var folder = KMLFolder(name: table.tableName)
                placemarks.forEach { folder.addChildNode($0) }
                document.addChildNode(folder)
            }
        }
        return document
    }

    /// A table's features as placemarks, projected to WGS84.
    private static func placemarks(of table: FeatureTable, counter: inout Counter) throws -> [KMLPlacemark] {
        guard table.spatialReference != nil else {
            throw APIError.unprocessable("layer '\(table.tableName)' has no spatial reference (a shapefile without its .prj)")
        }
        var placemarks: [KMLPlacemark] = []
        let result = table.queryFeatures()
        while let feature = try result.next() {
            try WorkBudget.check()
            try counter.add(feature)
            guard feature.geometry != nil else { continue }
            do {
                placemarks.append(try KMLFeatureConversion.placemark(from: feature))
            } catch {
                throw APIError.unprocessable("layer '\(table.tableName)', feature \(result.featuresRead - 1): \(error)")
            }
        }
        return placemarks
    }

    /// The placemark and vertex counts against the viewer's limits (of every feature file the page opens).
    struct Counter {
        let limits: ViewerLimits
        var placemarks = 0, vertices = 0

        mutating func add(_ feature: Feature) throws(APIError) {
            placemarks += 1
            vertices += feature.geometry?.coordinates.count ?? 0
            guard placemarks <= limits.maximumPlacemarks else {
                throw .tooLarge("the file has more than \(limits.maximumPlacemarks) features (the limit)")
            }
            guard vertices <= limits.maximumVertices else {
                throw .tooLarge("the file has more than \(limits.maximumVertices) vertices (the limit)")
            }
        }
    }
}
