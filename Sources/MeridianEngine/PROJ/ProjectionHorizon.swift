import Foundation
import MeridianCore

/// Where a spatial reference's projection is reliable — what ArcGIS calls a projection's *horizon* — and the one
/// rule Meridian applies before it buffers in, or projects into, a spatial reference.
///
/// A point is within the horizon when both hold:
/// - its longitude/latitude lies in the spatial reference's area of use (PROJ's WGS84 box) widened by ``margin`` on
///   every side (a box that reaches a pole contains the pole; one that spans every longitude contains them all);
/// - PROJ's projection and its inverse return it: projected to the datum's longitude/latitude and back (or the other
///   way round, for a point given in another spatial reference), it lands within ``roundTripTolerance`` of where it
///   started.
///
/// A spatial reference without a known area of use has only the second condition; ``/MeridianCore/SpatialReference/unspecified``
/// has no horizon (everything is within it). The library applies the rule with
/// ``GeometryEngine/firstVertexOutsideHorizon(_:of:)``, `meridian buffer` and `meridian project` before they work
/// (`--allow-outside-area` overrides it), and the viewer for `POST /api/contains` and `POST /api/buffer`.
public struct ProjectionHorizon: Sendable, Hashable {
    /// How far the area of use is widened on every side: 5 degrees of latitude and of longitude.
    ///
    /// An area of use is where a coordinate system is meant to be used, not where its projection stops being
    /// correct, and real points lie just outside it: NGS's published l176 test points for the NAD27 state plane
    /// zones (in PROJ's own test suite) lie up to 3.2° outside EPSG's boxes (Alaska zones 2 and 3, 56°30′N; St.
    /// Croix's at Puerto Rico's central meridian, 1.3° west), and PROJ, pyproj and ArcGIS project them all. Five
    /// degrees covers them with room, and is far from where a zone's conformal projection breaks down (a transverse
    /// Mercator's series hold to tens of degrees from its central meridian, a Lambert conic everywhere but near the
    /// opposite pole); a point half a world away (longitude 170° for a Texas zone) stays outside. Where a projection
    /// does fail inside the margin (the pole of a Mercator, whose box reaches 85°), the round trip refuses the point.
    public static let margin = 5.0

    /// The largest round-trip difference accepted: 10⁻⁶° (about 0.1 m) for a point given in longitude/latitude,
    /// 0.01 of the spatial reference's unit (1 cm, or 3 mm in US feet) for one given in its projected coordinates
    /// (``GeometryEngine/projectionRoundTripTolerance``). Inside a projection's domain PROJ's inverse agrees with its
    /// forward formulas to nanometres; where they fail it returns another point altogether, metres to thousands of
    /// kilometres away (a transverse Mercator 85° from its central meridian: 1.4 m), so the threshold separates the
    /// two by orders of magnitude.
    public static var roundTripTolerance: (degrees: Double, units: Double) { GeometryEngine.projectionRoundTripTolerance }

    /// The spatial reference.
    public let spatialReference: SpatialReference
    /// Its area of use as PROJ's database records it; `nil` when none is known.
    public let areaOfUse: AreaOfUse?
    /// The area of use widened by ``margin`` (west may exceed east when the box crosses ±180°); `nil` when none is
    /// known.
    public let widenedAreaOfUse: AreaOfUse?

    /// The horizon of a spatial reference.
    /// - Parameter spatialReference: Any spatial reference.
    public init(of spatialReference: SpatialReference) {
        self.spatialReference = spatialReference
        areaOfUse = spatialReference.areaOfUse
        widenedAreaOfUse = areaOfUse.map(Self.widened)
    }

