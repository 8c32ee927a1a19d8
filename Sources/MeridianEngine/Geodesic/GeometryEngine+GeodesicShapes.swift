import Foundation
import MeridianCore

/// The geometry types a geodesic ellipse or sector can be made as (ArcGIS's `geometryType`): ``/MeridianCore/Polygon``,
/// ``/MeridianCore/Polyline`` and ``/MeridianCore/Multipoint``. The parameters' type argument chooses it, as in
/// ArcGIS Maps SDK for Swift: `GeodesicEllipseParameters<Polyline>` makes a polyline.
public protocol GeodesicShapeGeometry: VertexGeometry {}

extension Polygon: GeodesicShapeGeometry {}
extension Polyline: GeodesicShapeGeometry {}
extension Multipoint: GeodesicShapeGeometry {}

/// What `GeometryEngine.geodesicEllipse(parameters:)` builds (ArcGIS `GeodesicEllipseParameters`); `G` is the
/// output type: ``/MeridianCore/Polygon``, ``/MeridianCore/Polyline`` or ``/MeridianCore/Multipoint``.
///
/// Directions follow ArcGIS's sector documentation ("zero is east", sweeps "clockwise"): an angle of 0 points
/// east and angles grow clockwise, so the azimuth (clockwise from north) of a direction `d` is 90° + `d`.
public struct GeodesicEllipseParameters<G: GeodesicShapeGeometry>: Sendable, Hashable {
    /// The direction of the major (longer) axis, in `angularUnit`: 0 is east, growing clockwise (azimuth 90° + it).
    public var axisDirection: Double
    /// The unit of `axisDirection` (default degrees).
    public var angularUnit: AngularUnit
    /// The centre, in a geographic or projected spatial reference; the result is in the same one. Required: `nil`
    /// (the default, so that the parameters can be filled in one by one as in ArcGIS) makes the operation throw.
    public var center: Point?
    /// The unit of `semiAxis1Length`, `semiAxis2Length` and `maxSegmentLength` (default meters).
    public var linearUnit: LinearUnit
    /// The most vertices the result may have (ring vertices counted once, a ring's closing vertex not counted);
    /// values below 10 count as 10, as in ArcGIS; at most 10,000,000. Default 10,000 (ArcGIS's documented default).
    public var maxPointCount: Int
    /// The longest geodesic distance allowed between consecutive vertices, in `linearUnit`; ≥ 0. 0 (the default)
    /// sets no length: the result then has `maxPointCount` vertices. When the length would need more than
    /// `maxPointCount` vertices, `maxPointCount` wins and segments are longer.
    public var maxSegmentLength: Double
    /// One semi-axis, in `linearUnit`: ≥ 0 and at most 99.9 % of half the meridian (≈ 19,984 km on WGS84). The
    /// longer of the two semi-axes lies along `axisDirection`, whichever of the two it is.
    public var semiAxis1Length: Double
    /// The other semi-axis, in `linearUnit`, with the same range as `semiAxis1Length`.
    public var semiAxis2Length: Double

    /// Creates parameters; every argument has ArcGIS's default, so `GeodesicEllipseParameters<Polygon>()` followed
    /// by assignments works as in ArcGIS.
    /// - Parameters:
    ///   - axisDirection: Direction of the major axis in `angularUnit`; 0 is east, growing clockwise.
    ///   - angularUnit: Unit of `axisDirection` (default degrees).
    ///   - center: The centre (required before the call).
    ///   - linearUnit: Unit of the lengths (default meters).
    ///   - maxPointCount: The most vertices, 10 to 10,000,000 (smaller values count as 10).
    ///   - maxSegmentLength: The longest geodesic distance between consecutive vertices in `linearUnit`, ≥ 0
    ///     (0: no length, `maxPointCount` vertices).
    ///   - semiAxis1Length: One semi-axis in `linearUnit`, ≥ 0.
    ///   - semiAxis2Length: The other semi-axis in `linearUnit`, ≥ 0.
    public init(axisDirection: Double = 0, angularUnit: AngularUnit = .degrees, center: Point? = nil,
                linearUnit: LinearUnit = .meters, maxPointCount: Int = 10_000, maxSegmentLength: Double = 0,
                semiAxis1Length: Double = 0, semiAxis2Length: Double = 0) {
        self.axisDirection = axisDirection
        self.angularUnit = angularUnit
        self.center = center
        self.linearUnit = linearUnit
        self.maxPointCount = maxPointCount
        self.maxSegmentLength = maxSegmentLength
        self.semiAxis1Length = semiAxis1Length
        self.semiAxis2Length = semiAxis2Length
    }
}

