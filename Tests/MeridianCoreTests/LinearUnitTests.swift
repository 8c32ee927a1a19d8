import Foundation
import Testing

@testable import MeridianCore

@Suite("Linear units")
struct LinearUnitTests {
    /// The US survey foot is defined as 1200/3937 m (US Federal Register, 1959); the international foot as 0.3048 m
    /// and the international mile as 1609.344 m (1959 international yard and pound agreement).
    @Test func exactDefinitions() {
        #expect(LinearUnit.usSurveyFeet.metersPerUnit == 1200.0 / 3937.0)
        #expect(LinearUnit.feet.metersPerUnit == 0.3048)
        #expect(LinearUnit.miles.metersPerUnit == 1609.344)
        #expect(LinearUnit.nauticalMiles.metersPerUnit == 1852)
    }

    /// One international mile in US survey feet is 1609.344 × 3937/1200 = 6335987.328/1200 = 5279.98944 exactly
    /// (decimal; the US survey foot is 2 ppm longer than the international foot); allow 2 ulp of floating-point
    /// rounding. (Foundation on Linux defines a mile as 1609.34 m, which would give 5279.97632…, 0.013 ft short.)
    @Test func milesInUSSurveyFeet() {
        let feet = LinearUnit.miles.convert(1, to: .usSurveyFeet)
        #expect(abs(feet - 5279.98944) <= 2 * 5279.98944.ulp)
        let hundred = LinearUnit.miles.convert(100, to: .usSurveyFeet)
        #expect(abs(hundred - 527_998.944) <= 2 * 527_998.944.ulp)
        #expect(LinearUnit.miles.convert(3, to: .meters) == 3 * 1609.344)
        #expect(LinearUnit.meters.convert(1200, to: .usSurveyFeet) == 3937)
    }

    /// The two feet differ by 2 ppm: 0.6096 m over 300 international miles.
    @Test func surveyFootIsTwoPPMLonger() {
        let ratio = LinearUnit.usSurveyFeet.metersPerUnit / LinearUnit.feet.metersPerUnit
        #expect(abs(ratio - 1 - 2e-6) < 1e-9)
    }

    @Test(arguments: [("m", 1.0), ("km", 1000.0), ("ft", 0.3048), ("us-ft", 1200.0 / 3937), ("mi", 1609.344),
                      ("nmi", 1852.0), ("MI", 1609.344)] as [(String, Double)])
    func symbols(symbol: String, meters: Double) throws {
        let unit = try #require(LinearUnit(symbol: symbol))
        #expect(unit.metersPerUnit == meters)
    }

    @Test func unknownSymbolIsNil() {
        #expect(LinearUnit(symbol: "furlong") == nil)
        #expect(LinearUnit(symbol: "") == nil)
    }
}
