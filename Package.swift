// swift-tools-version:6.0
// Meridian: a geometry engine and KML toolkit for Linux.
//
// Module ladder (each layer imports only the ones below it):
//   C shims (CGEOS, CPROJ, CZip, CMicroHTTPD)   system libraries from Debian, a modulemap and shim.h each
//   CGDAL                                       GDAL's headers (libgdal-dev) and a loader: libgdal is opened with
//                                               dlopen on the first GDAL use, never linked (see its CGDAL.h)
//   MeridianCore                                value types, GeoJSON/WKT codecs; imports no C
//   MeridianEngine                              GEOS + PROJ: projection, buffers, overlay, predicates, geodesy
//   MeridianKML                                 KML model, writer, reader, KMZ (libzip)
//   MeridianFeatureData                         GeoPackage, Shapefile, FlatGeobuf, PostGIS tables through GDAL/OGR
//   Meridian                                    umbrella: re-exports the four libraries above
//   MeridianIO                                  feature I/O: input format detection, GeoJSON(S)/CSV/WKT readers, the
//                                               GDAL tables as input, output formats and their writers
//   MeridianViewer                              the local web viewer: HTTP server (libmicrohttpd), JSON API, page
//   MeridianCLI                                 the `meridian` commands (`serve` starts the viewer)
//   meridian, meridian-bench                    executables: thin shells over MeridianCLI / the benchmark cases
//   meridian-fuzz                               libFuzzer targets of the readers (scripts/fuzz.sh)
//   BufferAroundPoints, CreateAndSaveKML        the two ArcGIS samples ported to the API (examples/, tested)
import PackageDescription

let package = Package(
    name: "Meridian",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Meridian", targets: ["Meridian"]),
        .executable(name: "meridian", targets: ["meridian"]),
        // The two ArcGIS samples ported to Meridian's API (examples/; built and run by Tests/python/test_examples.py).
        .executable(name: "BufferAroundPoints", targets: ["BufferAroundPoints"]),
        .executable(name: "CreateAndSaveKML", targets: ["CreateAndSaveKML"]),
    ],
    targets: [
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"]), .brew(["geos"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev", "proj-data"]), .brew(["proj"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"]), .brew(["libzip"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),

        // GDAL (apt: libgdal-dev, brew: gdal; scripts/install-deps.sh) is not a systemLibrary: SwiftPM would add
        // `pkg-config --libs gdal` (-lgdal) to every link that depends on it, and `meridian --version` would map
        // libgdal and its ~110 libraries at start (~50 ms). A C target with the headers and a dlopen loader instead.
        .target(name: "CGDAL"),
        .target(name: "MeridianCore"),
        .target(name: "MeridianEngine", dependencies: ["MeridianCore", "CGEOS", "CPROJ"]),
        .target(name: "MeridianKML", dependencies: ["MeridianCore", "MeridianEngine", "CZip"]),
        .target(name: "MeridianFeatureData", dependencies: ["MeridianCore", "MeridianEngine", "CGDAL"]),
        .target(name: "Meridian", dependencies: ["MeridianCore", "MeridianEngine", "MeridianKML", "MeridianFeatureData"]),
        .target(name: "MeridianIO", dependencies: ["Meridian"]),
        .target(
            name: "MeridianViewer",
            dependencies: ["Meridian", "MeridianIO", "CMicroHTTPD"],
            resources: [.copy("Site")]
        ),
        .target(name: "MeridianCLI", dependencies: ["Meridian", "MeridianIO", "MeridianViewer"]),
        .executableTarget(name: "meridian", dependencies: ["MeridianCLI"]),
        .executableTarget(name: "meridian-bench", dependencies: ["Meridian"], path: "bench/Sources/meridian-bench"),
        // libFuzzer targets for every reader of outside data (scripts/fuzz.sh); a replay tool in the normal build.
        .executableTarget(name: "BufferAroundPoints", dependencies: ["Meridian"], path: "examples/BufferAroundPoints"),
        .executableTarget(name: "CreateAndSaveKML", dependencies: ["Meridian"], path: "examples/CreateAndSaveKML"),
        .executableTarget(name: "meridian-fuzz", dependencies: ["Meridian", "MeridianIO", "MeridianCLI", "MeridianViewer"], path: "fuzz/Sources/meridian-fuzz"),

        .testTarget(name: "MeridianCoreTests", dependencies: ["MeridianCore"]),
        .testTarget(name: "MeridianEngineTests", dependencies: ["MeridianEngine", "CGEOS"]),  // CGEOS: WKB reference
        .testTarget(name: "MeridianKMLTests", dependencies: ["MeridianKML"]),
        .testTarget(name: "MeridianFeatureDataTests", dependencies: ["MeridianFeatureData"]),
        .testTarget(name: "MeridianCLITests", dependencies: ["MeridianCLI", "MeridianIO", "Meridian"]),
        .testTarget(name: "MeridianViewerTests", dependencies: ["MeridianViewer"]),
    ]
)
