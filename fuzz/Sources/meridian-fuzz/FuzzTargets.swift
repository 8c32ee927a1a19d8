// Fuzz targets for every reader of outside data, and for the paths hostile testing found defects on
// (the geodesic builder through the command line, KMZ icon packing, XML attributes). Built two ways from
// this one file:
//  - by scripts/fuzz.sh with `-sanitize=fuzzer,address -D FUZZING -parse-as-library`: libFuzzer supplies `main` and
//    calls `LLVMFuzzerTestOneInput`; the target is chosen by MERIDIAN_FUZZ_TARGET;
//  - in the normal build, as a replay tool: `meridian-fuzz TARGET FILE...` runs each file through the target once
//    (what the regression tests of crashes found use).
// WKB has no reader in Meridian yet, so it has no target.
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Meridian
import MeridianCLI
import MeridianIO
import MeridianViewer

/// The fuzz targets by name; each takes arbitrary bytes and must return (any error thrown is fine, a crash is not).
enum FuzzTargets {
    static let names = ["kml", "kmz", "geojson", "csv", "wkt", "feature-input", "viewer-json", "ogr", "geodesic-cli",
                        "kmz-pack", "xml-attributes", "srs"]

    /// Runs one input through one target.
    static func run(_ target: String, _ data: Data) {
        switch target {
        case "kml", "kmz":
            // The same entry point reads both (recognised by content); the corpora differ (XML vs ZIP seeds).
            _ = try? KMLDataset(data: data)
        case "geojson":
            _ = try? GeoJSON.decodeFeatures(data)
        case "csv":
            _ = try? CSV.decode(data)
        case "wkt":
            _ = try? WKT.decode(String(decoding: data, as: UTF8.self), spatialReference: .wgs84)
        case "feature-input":
            featureInput(data)
        case "ogr":
            OGRFuzzInput.read(data)
        case "viewer-json":
            // The first byte picks the endpoint (the seeds' digits: "0" contains … "4" near); the rest is the body.
            let endpoints = ["/api/contains", "/api/buffer", "/api/buffer/export", "/api/kml", "/api/near"]
            guard let first = data.first else { return }
            let path = endpoints[(Int(first) - Int(UInt8(ascii: "0")) + endpoints.count * 64) % endpoints.count]
            _ = viewer.handle(HTTPRequest(method: "POST", path: path, headers: ["content-type": "application/json"],
                                          body: Data(data.dropFirst())))
        case "geodesic-cli":
            geodesicBuffer(data)
        case "kmz-pack":
            packIcons(data)
        case "xml-attributes":
            attributes(data)
        case "srs":
            SRSFuzzInput.read(data)
        default:
            fatalError("unknown fuzz target '\(target)' (one of \(names.joined(separator: ", ")))")
        }
    }

    /// MeridianIO's reader of feature text, as the commands and the viewer call it (no command line): the input's
    /// format recognised by its content, GeoJSON (document, text sequence, newline-delimited), CSV or WKT read with
    /// every check. The first byte picks the options: bit 0 a default spatial reference for x,y and WKT (WGS84),
    /// bit 1 batches of 2 features, bit 2 points only with a numeric column `d`, bit 3 the rows' text kept without
    /// the coordinates; the rest is the input.
    static func featureInput(_ data: Data) {
        guard let first = data.first else { return }
        let options = FeatureInput.CSVOptions(
            keepTable: first & 8 != 0, tableWithoutCoordinates: first & 8 != 0, pointsOnly: first & 4 != 0,
            numericColumn: first & 4 != 0 ? "d" : nil, batchSize: first & 2 != 0 ? 2 : nil)
        _ = try? FeatureInput.read(Data(data.dropFirst()), origin: InputOrigin(name: "fuzz"), inputSpatialReference: nil,
                                   defaultXYSpatialReference: first & 1 != 0 ? .wgs84 : nil, csv: options)
    }

    /// `meridian buffer --geodesic` in process, the way a user runs it (options parsed, input sniffed and read,
    /// work bounded by `--max-vertices`): the first byte picks the distance, the second the deviation and `--union`,
    /// the rest is standard input (GeoJSON, CSV or WKT). Any exit status is fine; a crash, a hang or unbounded
    /// memory is not.
    static func geodesicBuffer(_ data: Data) {
        guard data.count >= 2 else { return }
        let distances = ["1", "0.5m", "1e-6", "10km", "9000km", "19984km", "1e300", "-5km", "nan", "250nmi", "3mi", "0"]
        let deviations = [nil, "1m", "0.0001", "5km", "1e-9"]
        let a = Int(data[data.startIndex]), b = Int(data[data.startIndex + 1])
        var arguments = ["buffer", "--geodesic", "--distance", distances[a % distances.count], "--max-vertices", "200000"]
        if let d = deviations[b % deviations.count] { arguments += ["--max-deviation", d] }
        if b & 0x80 != 0 { arguments.append("--union") }
        let input = data.dropFirst(2)
        let io = CommandIO(readInput: { Data(input) }, writeOutput: { _ in }, writeError: { _ in })
        _ = MeridianCommandLine.run(arguments, io: io)
    }