    /// Whether a WGS84 longitude/latitude lies in the widened area of use (`true` when no area is known); the
    /// round trip is not tested here.
    /// - Parameters:
    ///   - longitude: Degrees, any value (normalised into [-180, 180]).
    ///   - latitude: Degrees in [-90, 90].
    public func widenedAreaContains(longitude: Double, latitude: Double) -> Bool {
        guard let box = widenedAreaOfUse else { return true }
        if (latitude >= 90 && box.north >= 90) || (latitude <= -90 && box.south <= -90) { return true }
        return box.contains(longitude: longitude, latitude: latitude)
    }

    /// `area` widened by `margin`: latitudes clamped to ±90°, longitudes to the whole circle once they span it.
    static func widened(_ area: AreaOfUse) -> AreaOfUse {
        let south = max(-90, area.south - margin), north = min(90, area.north + margin)
        let span = area.west <= area.east ? area.east - area.west : area.east + 360 - area.west
        guard span + 2 * margin < 360 else {
            return AreaOfUse(name: area.name, west: -180, south: south, east: 180, north: north)
        }
        func wrapped(_ x: Double) -> Double { x < -180 ? x + 360 : x > 180 ? x - 360 : x }
        return AreaOfUse(name: area.name, west: wrapped(area.west - margin), south: south,
                         east: wrapped(area.east + margin), north: north)
    }
}

/// A vertex outside a projection's horizon, as ``GeometryEngine/firstVertexOutsideHorizon(_:of:)`` finds it.
public struct VertexOutsideHorizon: Sendable, Hashable {
    /// Why a vertex is outside.
    public enum Reason: Sendable, Hashable {
        /// Its longitude/latitude lies outside the widened area of use.
        case outsideAreaOfUse
        /// PROJ's projection and inverse do not return it (by more than ``ProjectionHorizon/roundTripTolerance``).
        case roundTripMismatch
        /// PROJ cannot project it at all.
        case notProjectable
    }

    /// The index of the geometry.
    public var geometryIndex: Int
    /// The index of the vertex in the geometry's `coordinates` (for a multipoint of many input points: which point).
    public var vertexIndex: Int
    /// Its longitude on the spatial reference's datum, in degrees (NaN when PROJ cannot compute it).
    public var longitude: Double
    /// Its latitude on the spatial reference's datum, in degrees (NaN when PROJ cannot compute it).
    public var latitude: Double
    /// Why it is outside.
    public var reason: Reason
}

extension VertexOutsideHorizon {
    /// Why the vertex is outside, as the words that follow its name in a message (the command line's and the
    /// viewer's), e.g. "is outside the area of use of NAD27 / Texas North Central (W -103.07, S 31.72, E -94, N 34.58;
    /// 5° beyond it are accepted)".
    /// - Parameter spatialReference: The spatial reference whose horizon the vertex is outside.
    public func reasonPhrase(for spatialReference: SpatialReference) -> String {
        switch reason {
        case .outsideAreaOfUse:
            guard let a = spatialReference.areaOfUse else { return "is outside the area of use of \(spatialReference.name)" }
            return String(format: "is outside the area of use of %@ (W %g, S %g, E %g, N %g; %g° beyond it are accepted)",
                          spatialReference.name, a.west, a.south, a.east, a.north, ProjectionHorizon.margin)
        case .roundTripMismatch:
            return "is where the projection of \(spatialReference.name) is not reliable (PROJ's inverse does not return it)"
        case .notProjectable:
            return "cannot be projected into \(spatialReference.name)"
        }
    }
}