/// What `GeometryEngine.geodesicSector(parameters:)` builds (ArcGIS `GeodesicSectorParameters`): the part of a
/// geodesic ellipse between two radii. `G` is the output type: ``/MeridianCore/Polygon``,
/// ``/MeridianCore/Polyline`` or ``/MeridianCore/Multipoint``.
///
/// Directions follow ArcGIS's documentation: 0 is east and angles grow clockwise; the start radius is
/// `startDirection` measured from the major axis, and the sector sweeps `|sectorAngle|` clockwise from it, so its
/// radii lie at azimuths 90° + `axisDirection` + `startDirection` and that plus `|sectorAngle|`.
public struct GeodesicSectorParameters<G: GeodesicShapeGeometry>: Sendable, Hashable {
    /// The direction of the ellipse's major axis, in `angularUnit`: 0 is east, growing clockwise.
    public var axisDirection: Double
    /// The unit of `axisDirection`, `sectorAngle` and `startDirection` (default degrees).
    public var angularUnit: AngularUnit
    /// The centre of the ellipse (the sector's apex), in a geographic or projected spatial reference; the result is
    /// in the same one. Required: `nil` (the default) makes the operation throw.
    public var center: Point?
    /// The unit of `semiAxis1Length`, `semiAxis2Length` and `maxSegmentLength` (default meters).
    public var linearUnit: LinearUnit
    /// The most vertices the result may have (a ring's closing vertex not counted); values below 10 count as 10;
    /// at most 10,000,000. Default 10,000.
    public var maxPointCount: Int
    /// The longest geodesic distance allowed between consecutive vertices (along the arc and along the radii), in
    /// `linearUnit`; ≥ 0; 0 (the default) sets no length and spends `maxPointCount` vertices. When the length would
    /// need more than `maxPointCount` vertices, `maxPointCount` wins.
    public var maxSegmentLength: Double
    /// The sweep of the sector, clockwise from the start radius, in `angularUnit`; its absolute value is used and
    /// must be greater than 0° and less than 360° (a whole ellipse is `geodesicEllipse(parameters:)`).
    public var sectorAngle: Double
    /// One semi-axis of the ellipse, in `linearUnit`: ≥ 0 and at most 99.9 % of half the meridian.
    public var semiAxis1Length: Double
    /// The other semi-axis, in `linearUnit`, with the same range.
    public var semiAxis2Length: Double
    /// The direction of the start radius, in `angularUnit`, measured clockwise from the major axis.
    public var startDirection: Double

    /// Creates parameters; every argument has ArcGIS's default, so `GeodesicSectorParameters<Polygon>()` followed
    /// by assignments works as in ArcGIS.
    /// - Parameters:
    ///   - axisDirection: Direction of the major axis in `angularUnit`; 0 is east, growing clockwise.
    ///   - angularUnit: Unit of the angles (default degrees).
    ///   - center: The centre (required before the call).
    ///   - linearUnit: Unit of the lengths (default meters).
    ///   - maxPointCount: The most vertices, 10 to 10,000,000 (smaller values count as 10).
    ///   - maxSegmentLength: The longest geodesic distance between consecutive vertices in `linearUnit`, ≥ 0.
    ///   - sectorAngle: The sweep in `angularUnit`; |sectorAngle| in (0°, 360°).
    ///   - semiAxis1Length: One semi-axis in `linearUnit`, ≥ 0.
    ///   - semiAxis2Length: The other semi-axis in `linearUnit`, ≥ 0.
    ///   - startDirection: The start radius's direction from the major axis, clockwise, in `angularUnit`.
    public init(axisDirection: Double = 0, angularUnit: AngularUnit = .degrees, center: Point? = nil,
                linearUnit: LinearUnit = .meters, maxPointCount: Int = 10_000, maxSegmentLength: Double = 0,
                sectorAngle: Double = 0, semiAxis1Length: Double = 0, semiAxis2Length: Double = 0,
                startDirection: Double = 0) {
        self.axisDirection = axisDirection
        self.angularUnit = angularUnit
        self.center = center
        self.linearUnit = linearUnit
        self.maxPointCount = maxPointCount
        self.maxSegmentLength = maxSegmentLength
        self.sectorAngle = sectorAngle
        self.semiAxis1Length = semiAxis1Length
        self.semiAxis2Length = semiAxis2Length
        self.startDirection = startDirection
    }
}

