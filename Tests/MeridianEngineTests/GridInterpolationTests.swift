import Foundation
import Testing

import MeridianCore
@testable import MeridianEngine

/// The measurement behind leaving grid shifts to PROJ (`SmoothOperation`): can `InterpolatedProjection`'s degree-5
/// tile interpolant (`TileModel`) meet its bound of 1e-11° on an NTv2 grid shift? PROJ interpolates a grid bilinearly
/// between its nodes, so the shift is a polynomial inside each cell but bends at every cell edge.
///
/// Measured on DHDN → ETRS89 (BETA2007.gsb from proj-data: nodes every 10′ of longitude and 6′ of latitude), over
/// 9°–10°E, 50°–51°N, each tile's interpolant through PROJ's values at its Chebyshev points compared with PROJ at 21 × 21
/// points of the tile (2026-12-01, PROJ 9.1.1): inside one cell (2′ tiles aligned on the cells) it is exact to rounding
/// (2.1e-14°); tiles across cell edges are off by 8.5e-9° (3′) and 1.4e-7° (15′), thousands of times the bound; from a
/// projected source (DHDN / 3-degree Gauss-Krüger zone 3) even 1 km tiles, the smallest `InterpolatedProjection`
/// makes, are off by up to 2.9e-11° where they cross a cell edge (a curve in its plane); 90 of 100 pass the 5 × 5
/// checks, and every tile that missed the bound also failed its checks here. So interpolating a grid shift would mean
/// cutting every tile five times (some 80,000 PROJ calls per 32 km tile) to interpolate most of its square
/// kilometres, on checks that sample a function that bends instead of a smooth one; exact only on tiles aligned
/// with the grid's cells in the grid's own longitude/latitude (geographic sources on the grid's datum, forward only:
/// PROJ's inverse of a grid shift iterates). Decided: grid shifts stay with PROJ.
@Suite struct GridInterpolationTests {
    /// The largest difference between the tile interpolants and PROJ, over the tiles of side `side` (source units)
    /// whose indices are in `tiles`, at 21 × 21 points of each; how many tiles pass `InterpolatedProjection`'s 5 × 5
    /// checks (within 1e-11°), and how many of those miss the bound elsewhere.
    static func worst(_ t: Transformation, side: Double, tiles i: ClosedRange<Int>, _ j: ClosedRange<Int>) throws
        -> (worst: Double, passing: Int, passingButWrong: Int)
    {
        let nodes = (0...5).map { cos(Double.pi * (Double($0) + 0.5) / 6) }
        let grid = (0...20).map { -1 + 2 * Double($0) / 20 }
        var worst = 0.0, passing = 0, passingButWrong = 0
        for a in i {
            for b in j {
                var tileWorst = 0.0, checksWorst = 0.0
                let xc = (Double(a) + 0.5) * side, yc = (Double(b) + 0.5) * side, half = side / 2
                var values = nodes.flatMap { u in nodes.map { v in Coordinate(x: xc + u * half, y: yc + v * half) } }
                _ = try t.transform(&values, reportsOperation: false)
                let model = TileModel(level: 0, i: a, j: b, side: side, values: values[...])
                let points = grid.flatMap { u in grid.map { v in Coordinate(x: xc + u * half, y: yc + v * half) } }
                var exact = points
                _ = try t.transform(&exact, reportsOperation: false)
                for (k, (p, e)) in zip(points, exact).enumerated() {
                    let m = model.evaluate(p.x, p.y)
                    let d = max(abs(m.x - e.x), abs(m.y - e.y))
                    tileWorst = max(tileWorst, d)
                    if (k / 21) % 5 == 0 && (k % 21) % 5 == 0 { checksWorst = max(checksWorst, d) }  // the 5 × 5 checks
                }
                worst = max(worst, tileWorst)
                let bound = InterpolatedProjection.tolerance
                if checksWorst <= bound { passing += 1 }
                if checksWorst <= bound && tileWorst > bound { passingButWrong += 1 }
            }
        }
        return (worst, passing, passingButWrong)
    }

    @Test func interpolantsOfAGridShift() throws {
        let dhdn = try SpatialReference(code: "EPSG:4314"), etrs = try SpatialReference(code: "EPSG:4258")
        let shift = try Transformation(from: dhdn, to: etrs, simplified: false)
        let name = try #require(try shift.operationChoice()).operationName(atX: 9.5, y: 50.5)
        #expect(name == "DHDN to ETRS89 (8)", "the grid shift by BETA2007 is not the operation PROJ runs here")
        // 2′ tiles aligned on the cells (10′ × 6′ from 5.5°E, 47°N: every cell holds 5 × 3 tiles).
        let inside = try Self.worst(shift, side: 1.0 / 30, tiles: 270...299, 1500...1529)
        // 3′ tiles (the cells' 6′ of latitude hold two, but their 10′ of longitude do not: many tiles straddle an
        // edge), and 15′ tiles (several cells each).
        let straddling = try Self.worst(shift, side: 0.05, tiles: 180...199, 1000...1019)
        let large = try Self.worst(shift, side: 0.25, tiles: 36...39, 200...203)
        let gk = try SpatialReference(code: "EPSG:31467")
        // 1 km tiles of Gauss-Krüger zone 3 (InterpolatedProjection's smallest), around 3,500 km E, 5,600 km N.
        let projected = try Self.worst(Transformation(from: gk, to: etrs, simplified: false), side: 1000,
                                       tiles: 3500...3509, 5600...5609)
        print("BETA2007 grid shift, worst |interpolant − PROJ| (tiles passing the checks but wrong elsewhere): "
              + "2′ tiles inside cells \(inside), 3′ tiles \(straddling), 15′ tiles \(large), "
              + "1 km tiles of EPSG:31467 \(projected)")
        #expect(inside.worst <= InterpolatedProjection.tolerance)
        #expect(straddling.worst > 100 * InterpolatedProjection.tolerance)
        #expect(large.worst > 100 * InterpolatedProjection.tolerance)
        #expect(projected.worst > InterpolatedProjection.tolerance)
    }
}