extension GeometryEngine {
    /// The first vertex outside a spatial reference's horizon (``ProjectionHorizon``): where its longitude/latitude
    /// lies outside the area of use widened by ``ProjectionHorizon/margin``, or PROJ's round trip does not return
    /// it. The rule `meridian buffer`, `meridian project` and the viewer apply before they work. Vertices are
    /// checked in order: geometry by geometry, each in its `coordinates` order; the checks run in bulk (one PROJ
    /// call per step for all vertices).
    /// - Parameters:
    ///   - geometries: Geometries sharing one spatial reference: `spatialReference` itself (the vertices are its
    ///     projected coordinates), or any other (they are the points to be projected into it).
    ///   - spatialReference: The spatial reference whose horizon applies.
    /// - Returns: The first vertex outside, or `nil` when all are within (always for an unspecified spatial
    ///   reference).
    /// - Throws: `EngineError.spatialReferenceMismatch` for geometries in different spatial references,
    ///   `.spatialReferenceRequired` for unspecified geometries checked against a real spatial reference, `.proj`
    ///   when PROJ has no transformation between the two.
    public static func firstVertexOutsideHorizon(
        _ geometries: [some GeometryConvertible], of spatialReference: SpatialReference
    ) throws(EngineError) -> VertexOutsideHorizon? {
        let gs = geometries.map { $0.geometry }
        guard let source = gs.first?.spatialReference, !spatialReference.isUnspecified else { return nil }
        if let other = gs.first(where: { $0.spatialReference != source }) {
            throw .spatialReferenceMismatch(source, other.spatialReference)
        }
        if source.isUnspecified { throw .spatialReferenceRequired(operation: "a horizon check") }
        let coordinates = gs.count == 1 ? gs[0].coordinates : gs.flatMap { $0.coordinates }
        guard let outside = try ProjectionHorizon(of: spatialReference).firstOutside(coordinates, in: source) else {
            return nil
        }
        var vertex = outside.index
        for (i, g) in gs.enumerated() {
            let count = g.coordinates.count
            if vertex < count {
                return VertexOutsideHorizon(geometryIndex: i, vertexIndex: vertex, longitude: outside.longitude,
                                            latitude: outside.latitude, reason: outside.reason)
            }
            vertex -= count
        }
        return nil
    }

    /// Whether every vertex of a geometry lies within a spatial reference's horizon (see
    /// ``firstVertexOutsideHorizon(_:of:)``): the test behind the viewer's `POST /api/contains`.
    /// - Parameters:
    ///   - geometry: A geometry in `spatialReference` or in any other spatial reference.
    ///   - spatialReference: The spatial reference whose horizon applies.
    /// - Throws: As ``firstVertexOutsideHorizon(_:of:)``.
    public static func isGeometry(_ geometry: some GeometryConvertible, withinHorizonOf spatialReference: SpatialReference)
        throws(EngineError) -> Bool
    {
        try firstVertexOutsideHorizon([geometry.geometry], of: spatialReference) == nil
    }
}

extension ProjectionHorizon {
    /// The first of `coordinates` (in `source`) outside the horizon, with its longitude/latitude on the datum of
    /// `spatialReference` and why; `nil` when all are within.
    func firstOutside(_ coordinates: [Coordinate], in source: SpatialReference)
        throws(EngineError) -> (index: Int, longitude: Double, latitude: Double, reason: VertexOutsideHorizon.Reason)?
    {
        guard !coordinates.isEmpty else { return nil }
        // Longitude/latitude on the spatial reference's own datum: no datum shift in the round trip (a shift's
        // forward and inverse may be different operations, metres apart), and metres from WGS84 in the box test,
        // nothing beside the margin. A coordinate PROJ cannot project comes back not finite.
        let base = try spatialReference.geographicBase()
        let flat = coordinates.contains { $0.z != nil } ? coordinates.map { Coordinate(x: $0.x, y: $0.y) } : coordinates
        let lonLat = try Self.projected(flat, from: source, into: base)
        // The round trip, when there is one: from `start` to `projected` in the spatial reference, then to `back`.
        var start = flat, projected = flat, back = flat, degrees = false
        if source == spatialReference && base != source {
            // Projected coordinates: inverse (above), then forward, compared in the spatial reference's unit.
            back = try Self.projected(lonLat, from: base, into: source)
        } else if source != spatialReference && base != spatialReference {
            // Longitude/latitude from elsewhere: forward, then inverse, compared in degrees.
            (start, degrees) = (lonLat, true)
            projected = try Self.projected(lonLat, from: base, into: spatialReference)
            back = try Self.projected(projected, from: spatialReference, into: base)
        }  // (else geographic: nothing is projected, the round trip is the identity)
        let limit = GeometryEngine.maximumProjectedCoordinate / (spatialReference.unit?.metersPerUnit ?? 1)
        let tolerance = degrees ? Self.roundTripTolerance.degrees : Self.roundTripTolerance.units
        for i in flat.indices {
            let ll = lonLat[i]
            guard ll.x.isFinite && ll.y.isFinite else { return (i, .nan, .nan, .notProjectable) }
            if !widenedAreaContains(longitude: ll.x, latitude: ll.y) { return (i, ll.x, ll.y, .outsideAreaOfUse) }
            if let reason = roundTripFailure(start: start[i], projected: projected[i], back: back[i], limit: limit,
                                             tolerance: tolerance, degrees: degrees) {
                return (i, ll.x, ll.y, reason)
            }
        }
        return nil
    }

