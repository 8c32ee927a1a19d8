import Foundation
import Testing

@testable import MeridianCLI

/// `meridian op`'s operations are each one declaration registered in `Operation.all`: every one registered is in
/// `op --help` with its summary and runs, and every one this suite knows is registered.
@Suite struct OperationRegistryTests {
    /// A square, a line through it and a point: the input of every operation here.
    static let square = "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))\n"
    static let line = "LINESTRING (0 0, 2 0)\n"
    static let point = "POINT (10 50)\n"

    /// Each operation with an input and the arguments that run it (its required options).
    static let runs: [String: (input: String, arguments: [String])] = [
        "convex-hull": (square, []), "boundary": (square, []), "label-point": (square, []), "simplify": (square, []),
        "densify": (square, ["--max-segment-length", "1"]), "generalize": (square, ["--max-deviation", "0.1"]),
        "offset": (square, ["--distance", "1"]), "clip": (square, ["--envelope", "1,1,3,3"]),
        "ellipse": (point, ["--semi-axis-1", "1000", "--semi-axis-2", "500"]),
        "sector": (point, ["--semi-axis-1", "1000", "--semi-axis-2", "500", "--sector-angle", "90"]),
        "intersection": (square, ["--with", "POLYGON ((2 2, 6 2, 6 6, 2 6, 2 2))"]),
        "union": (square, ["--with", "POLYGON ((2 2, 6 2, 6 6, 2 6, 2 2))"]),
        "difference": (square, ["--with", "POLYGON ((2 2, 6 2, 6 6, 2 6, 2 2))"]),
        "symmetric-difference": (square, ["--with", "POLYGON ((2 2, 6 2, 6 6, 2 6, 2 2))"]),
        "cut": (square, ["--with", "LINESTRING (2 -1, 2 5)"]),
        "extend": (line, ["--with", "LINESTRING (5 -1, 5 1)"]),
        "reshape": (square, ["--with", "LINESTRING (4 1, 6 2, 4 3)"]),
        "auto-complete": (square, ["--with", "LINESTRING (4 0, 6 2, 4 4)"]),
        "contains": (square, ["--with", "POINT (1 1)"]), "within": (square, ["--with", "POINT (1 1)"]),
        "intersects": (square, ["--with", "POINT (1 1)"]), "disjoint": (square, ["--with", "POINT (1 1)"]),
        "touches": (square, ["--with", "POINT (1 1)"]), "crosses": (square, ["--with", "POINT (1 1)"]),
        "overlaps": (square, ["--with", "POINT (1 1)"]), "equals": (square, ["--with", "POINT (1 1)"]),
        "relate": (square, ["--with", "POINT (1 1)", "--pattern", "T*****FF*"]), "is-simple": (square, []),
    ]

    @Test func everyRegisteredOperationIsInHelpWithItsSummary() {
        let help = runCommand(["op", "--help"])
        #expect(help.status == 0)
        #expect(Set(Operation.all.map { $0.rawValue }).count == Operation.all.count, "a name registered twice")
        for operation in Operation.all {
            #expect(Operation(rawValue: operation.rawValue) == operation)
            let words = operation.summary.split(separator: " ").prefix(6).joined(separator: " ")
            #expect(help.stdout.contains(operation.rawValue) && help.stdout.contains(words), "\(operation.rawValue)")
        }
    }

    @Test func everyRegisteredOperationIsOneThisSuiteRuns() {
        #expect(Set(Operation.all.map { $0.rawValue }) == Set(Self.runs.keys))
    }

    @Test(arguments: Self.runs.keys.sorted())
    func everyOperationRuns(_ name: String) throws {
        let run = try #require(Self.runs[name])
        let r = runCommand(["op", name, "-"] + run.arguments, stdin: run.input)
        #expect(r.status == 0, "\(name): \(r.stderr)")
        #expect(!r.stdout.isEmpty, "\(name)")
        let predicate = try #require(Operation(rawValue: name), "\(name) is not registered").isPredicate
        #expect(predicate == ["true\n", "false\n"].contains(r.stdout), "\(name): \(r.stdout)")
    }
}
