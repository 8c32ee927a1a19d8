import Foundation
import Testing

/// An engine error about one feature of a multi-feature input names that feature by its label (file, feature,
/// line), from the error's location (`EngineError.Location`), not from its message text.
struct EngineErrorLabelTests {
    /// NAD83 / Conus Albers coordinates far outside the projection: (9e7, 9e7) has no image in Web Mercator.
    static let unprojectable = "90000000 90000000"
    static let failure = "(90000000.0, 90000000.0) cannot be transformed from NAD83 / Conus Albers (EPSG:5070) to "
        + "WGS 84 / Pseudo-Mercator (EPSG:3857)"

    /// Three WKT features projected in one call for a planar buffer: the third one's third vertex cannot be
    /// projected, and the message names feature 2 (line 3) and the vertex's index in it.
    @Test func aFailingVertexNamesItsFeature() {
        let wkt = "POINT (0 1500000)\nLINESTRING (0 1500000, 1000 1500000)\n"
            + "LINESTRING (0 1500000, 10 1500000, \(Self.unprojectable), 5 5)\n"
        let r = runCommand(["buffer", "-", "--in-srs", "EPSG:5070", "--srs", "EPSG:3857", "--distance", "1km",
                            "--allow-outside-area"], stdin: wkt)
        #expect(r.status == 1)
        #expect(r.stderr == "meridian buffer: stdin: feature 2 (line 3): projection failed: vertex 2 \(Self.failure)\n")
        #expect(r.stdout.isEmpty)
    }

    /// CSV rows buffered into one union are projected as one coordinate array: the failing vertex is the row,
    /// named by its feature and line.
    @Test func aFailingRowOfAPointUnionNamesItsFeature() {
        let csv = "id,x,y\n0,0,1500000\n1,10,1500000\n2,90000000,90000000\n3,5,1500000\n"
        let r = runCommand(["buffer", "-", "--in-srs", "EPSG:5070", "--srs", "EPSG:3857", "--distance", "1km",
                            "--union", "--allow-outside-area", "-o", "-"], stdin: csv)
        #expect(r.status == 1)
        #expect(r.stderr == "meridian buffer: projection failed: stdin: feature 2 (line 4) \(Self.failure)\n")
    }

    /// `near`'s RIGHT features are projected into --srs in one call: the failing one is named by RIGHT's label.
    @Test func aFailingNearFeatureNamesItsFeature() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let left = folder.appendingPathComponent("left.wkt"), right = folder.appendingPathComponent("right.wkt")
        try Data("POINT (0 1500000)\n".utf8).write(to: left)
        try Data("POINT (0 1500000)\nPOINT (10 1500000)\nLINESTRING (0 1500000, \(Self.unprojectable))\n".utf8)
            .write(to: right)
        let r = runCommand(["near", left.path, right.path, "--in-srs", "EPSG:5070", "--srs", "EPSG:3857",
                            "--distance", "1km", "--allow-outside-area"])
        #expect(r.status == 1)
        #expect(r.stderr == "meridian near: \(right.path): feature 2 (line 3): projection failed: vertex 1 \(Self.failure)\n")
    }
}
