// Benchmark driver: runs one Meridian case per process and prints one JSON line with the times, peak
// memory and result checks. bench/run starts it; it is not part of the test suite.
//
//   meridian-bench p1 INPUT.xy RADIUS REPS [--time-only|--geos-check]
//       buffer + union of points in EPSG:32038 (64-gon circles); --geos-check compares with GEOS's own path instead
//   meridian-bench p3 INPUT.xy EPSG REPS [OUT.xy]       project lon/lat (EPSG:4326) points to EPSG
//   (any case) --threads N                                Meridian's thread count (default: every processor)
//   meridian-bench p2 INPUT.xy REPS                       geodesic 10 km buffers of WGS84 points
//   meridian-bench p4 write INPUTDIR OUTDIR REPS          write 100k placemarks as .kml and .kmz
//   meridian-bench p4 read FILE.kml REPS                  read a KML file and count its coordinates
//   meridian-bench p4 read-stream FILE.kml REPS           the same, streaming placemarks (bounded memory)
//   meridian-bench geo KIND INPUT.json DISTANCE_M REPS OUT.json [OPTIONS]   geodesic buffers at scale
//   meridian-bench near KIND LEFT.xy RIGHT.xy DISTANCE REPS OUT.bin   near tables (planar, geodesic, nearest; Near.swift)
//   meridian-bench p4 --available                         exit 0 (MeridianKML is built in)
//   meridian-bench p5-write FILE.wkt REPS                 time writing the (multi)polygon of a WKT file as WKT and
//                                                         as a GeoJSON feature into memory (the writers alone)
//   meridian-bench p6-read FILE REPS [--attributes]      read every point of a GeoPackage/shapefile/FlatGeobuf or CSV
//   meridian-bench p6 IN OUT RADIUS REPS                  read points, union of their buffers, write (P6, library)
//   meridian-bench p6-stream IN OUT RADIUS                buffer points a batch at a time, write each (peak memory)
//   meridian-bench decimal COUNT REPS [KIND ...]          ns per double of the shortest round-trip formatter, by kind
//   meridian-bench decimal-check COUNT SEED               the formatter against Double.description on COUNT doubles
//                                                         of each kind (status 2 at the first difference)
import Foundation
import Meridian

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("meridian-bench: \(message)\n".utf8))
    exit(2)
}

/// Reads little-endian float64 (x, y) pairs.
func readPairs(_ path: String) -> [Coordinate] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let count = data.count / 16
    var result: [Coordinate] = []
    result.reserveCapacity(count)
    data.withUnsafeBytes { raw in
        for i in 0..<count {
            let x = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i, as: UInt64.self)))
            let y = Double(
                bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i + 8, as: UInt64.self)))
            result.append(Coordinate(x: x, y: y))
        }
    }
    return result
}

