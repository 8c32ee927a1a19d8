// Fuzz targets for every reader of outside data (issue 15). Built two ways from this one file:
//  - by scripts/fuzz.sh with `-sanitize=fuzzer,address -D FUZZING -parse-as-library`: libFuzzer supplies `main` and
//    calls `LLVMFuzzerTestOneInput`; the target is chosen by MERIDIAN_FUZZ_TARGET;
//  - in the normal build, as a replay tool: `meridian-fuzz TARGET FILE...` runs each file through the target once
//    (what the regression tests of crashes found use).
// WKB has no reader in Meridian yet, so it has no target.
import Foundation
import Meridian
import MeridianViewer

/// The fuzz targets by name; each takes arbitrary bytes and must return (any error thrown is fine, a crash is not).
enum FuzzTargets {
    static let names = ["kml", "kmz", "geojson", "csv", "wkt", "viewer-json", "ogr"]

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
        case "ogr":
            OGRFuzzInput.read(data)
        case "viewer-json":
            // The first byte picks the endpoint; the rest is the request body.
            let endpoints = ["/api/contains", "/api/buffer", "/api/buffer/export", "/api/kml"]
            guard let first = data.first else { return }
            let path = endpoints[Int(first) % endpoints.count]
            _ = viewer.handle(HTTPRequest(method: "POST", path: path, headers: ["content-type": "application/json"],
                                          body: Data(data.dropFirst())))
        default:
            fatalError("unknown fuzz target '\(target)' (one of \(names.joined(separator: ", ")))")
        }
    }

    /// The viewer's API with an empty site (the API does not serve files).
    static let viewer = ViewerAPI(site: StaticSite(files: [:]))
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
