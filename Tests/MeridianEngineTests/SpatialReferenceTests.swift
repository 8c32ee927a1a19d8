import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// Facts about spatial references, against the EPSG registry as PROJ's database records it (proj.db, PROJ 9.1).
@Suite("Spatial references")
struct SpatialReferenceTests {
    /// EPSG:32038: name, kind, unit and area of use as in the EPSG registry (and the seed sample's hard-coded box).
    /// The area-of-use bounds are given to 0.01° in the registry; compared exactly as parsed from PROJ's database.
    @Test func texasNorthCentral() throws {
        let sr = try SpatialReference(wkid: 32038)
        #expect(sr.name == "NAD27 / Texas North Central")
        #expect(sr.isProjected && !sr.isGeographic)
        #expect(sr.wkid == 32038)
        let unit = try #require(sr.unit)
        #expect(unit.name == "US survey foot")
        #expect(unit.metersPerUnit == 1200.0 / 3937.0)  // exact: not PROJ's rounded 0.304800609601219
        let area = try #require(sr.areaOfUse)
        #expect(area.west == -103.07 && area.south == 31.72 && area.east == -94.0 && area.north == 34.58)
        #expect(area.name.hasPrefix("United States (USA) - Texas"))
        // Clarke 1866: a = 6378206.4 m, b = 6356583.8 m (reference README), f = (a − b)/a.
        #expect(sr.ellipsoid.semiMajorAxis == 6_378_206.4)
        #expect(abs(sr.ellipsoid.flattening - (6_378_206.4 - 6_356_583.8) / 6_378_206.4) < 1e-12)
        // The other spellings reach the same system.
        #expect(try SpatialReference(code: "EPSG:32038") == sr)
        #expect(try SpatialReference(code: "epsg:32038").name == sr.name)
        #expect(try SpatialReference(parsing: " 32038 ").name == sr.name)
    }

    /// `.wgs84` and `.webMercator` are constants (no PROJ call); they must equal what PROJ reports for EPSG:4326 and
    /// EPSG:3857 — asked through the internal initialiser that bypasses the constants.
    @Test(arguments: [(SpatialReference.wgs84, "EPSG:4326"), (SpatialReference.webMercator, "EPSG:3857")])
    func constantsMatchPROJ(_ constant: SpatialReference, code: String) throws {
        let fromPROJ = try SpatialReference(proj: code, wkid: Int(code.dropFirst(5)))
        #expect(constant.name == fromPROJ.name)
        #expect(constant.kind == fromPROJ.kind)
        #expect(constant.unit == fromPROJ.unit)
        #expect(constant.areaOfUse == fromPROJ.areaOfUse)
        #expect(constant.ellipsoid.semiMajorAxis == fromPROJ.ellipsoid.semiMajorAxis)
        #expect(abs(constant.ellipsoid.flattening - fromPROJ.ellipsoid.flattening) < 1e-15)
        #expect(try SpatialReference(code: code) == constant)
    }