extension GeometryEngine {
    /// A geodesic ellipse around a point (ArcGIS `geodesicEllipse(parameters:)`), as a polygon, a closed polyline
    /// or the multipoint of its vertices, chosen by the parameters' type argument.
    ///
    /// The curve: with a the longer and b the shorter semi-axis, and r(φ) = a·b / √((b·cos φ)² + (a·sin φ)²) the
    /// radius of the plane ellipse in the direction φ from its major axis, the ellipse is the set of points at
    /// geodesic distance r(φ) from the centre along azimuth A + φ, where A = 90° + `axisDirection` is the azimuth of
    /// the major axis (the plane ellipse drawn in the azimuthal equidistant projection centred on the centre).
    /// Distances and azimuths are Karney's, from PROJ's `geod_direct` on the centre's ellipsoid. Vertices are
    /// placed at equal steps of the ellipse's parameter t (plane point a·cos t, b·sin t), starting on the major
    /// axis and running clockwise; edges are straight in the output's coordinates (ArcGIS: "line segments").
    ///
    /// Vertex count: N = max(10, ⌈2π·a / `maxSegmentLength`⌉), which keeps the plane ellipse's arc between
    /// consecutive vertices within `maxSegmentLength` (a geodesic edge is then shorter still, except on ellipses so
    /// large that the ellipsoid's curvature stretches them: N then grows until every edge's geodesic length is
    /// within `maxSegmentLength`), but never more than `maxPointCount` (at least 10); with `maxSegmentLength` 0,
    /// exactly `maxPointCount`. A polyline repeats its first vertex at the end; a multipoint does not.
    ///
    /// In a geographic spatial reference an ellipse crossing ±180° is split there into parts on each side, one
    /// around a pole contains it with an edge along ±90° (the convention of `geodeticArea`), and one around both
    /// poles is the world with the rest cut out. A projected output needs the ellipse inside the projection's domain.
    ///
    /// Degenerate inputs (ArcGIS: "a line segment, a point, or an empty geometry"): a shorter semi-axis of 0 makes
    /// the geodesic segment of length 2a along the major axis through the centre (a polyline, or its vertices;
    /// a polygon is empty); both 0 make the centre (a multipoint of it; an empty polyline or polygon).
    ///
    /// Meridian throws rather than returning `nil` as ArcGIS's Swift SDK does, so a failure says why.
    /// - Parameter parameters: The ellipse; its type argument is the output type.
    /// - Returns: The ellipse in the centre's spatial reference.
    /// - Throws: `.invalidArgument` for a missing centre, negative, non-finite or too long lengths, non-finite
    ///   angles, a `maxPointCount` over 10,000,000; `.spatialReferenceRequired` for a centre without a spatial
    ///   reference; `.badGeometry` for a centre off the ellipsoid; `.projectionFailed`.
    public static func geodesicEllipse<G: GeodesicShapeGeometry>(parameters: GeodesicEllipseParameters<G>)
        throws(EngineError) -> G
    {
        let p = parameters
        let shape = try GeodesicShape(center: p.center, axis1: p.semiAxis1Length, axis2: p.semiAxis2Length,
                                      linearUnit: p.linearUnit, axisDirection: p.axisDirection,
                                      angularUnit: p.angularUnit, maxSegmentLength: p.maxSegmentLength,
                                      maxPointCount: p.maxPointCount, sweep: nil)
        return try shape.make(G.self)
    }