    /// A KML document saved as a KMZ the way `kml convert` saves it: read from a file in a folder holding an icon,
    /// beside a secret file outside it (and a symbolic link to the secret inside it), then saved. The archive must
    /// never hold the secret's bytes, whatever the document's hrefs say (`file:`, absolute, `../`, the link).
    static func packIcons(_ data: Data) {
        let dir = packFolder
        let source = dir.appendingPathComponent("doc/sent.kml"), out = dir.appendingPathComponent("out.kmz")
        try? FileManager.default.removeItem(at: out)
        guard (try? data.write(to: source)) != nil, let dataset = try? KMLDataset(url: source) else { return }
        guard (try? dataset.save(to: out, overwrite: true)) != nil, let written = try? Data(contentsOf: out) else { return }
        let back = try? KMLDataset(data: written)
        let all = (back?.resources.values.reduce(Data(), +) ?? Data()) + written
        if all.range(of: Data(secret)) != nil { fatalError("the KMZ packed a file from outside the document's folder") }
    }

    /// The secret the `kmz-pack` target must never pack (stored deflated, so searched for in the inflated entries).
    /// An array, not `Data`: LeakSanitizer does not see a global `Data`'s tagged storage pointer as a reference and
    /// reported it as a leak at exit.
    static let secret = Array("MERIDIAN-FUZZ-SECRET-\(UUID().uuidString)".utf8)

    /// The folder of the `kmz-pack` target: `doc/` with an icon and a link to the secret, the secret beside it.
    static let packFolder: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-fuzz-pack-\(getpid())")
        try? FileManager.default.createDirectory(at: dir.appendingPathComponent("doc"), withIntermediateDirectories: true)
        try? Data(secret).write(to: dir.appendingPathComponent("secret.png"))
        try? Data([0x89, 0x50, 0x4E, 0x47]).write(to: dir.appendingPathComponent("doc/pin.png"))
        try? FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("doc/link.png").path,
                                                    withDestinationPath: dir.appendingPathComponent("secret.png").path)
        return dir
    }()

    /// The KML reader on documents full of attributes (the input as a whole document, and inside a placemark's
    /// start tag): when it reads a document, the parser must have seen no element with more than 256 attributes
    /// (libxml2's duplicate check is quadratic, so the reader refuses such elements before the parser sees them);
    /// checked by parsing the same bytes again with a plain `XMLParser` that counts them.
    static func attributes(_ data: Data) {
        let wrapped = Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark ".utf8) + data
            + Data("><name>a</name></Placemark></kml>".utf8)
        for document in [data, wrapped] where (try? KMLDataset(data: document)) != nil {
            let counter = AttributeCounter()
            let parser = XMLParser(data: document)
            parser.shouldProcessNamespaces = false
            parser.delegate = counter
            _ = parser.parse()
            if counter.most > 256 { fatalError("the reader let an element with \(counter.most) attributes reach the parser") }
        }
    }

    /// The viewer's API with an empty site (the API does not serve files).
    static let viewer = ViewerAPI(site: StaticSite(files: [:]))
}

/// Counts the attributes (namespace declarations included) of each element an `XMLParser` reports.
final class AttributeCounter: NSObject, XMLParserDelegate {
    /// The most attributes one element had.
    var most = 0

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        most = max(most, attributeDict.count)
    }
}

/// The OGR read path (MeridianFeatureData): the input is written to files in a private scratch folder and read as a
/// feature source would be by `meridian` (recognised by content, every feature of every table).
///
/// Layout: the first byte chooses the container, the rest is the content. 0: one file `in.gpkg`; 1: `in.fgb`;
/// 2: a shapefile, bytes 1–2 and 3–4 the little-endian lengths of the `.shx` and the `.dbf` that follow, the rest the
/// `.shp` (so mutations reach each file); 3: `in.zip` (a zipped shapefile); anything else: `in.gpkg`.
enum OGRFuzzInput {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-fuzz-ogr-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func read(_ data: Data) {
        guard let kind = data.first else { return }
        let body = Data(data.dropFirst())
        let path: URL
        switch kind {
        case 1: path = write(body, "in.fgb")
        case 2:
            guard body.count >= 4 else { return }
            let b = [UInt8](body)
            let shx = min(Int(b[0]) | Int(b[1]) << 8, b.count - 4)
            let dbf = min(Int(b[2]) | Int(b[3]) << 8, b.count - 4 - shx)
            _ = write(Data(b[4..<4 + shx]), "in.shx")
            _ = write(Data(b[(4 + shx)..<(4 + shx + dbf)]), "in.dbf")
            path = write(Data(b[(4 + shx + dbf)...]), "in.shp")
        case 3: path = write(body, "in.zip")
        default: path = write(body, "in.gpkg")
        }
        guard let source = try? FeatureDataSource(path: path.path) else { return }
        for name in source.tableNames.prefix(8) {
            guard let table = try? source.featureTable(named: name) else { continue }
            let result = table.queryFeatures(using: QueryParameters(maxFeatures: 10_000))
            while let batch = try? result.nextBatch(maximumCount: 256), !batch.isEmpty {}
        }
    }