    @Test(arguments: ["EPSG:999999", "ESRI:1", "EPSG:abc", "NOPE:4326", "", "4326:EPSG"])
    func unknownCodesThrow(_ code: String) {
        #expect {
            _ = try SpatialReference(code: code)
        } throws: { error in
            guard case EngineError.unknownSpatialReference = error else { return false }
            return true
        }
    }

    @Test func unknownWKIDAndDefinitionsThrow() {
        for attempt in [
            { _ = try SpatialReference(wkid: 999_999) },
            { _ = try SpatialReference(wkt: "PROJCS[\"broken\"") },
            { _ = try SpatialReference(projString: "+proj=nonsense") },
            { _ = try SpatialReference(parsing: "not a spatial reference") },
        ] as [() throws -> Void] {
            #expect {
                try attempt()
            } throws: { error in
                guard case EngineError.unknownSpatialReference = error else { return false }
                return true
            }
        }
    }

    /// A WKT1 definition written by hand from the EPSG:32038 parameters (reference README / PROJ nad27 zone 4202:
    /// lat_1 33°58', lat_2 32°08', lat_0 31°40', lon_0 −97°30', x_0 2 000 000 US ft) projects the published
    /// Texas North Central point like the EPSG code does (same 0.002 ft tolerance as the State Plane test).
    @Test func wktAndPROJStringInputs() throws {
        let wkt = """
            PROJCS["NAD27 / Texas North Central (hand-written)",
              GEOGCS["NAD27",DATUM["North_American_Datum_1927",SPHEROID["Clarke 1866",6378206.4,294.978698213898]],
                PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],
              PROJECTION["Lambert_Conformal_Conic_2SP"],
              PARAMETER["standard_parallel_1",33.9666666666667],PARAMETER["standard_parallel_2",32.1333333333333],
              PARAMETER["latitude_of_origin",31.6666666666667],PARAMETER["central_meridian",-97.5],
              PARAMETER["false_easting",2000000],PARAMETER["false_northing",0],
              UNIT["US survey foot",0.304800609601219]]
            """
        let fromWKT = try SpatialReference(wkt: wkt)
        #expect(fromWKT.isProjected)
        #expect(fromWKT.name == "NAD27 / Texas North Central (hand-written)")
        #expect(fromWKT.unit?.metersPerUnit == 1200.0 / 3937.0)
        let fromPROJ = try SpatialReference(
            projString: "+proj=lcc +lat_1=33d58 +lat_2=32d8 +lat_0=31d40 +lon_0=-97d30 +x_0=609601.2192024384 +y_0=0 +ellps=clrk66 +units=us-ft")
        #expect(fromPROJ.isProjected)
        #expect(fromPROJ.unit?.metersPerUnit == 1200.0 / 3937.0)
        #expect(try SpatialReference(parsing: "+proj=longlat +ellps=clrk66").isGeographic)
        #expect(try SpatialReference(parsing: wkt).name == fromWKT.name)
        // TXNC GP1: 96°48'W 32°45'N → E 2 215 204.973, N 394 833.169 US ft (NGS, via the reference README).
        let nad27 = try SpatialReference(code: "EPSG:4267")
        for (source, target) in [(nad27, fromWKT), (try SpatialReference(projString: "+proj=longlat +ellps=clrk66"), fromPROJ)] {
            var c = [Coordinate(x: -96.8, y: 32.75)]
            try GeometryEngine.project(&c, from: source, into: target)
            #expect(abs(c[0].x - 2_215_204.973) <= 0.002 && abs(c[0].y - 394_833.169) <= 0.002, "\(target.name): \(c[0])")
        }
    }

    /// NAD27 → WGS84 reports the operation PROJ ran and its accuracy. Without the NADCON grid, PROJ 9.1 uses
    /// "NAD27 to WGS 84 (…)" Helmert shifts whose EPSG accuracy is metres; with the grid it would be a grid
    /// operation. The test does not assume which: it asserts that a name naming both datums and a finite, positive
    /// accuracy are surfaced, and that the accuracy is consistent with the kind of operation reported.
    @Test func nad27ToWGS84ReportsOperationAndAccuracy() throws {
        let nad27Point = Point(x: 2_215_204.973, y: 394_833.169, spatialReference: try SpatialReference(wkid: 32038))
        let result = try GeometryEngine.projectReportingOperations(nad27Point, into: .wgs84)
        let operation = try #require(result.operations.first)
        #expect(result.operations.count == 1)
        #expect(operation.name.contains("NAD27") && operation.name.contains("WGS 84"), "\(operation.name)")
        let accuracy = try #require(operation.accuracy, "the accuracy must be surfaced: \(operation)")
        #expect(accuracy > 0 && accuracy.isFinite)
        #expect(operation.description.contains("accuracy"))
        if operation.name.contains("NAD27 to WGS 84 (6)") {
            // EPSG:1173 "NAD27 to WGS 84 (6)": a Helmert shift for the USA, accuracy 7 m (EPSG registry).
            #expect(accuracy == 7)
        } else {
            print("NAD27 → WGS84 ran '\(operation.name)' with accuracy \(accuracy) m (a grid may be installed)")
        }
        // The projected point lands near Dallas (the shift is metres, not degrees): within 0.001° of the NAD27
        // geographic coordinates 96°48'W 32°45'N (a datum shift here is ≈ 20 m ≈ 0.0003°).
        guard case .point(let p) = result.geometry else {
            Issue.record("expected a point")
            return
        }
        #expect(abs(p.x - -96.8) < 0.001 && abs(p.y - 32.75) < 0.001, "\(p)")
        // Same spatial reference: nothing runs, nothing is reported.
        #expect(try GeometryEngine.projectReportingOperations(nad27Point, into: nad27Point.spatialReference).operations.isEmpty)
    }

    /// The projected area-of-use box of EPSG:32038 contains a point near Dallas and not one in El Paso or Houston,
    /// both with `AreaOfUse.contains` (WGS84 degrees) and `GeometryEngine.contains` on the projected box polygon,
    /// as the seed sample does.
    @Test func areaOfUseContainment() throws {
        let sr = try SpatialReference(wkid: 32038)
        let area = try #require(sr.areaOfUse)
        let box = try GeometryEngine.project(area.envelope.polygon, into: sr)
        // Dallas (−96.80, 32.78), Wichita Falls (−98.49, 33.91) inside; El Paso (−106.49, 31.76),
        // Houston (−95.37, 29.76) and Oklahoma City (−97.52, 35.47) outside.
        let cases: [(Double, Double, Bool)] = [
            (-96.80, 32.78, true), (-98.49, 33.91, true),
            (-106.49, 31.76, false), (-95.37, 29.76, false), (-97.52, 35.47, false),
        ]
        for (lon, lat, inside) in cases {
            #expect(area.contains(longitude: lon, latitude: lat) == inside, "\(lon), \(lat)")
            let projected = try GeometryEngine.project(Point(latitude: lat, longitude: lon), into: sr)
            #expect(try GeometryEngine.doesGeometry(box, contain: projected) == inside, "\(lon), \(lat) projected")
        }
    }
}