    /// A geodesic sector (ArcGIS `geodesicSector(parameters:)`): the part of the geodesic ellipse of
    /// `geodesicEllipse(parameters:)` between two radii from its centre, as a polygon (the centre, the start
    /// radius, the arc and the end radius), or as the arc alone for a polyline or a multipoint (ArcGIS: their
    /// "vertices lie on the boundary of the ellipse").
    ///
    /// The arc is the ellipse's curve for directions φ from `startDirection` to `startDirection` + |`sectorAngle`|
    /// (clockwise from the major axis): the points at geodesic distance r(φ) from the centre along azimuth
    /// 90° + `axisDirection` + φ. Its vertices are at equal steps of the ellipse's parameter between the two end
    /// directions, both ends included: max(⌈10·|`sectorAngle`|/360°⌉, 2, ⌈a·Δt / `maxSegmentLength`⌉) steps for a
    /// parameter span Δt (grown, as for the ellipse, if a geodesic edge is still too long); the radii are
    /// geodesics from the centre, with ⌈r / `maxSegmentLength`⌉ equal steps. Every edge's geodesic length is at
    /// most `maxSegmentLength` unless that needs more than `maxPointCount` vertices (at least 10): then the radii
    /// are single edges and the arc gets the rest. With `maxSegmentLength` 0 the arc has `maxPointCount` − 1
    /// vertices (polygon) or `maxPointCount` (polyline, multipoint).
    ///
    /// In a geographic spatial reference the sector is split at ±180° and contains a pole it goes around with an
    /// edge along ±90°; a centre at a pole is written at the longitude of each radius, joined along ±90°.
    /// A shorter semi-axis of 0 gives an empty geometry (the sector has neither area nor arc).
    /// - Parameter parameters: The sector; its type argument is the output type.
    /// - Returns: The sector in the centre's spatial reference.
    /// - Throws: `.invalidArgument` for a missing centre, a sweep of 0 or ≥ 360°, negative, non-finite or too long
    ///   lengths, non-finite angles, a `maxPointCount` over 10,000,000; `.spatialReferenceRequired`;
    ///   `.badGeometry`; `.projectionFailed`.
    public static func geodesicSector<G: GeodesicShapeGeometry>(parameters: GeodesicSectorParameters<G>)
        throws(EngineError) -> G
    {
        let p = parameters
        let degrees = p.angularUnit.convert(abs(p.sectorAngle), to: .degrees)
        guard degrees.isFinite, degrees > 0, degrees < 360 else {
            throw .invalidArgument("a sector angle must be greater than 0° and less than 360°, got \(p.sectorAngle) "
                                   + "\(p.angularUnit) (a whole ellipse is geodesicEllipse(parameters:))")
        }
        guard p.startDirection.isFinite else {
            throw .invalidArgument("the start direction must be finite, got \(p.startDirection)")
        }
        let start = p.angularUnit.convert(p.startDirection, to: .degrees)
        let shape = try GeodesicShape(center: p.center, axis1: p.semiAxis1Length, axis2: p.semiAxis2Length,
                                      linearUnit: p.linearUnit, axisDirection: p.axisDirection,
                                      angularUnit: p.angularUnit, maxSegmentLength: p.maxSegmentLength,
                                      maxPointCount: p.maxPointCount, sweep: (start, degrees))
        return try shape.make(G.self)
    }
}

/// A checked geodesic ellipse or sector in its frame, and the construction of its vertices (see
/// `GeometryEngine.geodesicEllipse(parameters:)` for the curve).
private struct GeodesicShape {
    let frame: GeodeticFrame
    let sr: SpatialReference
    /// The centre in compute lon/lat.
    let center: Coordinate
    /// Semi-major and semi-minor axes in meters.
    let a: Double, b: Double
    /// Azimuth of the major axis, degrees.
    let axisAzimuth: Double
    /// Longest edge in meters; 0 for none.
    let maxSegment: Double
    /// The most vertices (≥ 10).
    let cap: Int
    /// Start direction from the major axis and sweep, degrees; nil for the whole ellipse.
    let sweep: (start: Double, extent: Double)?

    static let pointLimit = 10_000_000