    /// Why a round trip from `start` to `back` fails, or `nil` when it returns the point: its coordinates in the
    /// spatial reference (`projected`) are not finite (PROJ could not project it) or beyond `limit`
    /// (`GeometryEngine.maximumProjectedCoordinate` in the spatial reference's unit: a singularity such as a
    /// Mercator's pole, which PROJ 9.1 projects to 2.4e8 m), or `back` is farther than `tolerance` from `start` (in
    /// degrees, or in the spatial reference's unit).
    @inline(__always)
    func roundTripFailure(start: Coordinate, projected p: Coordinate, back: Coordinate, limit: Double,
                          tolerance: Double, degrees: Bool) -> VertexOutsideHorizon.Reason? {
        guard abs(p.x) <= limit, abs(p.y) <= limit else { return .notProjectable }
        return Self.close(start, back, tolerance: tolerance, degrees: degrees) ? nil : .roundTripMismatch
    }

    /// `coordinates` projected (interpolated where PROJ's operation is smooth: `InterpolatedProjection`), in one
    /// call, or one by one when that call fails: each coordinate PROJ cannot project (or projects to a non-finite
    /// value), and each that was not finite to begin with, comes back as NaN.
    static func projected(_ coordinates: [Coordinate], from source: SpatialReference, into target: SpatialReference)
        throws(EngineError) -> [Coordinate]
    {
        guard source != target else { return coordinates }
        let projection = try InterpolatedProjection.between(source, target)
        let unknown = Coordinate(x: .nan, y: .nan)
        // A coordinate already lost (NaN) goes in as (0, 0), so that PROJ takes the others in one call.
        var all = coordinates
        let lost = all.indices.filter { !(all[$0].x.isFinite && all[$0].y.isFinite) }
        for i in lost { all[i] = Coordinate(x: 0, y: 0) }
        do {
            try projection.transform(&all)  // (into a new array, copied on the threads; unchanged on failure)
            for i in lost { all[i] = unknown }
            return all
        } catch {
            guard case .projectionFailed = error.unlocated else { throw error }
            return coordinates.map { c -> Coordinate in
                guard c.x.isFinite && c.y.isFinite else { return unknown }
                var one = [c]
                do { try projection.transform(&one) } catch { return unknown }
                return one[0]
            }
        }
    }

    /// Whether `b` is within `tolerance` of `a` in x and y. With `degrees`, x and y are longitude and latitude:
    /// longitudes are compared modulo 360° and as arcs of their parallel (times the cosine of the latitude), so
    /// that at a pole, where every longitude is the same point, they do not count.
    static func close(_ a: Coordinate, _ b: Coordinate, tolerance: Double, degrees: Bool) -> Bool {
        var dx = abs(a.x - b.x)
        if degrees {
            dx = dx.truncatingRemainder(dividingBy: 360)
            dx = min(dx, 360 - dx) * cos(min(90, abs(a.y)) * .pi / 180)
        }
        return dx <= tolerance && abs(a.y - b.y) <= tolerance
    }
}
