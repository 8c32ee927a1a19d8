import MeridianCore
import Testing

@testable import MeridianEngine

/// Errors that concern one item of an operation's input carry its location (`EngineError.Location`), so callers name
/// the item their own way (`description(naming:)`) without reading the message; the description without names keeps
/// the engine's wording ("geometry 1: …", "vertex 2 (…) cannot be …").
struct EngineErrorLocationTests {
    /// NAD83 / Texas North Central (US feet): a projected spatial reference for planar buffers.
    static let texas = try! SpatialReference(wkid: 2276)

    static func point(_ x: Double, _ y: Double) -> Geometry { .point(Point(x: x, y: y, spatialReference: texas)) }

    /// The error `body` throws (nil when it throws none or another type).
    static func error(_ body: () throws -> Void) -> EngineError? {
        do { try body() } catch { return error as? EngineError }
        return nil
    }

    /// A planar buffer's distance refused for the second geometry: located at geometry 1, named by position in the
    /// description and by the caller's name in `description(naming:)`.
    @Test func planarBufferDistanceNamesItsGeometry() throws {
        let error = try #require(Self.error {
            _ = try GeometryEngine.buffer(around: [Self.point(0, 0), Self.point(300, 200), Self.point(9, 9)],
                                          distances: [1, 5e-7, 1], shouldUnion: false)
        })
        #expect(error.location == EngineError.Location(geometry: 1))
        guard case .invalidDistance = error.unlocated else { Issue.record("\(error)"); return }
        let why = "|5e-07| (1.52e-07 m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"
        #expect(error.description == "invalid distance: geometry 1: \(why)")
        #expect(error.description(naming: { "well \($0.geometry ?? -1)" }) == "invalid distance: well 1: \(why)")
        #expect(error.description(naming: { _ in nil }) == error.description)
    }

    /// A self-intersecting polygon among others: the planar buffer's invalid-geometry refusal is located at it.
    @Test func invalidPolygonNamesItsGeometry() throws {
        let bowtie = Geometry.polygon(Polygon(
            shell: [Coordinate(x: 0, y: 0), Coordinate(x: 10, y: 10), Coordinate(x: 10, y: 0), Coordinate(x: 0, y: 10)],
            spatialReference: Self.texas))
        let error = try #require(Self.error {
            _ = try GeometryEngine.buffer(around: [Self.point(0, 0), Self.point(50, 50), bowtie], distances: [5],
                                          shouldUnion: false)
        })
        #expect(error.location == EngineError.Location(geometry: 2))
        guard case .invalidGeometry = error.unlocated else { Issue.record("\(error)"); return }
        #expect(error.description.hasPrefix("invalid geometry: geometry 2: "))
        #expect(error.description(naming: { _ in "lot 7" }).hasPrefix("invalid geometry: lot 7: "))
    }

    /// The batch projection says which geometry and which of its vertices could not be projected: the second
    /// polyline's second vertex (latitude 91°) into Web Mercator.
    @Test func batchProjectionNamesGeometryAndVertex() throws {
        let good = Polyline([Coordinate(x: -97, y: 32), Coordinate(x: -96, y: 33), Coordinate(x: -95, y: 34)],
                            spatialReference: .wgs84)
        let bad = Polyline([Coordinate(x: 10, y: 45), Coordinate(x: 10, y: 91), Coordinate(x: 11, y: 46)],
                           spatialReference: .wgs84)
        let error = try #require(Self.error {
            _ = try GeometryEngine.project([good.geometry, good.geometry, bad.geometry], into: .webMercator)
        })
        #expect(error.location == EngineError.Location(geometry: 2, vertex: 1))
        let rest = "(10.0, 91.0) cannot be transformed from \(SpatialReference.wgs84) to \(SpatialReference.webMercator)"
        #expect(error.unlocated == .projectionFailed(rest))
        #expect(error.description == "projection failed: geometry 2, vertex 1 \(rest)")
        // A coordinate array: the vertex alone, counted in the array.
        var coordinates = good.geometry.coordinates + bad.geometry.coordinates
        let arrayError = try #require(Self.error {
            try GeometryEngine.project(&coordinates, from: .wgs84, into: .webMercator)
        })
        #expect(arrayError.location == EngineError.Location(vertex: 4))
        #expect(arrayError.description == "projection failed: vertex 4 \(rest)")
    }

    /// A geodesic buffer distance refused for the third geometry (a point needs a positive distance): located at it.
    @Test func geodesicBufferDistanceNamesItsGeometry() throws {
        let points = [Point(latitude: 32.7, longitude: -96.8), Point(latitude: 33, longitude: -97),
                      Point(latitude: 34, longitude: -98)]
        let error = try #require(Self.error {
            _ = try GeometryEngine.geodeticBuffer(around: points, distances: [100, 200, -5], shouldUnion: false)
        })
        #expect(error.location == EngineError.Location(geometry: 2))
        #expect(error.unlocated == .invalidDistance("a point needs a positive distance, got -5.0 m"))
        #expect(error.description == "invalid distance: geometry 2: a point needs a positive distance, got -5.0 m")
        #expect(error.description(naming: { _ in "stops.csv: feature 2 (line 4)" })
                == "invalid distance: stops.csv: feature 2 (line 4): a point needs a positive distance, got -5.0 m")
    }

    /// A proximity search's refusal says which list the geometry is in: a near feature without vertices.
    @Test func proximityNamesTheList() throws {
        let a = [Point(x: 0, y: 0, spatialReference: Self.texas).geometry]
        let empty = Polyline(parts: [], spatialReference: Self.texas).geometry
        let error = try #require(Self.error {
            _ = try GeometryEngine.nearPairs(from: a, to: [a[0], empty], distances: [1])
        })
        #expect(error.location == EngineError.Location(.nearFeatures, geometry: 1))
        #expect(error.description == "empty geometry: near feature 1 (a polyline) has no vertices")
        #expect(error.description(naming: { $0.list == .nearFeatures ? "shops.csv: feature 1" : nil })
                == "empty geometry: shops.csv: feature 1 (a polyline) has no vertices")
    }

    /// `at(_:)` replaces a location rather than nesting one in another; an error without a location is unchanged
    /// by `description(naming:)`.
    @Test func locatingTwiceKeepsOneLocation() {
        let error = EngineError.invalidDistance("too small").at(EngineError.Location(geometry: 1))
            .at(EngineError.Location(geometry: 4, part: 0, vertex: 2))
        #expect(error == .located(.invalidDistance("too small"), at: EngineError.Location(geometry: 4, part: 0, vertex: 2)))
        #expect(error.description == "invalid distance: geometry 4, part 0, vertex 2: too small")
        #expect(EngineError.invalidDistance("x").description(naming: { _ in "never" }) == "invalid distance: x")
        #expect(EngineError.interrupted("stopped").at(EngineError.Location(geometry: 0)).description
                == "geometry 0: interrupted: stopped")
    }
}
