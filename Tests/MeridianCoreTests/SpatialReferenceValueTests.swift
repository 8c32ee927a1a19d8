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
}
