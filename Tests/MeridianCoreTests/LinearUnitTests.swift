import Foundation
import Testing

@testable import MeridianCore

/// Unit factors against their legal definitions (exact rational values, so equality is exact to the double).
@Suite struct LinearUnitTests {
    @Test func surveyFootIsTheLegalDefinitionNotTheInternationalFoot() {
        // US survey foot: 1200/3937 m (Mendenhall Order, 1893); international foot: 0.3048 m (1959 agreement).
        #expect(LinearUnit.usSurveyFeet.metersPerUnit == 1200.0 / 3937.0)
        #expect(LinearUnit.feet.metersPerUnit == 0.3048)
        // The two differ by 2 ppm: 0.6096 m over 300 international miles (482,803.2 m).
        let ratio = LinearUnit.usSurveyFeet.metersPerUnit / LinearUnit.feet.metersPerUnit
        #expect(abs(ratio - 1 - 2e-6) < 1e-9)
    }

    @Test func conversionsMatchDefinitions() {
        // 1 international mile = 5280 international feet = 1609.344 m exactly.
        #expect(abs(LinearUnit.miles.convert(1, to: .feet) - 5280) < 1e-9)
        // In US survey feet: 1609.344 / (1200/3937) = 5279.98944 (exact decimal: 1609.344 * 3937 / 1200).
        #expect(abs(LinearUnit.miles.convert(1, to: .usSurveyFeet) - 1609.344 * 3937 / 1200) < 1e-9)
        #expect(LinearUnit.nauticalMiles.convert(1, to: .meters) == 1852)
        #expect(LinearUnit.kilometers.convert(2.5, to: .meters) == 2500)
    }

    @Test(arguments: [("m", 1.0), ("km", 1000), ("ft", 0.3048), ("us-ft", 1200.0 / 3937), ("mi", 1609.344),
                      ("nmi", 1852), ("MI", 1609.344)])
    func symbols(symbol: String, meters: Double) throws {
        let unit = try #require(LinearUnit(symbol: symbol))
        #expect(unit.metersPerUnit == meters)
    }

    @Test func unknownSymbolIsNil() {
        #expect(LinearUnit(symbol: "furlong") == nil)
        #expect(LinearUnit(symbol: "") == nil)
    }

    @Test func foundationMeasurementsConvert() {
        let tenMiles = Measurement(value: 10, unit: UnitLength.miles)
        #expect(abs(LinearUnit.meters.value(of: tenMiles) - 16_093.44) < 1e-9)
        #expect(abs(LinearUnit.usSurveyFeet.value(of: tenMiles) - 16_093.44 * 3937 / 1200) < 1e-7)
    }
}