    init(center: Point?, axis1: Double, axis2: Double, linearUnit: LinearUnit, axisDirection: Double,
         angularUnit: AngularUnit, maxSegmentLength: Double, maxPointCount: Int,
         sweep: (start: Double, extent: Double)?) throws(EngineError) {
        guard let center else { throw .invalidArgument("a geodesic ellipse or sector needs a center point") }
        frame = try GeodeticFrame(input: center.spatialReference, output: nil)
        sr = center.spatialReference
        self.center = try GeometryEngine.geodeticVertices(of: center.geometry, in: frame)[0][0]
        let limit = GeometryEngine.maximumGeodeticPointDistance(frame.geodesic)
        var meters: [Double] = []
        for (name, v) in [("semiAxis1Length", axis1), ("semiAxis2Length", axis2), ("maxSegmentLength", maxSegmentLength)] {
            let m = linearUnit.convert(v, to: .meters)
            guard v.isFinite, v >= 0, m.isFinite else {
                throw .invalidArgument("\(name) must be zero or positive and finite, got \(v)")
            }
            if name != "maxSegmentLength", m > limit {
                throw .invalidArgument("\(name) \(v) \(linearUnit) is longer than 99.9 % of half the meridian "
                                       + "(\(Int(limit)) m), where geodesics stop being shortest")
            }
            meters.append(m)
        }
        a = max(meters[0], meters[1])
        b = min(meters[0], meters[1])
        maxSegment = meters[2]
        guard axisDirection.isFinite else {
            throw .invalidArgument("the axis direction must be finite, got \(axisDirection)")
        }
        axisAzimuth = 90 + angularUnit.convert(axisDirection, to: .degrees)
        guard maxPointCount <= Self.pointLimit else {
            throw .invalidArgument("maxPointCount must be at most \(Self.pointLimit), got \(maxPointCount)")
        }
        cap = max(10, maxPointCount)
        try WorkBudget.admit(vertices: Double(cap), for: "the geodesic shape")  // it makes at most `cap` vertices
        self.sweep = sweep
    }

    /// The point of the plane ellipse at parameter `t` (radians) as (direction from the major axis in degrees,
    /// radius in meters), and its place on the ellipsoid.
    func vertex(_ t: Double) -> Coordinate {
        let x = a * cos(t), y = b * sin(t)
        let phi = atan2(y, x) * 180 / .pi
        return frame.geodesic.move(center, azimuth: axisAzimuth + phi, distance: hypot(x, y), unroll: true)
    }

    /// The ellipse parameter of the direction `phi` (degrees from the major axis), continuous with `phi`.
    func parameter(ofDirection phi: Double) -> Double {
        let r = phi * .pi / 180
        let t = atan2(a * sin(r), b * cos(r))
        return t + 2 * .pi * ((r - t) / (2 * .pi)).rounded()
    }

    /// The longest geodesic edge of a path of compute lon/lat.
    func longestEdge(_ path: [Coordinate]) -> Double {
        zip(path, path.dropFirst()).reduce(0) { max($0, frame.geodesic.distance($1.0, $1.1)) }
    }

    /// Vertices at `n` + 1 equal parameter steps from `t0` to `t1` (both included), with as few steps as keep
    /// every edge within `maxSegment` (at least `minimum`), or `limit` steps when more would be needed or when no
    /// segment length is set.
    func arc(from t0: Double, to t1: Double, minimum: Int, limit: Int) -> [Coordinate] {
        func sample(_ n: Int) -> [Coordinate] { (0...n).map { vertex(t0 + (t1 - t0) * Double($0) / Double(n)) } }
        guard maxSegment > 0 else { return sample(limit) }
        var n = min(limit, max(minimum, Int((a * abs(t1 - t0) / maxSegment).rounded(.up))))
        while true {
            let path = sample(n)
            let longest = longestEdge(path)
            if longest <= maxSegment || n >= limit { return path }
            n = min(limit, Int((Double(n) * max(1.1, longest / maxSegment)).rounded(.up)) + 1)
        }
    }

    /// The geodesic from the centre along `azimuth` to `length` meters in `k` equal steps (both ends included).
    func radius(azimuth: Double, length: Double, steps k: Int) -> [Coordinate] {
        (0...k).map { frame.geodesic.move(center, azimuth: azimuth, distance: length * Double($0) / Double(k), unroll: true) }
    }

