import Foundation
import Meridian
import Testing

@testable import MeridianViewer

/// The viewer's one JSON writer (`ViewerJSON`): MeridianCore's number and string text, keys in encoding order,
/// containers closed where they end, and no non-finite number ever written.
@Suite struct ViewerJSONTests {
    func text(_ value: some Encodable) throws -> String {
        String(decoding: try ViewerJSON.encode(value), as: UTF8.self)
    }

    struct Sample: Encodable {
        struct Inner: Encodable {
            let a: [Int]
            let b: String?
        }

        let name: String
        let inner: Inner
        let list: [[Double]]
        let empty: [Inner]
        let flag: Bool
        let none: Int?
    }

    /// Nested objects and arrays, optional keys left out, keys in declaration order, the same text `JSONEncoder`
    /// would give as JSON (compared as values).
    @Test func nestedValuesAreClosedWhereTheyEnd() throws {
        let sample = Sample(name: "a\"b\\c\n\u{1}é/", inner: .init(a: [1, -2, 3], b: nil), list: [[1.5, -0.0], [], [2]],
                            empty: [], flag: true, none: nil)
        let written = try text(sample)
        #expect(written == #"{"name":"a\"b\\c\n\u0001é/","inner":{"a":[1,-2,3]},"list":[[1.5,0],[],[2]],"empty":[],"flag":true}"#)
        let foundation = try JSONEncoder().encode(sample)
        #expect(try JSONValue.decode(Data(written.utf8)) == JSONValue.decode(foundation))
    }

    /// Numbers are the shortest decimal that reads back as the same double, as MeridianCore writes them (and as
    /// the viewer's answers always printed them after rounding): whole numbers without a fraction, −0 as 0, Swift's
    /// exponent notation outside [1e-4, 2^53).
    @Test(arguments: [(1234.5, "1234.5"), (0.1 + 0.2, "0.30000000000000004"), (-0.0, "0"), (20037508.34, "20037508.34"),
                      (1e16, "1e+16"), (1e-5, "1e-05"), (1_700_100.123456789, "1700100.123456789"), (12, "12")])
    func numbersAreShortestRoundTrips(value: Double, expected: String) throws {
        #expect(try text([value]) == "[\(expected)]")
        #expect(Double(expected) == value)
    }

    /// The rounding the answers apply before writing: half away from zero to the given decimals.
    @Test func decimalsRoundAsTheAnswersAlwaysDid() {
        #expect(Decimals.drawn(1234.565001) == 1234.57)
        #expect(Decimals.drawn(-0.004) == 0)
        #expect(Decimals.described(-103.0700000001) == -103.07)
        #expect(Decimals.tabulated(0.1 + 0.2) == 0.3)
    }

    /// A number that is not finite is refused, never written (as `null` or otherwise): the API answers 500.
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreRefused(value: Double) throws {
        #expect(throws: EncodingError.self) { try ViewerJSON.encode(["x": value]) }
        #expect(throws: EncodingError.self) {
            try ViewerJSON.encode(CoordinateList(coordinates: [Coordinate(x: 1, y: value)], decimals: .drawn))
        }
        let r = HTTPResponse.json(NearRequest(x: value))
        #expect(r.status == 500)
        let message = try #require(try JSONValue.decode(r.body)["error"]?.stringValue)
        #expect(message.hasPrefix("could not encode the response"))
    }

    struct NearRequest: Encodable { let x: Double }

    /// The coordinate lists written straight into the buffer are the same JSON as through any other encoder.
    @Test func coordinateListsAreTheSameThroughAnyEncoder() throws {
        let polygon = Polygon(shell: [Coordinate(x: 0.004, y: 1.005), Coordinate(x: 10.126, y: -2.5), Coordinate(x: 3, y: 7)],
                              spatialReference: .webMercator)
        let json = PolygonJSON(polygon, .drawn)
        let direct = try ViewerJSON.encode(json)
        #expect(try JSONValue.decode(direct) == JSONValue.decode(JSONEncoder().encode(json)))
        let text = String(decoding: direct, as: UTF8.self)
        #expect(text.hasPrefix(#"{"parts":[{"shell":[["#) && text.contains("[0,1]") && text.contains("[10.13,-2.5]"), "\(text)")
    }
}
