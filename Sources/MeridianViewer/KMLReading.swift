import Foundation
import Meridian

extension KMLBridge {
    /// Reads KML or KMZ bytes within the viewer's limits.
    ///
    /// Bounded in two steps: a streaming pass counts placemarks and vertices as they are parsed (the KML of a KMZ is
    /// inflated as it goes, at most `limits.maximumKMLBytes`) and stops at the first limit crossed, checking the
    /// request's `WorkBudget` at each placemark (and the reader at each 64 KiB it parses); only a file within every
    /// limit is then read into a tree, under the same budget.
    static func readBounded(_ data: Data, limits: ViewerLimits, failure: (EngineError) -> APIError)
        throws(APIError) -> KMLDataset
    {
        // A GeoPackage, zipped shapefile or FlatGeobuf opens as placemarks (and is saved back as KMZ like any KML).
        if let table = try FeatureTableBridge.dataset(data, limits: limits) { return table }
        // So does GeoJSON, or a CSV of points, through the readers of the command line.
        if let features = try FeatureTextBridge.dataset(data, limits: limits, failure: failure) { return features }
        let archiveLimits = KMZLimits(
            maximumKMLBytes: UInt64(max(1, limits.maximumKMLBytes)),
            maximumResourceBytes: UInt64(max(1, limits.maximumKMZResourceBytes)),
            maximumTotalResourceBytes: UInt64(max(1, limits.maximumKMZResourceBytes)), maximumEntries: 10_000)
        do {
            var placemarkCount = 0, vertexCount = 0
            try KMLDataset.forEachPlacemark(data: data, limits: archiveLimits) { record in
                try WorkBudget.check()
                placemarkCount += 1
                vertexCount += record.placemark.geometry?.coordinates.count ?? 0
                guard placemarkCount <= limits.maximumPlacemarks else {
                    throw APIError.tooLarge("the file has more than \(limits.maximumPlacemarks) placemarks (the limit)")
                }
                guard vertexCount <= limits.maximumVertices else {
                    throw APIError.tooLarge("the file has more than \(limits.maximumVertices) vertices (the limit)")
                }
                return true
            }
        } catch let error as APIError {
            throw error
        } catch let error as EngineError {
            throw failure(error)
        } catch KMLError.interrupted(let reason) {
            throw failure(.interrupted(reason))
        } catch let error as KMLError {
            throw readFailure(error)
        } catch {
            throw .unprocessable("cannot read the file as KML or KMZ: \(error)")
        }
        do {
            return try KMLDataset(data: data, limits: archiveLimits)
        } catch .interrupted(let reason) {
            throw failure(.interrupted(reason))
        } catch {
            throw readFailure(error)
        }
    }

    /// 413 for a file over a size limit (a KML entry, the icons, the archive, the compression ratio), 422 otherwise.
    private static func readFailure(_ error: KMLError) -> APIError {
        switch error {
        case .entryTooLarge, .compressionRatioExceeded, .archiveTooLarge:
            .tooLarge("the file is too large to open: \(error.description)")
        default:
            .unprocessable("cannot read the file as KML or KMZ: \(error.description)")
        }
    }
}
