import Foundation
import Testing

@testable import MeridianEngine
import MeridianCore

/// `WorkBudget`: geodesic buffers stop at the first check after the deadline or a cancellation, and run untouched
/// outside a budget.
@Suite struct WorkBudgetTests {
    static let points = (0..<50).map { Point(x: -100 + Double($0) * 0.1, y: 35, spatialReference: .wgs84) }

    @Test func anExpiredBudgetInterruptsAGeodesicUnion() throws {
        let budget = WorkBudget(seconds: 0)
        #expect(throws: EngineError.interrupted("the work took longer than its budget of 0.0 s")) {
            try budget.run {
                try GeometryEngine.geodeticBuffer(around: Self.points, distances: [50], distanceUnit: .miles, shouldUnion: true)
            }
        }
    }

    @Test func aCancelledBudgetInterruptsPerGeometryBuffers() throws {
        let budget = WorkBudget(seconds: 60, isCancelled: { true })
        #expect(throws: EngineError.interrupted("the work was cancelled")) {
            try budget.run {
                try GeometryEngine.geodeticBuffer(around: Self.points, distances: [50], distanceUnit: .miles, shouldUnion: false)
            }
        }
    }

    @Test func aGenerousBudgetAndNoBudgetGiveTheSameResult() throws {
        let free = try GeometryEngine.geodeticBuffer(around: Self.points, distances: [50], distanceUnit: .miles, shouldUnion: true)
        let budgeted = try WorkBudget(seconds: 600).run {
            try GeometryEngine.geodeticBuffer(around: Self.points, distances: [50], distanceUnit: .miles, shouldUnion: true)
        }
        #expect(free == budgeted)
        #expect(WorkBudget.current == nil)
    }
}
