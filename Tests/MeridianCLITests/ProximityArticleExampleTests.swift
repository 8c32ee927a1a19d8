import Foundation
import Meridian
import Testing

/// The Swift example of the MeridianEngine article "Proximity analysis" (Sources/MeridianEngine/MeridianEngine.docc/
/// ProximityAnalysis.md), compiled and run here; `articleExampleIsThisCode` keeps the two identical, as
/// `ReadmeExampleTests` does for the README.
@Suite struct ProximityArticleExampleTests {
    // swift-format-ignore
    // ARTICLE-BEGIN
    func proximityExample() throws -> (pairs: [NearPair], breaches: [NearPair], nearest: [NearPair], geodesic: [NearPair]) {
        // Two turbines and four premises, as longitude/latitude (WGS 84) near Fort Worth, Texas.
        let turbines = [Point(latitude: 32.9000, longitude: -97.4000), Point(latitude: 32.9500, longitude: -97.3000)]
        let premises = [Point(latitude: 32.9130, longitude: -97.4000),   // 1.44 km north of turbine 0
                        Point(latitude: 32.9000, longitude: -97.37865),  // 1.997 km east of turbine 0
                        Point(latitude: 33.0000, longitude: -97.4000),   // 11 km away from both
                        Point(latitude: 32.9440, longitude: -97.3050)]   // 0.80 km from turbine 1

        // Planar: in NAD27 / Texas North Central (EPSG:32038), whose unit is the US survey foot.
        let texas = try SpatialReference(wkid: 32038)
        let t = try turbines.map { try GeometryEngine.project($0, into: texas).geometry }
        let p = try premises.map { try GeometryEngine.project($0, into: texas).geometry }

        // Which premises lie within 2 km of a turbine? 2 km = 6561.67 US survey feet (the spatial reference's unit).
        let pairs = try GeometryEngine.nearPairs(from: p, to: t, distances: [6561.67])
        // premise 0 – turbine 0: 4729.48 ftUS, premise 1 – turbine 0: 6552.53 ftUS, premise 3 – turbine 1: 2667.80 ftUS
        print(pairs.map { "premise \($0.leftIndex) – turbine \($0.rightIndex): \($0.distance) ftUS" })
        // Which turbines are in breach? The same search from the turbines' side, in kilometres this time.
        let breaches = try GeometryEngine.nearPairs(from: t, to: p, distances: [2], distanceUnit: .kilometers)
        print(Set(breaches.map { $0.leftIndex }).sorted())   // [0, 1]
        // The nearest premise of each turbine and its distance, in metres.
        let nearest = try GeometryEngine.nearest(from: t, to: p, count: 1, distanceUnit: .meters)
        // turbine 0: premise 0 at 1441.55 m, turbine 1: premise 3 at 813.15 m
        print(nearest.map { "turbine \($0.leftIndex): premise \($0.rightIndex) at \($0.distance) m" })

        // Geodesic: on the WGS 84 ellipsoid, straight from longitude/latitude, in metres; one distance per turbine.
        let geodesic = try GeometryEngine.geodeticNearPairs(from: turbines, to: premises, distances: [2000, 500])
        // turbine 0 – premise 0: 1441.74 m, turbine 0 – premise 1: 1997.47 m (premise 3 is beyond turbine 1's 500 m)
        print(geodesic.map { "turbine \($0.leftIndex) – premise \($0.rightIndex): \($0.distance) m" })
        // ARTICLE-END
        return (pairs, breaches, nearest, geodesic)
    }

    @Test func articleExampleRunsAndAnswersTheQuestions() throws {
        let (pairs, breaches, nearest, geodesic) = try proximityExample()
        // GeographicLib (Python, WGS 84): turbine 0 to premises 0 and 1, turbine 1 to premise 3.
        let reference = [1441.7363321143464, 1997.4738675172455, 813.2550510828944]
        #expect(pairs.map { [$0.leftIndex, $0.rightIndex] } == [[0, 0], [1, 0], [3, 1]])
        #expect(Set(breaches.map { $0.leftIndex }) == [0, 1])
        #expect(nearest.map { [$0.leftIndex, $0.rightIndex] } == [[0, 0], [1, 3]])
        #expect(geodesic.map { [$0.leftIndex, $0.rightIndex] } == [[0, 0], [0, 1]])
        #expect(zip(geodesic, reference).allSatisfy { abs($0.distance - $1) <= 1e-6 })
        // Planar distances in US survey feet: the ground distance times the projection's scale (1 − 1.3e-4 here).
        let usFoot = 1200.0 / 3937
        for (pair, ground) in zip(pairs, [reference[0], reference[1], reference[2]]) {
            let scale = pair.distance * usFoot / ground
            #expect(abs(scale - (1 - 1.3e-4)) < 0.2e-4, "\(pair): scale \(scale)")
        }
        #expect(abs(nearest[0].distance - pairs[0].distance * usFoot) <= 1e-6)
    }

    @Test func articleExampleIsThisCode() throws {
        let article = try String(contentsOf: packageRoot.appendingPathComponent(
            "Sources/MeridianEngine/MeridianEngine.docc/ProximityAnalysis.md"), encoding: .utf8)
        let block = try #require(article.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let articleLines = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let body = try #require(source.components(separatedBy: "// ARTICLE-BEGIN\n").dropFirst().first?
            .components(separatedBy: "// ARTICLE-END").first)
        let testLines = body.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        #expect(articleLines == testLines)
    }
}