    private static func write(_ data: Data, _ name: String) -> URL {
        let url = folder.appendingPathComponent(name)
        try? data.write(to: url)
        return url
    }
}

/// Spatial reference text inside a GDAL source: the input is a shapefile's `.prj` (WKT1, ESRI WKT, WKT2 or a PROJ
/// string: GDAL's shapefile driver takes each), beside a fixed one-point `.shp`, `.shx` and `.dbf`. The source is read
/// as `meridian` reads it (GDAL parses the text with its PROJ, Meridian makes its spatial reference with its own) and
/// its point projected to WGS 84 and to EPSG:32038, so that the text reaches every PROJ call a data file's spatial
/// reference reaches.
///
/// Beside the scratch folder sits a FIFO, `fifo`, that the seeds name as a grid and an init file, in absolute and
/// relative forms (fuzz/seeds/srs): PROJ opening any file a definition names outside its data directories would block
/// on it, and libFuzzer reports the input as a timeout; a crash or leak fails the run as with the other targets.
enum SRSFuzzInput {
    static let folder: URL = {
        let url = URL(fileURLWithPath: "/tmp/meridian-fuzz-srs/\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        mkfifo(url.deletingLastPathComponent().appendingPathComponent("fifo").path, 0o600)
        // One point at (1, 2), written by GDAL's ogr2ogr (base64).
        let files = [
            "in.shp": "AAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQOgDAAABAAAAAAAAAAAA8D8AAAAAAAAAQAAAAAAAAPA/AAAAAAAAAEAAAAAAAAAAAAAAAA"
                + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAKAQAAAAAAAAAAAPA/AAAAAAAAAEA=",
            "in.shx": "AAAnCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAANugDAAABAAAAAAAAAAAA8D8AAAAAAAAAQAAAAAAAAPA/AAAAAAAAAEAAAAAAAAAAAAAAAA"
                + "AAAAAAAAAAAAAAAAAAAAAAAAAAADIAAAAK",
            "in.dbf": "A34MBwEAAABBAAoAAAAAAAAAAAAAAAAAAAAAAABXAABhAAAAAAAAAAAAAE4AAAAACQAAAAAAAAAAAAAAAAAAAA0gICAgICAgICAxGg==",
        ]
        for (name, text) in files { try? Data(base64Encoded: text)?.write(to: url.appendingPathComponent(name)) }
        return url
    }()

    static func read(_ data: Data) {
        try? data.write(to: folder.appendingPathComponent("in.prj"))
        guard let source = try? FeatureDataSource(path: folder.appendingPathComponent("in.shp").path),
              let table = try? source.featureTable(named: source.tableNames.first ?? ""),
              let sr = table.spatialReference else { return }
        for target in [SpatialReference.wgs84, try? SpatialReference(wkid: 32038)] {
            guard let target else { continue }
            _ = try? GeometryEngine.project(Point(x: 1, y: 2, spatialReference: sr), into: target)
        }
    }
}

#if FUZZING
/// The target named by MERIDIAN_FUZZ_TARGET, read once.
let fuzzTarget = ProcessInfo.processInfo.environment["MERIDIAN_FUZZ_TARGET"] ?? "geojson"

/// libFuzzer's entry point: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.run(fuzzTarget, bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

/// libFuzzer's driver (libclang_rt.fuzzer): parses the libFuzzer flags and runs the callback on every input.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The executable's entry point. SwiftPM links executables with `main` defined as `<module>_main` (so that tests
/// can link them), which keeps libFuzzer's own `main` out: this one hands over to libFuzzer's driver.
@_cdecl("meridian_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzOneInput)
}
#else
/// The replay tool of the normal build: `meridian-fuzz TARGET FILE...` runs each file through the target once.
@main enum Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2, FuzzTargets.names.contains(arguments[0]) else {
            FileHandle.standardError.write(
                Data("usage: meridian-fuzz \(FuzzTargets.names.joined(separator: "|")) FILE...\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("meridian-fuzz: cannot read \(path)\n".utf8))
                exit(1)
            }
            FuzzTargets.run(arguments[0], data)
        }
    }
}
#endif