/// Peak resident set size of this process in MiB.
func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// Runs `body` `reps` times and returns the wall times in seconds and the last result.
func timed<T>(_ reps: Int, _ body: () throws -> T) rethrows -> ([Double], T) {
    var times: [Double] = []
    var result: T?
    let clock = ContinuousClock()
    for _ in 0..<max(reps, 1) {
        let start = clock.now
        result = try body()
        let elapsed = clock.now - start
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return (times, result!)
}

/// Prints one JSON line; `rss` is the peak RSS measured right after the timed work (before any checks).
func emit(_ fields: [String: Any], rss: Double = peakRSSMiB()) {
    var record = fields
    record["peak_rss_mb"] = (rss * 10).rounded() / 10
    let data = try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func isValid(_ p: Polygon) -> Bool {
    do { return try GeometryEngine.invalidityReason(p) == nil } catch { return false }
}

func polygonStats(_ p: Polygon) -> [String: Any] {
    [
        "area": (try? GeometryEngine.area(of: p)) ?? -1,
        "parts": p.parts.count,
        "holes": p.parts.reduce(0) { $0 + $1.holes.count },
        "vertices": p.vertexCount,
        "valid": isValid(p),
    ]
}

// `--threads N` anywhere: Meridian's thread count (`Parallelism.threadCount`; default: every processor).
var args = CommandLine.arguments
if let t = args.firstIndex(of: "--threads") {
    guard t + 1 < args.count, let n = Int(args[t + 1]), n >= 1 else { fail("--threads expects a positive number") }
    Parallelism.threadCount = n
    args.removeSubrange(t...(t + 1))
}
guard args.count >= 2 else { fail("usage: meridian-bench p1|p3 …") }
do {
    switch args[1] {
    case "p1":
        guard args.count >= 5, let radius = Double(args[3]), let reps = Int(args[4]) else {
            fail("usage: meridian-bench p1 INPUT.xy RADIUS REPS [--time-only|--geos-check]")
        }
        let sr = try SpatialReference(wkid: 32038)
        let points = readPairs(args[2]).map { Point($0, spatialReference: sr) }
        if args.contains("--geos-check") {
            // GEOS's own path, in its own process: a GEOS buffer per point, then GEOS's cascaded union.
            let mine = try GeometryEngine.buffer(around: points, distances: [radius], shouldUnion: true)[0]
            let clock = ContinuousClock()
            let start = clock.now
            let buffers = try GeometryEngine.buffer(around: points, distances: [radius], shouldUnion: false)
            let reference = try GeometryEngine.union(of: buffers)
            let elapsed = clock.now - start
            guard case .polygon(let refPolygon) = reference else { fail("GEOS union is not a polygon") }
            let stats = polygonStats(refPolygon), myStats = polygonStats(mine)
            let refArea = stats["area"] as! Double
            emit([
                "tool": "meridian-geos-check",
                "geos_time": Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
                "geos_area": refArea, "geos_parts": stats["parts"]!, "geos_holes": stats["holes"]!,
                "geos_vertices": stats["vertices"]!, "geos_valid": stats["valid"]!,
                "geos_rel_area_diff": abs((myStats["area"] as! Double) - refArea) / refArea,
                "counts_equal": ["parts", "holes", "vertices"].allSatisfy { stats[$0] as! Int == myStats[$0] as! Int },
            ])
            exit(0)
        }
        let (times, result) = try timed(reps) {
            try GeometryEngine.buffer(around: points, distances: [radius], shouldUnion: true)[0]
        }
        let rss = peakRSSMiB()
        if args.contains("--time-only") {
            emit(["tool": "meridian", "times": times, "parts": result.parts.count], rss: rss)
            exit(0)
        }
        var record = polygonStats(result)
        record["tool"] = "meridian"
        record["times"] = times
        let report = try GeometryEngine.unionOfPointBuffers(around: points, distances: [radius])
        record["fallback"] = report.geosFallbackReason ?? ""
        emit(record, rss: rss)
    case "p3":
        guard args.count >= 5, let epsg = Int(args[3]), let reps = Int(args[4]) else {
            fail("usage: meridian-bench p3 INPUT.xy EPSG REPS [OUT.xy]")
        }
        let source = SpatialReference.wgs84
        let target = try SpatialReference(wkid: epsg)
        let input = readPairs(args[2])
        var output: [Coordinate] = []
        let (times, _) = try timed(reps) {
            output = input
            try GeometryEngine.project(&output, from: source, into: target)
        }
        let rss = peakRSSMiB()
        var sumX = 0.0, sumY = 0.0
        for c in output {
            sumX += c.x
            sumY += c.y
        }
        if args.count >= 6 {
            // Write the projected pairs for the peer to compare.
            var raw = [Double]()
            raw.reserveCapacity(2 * output.count)
            for c in output {
                raw.append(c.x)
                raw.append(c.y)
            }
            let data = raw.withUnsafeBufferPointer { Data(buffer: $0) }
            guard FileManager.default.createFile(atPath: args[5], contents: data) else {
                fail("cannot write \(args[5])")
            }
        }
        emit(["tool": "meridian", "times": times, "count": output.count, "sum_x": sumX, "sum_y": sumY], rss: rss)
    case "p4":
        try runP4(Array(args.dropFirst(2)))
    case "p6-read":
        try runP6Read(Array(args.dropFirst(2)))
    case "p6":
        try runP6(Array(args.dropFirst(2)))
    case "p6-stream":
        try runP6Stream(Array(args.dropFirst(2)))
    case "geo":
        try runGeodesicCase(Array(args.dropFirst(2)))
    case "near":
        try runNear(Array(args.dropFirst(2)))
    case "p2":
        if args.count == 3 && args[2] == "--available" { exit(0) }
        guard args.count >= 4, let reps = Int(args[3]) else { fail("usage: meridian-bench p2 INPUT.xy REPS") }
        let points = readPairs(args[2]).map { Point($0, spatialReference: .wgs84) }
        // The same maximum deviation as the peer's 64-vertex circles: r·(1 − cos(π/64)).
        let radius = 10_000.0, deviation = 10_000.0 * (1 - cos(Double.pi / 64))
        let (times, buffers) = try timed(reps) {
            try GeometryEngine.geodeticBuffer(
                around: points, distances: [radius], maxDeviation: deviation,
                shouldUnion: false)
        }
        let rss = peakRSSMiB()
        let rings = buffers.flatMap(\.rings)
        let vertices = rings.reduce(0) { $0 + $1.count - 1 }  // distinct vertices (rings are closed)
        emit(
            [
                "tool": "meridian", "times": times, "circles": buffers.count, "parts": rings.count,
                "vertices": vertices, "mean_vertices": Double(vertices) / Double(max(buffers.count, 1)),
                "max_deviation_m": deviation,
            ], rss: rss)
    case "p5-write":
        guard args.count >= 4, let reps = Int(args[3]),
              let text = try? String(contentsOfFile: args[2], encoding: .utf8)
        else { fail("usage: meridian-bench p5-write FILE.wkt REPS") }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        let geometry = try WKT.decode(line, spatialReference: .wgs84)
        let coordinates = geometry.coordinates.count
        var bytes = 0
        let (wktTimes, _) = timed(reps) {
            var out = ByteBuffer(capacity: 1 << 20)
            WKT.write(geometry, to: &out)
            bytes = out.count
        }
        let feature = Feature(geometry: geometry, properties: [:])
        let (geoJSONTimes, _) = timed(reps) {
            var out = ByteBuffer(capacity: 1 << 20)
            GeoJSON.appendFeature(feature, first: true, to: &out)
        }
        emit(["tool": "meridian", "wkt_times": wktTimes, "geojson_times": geoJSONTimes, "coordinates": coordinates,
              "wkt_bytes": bytes], rss: peakRSSMiB())
    case "decimal":
        guard args.count >= 4, let count = Int(args[2]), let reps = Int(args[3]) else {
            fail("usage: meridian-bench decimal COUNT REPS [KIND ...]")
        }
        let kinds = args.dropFirst(4).map { name -> DecimalSample in
            guard let kind = DecimalSample(rawValue: name) else { fail("unknown kind \(name)") }
            return kind
        }
        decimalTime(count: count, reps: reps, kinds: kinds.isEmpty ? DecimalSample.allCases : kinds)
    case "decimal-check":
        guard args.count >= 4, let count = Int(args[2]), let seed = UInt64(args[3]) else {
            fail("usage: meridian-bench decimal-check COUNT SEED")
        }
        decimalCheck(count: count, seed: seed)
    default:
        fail("unknown case \(args[1])")
    }
} catch {
    fail("\(error)")
}
