// Geodesic buffers at scale (bench cases G1–G4). See bench/README.md.
import Foundation
import Meridian

/// `meridian-bench geo KIND INPUT.json DISTANCE_M REPS OUT.json [--in EPSG] [--out EPSG] [--planar EPSG] [--union]`
///
/// KIND: `line` (each feature one WGS84 polyline), `polygons` (each feature a WGS84 polygon: rings), `points` (each
/// feature one point in `--in`, default WGS84). INPUT.json is a list of features, each a list of rings/paths of
/// [x, y] pairs. Times `GeometryEngine.geodeticBuffer` (output in `--out`, default WGS84), or with `--planar EPSG`
/// the planar `GeometryEngine.buffer` of the same geometries projected to EPSG (64-gon circles). Writes the
/// result's rings in WGS84 to OUT.json ("-" for none) for the peer script's accuracy check.
func runGeodesicCase(_ args: [String]) throws {
    guard args.count >= 5, let distance = Double(args[2]), let reps = Int(args[3]) else {
        fail("usage: meridian-bench geo line|polygons|points INPUT.json DISTANCE_M REPS OUT.json [--in EPSG] [--out EPSG] [--planar EPSG] [--union]")
    }
    func option(_ name: String) throws -> SpatialReference? {
        guard let k = args.firstIndex(of: name), k + 1 < args.count, let code = Int(args[k + 1]) else { return nil }
        return code == 4326 ? .wgs84 : try SpatialReference(wkid: code)
    }
    let inSR = try option("--in") ?? .wgs84, outSR = try option("--out") ?? .wgs84
    let planar = try option("--planar")
    let shouldUnion = args.contains("--union")
    guard let data = FileManager.default.contents(atPath: args[1]),
          let features = try JSONSerialization.jsonObject(with: data) as? [[[[Double]]]]
    else { fail("cannot read \(args[1]) as a list of features of rings of [x, y]") }
    let geometries: [Geometry] = features.map { rings in
        let cs = rings.map { $0.map { Coordinate(x: $0[0], y: $0[1]) } }
        switch args[0] {
        case "line": return .polyline(Polyline(parts: cs, spatialReference: inSR))
        case "polygons":
            return .polygon(Polygon(parts: [Polygon.Part(shell: cs[0], holes: Array(cs.dropFirst()))],
                                    spatialReference: inSR))
        default: return .point(Point(cs[0][0], spatialReference: inSR))
        }
    }
    var result: [Polygon] = []
    var times: [Double]
    if let planar {
        let projected = try GeometryEngine.project(geometries, into: planar)
        (times, result) = try timed(reps) {
            try GeometryEngine.buffer(around: projected, distances: [distance], distanceUnit: .meters,
                                      shouldUnion: shouldUnion)
        }
    } else {
        (times, result) = try timed(reps) {
            try GeometryEngine.geodeticBuffer(around: geometries, distances: [distance], shouldUnion: shouldUnion,
                                              outputSpatialReference: outSR)
        }
    }
    let rss = peakRSSMiB()
    let vertices = result.reduce(0) { $0 + $1.vertexCount }
    let parts = result.reduce(0) { $0 + $1.parts.count }, holes = result.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.holes.count } }
    if args[4] != "-" {
        let wgs = outSR == .wgs84 && planar == nil ? result : try GeometryEngine.project(result, into: .wgs84).map {
            guard case .polygon(let p) = $0 else { fail("projected result is not a polygon") }
            return p
        }
        let rings = wgs.flatMap(\.rings).map { $0.map { [$0.x, $0.y] } }
        let out = try JSONSerialization.data(withJSONObject: rings)
        guard FileManager.default.createFile(atPath: args[4], contents: out) else { fail("cannot write \(args[4])") }
    }
    emit(["tool": planar == nil ? "meridian" : "meridian planar", "times": times, "vertices": vertices,
          "parts": parts, "holes": holes, "valid": result.allSatisfy(isValid)], rss: rss)
}
