import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// What the GEOS/JTS XMLTester suites share: reading the case files, decoding their WKT into Meridian geometries,
/// the result tally, and the "exact-ish" overlay matcher.
///
/// WKT is decoded in a metre-based projected spatial reference (`.webMercator`, used purely as a planar frame: no
/// projection happens).
///
/// Exact-ish matcher (for overlay results: union, intersection, difference, symmetric difference). Overlay results
/// are exact up to floating-point rounding of the computed intersection points, so they must match far more tightly
/// than buffers. With D the diagonal of the expected result's envelope and tolerance t = max(1e-9 × D, 1e-12):
/// polygons pass when symmetric difference area ≤ 1e-9 × expected area and boundary Hausdorff distance ≤ t; lines
/// when Hausdorff ≤ t and lengths agree to 1e-9 relative; points when the coordinate sets are equal. Empty matches
/// empty (of any dimension). 1e-9 is ~10⁶ times double rounding on these coordinates, yet ~10⁶ times smaller than
/// any real topological difference in these cases (missing or extra pieces have size ≳ 1e-3 × D).
protocol GEOSXMLSuite {}

extension GEOSXMLSuite {
    /// The planar frame the WKT is read in.
    static var sr: SpatialReference { .webMercator }

    /// Every XML case file in the given reference folders (e.g. `geos_xml/general`), sorted by name.
    static func cases(in folders: [String], where include: (String) -> Bool = { _ in true }) throws
        -> [(file: String, xml: XMLTestFile)]
    {
        var result: [(String, XMLTestFile)] = []
        for folder in folders {
            for file in try ReferenceData.files(in: folder, suffix: ".xml") where include(file) {
                result.append((file, XMLTestFile(try ReferenceData.text(file))))
            }
        }
        return result
    }

    static func decode(_ wkt: String) -> Result<Geometry, FormatError> {
        Result { () throws(FormatError) -> Geometry in try WKT.decode(wkt, spatialReference: sr) }
    }

    static func isEmpty(_ g: Geometry) -> Bool { g.coordinates.isEmpty }

    /// A polygon's boundary as a polyline of its rings.
    static func boundary(_ p: Polygon) -> Polyline { Polyline(parts: p.rings, spatialReference: p.spatialReference) }

    static func polygon(_ g: Geometry) -> Polygon? {
        switch g {
        case .polygon(let p): p
        case .envelope(let e): e.polygon
        default: nil
        }
    }

