import CGEOS
import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// The GEOS 3.11.1 XMLTester cases of the operations beyond buffer, overlay and predicates
/// (`Tests/Fixtures/geos_xml/general/Test{Boundary,ConvexHull,ConvexHull-big,Densify,Distance,InteriorPoint,Simple}.xml`)
/// run through Meridian's public API under ArcGIS's names: `getboundary` → ``GeometryEngine/boundary(of:)``,
/// `convexhull` → ``GeometryEngine/convexHull(for:)``, `densify` → ``GeometryEngine/densify(_:maxSegmentLength:)``,
/// `distance` → ``GeometryEngine/distance(from:to:)``, `getInteriorPoint` → ``GeometryEngine/labelPoint(for:)``,
/// `isSimple` → ``GeometryEngine/isSimple(_:)``.
///
/// Matchers: geometries with the exact-ish matcher of `GEOSXMLSuite` (empty matches empty, whatever its type);
/// densify also vertex by vertex (same count, each within 1e-9 × the envelope diagonal), since the matcher's
/// Hausdorff and length cannot see where vertices were inserted; distances to 1e-12 relative (GEOS computes them
/// in double precision from the same coordinates); booleans exactly.
///
/// Fixed precision: TestBoundary, TestConvexHull-big, TestDistance, TestInteriorPoint and TestSimple declare
/// `<precisionModel scale="1.0"/>`. Their inputs lie on that integer grid (checked; a case off the grid is skipped),
/// and boundary, hull and isSimple create no new coordinates, so the model changes nothing for them; distances are
/// computed in double precision by XMLTester whatever the model; an interior point is a new coordinate, which
/// GEOS rounds to the grid, so Meridian's is rounded the same way (to the nearest multiple of 1/scale) before it
/// is compared.
///
/// Densify: the expected results of GEOS 3.11.1 list some parts in reverse order and rings in GEOS's orientation;
/// Meridian keeps the input's part order and orients shells counter-clockwise (its polygon model), so the vertices
/// are compared as multisets (each ring without its closing vertex). Cases expecting `exception` (a zero or
/// 1e-16 tolerance) must throw.
///
/// ArcGIS semantics, documented on the operations and counted here as such (never as matches):
/// - `distance(from:to:)` refuses an empty geometry (no distance to nothing); GEOS answers 0.
/// - `labelPoint(for:)` takes a polygon (ArcGIS: polygons and envelopes only): interior points of points and
///   lines are skipped with that reason.
/// - `isSimple(_:)` of a polygon is ArcGIS's "topologically simple" (valid rings, correct nesting), which is
///   GEOS's `isValid`, not GEOS's `isSimple` (rings without self-intersections only); polygon cases whose two
///   answers differ are counted as `arcGISSemantics` and each is checked against `isValid`'s answer instead.
@Suite("GEOS XMLTester unary operation cases")
struct GEOSXMLUnaryOperationTests: GEOSXMLSuite {
    static let files: Set = ["TestBoundary.xml", "TestConvexHull.xml", "TestConvexHull-big.xml", "TestDensify.xml",
                             "TestDistance.xml", "TestInteriorPoint.xml", "TestSimple.xml"]

    /// Minimum executed comparisons per op, counted on this machine (the printed summary): fewer means cases that
    /// used to run are now skipped.
    static let minimumExecuted: [String: Int] = [
        "getboundary": 12, "convexhull": 13, "densify": 26, "distance": 9, "getinteriorpoint": 5, "issimple": 38,
    ]

