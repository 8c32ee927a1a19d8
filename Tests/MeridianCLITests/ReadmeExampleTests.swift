import Foundation
import Meridian
import Testing

/// The README's Swift example, compiled and run here. `readmeExampleIsThisCode` keeps the two identical.
@Suite struct ReadmeExampleTests {
    // The trailing comments are aligned like the README's (swift-format would collapse them).
    // swift-format-ignore
    // README-BEGIN
    func readmeExample() throws -> (Polygon, Double) {
        // The seed's spatial reference: NAD27 / Texas North Central, in US survey feet.
        let texas = try SpatialReference(wkid: 32038)
        print(texas.name, texas.unit!.metersPerUnit)           // NAD27 / Texas North Central 0.3048006096012192

        // Project a WGS84 point into it; PROJ reports the operation it ran and its accuracy.
        let dallas = Point(latitude: 32.7767, longitude: -96.797)
        let projected = try GeometryEngine.projectReportingOperations(dallas, into: texas)
        print(projected.operations.first!.accuracy!)            // 7.0 (metres: NAD27→WGS84 Helmert, no NADCON grid)

        // Refuse taps where the projection is unreliable: its horizon, the area of use widened by 5° (Meridian's one
        // rule, the CLI's and the viewer's; GeometryEngine.areaOfUsePolygon(of:) draws the area itself).
        let inside = try GeometryEngine.isGeometry(projected.geometry, withinHorizonOf: texas)
        print(inside)                                           // true

        // Buffer by 10 miles (one polygon per point, or unioned).
        let fortWorth = try GeometryEngine.project(Point(latitude: 32.7555, longitude: -97.3308), into: texas)
        let buffers = try GeometryEngine.buffer(
            around: [projected.geometry, fortWorth.geometry],
            distances: [10, 20], distanceUnit: .miles, shouldUnion: true)
        print(buffers.count, try GeometryEngine.area(of: buffers[0]) / 27_878_400)   // 1 polygon, area in square miles

        // A geodesic buffer on the ellipsoid, across the antimeridian: split into two parts (RFC 7946).
        let fiji = Point(latitude: -17.7, longitude: 179.9)
        let circle = try GeometryEngine.geodeticBuffer(around: fiji, distance: 100_000, outputSpatialReference: .wgs84)
        print(circle.parts.count)                               // 2

        // A geodesic sector (ArcGIS's names): 90° clockwise from the 50 km axis of a 50 × 20 km ellipse around Dallas.
        let sector = try GeometryEngine.geodesicSector(parameters: GeodesicSectorParameters<Polygon>(
            center: dallas, maxSegmentLength: 1_000, sectorAngle: 90, semiAxis1Length: 50_000, semiAxis2Length: 20_000))
        print(sector.parts.count)                               // 1

        // Planar operations under ArcGIS's names (GEOS underneath), also on plain coordinates without a spatial reference.
        let hull = try GeometryEngine.convexHull(for: buffers[0])
        print(try GeometryEngine.isGeometry(projected.geometry, within: hull))   // true
        let drawing = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 4, y: 0), Coordinate(x: 0, y: 3)],
                              spatialReference: .unspecified)   // CAD or local coordinates
        print(try GeometryEngine.area(of: drawing))                 // 6.0

        // Editing and linear referencing: cut a square by a line (left piece first, as in ArcGIS), find a point 5 along a line.
        let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 2, y: 0), Coordinate(x: 2, y: 2), Coordinate(x: 0, y: 2)],
                             spatialReference: .unspecified)
        let cutter = Polyline(parts: [[Coordinate(x: 1, y: -1), Coordinate(x: 1, y: 3)]], spatialReference: .unspecified)
        let halves = try GeometryEngine.cut(square, usingCutter: cutter)
        print(try halves.map { try GeometryEngine.area(of: $0) })   // [2.0, 2.0]
        let walk = Polyline(parts: [[Coordinate(x: 0, y: 0), Coordinate(x: 3, y: 0), Coordinate(x: 3, y: 4)]],
                            spatialReference: .unspecified)
        print(try GeometryEngine.point(along: walk, distance: 5)!.y)   // 2.0

        // Choose a datum transformation among those PROJ knows (here a Helmert shift, 10 m accuracy).
        let nad27 = try SpatialReference(wkid: 4267)
        let helmert = try GeometryEngine.transformations(from: nad27, to: .wgs84).first { $0.name == "NAD27 to WGS 84 (4)" }!
        let shifted = try GeometryEngine.project(Point(x: -96.797, y: 32.7767, spatialReference: nad27), into: .wgs84,
                                                 datumTransformation: helmert)
        print(shifted.coordinates[0].y)                          // 32.7768550…

        // A KML document with a styled placemark, saved as KMZ and read back.
        var document = KMLDocument(name: "Sketch")
        let style = KMLStyle(polygonStyle: KMLPolygonStyle(fillColor: .yellow, isFilled: true, isOutlined: false))
        document.addChildNode(KMLPlacemark(geometry: try KMLGeometry(geometry: buffers[0]), name: "Buffers", style: style))
        let kmz = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-readme.kmz")
        try document.save(to: kmz, overwrite: true)
        print(try KMLDataset(url: kmz).document.allPlacemarks.count)   // 1
        // README-END
        #expect(inside)
        #expect(circle.parts.count == 2)
        #expect(sector.parts.count == 1)
        #expect(try halves.map { try GeometryEngine.area(of: $0) } == [2, 2])
        #expect(try GeometryEngine.point(along: walk, distance: 5)?.coordinate == Coordinate(x: 3, y: 2))
        // NAD27 to WGS 84 (4): dx = -8, dy = 160, dz = 176 m on Clarke 1866 moves Dallas about 17 m north.
        #expect(abs((shifted.coordinates[0].y - 32.7767) * 110_900 - 17.5) < 2)
        #expect(try KMLDataset(url: kmz).document.allPlacemarks.count == 1)
        return (buffers[0], try GeometryEngine.area(of: buffers[0]) / 27_878_400)
    }

    @Test func readmeExampleRunsAndIsPlausible() throws {
        let (polygon, squareMiles) = try readmeExample()
        // Dallas–Fort Worth is 31 mi: the 10 mi and 20 mi circles are disjoint, so the union has two parts whose
        // area is π(10² + 20²) mi² less the chord deficit of 64-gons (sin(2π/64)·32/π = 0.99839).
        // Square miles here are US survey miles² (27,878,400 US ft²); the radii are international miles
        // (1609.344 m vs 6336/3937 km). Shoelace and PROJ rounding keep ~1e-12 relative; allow 1e-9.
        #expect(polygon.parts.count == 2)
        let mileRatio = 1609.344 / (6_336_000.0 / 3937)
        let expected = 32 * sin(2 * Double.pi / 64) * 500 * mileRatio * mileRatio
        #expect(abs(squareMiles - expected) / expected < 1e-9)
    }

    @Test func readmeExampleIsThisCode() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let readmeLines = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let body = try #require(source.components(separatedBy: "// README-BEGIN\n").dropFirst().first?
            .components(separatedBy: "// README-END").first)
        let testLines = body.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        #expect(readmeLines == testLines)
    }
}
