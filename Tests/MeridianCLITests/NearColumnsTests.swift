import Foundation
import Meridian
import Testing

@testable import MeridianCLI

/// The cells of `near`'s CSV output, written straight into the output: numbers exactly as `JSONValue`'s text writes
/// them (the rule `NearColumns.appendNumber` repeats without making that text), text quoted when CSV needs it.
@Suite struct NearColumnsTests {
    private func cell(_ value: JSONValue?) -> String {
        var out = ByteBuffer()
        NearColumns.appendCell(value, to: &out)
        return out.string
    }

    @Test func numbersAreWrittenAsJSONWritesThem() {
        let numbers: [Double] = [
            0, -0.0, 1, -3, 42, 123.5, 0.1, 1e-7, 2.5e-5, 6561.666666666667, 9_007_199_254_740_992,
            9_999_999_999_999_998, 1e16, -1e16, 1.5e16, 1.7976931348623157e308, .leastNonzeroMagnitude, -2.2250738585072014e-308,
            .nan, .infinity, -.infinity,
        ]
        for d in numbers {
            #expect(cell(.number(d)) == JSONValue.number(d).description, "\(d)")
        }
        #expect(cell(.number(-0.0)) == "0")
        #expect(cell(.number(3)) == "3")
        #expect(cell(.number(1e16)) == "1e+16")
    }

    @Test func otherValuesAreTextQuotedWhenCSVNeedsIt() {
        #expect(cell(nil) == "")
        #expect(cell(.null) == "")
        #expect(cell(.string("plain")) == "plain")
        #expect(cell(.string("a, \"b\"")) == "\"a, \"\"b\"\"\"")
        #expect(cell(.bool(true)) == "true")
        #expect(cell(.array([1, 2])) == "\"[1,2]\"")
    }
}
