import Foundation
import MeridianTestSupport
import Testing

@testable import MeridianCore

/// Output Meridian writes, Meridian reads back: over thousands of generated geometries —
/// degenerate rings and lines, repeated and missing closing vertices, non-finite numbers, heights — the GeoJSON and
/// WKT writers' output is read back exactly when `ReadBack` says it will, so a writer that checks first never
/// emits what its reader refuses.
@Suite struct ReadBackTests {
    /// Random geometries from the suite's deterministic generator (`SplitMix64`, MeridianTestSupport).
    struct Generator {
        private var random: SplitMix64
        init(state: UInt64) { random = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { random.next() }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

        /// A coordinate: usually ordinary, sometimes repeated from `previous`, rarely not finite.
        mutating func coordinate(after previous: Coordinate?, heights: Bool) -> Coordinate {
            if let previous, below(5) == 0 { return previous }
            let specials: [Double] = [.nan, .infinity, -.infinity]
            let x = below(60) == 0 ? specials[below(3)] : Double(below(2001) - 1000) / 10
            let y = Double(below(1801) - 900) / 10
            return Coordinate(x: x, y: y, z: heights ? Double(below(100)) : nil)
        }

        /// 0 to 6 coordinates, sometimes closed.
        mutating func sequence(heights: Bool) -> [Coordinate] {
            var cs: [Coordinate] = []
            for _ in 0..<below(7) { cs.append(coordinate(after: cs.last, heights: heights)) }
            if let first = cs.first, below(2) == 0 { cs.append(first) }
            return cs
        }

        mutating func geometry() -> Geometry {
            let heights = below(4) == 0
            switch below(4) {
            case 0: return .point(Point(coordinate(after: nil, heights: heights), spatialReference: .wgs84))
            case 1: return .multipoint(Multipoint((0..<1 + below(4)).map { _ in coordinate(after: nil, heights: heights) },
                                                  spatialReference: .wgs84))
            case 2: return .polyline(Polyline(parts: (0..<1 + below(3)).map { _ in sequence(heights: heights) },
                                              spatialReference: .wgs84))
            default:
                let parts = (0..<1 + below(2)).map { _ in
                    Polygon.Part(shell: sequence(heights: heights), holes: (0..<below(2)).map { _ in sequence(heights: heights) })
                }
                return .polygon(Polygon(parts: parts, spatialReference: .wgs84))
            }
        }
    }

    @Test func geoJSONReadsBackExactlyWhenTheCheckSaysSo() {
        var generator = Generator(state: 25)
        var (passed, refused) = (0, 0)
        for _ in 0..<20_000 {
            let g = generator.geometry()
            let problem = ReadBack.geoJSONProblem(g)
            let back = Result { () throws(FormatError) in try GeoJSON.decodeFeatures(GeoJSON.encode(g)) }
            switch back {
            case .success: #expect(problem == nil, "\(GeoJSON.encode(g)) read back, but the check said: \(problem ?? "")")
            case .failure(let e): #expect(problem != nil, "\(String(decoding: GeoJSON.encode(g), as: UTF8.self)): \(e)")
            }
            if problem == nil { passed += 1 } else { refused += 1 }
        }
        #expect(passed > 2_000 && refused > 2_000, "the generator covers both: \(passed) pass, \(refused) refused")
    }

    @Test func wktReadsBackExactlyWhenTheCheckSaysSo() {
        var generator = Generator(state: 26)
        var (passed, refused) = (0, 0)
        for _ in 0..<20_000 {
            let g = generator.geometry()
            let problem = ReadBack.wktProblem(g)
            let back = Result { () throws(FormatError) in try WKT.decode(WKT.encode(g), spatialReference: .wgs84) }
            switch back {
            case .success: #expect(problem == nil, "\(WKT.encode(g)) read back, but the check said: \(problem ?? "")")
            case .failure(let e): #expect(problem != nil, "\(WKT.encode(g)): \(e)")
            }
            if problem == nil { passed += 1 } else { refused += 1 }
        }
        #expect(passed > 2_000 && refused > 2_000, "the generator covers both: \(passed) pass, \(refused) refused")
    }

    /// The two cases hostile testing found: a KML ring of three positions (two distinct) and a point at latitude 95.
    @Test func theCasesFoundAreRefusedWithAReason() {
        let ring = [Coordinate(x: -97, y: 32), Coordinate(x: -97.1, y: 32), Coordinate(x: -97, y: 32)]
        let triangle = Geometry.polygon(Polygon(shell: ring, spatialReference: .wgs84))
        #expect(ReadBack.geoJSONProblem(triangle) == "the outer ring has 3 positions once closed; GeoJSON needs at least 4")
        #expect(ReadBack.wktProblem(triangle) == nil)
        #expect(ReadBack.longitudeLatitudeProblem(Coordinate(x: 500, y: 95)) == "latitude 95.0 is outside -90…90")
        #expect(ReadBack.longitudeLatitudeProblem(Coordinate(x: 400, y: 45)) == "longitude 400.0 is outside -180…180")
        #expect(ReadBack.longitudeLatitudeProblem(Coordinate(x: -180, y: -90)) == nil)
        #expect(ReadBack.longitudeLatitudeProblem(Coordinate(x: .nan, y: 0)) != nil)
    }
}
