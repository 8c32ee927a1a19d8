import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// NAD27/NAD83 Texas State Plane and EPSG Guidance Note 7-2 points through `GeometryEngine.project`, against the
/// published coordinates in `Tests/Fixtures/stateplane/` (see its README for provenance).
@Suite("Projection: State Plane and EPSG GN 7-2 references")
struct StatePlaneReferenceTests {
    /// PROJ's nad27/nad83 init zone numbers (the file's `proj_init_zone` column) and the EPSG projected CRS with the
    /// same definition, per datum. 4202 = EPSG:32038 is stated in the reference README; the others are the EPSG
    /// "NAD27 / Texas …" (32037–32041) and "NAD83 / Texas … (ftUS)" (2275–2279) series. The test checks each
    /// CRS's name against the expected zone so a wrong mapping fails instead of passing by luck.
    static let zones: [String: [Int: (epsg: Int, name: String)]] = [
        "NAD27": [
            4201: (32037, "NAD27 / Texas North"),
            4202: (32038, "NAD27 / Texas North Central"),
            4203: (32039, "NAD27 / Texas Central"),
            4204: (32040, "NAD27 / Texas South Central"),
            4205: (32041, "NAD27 / Texas South"),
        ],
        "NAD83": [
            4201: (2275, "NAD83 / Texas North (ftUS)"),
            4202: (2276, "NAD83 / Texas North Central (ftUS)"),
            4203: (2277, "NAD83 / Texas Central (ftUS)"),
            4204: (2278, "NAD83 / Texas South Central (ftUS)"),
            4205: (2279, "NAD83 / Texas South (ftUS)"),
        ],
    ]
    static let geographic = ["NAD27": "EPSG:4267", "NAD83": "EPSG:4269"]

    /// Tolerance 0.002 US ft (0.6 mm), from the issue: NGS publishes these to 0.001 ft, so a correct conversion is
    /// within half a unit (0.0005 ft) of the published value plus PROJ's series truncation (≪ 0.001 ft); 0.002 ft
    /// leaves room for rounding without hiding a unit error (the survey-vs-international foot is 2 ppm ≈ 4 ft at
    /// 2 000 000 ft) or a wrong zone (kilometres).
    static let toleranceFeet = 0.002