    @Test func unaryCases() throws {
        var tallies: [String: XMLTally] = [:]
        for (file, xml) in try Self.cases(in: ["geos_xml/general"], where: { Self.files.contains(($0 as NSString).lastPathComponent) }) {
            for c in xml.cases {
                for op in c.operations {
                    let name = op.name.lowercased()
                    let place = "\(file) case \(c.index) \(op.name)"
                    run(name, op, c, scale: xml.scale, place: place, tally: &tallies[name, default: XMLTally()])
                }
            }
        }
        var failed = 0
        for (name, minimum) in Self.minimumExecuted.sorted(by: { $0.key < $1.key }) {
            let tally = tallies[name, default: XMLTally()]
            print(tally.summary("GEOS XML \(name)"))
            failed += tally.failed
            #expect(tally.executed >= minimum, "only \(tally.executed) \(name) cases executed")
        }
        #expect(Set(tallies.keys) == Set(Self.minimumExecuted.keys), "ops in the files: \(tallies.keys.sorted())")
        #expect(failed == 0)
    }

    func run(_ name: String, _ op: XMLTestFile.Operation, _ c: XMLTestFile.Case, scale: Double?, place: String,
             tally: inout XMLTally) {
        guard case .success(let a) = Self.decode(c.a) else {
            tally.skip("input is a GEOMETRYCOLLECTION (not in Meridian's geometry model)")
            return
        }
        let inputs = a.coordinates + (c.b.flatMap { try? Self.decode($0).get() }?.coordinates ?? [])
        if let scale, !Self.isOnGrid(inputs, scale: scale) {
            tally.skip("fixed precision model (scale \(scale)) with inputs off its grid")
            return
        }
        let expectedText = op.expected.trimmingCharacters(in: .whitespacesAndNewlines)
        if expectedText.lowercased() == "exception" {
            let tolerance = op.attributes["arg2"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? .nan
            #expect(name == "densify", "\(place): an exception expected from an op this suite does not expect it of")
            let threw: Bool
            do { _ = try GeometryEngine.densify(a, maxSegmentLength: tolerance); threw = false } catch { threw = true }
            record(threw, "expected a refusal (GEOS throws), got a result", place, &tally)
            return
        }
        do {
            switch name {
            case "distance":
                guard let bText = c.b, case .success(let b) = Self.decode(bText) else {
                    tally.skip("input is a GEOMETRYCOLLECTION (not in Meridian's geometry model)")
                    return
                }
                let expected = try #require(Double(expectedText))
                if Self.isEmpty(a) || Self.isEmpty(b) {
                    #expect(throws: EngineError.self, "\(place)") { _ = try GeometryEngine.distance(from: a, to: b) }
                    #expect(expected == 0, "\(place)")
                    tally.arcGISSemantics += 1
                    return
                }
                let got = try GeometryEngine.distance(from: a, to: b)
                record(abs(got - expected) <= 1e-12 * max(1, expected), "\(got) vs \(expected)", place, &tally)
            case "issimple":
                let expected = expectedText.lowercased() == "true"
                let got = try GeometryEngine.isSimple(a)
                if case .polygon = a, got != expected {
                    // ArcGIS semantics (see the suite's comment): the answer must be GEOS's isValid.
                    let valid = try Self.geosIsValid(c.a)
                    record(got == valid, "isSimple \(got), isValid \(valid)", place, &tally)
                    tally.skip("polygon: ArcGIS's topological simplicity (GEOS isValid) differs from GEOS isSimple (checked against isValid)")
                    tally.matched -= got == valid ? 1 : 0
                    tally.arcGISSemantics += got == valid ? 1 : 0
                } else {
                    record(got == expected, "got \(got), expected \(expected)", place, &tally)
                }
            case "getinteriorpoint":
                guard case .polygon(let polygon) = a else {
                    tally.skip("labelPoint takes a polygon (ArcGIS): interior point of a \(a.typeName)")
                    return
                }
                let expected = try decodeExpected(expectedText)
                if Self.isEmpty(.polygon(polygon)) {
                    // ArcGIS: an empty polygon has no label point; GEOS answers POINT EMPTY.
                    #expect(throws: EngineError.self, "\(place)") { _ = try GeometryEngine.labelPoint(for: polygon) }
                    #expect(Self.isEmpty(expected), "\(place)")
                    tally.arcGISSemantics += 1
                    return
                }
                var got = try GeometryEngine.labelPoint(for: polygon)
                if let scale {  // GEOS rounds the new coordinate to the fixed grid (half away from zero, as Java's rint on .5 here)
                    got = Point(x: (got.x * scale).rounded() / scale, y: (got.y * scale).rounded() / scale,
                                spatialReference: got.spatialReference)
                }
                record(try exactishMatches(.point(got), expected, place: place, tally: &tally), "", place, &tally)
            case "getboundary":
                let got = try GeometryEngine.boundary(of: a)
                record(try exactishMatches(got, try decodeExpected(expectedText), place: place, tally: &tally), "", place, &tally)
            case "convexhull":
                let got = try GeometryEngine.convexHull(for: a)
                record(try exactishMatches(got, try decodeExpected(expectedText), place: place, tally: &tally), "", place, &tally)
            case "densify":
                let tolerance = try #require(op.attributes["arg2"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
                let expected = try decodeExpected(expectedText)
                let got = try GeometryEngine.densify(a, maxSegmentLength: tolerance)
                let diagonal = expected.extent.map { hypot($0.width, $0.height) } ?? 0
                let (g, e) = (Self.vertexMultiset(got), Self.vertexMultiset(expected))
                let sameVertices = g.count == e.count
                    && zip(g, e).allSatisfy { abs($0.x - $1.x) <= 1e-9 * diagonal && abs($0.y - $1.y) <= 1e-9 * diagonal }
                let matches = try exactishMatches(got, expected, place: place, tally: &tally)
                record(matches && sameVertices, "vertices \(WKT.encode(got).prefix(300)) vs \(WKT.encode(expected).prefix(300))",
                       place, &tally)
            default:
                Issue.record("\(place): an op this suite does not know")
                tally.failed += 1
            }
        } catch let error as EngineError {
            if case .invalidGeometry(let reason) = error.unlocated {
                tally.refuseInvalid(place, reason)
            } else {
                tally.fail(place, "refused: \(error)")
            }
        } catch {
            tally.fail(place, "\(error)")
        }
    }

    /// The vertices, sorted, each polygon ring without its closing vertex (orientation and part order ignored).
    static func vertexMultiset(_ g: Geometry) -> [Coordinate] {
        let vertices: [Coordinate]
        if case .polygon(let p) = g {
            vertices = p.rings.flatMap { $0.dropLast() }
        } else {
            vertices = g.coordinates
        }
        return vertices.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }

    func decodeExpected(_ text: String) throws -> Geometry {
        switch Self.decode(text) {
        case .success(let g): return g
        case .failure(let e):
            // GEOMETRYCOLLECTION EMPTY (GEOS's empty boundary of a point) is the only collection expected here.
            if text.uppercased().hasPrefix("GEOMETRYCOLLECTION EMPTY") { return .multipoint(Multipoint([], spatialReference: Self.sr)) }
            throw e
        }
    }

    func record(_ ok: Bool, _ detail: String, _ place: String, _ tally: inout XMLTally) {
        if ok {
            tally.matched += 1
        } else {
            tally.failed += 1
            if !detail.isEmpty { Issue.record("\(place): \(detail)") }
        }
    }

    /// GEOS's `isValid` of a WKT text, read by GEOS itself (independent of Meridian's conversion to GEOS).
    static func geosIsValid(_ wkt: String) throws -> Bool {
        let handle = try #require(GEOS_init_r())
        defer { GEOS_finish_r(handle) }
        let reader = try #require(GEOSWKTReader_create_r(handle))
        defer { GEOSWKTReader_destroy_r(handle, reader) }
        let g = try #require(GEOSWKTReader_read_r(handle, reader, wkt))
        defer { GEOSGeom_destroy_r(handle, g) }
        return GEOSisValid_r(handle, g) == 1
    }
}
