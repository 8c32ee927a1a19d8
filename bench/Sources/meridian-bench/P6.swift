// P6 (issue 27): reading points through GDAL/OGR (MeridianFeatureData) against reading the same points from CSV.
//
//   meridian-bench p6-read FILE REPS [--attributes]   every point of a GeoPackage, shapefile or FlatGeobuf into an
//                                                     array of coordinates (FeatureQueryResult.nextPoints, as a
//                                                     points-only job reads them; with --attributes every feature
//                                                     with every field, as Feature values), or of a CSV with x,y
//                                                     columns (MeridianCore's CSVRecordReader, as the CLI reads points)
import Foundation
import Meridian

/// Runs `p6-read`: one JSON line with the times, the point count and the coordinate sums (the same for every format).
func runP6Read(_ args: [String]) throws {
    guard args.count >= 2, let reps = Int(args[1]) else { fail("usage: meridian-bench p6-read FILE REPS [--attributes]") }
    let path = args[0]
    let attributes = args.contains("--attributes")
    let (times, sums) = try timed(reps) { () throws -> (Int, Double, Double) in
        path.hasSuffix(".csv") ? try readCSVPoints(path) : try readOGRPoints(path, attributes: attributes)
    }
    emit(["tool": "meridian", "times": times, "count": sums.0, "sum_x": sums.1, "sum_y": sums.2,
          "attributes": attributes])
}

/// Every point of a feature source, a batch at a time.
private func readOGRPoints(_ path: String, attributes: Bool) throws -> (Int, Double, Double) {
    let table = try FeatureDataSource(path: path).featureTable(named: nil)
    let result = table.queryFeatures(using: QueryParameters(outFields: attributes ? nil : []))
    var count = 0, sumX = 0.0, sumY = 0.0
    if attributes {
        while true {
            let batch = try result.nextBatch(maximumCount: 65_536)
            if batch.isEmpty { break }
            for feature in batch {
                guard let p = feature.geometry?.point else { continue }
                count += 1
                sumX += p.x
                sumY += p.y
            }
        }
        return (count, sumX, sumY)
    }
    var points: [Coordinate] = []
    while true {
        let batch = try result.nextPoints()
        if batch.isEmpty { break }
        points += batch
    }
    for p in points {
        sumX += p.x
        sumY += p.y
    }
    return (points.count, sumX, sumY)
}

/// Every x,y row of a CSV file.
private func readCSVPoints(_ path: String) throws -> (Int, Double, Double) {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return try data.withUnsafeBytes { raw throws -> (Int, Double, Double) in
        var reader = CSVRecordReader(raw.bindMemory(to: UInt8.self))
        guard try reader.next() else { fail("\(path) is empty") }
        let header = try reader.strings().map { $0.lowercased() }
        guard let xi = header.firstIndex(of: "x"), let yi = header.firstIndex(of: "y") else { fail("no x,y columns") }
        var points: [Coordinate] = []
        points.reserveCapacity(data.count / 24)
        var sumX = 0.0, sumY = 0.0
        while try reader.next() {
            guard let x = reader.number(xi), let y = reader.number(yi) else { fail("a row without x,y") }
            points.append(Coordinate(x: x, y: y))
            sumX += x
            sumY += y
        }
        return (points.count, sumX, sumY)
    }
}
