import Foundation
import Meridian

/// `meridian-bench near KIND LEFT.xy RIGHT.xy DISTANCE REPS OUT.bin` — proximity in the library (no file formats):
/// RIGHT indexed once, every LEFT point looked up in it; one JSON line with the index and query times and the
/// number of pairs, and OUT.bin the table as little-endian (int64 left, int64 right, float64 distance) rows.
///   KIND planar:   EPSG:32038 coordinates, `GeometryEngine.nearPairs` within DISTANCE (US survey feet)
///   KIND geodesic: WGS 84 lon/lat, `GeometryEngine.geodeticNearPairs` within DISTANCE meters
///   KIND nearest:  EPSG:32038, `GeometryEngine.nearest` (count 1; DISTANCE is the max distance, 0 for none)
func runNear(_ args: [String]) throws {
    guard args.count >= 6, let distance = Double(args[3]), let reps = Int(args[4]) else {
        fail("usage: meridian-bench near planar|geodesic|nearest LEFT.xy RIGHT.xy DISTANCE REPS OUT.bin")
    }
    let kind = args[0]
    let sr = kind == "geodesic" ? SpatialReference.wgs84 : try SpatialReference(wkid: 32038)
    let lefts = readPairs(args[1]).map { Point($0, spatialReference: sr) }
    let rights = readPairs(args[2]).map { Point($0, spatialReference: sr) }
    var indexTimes: [Double] = []
    let (times, table) = try timed(reps) { () throws -> [NearPair] in
        let clock = ContinuousClock(), start = clock.now
        switch kind {
        case "planar":
            let index = try SpatialIndex(rights)
            indexTimes.append(seconds(clock.now - start))
            return try GeometryEngine.nearPairs(from: lefts, to: index, distances: [distance])
        case "geodesic":
            let index = try GeodeticSpatialIndex(rights)
            indexTimes.append(seconds(clock.now - start))
            return try GeometryEngine.geodeticNearPairs(from: lefts, to: index, distances: [distance])
        case "nearest":
            let index = try SpatialIndex(rights)
            indexTimes.append(seconds(clock.now - start))
            return try GeometryEngine.nearest(from: lefts, to: index, count: 1,
                                              maxDistance: distance > 0 ? distance : nil)
        default: fail("unknown near kind \(kind)")
        }
    }
    let rss = peakRSSMiB()
    var data = Data(capacity: table.count * 24)
    for row in table {
        withUnsafeBytes(of: Int64(row.leftIndex).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(row.rightIndex).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: row.distance.bitPattern.littleEndian) { data.append(contentsOf: $0) }
    }
    guard FileManager.default.createFile(atPath: args[5], contents: data) else { fail("cannot write \(args[5])") }
    emit(["case": "near-\(kind)", "left": lefts.count, "right": rights.count, "distance": distance,
          "pairs": table.count, "times_s": times, "index_s": indexTimes], rss: rss)
}

private func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}
