// P6: points in GeoPackage, Shapefile and FlatGeobuf through GDAL/OGR (MeridianFeatureData).
//
//   meridian-bench p6 IN OUT RADIUS REPS          read, union of round buffers, write the same format (library)
//   meridian-bench p6-stream IN OUT RADIUS        buffer and write a batch at a time (peak memory against size)
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
    let format = URL(fileURLWithPath: path).pathExtension
    emit(["tool": format == "csv" ? "csv" : "meridian \(format)", "times": times, "count": sums.0, "sum_x": sums.1,
          "sum_y": sums.2, "attributes": attributes])
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

/// Runs `p6`: the library pipeline of P6 — every point of IN (`nextPoints`), the union of their round buffers
/// (`GeometryEngine.unionOfBuffers(aroundPoints:…)`, 16 chords a quarter circle), written as one polygon feature to
/// OUT in IN's format (`FeatureTableWriter`). One JSON line: times split into read, union and write, the point
/// count, the union's area and parts.
func runP6(_ args: [String]) throws {
    guard args.count >= 4, let radius = Double(args[2]), let reps = Int(args[3]) else {
        fail("usage: meridian-bench p6 IN OUT RADIUS REPS")
    }
    var phases: [[Double]] = [[], [], []]
    let clock = ContinuousClock()
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
    var last: (Int, Polygon)?
    for _ in 0..<max(1, reps) {
        var start = clock.now
        let table = try FeatureDataSource(path: args[0]).featureTable(named: nil)
        guard let sr = table.spatialReference else { fail("\(args[0]) has no spatial reference") }
        let result = table.queryFeatures(using: QueryParameters(outFields: []))
        var points: [Coordinate] = []
        while true {
            let batch = try result.nextPoints()
            if batch.isEmpty { break }
            points += batch
        }
        phases[0].append(seconds(clock.now - start))
        start = clock.now
        let union = try GeometryEngine.unionOfBuffers(aroundPoints: points, distances: [radius], in: sr)
        phases[1].append(seconds(clock.now - start))
        start = clock.now
        let writer = try FeatureTableWriter(
            path: args[1], table: TableDescription(name: "buffers", spatialReference: sr, geometryType: .polygon),
            largeGeometries: true)  // one union of up to millions of circles, as the CLI writes it
        try writer.add(Feature(geometry: .polygon(union)))
        try writer.finish()
        phases[2].append(seconds(clock.now - start))
        last = (points.count, union)
    }
    let rss = peakRSSMiB()
    guard let (count, union) = last else { return }
    let times = (0..<phases[0].count).map { phases[0][$0] + phases[1][$0] + phases[2][$0] }
    emit(["tool": "meridian (library)", "times": times, "read": phases[0], "union": phases[1], "write": phases[2],
          "count": count, "parts": union.parts.count, "area": try GeometryEngine.area(of: union)], rss: rss)
}

/// Runs `p6-stream`: IN's points buffered a batch at a time and written as one polygon feature each (not unioned)
/// to OUT, so that the peak memory shows whether it grows with the input (it should not: one batch is held).
func runP6Stream(_ args: [String]) throws {
    guard args.count >= 3, let radius = Double(args[2]) else { fail("usage: meridian-bench p6-stream IN OUT RADIUS") }
    let clock = ContinuousClock()
    let start = clock.now
    let table = try FeatureDataSource(path: args[0]).featureTable(named: nil)
    guard let sr = table.spatialReference else { fail("\(args[0]) has no spatial reference") }
    let result = table.queryFeatures(using: QueryParameters(outFields: []))
    let writer = try FeatureTableWriter(
        path: args[1], table: TableDescription(name: "buffers", spatialReference: sr, geometryType: .polygon))
    var count = 0
    while true {
        let batch = try result.nextPoints()
        if batch.isEmpty { break }
        let buffers = try GeometryEngine.buffer(around: batch.map { Point($0, spatialReference: sr) },
                                                distances: [radius], shouldUnion: false)
        for polygon in buffers { try writer.add(Feature(geometry: .polygon(polygon))) }
        count += batch.count
    }
    try writer.finish()
    let elapsed = clock.now - start
    emit(["tool": "meridian (library, streaming)", "count": count,
          "times": [Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18]])
}
