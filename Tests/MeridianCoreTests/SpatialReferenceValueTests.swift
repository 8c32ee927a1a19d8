import Foundation
import MeridianCore
import Testing

/// `SpatialReference`'s encoded form is what a synthesized `Codable` of its seven facts would write (each by name,
/// absent optionals left out), and equality and hashing follow its definition alone.
@Suite struct SpatialReferenceValueTests {
    static func keys(_ sr: SpatialReference) throws -> Set<String> {
        let data = try JSONEncoder().encode(sr)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return Set(object.keys)
    }

    @Test func theEncodedFormNamesEachFactAndLeavesAbsentOnesOut() throws {
        #expect(try Self.keys(.webMercator)
            == ["definition", "wkid", "name", "kind", "unit", "ellipsoid", "areaOfUse"])
        #expect(try Self.keys(.unspecified) == ["definition", "name", "kind", "ellipsoid"])
        for sr in [SpatialReference.wgs84, .webMercator, .unspecified] {
            let back = try JSONDecoder().decode(SpatialReference.self, from: try JSONEncoder().encode(sr))
            #expect(back == sr && back.name == sr.name && back.wkid == sr.wkid && back.kind == sr.kind
                && back.unit == sr.unit && back.ellipsoid == sr.ellipsoid && back.areaOfUse == sr.areaOfUse)
        }
    }

    @Test func equalityAndHashFollowTheDefinitionNotTheObject() {
        let a = SpatialReference(definition: "EPSG:32038", wkid: 32038, name: "NAD27 / Texas North Central",
                                 kind: .projected, unit: .usSurveyFeet, ellipsoid: .wgs84, areaOfUse: nil)
        let b = SpatialReference(definition: "EPSG:32038", wkid: 32038, name: "another name", kind: .projected,
                                 unit: .usSurveyFeet, ellipsoid: .wgs84, areaOfUse: nil)
        let c = SpatialReference(definition: "EPSG:3857", wkid: 3857, name: "NAD27 / Texas North Central",
                                 kind: .projected, unit: .usSurveyFeet, ellipsoid: .wgs84, areaOfUse: nil)
        #expect(a == b && a.hashValue == b.hashValue && Set([a, b]).count == 1)
        #expect(a != c && a.name == c.name)
        let copy = a
        #expect(copy == a && copy.name == "NAD27 / Texas North Central" && copy.unit == .usSurveyFeet)
    }

    /// `unshared` is the same spatial reference in every fact (only its reference count is its own), for every
    /// kind, with and without a code, unit and area of use.
    @Test func anUnsharedCopyHasEveryFact() throws {
        let area = AreaOfUse(name: "Texas", west: -103, south: 31, east: -94, north: 34)
        let custom = SpatialReference(definition: "EPSG:32038", wkid: 32038, name: "NAD27 / Texas North Central",
                                      kind: .projected, unit: .usSurveyFeet,
                                      ellipsoid: Ellipsoid(semiMajorAxis: 6_378_206.4, flattening: 1 / 294.978_698_214),
                                      areaOfUse: area)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for sr in [SpatialReference.wgs84, .webMercator, .unspecified, custom] {
            let copy = sr.unshared
            #expect(copy == sr && copy.hashValue == sr.hashValue)
            #expect(copy.definition == sr.definition && copy.name == sr.name && copy.wkid == sr.wkid
                && copy.kind == sr.kind && copy.unit == sr.unit && copy.ellipsoid == sr.ellipsoid
                && copy.areaOfUse == sr.areaOfUse)
            #expect(try encoder.encode(copy) == encoder.encode(sr))
        }
    }
}
