import CPROJ
import Foundation
import Testing

import MeridianCore
@testable import MeridianEngine

/// `BareInverse`: the projection step alone is used exactly where PROJ's operation is "inverse projection, radians
/// to degrees", gives the whole operation's doubles bit for bit (and its failures), and the run-time comparison
/// refuses a projection step that differs.
@Suite struct BareInverseTests {
    static let aea = "+proj=aea +lat_0=23 +lon_0=-96 +lat_1=29.5 +lat_2=45.5 +x_0=0 +y_0=0 +ellps=GRS80"

    @Test func projectionStepOfTheExactPipelineOnly() {
        let unit = " +step +proj=unitconvert +xy_in=rad +xy_out=deg"
        #expect(BareInverse.projectionStep(of: "+proj=pipeline +step +inv " + Self.aea + unit) == Self.aea)
        #expect(BareInverse.projectionStep(of: "+proj=pipeline +step +inv +proj=utm +zone=14 +ellps=WGS84" + unit)
            == "+proj=utm +zone=14 +ellps=WGS84")
        // Anything else: a unit conversion first (feet), a step after, the forward direction, flags, no step.
        for other in [
            "+proj=pipeline +step +proj=unitconvert +xy_in=us-ft +xy_out=m +step +inv " + Self.aea + unit,
            "+proj=pipeline +step +inv " + Self.aea + unit + " +step +proj=axisswap +order=2,1",
            "+proj=pipeline +step " + Self.aea + unit,
            "+proj=pipeline +step +inv " + Self.aea + " +omit_inv" + unit,
            "+proj=pipeline +step +inv " + Self.aea + " +step +proj=helmert +x=1" + unit,
            "+proj=pipeline +step +inv " + Self.aea + " +step +proj=unitconvert +xy_in=rad +xy_out=grad",
            "+proj=pipeline +step +inv" + unit,
            Self.aea,
        ] {
            #expect(BareInverse.projectionStep(of: other) == nil, "\(other)")
        }
    }

    @Test(arguments: [("EPSG:5070", true), ("EPSG:32614", true), ("EPSG:3857", true), ("ESRI:102003", true),
                      ("EPSG:32038", false), ("EPSG:2277", false)])
    func usedWhereTheOperationIsAnInverseProjection(code: String, used: Bool) throws {
        let t = try Transformation(from: SpatialReference(code: code), to: .wgs84)
        #expect(t.runsBareInverse == used)
        // Never into a projected spatial reference.
        let back = try Transformation(from: .wgs84, to: SpatialReference(code: code))
        #expect(!back.runsBareInverse)
    }

    /// Random points over the area of use and beyond it (where PROJ fails for some, e.g. Web Mercator's poles are
    /// not reached, the Albers cone's far side), transformed both ways: the same doubles, the same failures.
    @Test(arguments: ["EPSG:5070", "EPSG:32614", "EPSG:3857", "ESRI:102003"])
    func sameDoublesAsTheWholeOperation(code: String) throws {
        let sr = try SpatialReference(code: code)
        let fast = try Transformation(from: sr, to: .wgs84)
        let whole = try Transformation(from: sr, to: .wgs84, simplified: false)
        #expect(fast.runsBareInverse && !whole.runsBareInverse)
        var inArea = BulkProjectionTests.coordinates(5000, lon: -120...(-70), lat: 20...50)
        _ = try Transformation(from: .wgs84, to: sr).transform(&inArea, reportsOperation: false)
        var a = inArea, b = inArea
        _ = try fast.transform(&a, reportsOperation: false)
        _ = try whole.transform(&b, reportsOperation: false)
        #expect(a.count == b.count)
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(a.count) coordinates differ")
        #expect(a.allSatisfy { (-180...180).contains($0.x) && (-90...90).contains($0.y) })  // degrees
        // Far outside: whatever PROJ does (values or a failure), both ways do the same.
        let far = BulkProjectionTests.coordinates(2000, lon: -4e7...4e7, lat: -4e7...4e7)
        for c in far {
            var p = [c], q = [c]
            let r1 = Result { () throws(EngineError) in try fast.transform(&p, reportsOperation: false) }
            let r2 = Result { () throws(EngineError) in try whole.transform(&q, reportsOperation: false) }
            switch (r1, r2) {
            case (.success, .success): #expect(p == q)
            case (.failure, .failure): break
            default: Issue.record("\(code): \(c) transformed one way and failed the other")
            }
        }
        // The operation is still reported by name.
        var one = [inArea[0]]
        let op = try fast.transform(&one)
        #expect(op?.name.contains("Inverse of") == true)
    }

    @Test func comparisonRefusesAProjectionStepThatDiffers() throws {
        let context = PROJContext()
        let whole = try #require(proj_normalize_for_visualization(
            context.handle, try #require(proj_create_crs_to_crs(context.handle, "EPSG:5070", "EPSG:4326", nil))))
        let operation = PROJObject(whole, context: context)
        let sr = try SpatialReference(code: "EPSG:5070")
        let (x, y) = BareInverse.samplePoints(in: try #require(sr.areaOfUse), through: operation)
        #expect(x.count == BareInverse.sampleCount * BareInverse.sampleCount)
        let right = PROJObject(try #require(proj_create(context.handle, Self.aea)), context: context)
        #expect(BareInverse.agrees(right, with: operation, atX: x, y: y))
        // A central meridian 1e-10° off moves every longitude by 1e-10°, a hundred times the tolerance.
        let shifted = Self.aea.replacingOccurrences(of: "+lon_0=-96", with: "+lon_0=-96.0000000001")
        let wrong = PROJObject(try #require(proj_create(context.handle, shifted)), context: context)
        #expect(!BareInverse.agrees(wrong, with: operation, atX: x, y: y))
        let otherEllipsoid = PROJObject(
            try #require(proj_create(context.handle, Self.aea.replacingOccurrences(of: "GRS80", with: "clrk66"))),
            context: context)
        #expect(!BareInverse.agrees(otherEllipsoid, with: operation, atX: x, y: y))
    }
}
