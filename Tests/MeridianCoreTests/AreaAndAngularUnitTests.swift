import Foundation
import Testing

@testable import MeridianCore

@Suite("Area and angular units")
struct AreaAndAngularUnitTests {
    /// Definitions: the acre is 43,560 square international feet = 4046.8564224 m² exactly (1959 agreement); the
    /// square mile is 640 acres; the hectare 10⁴ m². Products of exact decimal factors, checked to 1 ulp.
    @Test func areaDefinitions() {
        #expect(abs(AreaUnit.acres.squareMetersPerUnit - 43_560 * 0.3048 * 0.3048) <= 4046.8564224.ulp)
        #expect(abs(AreaUnit.squareMiles.convert(1, to: .acres) - 640) <= 640.0.ulp * 2)
        #expect(AreaUnit.squareKilometers.convert(1, to: .hectares) == 100)
        #expect(AreaUnit.squareMeters.convert(5, to: .squareMeters) == 5)
        #expect(AreaUnit(squareOf: .usSurveyFeet).squareMetersPerUnit == (1200.0 / 3937.0) * (1200.0 / 3937.0))
        #expect(AreaUnit.squareUSSurveyFeet.description == "square US survey foot")
    }

    /// A half turn is π rad, 180°, 200 gon.
    @Test func angularDefinitions() {
        #expect(AngularUnit.degrees.convert(180, to: .radians) == Double.pi)
        #expect(AngularUnit.radians.convert(Double.pi, to: .degrees) == 180)
        #expect(abs(AngularUnit.gradians.convert(200, to: .degrees) - 180) <= 180.0.ulp)
        #expect(AngularUnit.degrees.convert(33.5, to: .degrees) == 33.5)
    }
}
