import Foundation
import Meridian
import Testing

/// A data file's spatial reference may name files (a grid in a GeoPackage's `gpkg_spatial_ref_sys`, a `.prj`, a
/// FlatGeobuf header): none is read, whether GDAL or Meridian's PROJ would read it, and the command fails with one line
/// naming the data file and the refused path, writing nothing.
@Suite struct DataFileSpatialReferenceTests {
    /// Sources in three formats whose spatial reference is a BoundCRS with an NTv2 grid at a path outside PROJ's data
    /// directories, made by GDAL's own ogr2ogr (an independent writer). The path is then a FIFO: were it opened, the
    /// command would block (and be killed after 20 s: a failure, not a hung suite).
    @Test func aGridPathInADataFileIsNeverOpened() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // While ogr2ogr writes the sources the path holds a real grid (GDAL's FlatGeobuf writer refuses a definition
        // whose grid it cannot read): proj-data's BETA2007.gsb.
        let grid = folder.appendingPathComponent("secret.gsb").path
        let installed = [ProcessInfo.processInfo.environment["PROJ_DATA"], "/usr/share/proj", "/usr/local/share/proj"]
            .compactMap { $0 }.map { "\($0)/BETA2007.gsb" }.first { FileManager.default.fileExists(atPath: $0) }
        try FileManager.default.copyItem(atPath: try #require(installed, "proj-data's BETA2007.gsb"), toPath: grid)
        let input = folder.appendingPathComponent("in.geojson")
        try Data((#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":1},"#
            + #""geometry":{"type":"Point","coordinates":[1,2]}}]}"#).utf8).write(to: input)
        let definition = "BOUNDCRS[SOURCECRS[GEOGCRS[\"local\",DATUM[\"local\",ELLIPSOID[\"GRS 1980\",6378137,298.257222101]],"
            + "CS[ellipsoidal,2],AXIS[\"latitude\",north],AXIS[\"longitude\",east],ANGLEUNIT[\"degree\",0.0174532925199433]]],"
            + "TARGETCRS[GEOGCRS[\"WGS 84\",DATUM[\"World Geodetic System 1984\",ELLIPSOID[\"WGS 84\",6378137,298.257223563]],"
            + "CS[ellipsoidal,2],AXIS[\"latitude\",north],AXIS[\"longitude\",east],ANGLEUNIT[\"degree\",0.0174532925199433]]],"
            + "ABRIDGEDTRANSFORMATION[\"local to WGS 84\",METHOD[\"NTv2\",ID[\"EPSG\",9615]],"
            + "PARAMETERFILE[\"Latitude and longitude difference file\",\"\(grid)\"]]]"
        let sources = [("GPKG", "x.gpkg", "pts"), ("ESRI Shapefile", "x.shp", "x"), ("FlatGeobuf", "x.fgb", "pts")]
        for (driver, name, _) in sources {
            let made = try runProgram("/usr/bin/ogr2ogr", ["-f", driver, folder.appendingPathComponent(name).path, input.path,
                                                           "-a_srs", definition, "-nln", "pts"])
            #expect(made.status == 0, "ogr2ogr \(driver): \(made.stderr)")
        }
        try FileManager.default.removeItem(atPath: grid)
        #expect(mkfifo(grid, 0o600) == 0)
        let refusal = EngineError.fileRefused(grid).description
        let out = folder.appendingPathComponent("out.geojson").path
        for (_, name, layer) in sources {
            let source = folder.appendingPathComponent(name).path
            for command in [["project", source, "--to", "EPSG:4326"], ["buffer", source, "--geodesic", "--distance", "1km"]] {
                let r = try runBinary(command + ["-o", out], timeout: 20)
                #expect(r.status == 1, "\(command): \(r.stderr)")
                #expect(r.stderr == "meridian \(command[0]): \(source): cannot open: layer '\(layer)': its spatial reference "
                    + "cannot be used: \(refusal)\n")
                #expect(!FileManager.default.fileExists(atPath: out))
            }
        }
    }
}
