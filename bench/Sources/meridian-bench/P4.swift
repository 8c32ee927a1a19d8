import Foundation
import Meridian

/// P4: writes 100k placemarks (points with a shared IconStyle, 10-vertex lines, 20-vertex polygons) as .kml and
/// .kmz, or reads a KML file back and counts its coordinate tuples: `read` builds the whole tree
/// (`KMLDataset(url:)`), `read-stream` visits the placemarks one at a time (`KMLDataset.forEachPlacemark(in:)`,
/// bounded memory: the 1 GiB case).
func runP4(_ args: [String]) throws {
    guard let mode = args.first else { fail("usage: meridian-bench p4 write|read|--available …") }
    switch mode {
    case "--available":
        exit(0)
    case "write":
        guard args.count >= 4, let reps = Int(args[3]) else {
            fail("usage: meridian-bench p4 write INPUTDIR OUTDIR REPS")
        }
        let base = readDoubles("\(args[1])/P4-base.xy"), offsets = readDoubles("\(args[1])/P4-offsets.xy")
        let kml = URL(fileURLWithPath: "\(args[2])/meridian.kml"), kmz = URL(fileURLWithPath: "\(args[2])/meridian.kmz")
        let (times, _) = try timed(reps) {
            let document = p4Document(base: base, offsets: offsets)
            try document.save(to: kml, overwrite: true)
            try document.save(to: kmz, overwrite: true)
        }
        let rss = peakRSSMiB()
        let sizes = [kml, kmz].map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? -1 }
        emit(["tool": "meridian", "times": times, "kml_bytes": sizes[0], "kmz_bytes": sizes[1]], rss: rss)
    case "read":
        guard args.count >= 3, let reps = Int(args[2]) else { fail("usage: meridian-bench p4 read FILE.kml REPS") }
        let url = URL(fileURLWithPath: args[1])
        let (times, count) = try timed(reps) { () throws -> Int in
            let dataset = try KMLDataset(url: url)
            var count = 0
            dataset.document.forEachPlacemark { placemark in
                if let g = placemark.geometry { count += coordinateCount(g) }
            }
            return count
        }
        emit(["tool": "meridian", "times": times, "result": count])
    case "read-stream":
        guard args.count >= 3, let reps = Int(args[2]) else { fail("usage: meridian-bench p4 read-stream FILE.kml REPS") }
        let url = URL(fileURLWithPath: args[1])
        let (times, count) = try timed(reps) { () throws -> Int in
            var count = 0
            try KMLDataset.forEachPlacemark(in: url) { record in
                if let g = record.placemark.geometry { count += coordinateCount(g) }
                return true
            }
            return count
        }
        emit(["tool": "meridian", "times": times, "result": count])
    default:
        fail("unknown p4 mode \(mode)")
    }
}

/// Reads raw little-endian float64 values.
func readDoubles(_ path: String) -> [Double] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return data.withUnsafeBytes { raw in
        (0..<(data.count / 8)).map {
            Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self)))
        }
    }
}

/// The P4 document, the same placemarks as bench/py/p4_peers.py writes with simplekml.
func p4Document(base: [Double], offsets: [Double]) -> KMLDocument {
    let n = base.count / 2
    var document = KMLDocument(name: "P4")
    document.addStyle(
        KMLStyle(
            id: "pin",
            iconStyle: KMLIconStyle(
                icon: URL(string: "http://maps.google.com/mapfiles/kml/shapes/placemark_circle.png").map(KMLIcon.init(url:)),
                scale: 1.2)))
    let angles = (0..<20).map { Double($0) * (2 * Double.pi / 20) }
    for i in 0..<n {
        let x = base[2 * i], y = base[2 * i + 1]
        let placemark: KMLPlacemark
        switch i % 3 {
        case 0:
            placemark = KMLPlacemark(
                geometry: KMLGeometry(shape: .point(Coordinate(x: x, y: y))), name: "p\(i)",
                styleUrl: "#pin")
        case 1:
            let line = (0..<10).map { k in
                Coordinate(x: x + offsets[(i * 20 + k) * 2], y: y + offsets[(i * 20 + k) * 2 + 1])
            }
            placemark = KMLPlacemark(geometry: KMLGeometry(shape: .lineString(line)), name: "l\(i)")
        default:
            var ring = angles.map { Coordinate(x: x + 0.01 * cos($0), y: y + 0.01 * sin($0)) }
            ring.append(ring[0])
            placemark = KMLPlacemark(
                geometry: KMLGeometry(shape: .polygon(outerBoundary: ring, innerBoundaries: [])),
                name: "a\(i)")
        }
        document.addChildNode(placemark)
    }
    return document
}

/// Coordinate tuples in a KML geometry.
func coordinateCount(_ g: KMLGeometry) -> Int {
    switch g.shape {
    case .point: return 1
    case .lineString(let c), .linearRing(let c): return c.count
    case .polygon(let outer, let inner): return outer.count + inner.reduce(0) { $0 + $1.count }
    case .multiGeometry(let gs): return gs.reduce(0) { $0 + coordinateCount($1) }
    case .unmodeled: return 0
    }
}