    /// The top-level members of `GEOMETRYCOLLECTION (…)`, or `nil` if the text is not one.
    static func collectionMembers(_ text: String) -> [String]? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard t.uppercased().hasPrefix("GEOMETRYCOLLECTION") else { return nil }
        let rest = t.dropFirst("GEOMETRYCOLLECTION".count).trimmingCharacters(in: .whitespacesAndNewlines)
        if rest.uppercased() == "EMPTY" { return [] }
        guard rest.hasPrefix("("), rest.hasSuffix(")") else { return nil }
        var members: [String] = []
        var depth = 0
        var current = ""
        for ch in rest.dropFirst().dropLast() {
            if ch == "(" { depth += 1 } else if ch == ")" { depth -= 1 }
            if ch == ",", depth == 0 {
                members.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        members.append(current)
        return members.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The non-empty members of an expected GEOMETRYCOLLECTION (`members` from `collectionMembers(_:)`), decoded;
    /// `nil` after tallying a skip when a member is itself a collection.
    static func nonEmptyMembers(_ members: [String], tally: inout XMLTally) -> [Geometry]? {
        let decoded = members.compactMap { try? decode($0).get() }
        guard decoded.count == members.count else {
            tally.skip("expected result has nested collections")
            return nil
        }
        return decoded.filter { !isEmpty($0) }
    }

    static func dimension(_ g: Geometry) -> Int {
        switch g {
        case .point, .multipoint: 0
        case .polyline: 1
        case .polygon, .envelope: 2
        }
    }

    /// The two geometries an operation names as `arg1` and `arg2` (`A` or `B` of its case, case-insensitive); `nil`
    /// after tallying why when either is unreadable (a failure) or a GEOMETRYCOLLECTION (skipped: not in Meridian's
    /// geometry model).
    static func binaryArguments(_ op: XMLTestFile.Operation, _ c: XMLTestFile.Case, place: String, tally: inout XMLTally)
        -> (Geometry, Geometry)?
    {
        func argument(_ name: String?) -> Result<Geometry, FormatError>? {
            switch name?.trimmingCharacters(in: .whitespaces).uppercased() {
            case "A": decode(c.a)
            case "B": c.b.map(decode)
            default: nil
            }
        }
        guard let first = argument(op.attributes["arg1"]), let second = argument(op.attributes["arg2"]) else {
            tally.fail(place, "unreadable arguments \(op.attributes)")
            return nil
        }
        guard case .success(let a) = first, case .success(let b) = second else {
            tally.skip("input is a GEOMETRYCOLLECTION (not in Meridian's geometry model)")
            return nil
        }
        return (a, b)
    }

    /// Whether every coordinate lies on a fixed precision model's grid (multiples of 1 / `scale`): a case of such a
    /// model applies unchanged to an operation that computes no new vertices when its inputs do.
    static func isOnGrid(_ coordinates: [Coordinate], scale: Double) -> Bool {
        coordinates.allSatisfy { ($0.x * scale).rounded() == $0.x * scale && ($0.y * scale).rounded() == $0.y * scale }
    }

    /// The operation's result, or `nil` when it threw: a refusal of the input as invalid is counted as such (with
    /// GEOS's reason, printed in the summary), any other error as a failure.
    func attempt<Output>(_ place: String, tally: inout XMLTally, _ operation: () throws(EngineError) -> Output) -> Output? {
        do {
            return try operation()
        } catch {
            // (a buffer's refusal is located at its geometry: ask the error without its location)
            if case .invalidGeometry(let reason) = error.unlocated {
                tally.refuseInvalid(place, reason)
            } else {
                tally.fail(place, "\(error)")
            }
        }
        return nil
    }

    /// Tallies a comparison of a result with the case's expectation: matched (counted under `kind`), or failed
    /// (the comparison records why, or it threw).
    func tallyComparison(kind: String, place: String, tally: inout XMLTally, _ compare: (inout XMLTally) throws -> Bool) {
        do {
            if try compare(&tally) {
                tally.matched += 1
                tally.matchedByKind[kind, default: 0] += 1
            } else {
                tally.failed += 1
            }
        } catch {
            tally.fail(place, "comparison failed: \(error)")
        }
    }

    /// The exact-ish matcher (see `GEOSXMLSuite`); records an issue and returns `false` on a mismatch.
    func exactishMatches(_ actual: Geometry, _ expected: Geometry, place: String, tally: inout XMLTally) throws -> Bool {
        if Self.isEmpty(actual) || Self.isEmpty(expected) {
            guard Self.isEmpty(actual) == Self.isEmpty(expected) else {
                Issue.record("\(place): got \(WKT.encode(actual).prefix(200)), expected \(WKT.encode(expected).prefix(200))")
                return false
            }
            return true
        }
        let diagonal = expected.extent.map { hypot($0.width, $0.height) } ?? 0
        let tolerance = max(1e-9 * diagonal, 1e-12)
        switch (actual, expected) {
        case (.point, _), (.multipoint, _):
            let key: (Coordinate) -> [Double] = { [$0.x, $0.y] }
            let got = Set(actual.coordinates.map(key)), want = Set(expected.coordinates.map(key))
            if got != want || !(expected.typeName == "Point" || expected.typeName == "Multipoint") {
                Issue.record("\(place): points \(WKT.encode(actual)) vs \(WKT.encode(expected))")
                return false
            }
            return true
        case (.polyline, .polyline):
            let hausdorff = try GeometryEngine.hausdorffDistance(actual, expected)
            let (la, le) = (try GeometryEngine.length(of: actual), try GeometryEngine.length(of: expected))
            if hausdorff / tolerance > tally.worstHausdorffRatio.0 { tally.worstHausdorffRatio = (hausdorff / tolerance, place) }
            guard hausdorff <= tolerance, abs(la - le) <= 1e-9 * le else {
                Issue.record("\(place): lines Hausdorff \(hausdorff) (limit \(tolerance)), length \(la) vs \(le)")
                return false
            }
            return true
        case (.polygon(let pa), .polygon(let pe)):
            let expectedArea = try GeometryEngine.area(of: pe)
            let difference = try GeometryEngine.area(of: try GeometryEngine.symmetricDifference(pa, pe))
            let areaRatio = difference / expectedArea
            if areaRatio > tally.worstAreaRatio.0 { tally.worstAreaRatio = (areaRatio, place) }
            let hausdorff = try GeometryEngine.hausdorffDistance(Self.boundary(pa), Self.boundary(pe))
            if hausdorff / tolerance > tally.worstHausdorffRatio.0 { tally.worstHausdorffRatio = (hausdorff / tolerance, place) }
            guard areaRatio <= 1e-9, hausdorff <= tolerance else {
                Issue.record("\(place): polygons area ratio \(areaRatio) (limit 1e-9), boundary Hausdorff \(hausdorff) (limit \(tolerance))")
                return false
            }
            return true
        default:
            Issue.record("\(place): got a \(actual.typeName), expected a \(expected.typeName): \(WKT.encode(actual).prefix(200)) vs \(WKT.encode(expected).prefix(200))")
            return false
        }
    }
}

/// Counts of an XMLTester run: every case ends up in exactly one bucket.
struct XMLTally {
    var matched = 0
    var failed = 0
    var invalidInput = 0
    /// Cases whose expected result mixes dimensions, correctly refused with `.mixedDimensionResult`.
    var refusedMixed = 0
    /// Cases answered by a documented ArcGIS semantics that differs from the case's GEOS expectation (each checked
    /// against what that semantics requires).
    var arcGISSemantics = 0
    var skipped: [String: Int] = [:]
    var worstAreaRatio = (0.0, "")
    var worstHausdorffRatio = (0.0, "")
    /// Matches by kind of expected result ("Polygon", "Polyline", "Points").
    var matchedByKind: [String: Int] = [:]
    /// Where input was refused as invalid, with GEOS's reason (printed, so the refusals can be checked by eye).
    var invalidPlaces: [String] = []

    /// Every case that ran through the API and was checked: matched, or refused by design.
    var executed: Int { matched + invalidInput + refusedMixed + arcGISSemantics }

    mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }

    /// Counts a failure and records it as an issue of the test, named by its place.
    mutating func fail(_ place: String, _ message: String) {
        failed += 1
        Issue.record("\(place): \(message)")
    }

    /// Counts an input refused as invalid (`EngineError.invalidGeometry`), keeping GEOS's reason for the summary.
    mutating func refuseInvalid(_ place: String, _ reason: String) {
        invalidInput += 1
        invalidPlaces.append("\(place): \(reason)")
    }

    func summary(_ title: String) -> String {
        var s = "\(title): \(matched) matched, \(failed) failed, \(invalidInput) refused as invalid input (EngineError.invalidGeometry), "
            + "\(arcGISSemantics) answered by documented ArcGIS semantics, \(refusedMixed) mixed-dimension "
            + "results refused (.mixedDimensionResult); worst area ratio \(worstAreaRatio.0) at "
            + "\(worstAreaRatio.1), worst Hausdorff/tolerance \(worstHausdorffRatio.0) at \(worstHausdorffRatio.1)\n"
        s += "\(title) matched by kind: \(matchedByKind.sorted(by: { $0.key < $1.key }))\n"
        for place in invalidPlaces { s += "\(title) invalid input: \(place)\n" }
        s += "\(title) skipped: \(skipped.values.reduce(0, +))\n"
        for (reason, n) in skipped.sorted(by: { $0.key < $1.key }) { s += "  \(n) × \(reason)\n" }
        return s
    }
}