    @Test(arguments: ["stateplane/spcs_nad27_texas_points.csv", "stateplane/spcs_nad83_texas_points.csv"])
    func texasPoints(file: String) throws {
        let table = try CSVTable(try ReferenceData.text(file))
        #expect(!table.rows.isEmpty)
        var worst = 0.0
        for row in table.rows {
            let datum = try row.field("datum")
            let zone = try #require(Int(try row.field("proj_init_zone")))
            let (epsg, name) = try #require(Self.zones[datum]?[zone], "no EPSG mapping for \(datum) zone \(zone)")
            let target = try SpatialReference(wkid: epsg)
            #expect(target.name == name)
            #expect(target.unit?.metersPerUnit == 1200.0 / 3937.0, "\(name) should be in US survey feet")
            let source = try SpatialReference(code: try #require(Self.geographic[datum]))
            // The DMS columns are the published input; the decimal columns are rounded to 1e-10°.
            let lon = try row.angle("lon_dms")
            let lat = try row.angle("lat_dms")
            let e = try row.number("E_usft_NGS_l176")
            let n = try row.number("N_usft_NGS_l176")
            let p = try GeometryEngine.project(Point(x: lon, y: lat, spatialReference: source), into: target)
            #expect(p.spatialReference == target)
            let error = max(abs(p.x - e), abs(p.y - n))
            worst = max(worst, error)
            #expect(error <= Self.toleranceFeet, "\(row["label"] ?? "") \(name): (\(p.x), \(p.y)) vs (\(e), \(n))")
        }
        print("State plane \(file): \(table.rows.count) points, worst error \(worst) US ft (tolerance \(Self.toleranceFeet))")
    }

    /// The same NAD27 points through the zone definitions PROJ ships (`nad27_texas_zone_defs_from_PROJ.txt`) as
    /// PROJ strings: an independent route to the same published values that also confirms the zone → EPSG mapping
    /// above. `+datum=NAD27` is replaced by `+ellps=clrk66` on both sides (a pure map projection on Clarke 1866,
    /// which is what the SPCS 27 definition is), so no datum shift or grid is involved. Same 0.002 ft tolerance.
    @Test func texasPointsThroughPROJZoneDefinitions() throws {
        let defs = try ReferenceData.text("stateplane/nad27_texas_zone_defs_from_PROJ.txt")
        var definitions: [Int: String] = [:]
        var current: Int?
        for line in defs.split(separator: "\n").map(String.init) {
            // Lines look like `609:<4201> proj=lcc  datum=NAD27` then `610-lon_0=…` (grep output with line numbers).
            let body = line.drop { $0.isNumber }.dropFirst()
            if body.hasPrefix("<"), let close = body.firstIndex(of: ">"), let zone = Int(body[body.index(after: body.startIndex)..<close]) {
                current = zone
                definitions[zone] = String(body[body.index(after: close)...])
            } else if let zone = current, !body.isEmpty {
                definitions[zone, default: ""] += " " + body
            }
        }
        #expect(definitions.count == 5)
        let source = try SpatialReference(projString: "+proj=longlat +ellps=clrk66")
        let table = try CSVTable(try ReferenceData.text("stateplane/spcs_nad27_texas_points.csv"))
        var checked = 0
        for row in table.rows {
            let zone = try #require(Int(try row.field("proj_init_zone")))
            let raw = try #require(definitions[zone])
            let tokens = raw.split(separator: " ").map(String.init).filter { $0.contains("=") }
                .map { $0 == "datum=NAD27" ? "ellps=clrk66" : $0 }
            let target = try SpatialReference(projString: tokens.map { "+" + $0 }.joined(separator: " ") + " +units=us-ft")
            let lon = try row.angle("lon_dms")
            let lat = try row.angle("lat_dms")
            var c = [Coordinate(x: lon, y: lat)]
            try GeometryEngine.project(&c, from: source, into: target)
            let e = try row.number("E_usft_NGS_l176")
            let n = try row.number("N_usft_NGS_l176")
            #expect(max(abs(c[0].x - e), abs(c[0].y - n)) <= Self.toleranceFeet, "zone \(zone): \(c[0]) vs (\(e), \(n))")
            // And the EPSG CRS of the mapping agrees with PROJ's zone definition to well under the tolerance.
            let epsg = try SpatialReference(wkid: try #require(Self.zones["NAD27"]?[zone]?.epsg))
            var viaEPSG = [Coordinate(x: lon, y: lat)]
            try GeometryEngine.project(&viaEPSG, from: try SpatialReference(code: "EPSG:4267"), into: epsg)
            #expect(max(abs(c[0].x - viaEPSG[0].x), abs(c[0].y - viaEPSG[0].y)) <= Self.toleranceFeet)
            checked += 1
        }
        #expect(checked == table.rows.count && checked >= 6)
    }

    /// IOGP EPSG Guidance Note 7-2 worked examples. The published values are rounded to 0.01 (ft or m), so the exact
    /// answer lies within half of that: tolerance 0.005 unit. The PROJ-gie row (input rounded to 1e-8°, ≈ 1 mm)
    /// keeps its stated 1 cm.
    @Test func guidanceNoteExamples() throws {
        let table = try CSVTable(try ReferenceData.text("stateplane/epsg_gn7-2_examples.csv"))
        #expect(table.rows.count >= 5)
        var worst = 0.0
        for row in table.rows {
            let source = try SpatialReference(code: try row.field("source_crs"))
            let target = try SpatialReference(code: try row.field("target_crs"))
            let lon = try row.number("lon_deg")
            let lat = try row.number("lat_deg")
            let e = try row.number("expected_E")
            let n = try row.number("expected_N")
            let note = row["tolerance_note"] ?? ""
            let tolerance = note.contains("1 cm") ? 0.01 : 0.005
            // The unit column must agree with the CRS PROJ built (US survey foot vs metre).
            let unit = try row.field("units")
            #expect(target.unit?.metersPerUnit == (unit == "US survey foot" ? 1200.0 / 3937.0 : 1))
            var c = [Coordinate(x: lon, y: lat)]
            try GeometryEngine.project(&c, from: source, into: target)
            let error = max(abs(c[0].x - e), abs(c[0].y - n))
            worst = max(worst, error)
            #expect(error <= tolerance, "\(row["target_crs"] ?? ""): \(c[0]) vs (\(e), \(n)), tolerance \(tolerance)")
        }
        print("EPSG GN 7-2: \(table.rows.count) examples, worst error \(worst) (ft or m)")
    }
}