    /// Steps a geodesic of `length` meters needs for edges within `maxSegment`.
    func steps(_ length: Double) -> Int {
        maxSegment > 0 ? max(1, Int((length / maxSegment).rounded(.up))) : 1
    }

    func make<G: GeodesicShapeGeometry>(_ type: G.Type) throws(EngineError) -> G {
        let kind: Kind
        if G.self == Polygon.self { kind = .polygon } else if G.self == Polyline.self { kind = .polyline } else if G.self == Multipoint.self {
            kind = .multipoint
        } else {
            throw .invalidArgument("a geodesic ellipse or sector is a Polygon, Polyline or Multipoint, not \(G.self)")
        }
        let geometry = try build(kind)
        guard let g = G(geometry) else { throw .invalidArgument("no \(G.self) for a geodesic shape") }
        return g
    }

    enum Kind { case polygon, polyline, multipoint }

    func empty(_ kind: Kind) -> Geometry {
        switch kind {
        case .polygon: .polygon(Polygon(parts: [], spatialReference: sr))
        case .polyline: .polyline(Polyline(parts: [], spatialReference: sr))
        case .multipoint: .multipoint(Multipoint([], spatialReference: sr))
        }
    }

    func build(_ kind: Kind) throws(EngineError) -> Geometry {
        if let sweep {
            guard b > 0 else { return empty(kind) }
            let t0 = parameter(ofDirection: sweep.start), t1 = parameter(ofDirection: sweep.start + sweep.extent)
            let minimumArc = max(2, Int((10 * sweep.extent / 360).rounded(.up)))
            if kind != .polygon {
                let arcPath = arc(from: t0, to: t1, minimum: minimumArc, limit: cap - 1)
                return try output(kind == .polyline ? .polyline : .multipoint, arcPath)
            }
            // Polygon: centre, start radius, arc, end radius. Radii need their own vertices when a length is set.
            let startAzimuth = axisAzimuth + sweep.start, endAzimuth = startAzimuth + sweep.extent
            let r0 = radiusLength(sweep.start), r1 = radiusLength(sweep.start + sweep.extent)
            let k0 = steps(r0), k1 = steps(r1)
            var arcPath: [Coordinate]
            var radii = (k0, k1)
            if maxSegment > 0 {
                arcPath = arc(from: t0, to: t1, minimum: minimumArc, limit: cap - 1)
                if 1 + (k0 - 1) + arcPath.count + (k1 - 1) > cap {
                    radii = (1, 1)
                    arcPath = arc(from: t0, to: t1, minimum: minimumArc, limit: cap - 2)
                }
            } else {
                arcPath = arc(from: t0, to: t1, minimum: minimumArc, limit: cap - 2)
            }
            let first = radius(azimuth: startAzimuth, length: r0, steps: radii.0)
            let last = radius(azimuth: endAzimuth, length: r1, steps: radii.1).reversed()
            let ring = Array(first.dropLast()) + arcPath + Array(last.dropFirst().dropLast())
            return try output(.polygon, ring)
        }
        if b == 0 {
            // The ellipse collapses onto its major axis: the geodesic segment of length 2a through the centre.
            guard a > 0 else {
                return kind == .multipoint ? .multipoint(Multipoint(try frame.toOutput([center]), spatialReference: sr)) : empty(kind)
            }
            guard kind != .polygon else { return empty(kind) }
            let k = min(max(1, steps(a)), (cap - 1) / 2)
            let back = radius(azimuth: axisAzimuth + 180, length: a, steps: k).reversed()
            let ahead = radius(azimuth: axisAzimuth, length: a, steps: k)
            return try output(kind, Array(back) + Array(ahead.dropFirst()))
        }
        // The whole ellipse: n distinct vertices; the arc sampler returns n + 1 with the first repeated.
        var path = arc(from: 0, to: 2 * .pi, minimum: 10, limit: cap)
        path[path.count - 1] = path[0]  // t = 2π is t = 0 exactly, not to rounding
        switch kind {
        case .multipoint: return try output(.multipoint, Array(path.dropLast()))
        case .polyline: return try output(.polyline, path)
        case .polygon: return try output(.polygon, Array(path.dropLast()))
        }
    }

