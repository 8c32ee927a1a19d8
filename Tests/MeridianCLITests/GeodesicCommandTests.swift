import Foundation
import Testing

import Meridian

/// `meridian buffer --geodesic` and `meridian measure` end to end (in-process), checked with the engine's own
/// geodesic distance (PROJ's geod_inverse) and GeographicLib's published octant perimeter.
@Suite struct GeodesicCommandTests {
    let input = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"fiji","r":300},"geometry":{"type":"Point","coordinates":[179.9,-17.5]}},
        {"type":"Feature","properties":{"name":"pole","r":100},"geometry":{"type":"Point","coordinates":[0,89.5]}}]}
        """

    @Test func geodesicBufferKeepsPropertiesSplitsAtTheAntimeridianAndContainsThePole() throws {
        let r = runCommand(["buffer", "--geodesic", "--distance-field", "r", "--unit", "km", "-o", "-"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        let features = try GeoJSON.decodeFeatures(Data(r.stdout.utf8))
        #expect(features.count == 2)
        #expect(features[0].properties["name"] == .string("fiji") && features[1].properties["name"] == .string("pole"))
        guard case .polygon(let fiji) = features[0].geometry, case .polygon(let pole) = features[1].geometry else {
            Issue.record("not polygons"); return
        }
        #expect(fiji.parts.count == 2)
        for v in fiji.rings.flatMap({ $0 }) {
            let d = try GeometryEngine.geodeticDistance(from: Point(latitude: -17.5, longitude: 179.9), to: Point(latitude: v.y, longitude: v.x))
            #expect(abs(d.distance - 300_000) < 1e-3)  // GeoJSON keeps 17 significant digits
        }
        #expect(try GeometryEngine.isGeometry(pole, intersecting: Point(latitude: 90, longitude: 0)))
        // Union, WKT output, explicit deviation: one polygon, in WGS84 longitude/latitude.
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wkt = folder.appendingPathComponent("u.wkt").path
        let u = runCommand(["buffer", "--geodesic", "--distance", "2000km", "--max-deviation", "1km", "--union", "-o", wkt], stdin: input)
        #expect(u.status == 0, "\(u.stderr)")
        let lines = try String(contentsOfFile: wkt, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        guard case .polygon(let unioned)? = try lines.first.map({ try WKT.decode(String($0), spatialReference: .wgs84) }) else {
            Issue.record("not one WKT polygon: \(lines)")
            return
        }
        let vertices = Geometry.polygon(unioned).coordinates
        #expect(vertices.allSatisfy { abs($0.x) <= 180 && abs($0.y) <= 90 } && vertices.count > 100)
    }

    @Test func usageErrors() {
        #expect(runCommand(["buffer", "--geodesic", "--srs", "EPSG:32038", "--distance", "1km"], stdin: input).status == 2)
        #expect(runCommand(["buffer", "--geodesic"], stdin: input).status == 2)
        #expect(runCommand(["buffer", "--geodesic", "--distance", "1km", "--segments", "8"], stdin: input).status == 2)
        let tooFar = runCommand(["buffer", "--geodesic", "--distance", "20100km"], stdin: input)
        #expect(tooFar.status == 1 && tooFar.stderr.contains("half the meridian"))
    }

    @Test func measureOctant() throws {
        let octant = """
            {"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[90,0],[0,90],[0,0]]]}}
            """
        let r = runCommand(["measure", "--geodesic", "--json"], stdin: octant)
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONValue.decode(Data(r.stdout.utf8))
        let feature = doc["features"]?[0]
        // GeographicLib's documented example: perimeter 30,022,685 m; area = ellipsoid area / 8 = 63,758,202,715,511 m².
        #expect(abs((feature?["perimeter_m"]?.doubleValue ?? 0) - 30_022_685) < 1)
        #expect(abs((feature?["area_m2"]?.doubleValue ?? 0) - 63_758_202_715_511) < 10)
        // Planar measures of longitude/latitude are refused with a pointer to --geodesic.
        let planar = runCommand(["measure"], stdin: octant)
        #expect(planar.status == 1 && planar.stderr.contains("--geodesic"))
        let text = runCommand(["measure", "--geodesic"], stdin: octant)
        #expect(text.status == 0 && text.stdout.contains("Polygon"))
    }

    /// The geodesic mode declares its options: planar-only ones are usage errors there (--allow-outside-area was
    /// silently ignored), and its per-feature outputs are the formats their names say (.csv and .geojsons were
    /// a GeoJSON FeatureCollection under those names).
    @Test func geodesicOptionsAndPerFeatureFormats() throws {
        for args in [["--allow-outside-area"], ["--srs", "EPSG:32038"], ["--segments", "4"]] {
            let r = runCommand(["buffer", "--geodesic", "--distance", "10km"] + args, stdin: input)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(args)")
            #expect(r.stderr == "meridian buffer: \(args[0]) does not apply to a --geodesic buffer (it applies to a planar buffer)\n")
        }
        #expect(runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1", "--max-deviation", "1m"], stdin: input).status == 2)
        // --max-vertices bounds geodesic buffers too (one work bound for every command that multiplies vertices).
        let bounded = runCommand(["buffer", "--geodesic", "--distance", "10km", "--max-vertices", "9"], stdin: input)
        #expect(bounded.status == 1 && bounded.stdout.isEmpty)
        #expect(bounded.stderr.hasPrefix("meridian buffer: too large: the geodesic buffer would make about ")
                && bounded.stderr.hasSuffix("more than the 9 the work may make (--max-vertices; raise it to allow more)\n"),
                "\(bounded.stderr)")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let csvPath = folder.appendingPathComponent("b.csv").path
        let csvInput = "name,lon,lat,r\nA,-97,32.5,10\nB,-96.5,33,20\n"
        #expect(runCommand(["buffer", "--geodesic", "--distance-field", "r", "--unit", "km", "-o", csvPath], stdin: csvInput).status == 0)
        let rows = try CSV.decode(Data(contentsOf: URL(fileURLWithPath: csvPath)))
        #expect(rows.header == ["name", "lon", "lat", "r", "wkt"])
        #expect(rows.rows.map { $0[0] } == ["A", "B"])
        for (row, centre) in zip(rows.rows, [(-97.0, 32.5), (-96.5, 33.0)]) {
            let g = try WKT.decode(row[4], spatialReference: .wgs84)
            let radius = try #require(Double(row[3])) * 1000
            for v in g.coordinates {
                let d = try GeometryEngine.geodeticDistance(from: Point(latitude: centre.1, longitude: centre.0),
                                                            to: Point(latitude: v.y, longitude: v.x))
                #expect(abs(d.distance - radius) < 1e-3)  // the geodesic buffer's 1 mm, WKT with 17 digits
            }
        }
        let seqPath = folder.appendingPathComponent("b.geojsons").path
        #expect(runCommand(["buffer", "--geodesic", "--distance", "5km", "-o", seqPath], stdin: input).status == 0)
        let records = try String(contentsOfFile: seqPath, encoding: .utf8).split(separator: "\u{1E}")
        #expect(records.count == 2)
        for (record, name) in zip(records, ["fiji", "pole"]) {
            let feature = try GeoJSON.decodeFeatures(Data(record.utf8))
            #expect(feature.count == 1 && feature[0].properties["name"] == .string(name))
        }
        #expect(runCommand(["buffer", "--geodesic", "--distance", "5km", "--union", "-o", seqPath], stdin: input).status == 2)
    }
}