    /// The ellipse's radius in the direction `phi` (degrees from the major axis), meters.
    func radiusLength(_ phi: Double) -> Double {
        let r = phi * .pi / 180
        let c = b * cos(r), s = a * sin(r)
        return a * b / (c * c + s * s).squareRoot()
    }

    /// Whether the plane ellipse (or sector) contains the image of the lon/lat point `q` in the azimuthal
    /// equidistant projection centred on the centre.
    func contains(_ q: Coordinate) -> Bool {
        let inv = frame.geodesic.inverse(center, q)
        if inv.distance == 0 { return true }
        var phi = (inv.azimuth1 - axisAzimuth).truncatingRemainder(dividingBy: 360)
        if phi < 0 { phi += 360 }
        if let sweep {
            var off = (phi - sweep.start).truncatingRemainder(dividingBy: 360)
            if off < 0 { off += 360 }
            if off > sweep.extent { return false }
        }
        return inv.distance < radiusLength(phi)
    }

    /// The geometry of compute lon/lat vertices in the output spatial reference (see the public documentation for
    /// ±180° and the poles).
    func output(_ kind: Kind, _ vertices: [Coordinate]) throws(EngineError) -> Geometry {
        guard sr.isGeographic else {
            let out = try frame.toOutput(vertices)
            switch kind {
            case .multipoint: return .multipoint(Multipoint(out, spatialReference: sr))
            case .polyline: return .polyline(Polyline(parts: [out], spatialReference: sr))
            case .polygon:
                return .polygon(Polygon(parts: [GEOSContext.oriented(Polygon.Part(shell: Polygon.closed(out), holes: []))], spatialReference: sr))
            }
        }
        if kind == .multipoint {
            return .multipoint(Multipoint(vertices.map { Coordinate(x: normalizedLongitude($0.x), y: $0.y) },
                                          spatialReference: sr))
        }
        // Longitudes made continuous along the path.
        var path: [Coordinate] = []
        path.reserveCapacity(vertices.count + 4)
        for v in vertices {
            let x = path.last.map { abs($0.y) == 90 || abs(v.y) == 90 ? v.x : unwrappedLongitude(v.x, near: $0.x) } ?? v.x
            path.append(Coordinate(x: x, y: v.y))
        }
        if kind == .polyline {
            return try GeometryEngine.normalizeCentralMeridian(of: Polyline(parts: [path], spatialReference: sr))
        }
        let pole: Double? = abs(center.y) == 90 ? center.y : nil
        if let pole, sweep != nil {
            // The apex at a pole: written at the longitude of each radius, joined along the pole.
            path[0] = Coordinate(x: path[1].x, y: pole)
            path.append(Coordinate(x: path[path.count - 1].x, y: pole))
            return try polygon(path)
        }
        let first = path[0], last = path[path.count - 1]
        let closing = unwrappedLongitude(first.x, near: last.x)
        let north = contains(Coordinate(x: 0, y: 90)), south = contains(Coordinate(x: 0, y: -90))
        if abs(closing - first.x) > 180 {
            // The ring goes once around a pole: close it along that pole's latitude.
            let y: Double = north != south ? (north ? 90 : -90) : (center.y >= 0 ? 90 : -90)
            path += [Coordinate(x: closing, y: first.y), Coordinate(x: closing, y: y), Coordinate(x: first.x, y: y)]
            return try polygon(path)
        }
        if north && south {
            // Around both poles: the world without the region the ring encloses in longitude/latitude.
            let hole = try polygon(path)
            let world = Envelope(xMin: -180, yMin: -90, xMax: 180, yMax: 90, spatialReference: sr)
            return try GeometryEngine.difference(world, hole)
        }
        return try polygon(path)
    }

    /// One ring of unrolled lon/lat folded into [-180°, 180°].
    func polygon(_ ring: [Coordinate]) throws(EngineError) -> Geometry {
        let part = GEOSContext.oriented(Polygon.Part(shell: Polygon.closed(ring), holes: []))
        return try GeometryEngine.normalizeCentralMeridian(of: Polygon(parts: [part], spatialReference: sr))
    }
}
