import Foundation
import MeridianCore

extension GeometryEngine {
    /// The default `maxDeviation` of geodesic buffers as a fraction of the distance: 0.2 %, Esri's default.
    ///
    /// Why: when the whole buffer fills a 1000-pixel view (a diameter of 2 × distance), 0.2 % of the distance is
    /// one pixel, so the polygon is indistinguishable from the true curve at any zoom showing all of it; the area is
    /// then within about 0.27 % of the true area (a chord's mean inward deviation is 2/3 of its maximum). A circle
    /// needs about π·√(1/(2·0.002)) ≈ 50 vertices away from the poles. Never less than 0.1 mm, except below a
    /// distance of 0.2 mm, where it is half the distance (the most an explicit `maxDeviation` may be): a deviation
    /// larger than the distance let the chords of the offset curves on both sides of a line cross each other, and
    /// the union of such pieces grew without bound (a 9,000 km line buffered by 10 µm ran for minutes).
    public static let defaultGeodeticMaxDeviationRatio = 0.002

    /// Buffers one geometry on the ellipsoid. See ``geodeticBuffer(around:distances:distanceUnit:maxDeviation:curveType:shouldUnion:outputSpatialReference:)``.
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or envelope in any geographic or projected spatial reference.
    ///   - distance: The buffer distance in `distanceUnit`: > 0 for points and lines; non-zero for polygons (negative shrinks);
    ///     |distance| from 1 µm to the limits of the many-geometry variant.
    ///   - distanceUnit: The unit of `distance` and `maxDeviation` (default meters).
    ///   - maxDeviation: The largest allowed distance between the true buffer boundary and the polygon's edges, in
    ///     `distanceUnit`; `nil` for 0.2 % of |distance| (`defaultGeodeticMaxDeviationRatio`).
    ///   - curveType: How input edges and distances are measured (`.geodesic`).
    ///   - outputSpatialReference: Where the result is expressed; `nil` for the input's spatial reference.
    /// - Returns: The buffer (empty when a polygon shrinks to nothing).
    public static func geodeticBuffer(
        around geometry: some GeometryConvertible, distance: Double, distanceUnit: LinearUnit = .meters,
        maxDeviation: Double? = nil, curveType: GeodeticCurveType = .geodesic,
        outputSpatialReference: SpatialReference? = nil
    ) throws(EngineError) -> Polygon {
        try geodeticBuffer(around: [geometry.geometry], distances: [distance], distanceUnit: distanceUnit,
                           maxDeviation: maxDeviation, curveType: curveType, shouldUnion: false,
                           outputSpatialReference: outputSpatialReference)[0]
    }

    /// Buffers geometries on the ellipsoid: the set of points within a geodesic distance of each geometry,
    /// computed with PROJ's geodesic routines (Karney) on the ellipsoid of the input's spatial reference.
    ///
    /// Input edges are geodesics between consecutive vertices. Longitude/latitude polygon edges lying on ±180° or
    /// ±90° are taken as cuts (RFC 7946 §3.1.9), not as boundary.
    ///
    /// Accuracy contract (distances measured on the input's ellipsoid):
    /// - every output vertex lies at the requested distance from the input, within 1 mm, except the corners a cut
    ///   adds at ±90° latitude and vertices on ±180° that only continue a straight cut line, and — rarely, as a last
    ///   resort — where neither moving the vertices where the pieces cross onto the true crossings (at 1, 1/4 and
    ///   1/16 of `maxDeviation`) nor projecting every vertex onto the true boundary gives a polygon valid for GEOS:
    ///   then they stay where the straight-edged pieces cross, within `maxDeviation` (the result is always valid);
    ///   where the vertices are projected, a true corner between two of them may be left out (the edge there stays
    ///   within `maxDeviation`);
    /// - every point of every edge — an edge is straight in the output's own coordinates (degrees of
    ///   longitude/latitude for geographic output, as GEOS, GeoJSON renderers and GIS tools draw it) — is within
    ///   `maxDeviation` of the requested distance, except the cut edges along ±180° and ±90°;
    /// - vertices are placed adaptively (greedy longest chords within 0.8 × `maxDeviation`), so there are no more
    ///   than needed; near the poles a geographic output needs many more vertices than a projected one. A small
    ///   circle in longitude/latitude clear of the poles and of ±180° (a point buffer up to about 300 km) gets
    ///   evenly spaced azimuths instead, as many as a chord bound needs for the same 0.8 × `maxDeviation`, with
    ///   vertices from a series fitted to a few `geod_direct` points (within 10 µm of them). A single polyline in
    ///   longitude/latitude (clear of ±180° and the poles, up to 1,000 km) is first tried from GEOS's planar buffer in
    ///   an azimuthal equidistant frame, every vertex then placed on the true boundary and every edge checked at
    ///   five points (split until within 0.8 × `maxDeviation`); that result is kept only when every check passes
    ///   (`SeededLineBuffer`), else the line takes the path above.
    ///
    /// Output in a geographic spatial reference: a buffer crossing ±180° is split into parts on each side
    /// (RFC 7946 §3.1.9), a buffer containing a pole contains it with an edge along ±90°, and buffers wider than a
    /// hemisphere are right (they contain the rest of the world). Output in a projected spatial reference needs
    /// the buffer to lie within the projection's domain.
    ///
    /// Distance rule: one distance for all geometries, or exactly one per geometry.
    /// - Parameters:
    ///   - geometries: Geometries in one spatial reference (geographic or projected).
    ///   - distances: In `distanceUnit`. Points and lines: > 0. Polygons: non-zero, negative shrinks. |distance| at least
    ///     1 µm (`minimumBufferDistance`) and at most 99.9 % of half the meridian (≈ 19,984 km on WGS84) for points and multipoints, 45 % of it
    ///     (≈ 9,000 km) for lines and polygons; larger distances are refused with `invalidDistance`.
    ///   - distanceUnit: The unit of `distances` and `maxDeviation` (default meters).
    ///   - maxDeviation: The largest allowed deviation, in `distanceUnit`; `nil` for 0.2 % of each |distance|. Must be at
    ///     least 0.1 mm and 10⁻⁶ × |distance|, and at most |distance| / 2.
    ///   - curveType: `.geodesic`.
    ///   - shouldUnion: `true` to dissolve all buffers into one polygon (correct across ±180° and the poles).
    ///   - outputSpatialReference: The result's spatial reference; `nil` (default) for the input's; pass `.wgs84`
    ///     for longitude/latitude output of a projected input.
    /// - Returns: One polygon per geometry, or one polygon when `shouldUnion` (none for no geometries); shells
    ///   counter-clockwise, holes clockwise.
    /// - Throws: `EngineError.invalidDistance`, `.distanceCountMismatch`, `.spatialReferenceMismatch`,
    ///   `.badGeometry`, `.invalidGeometry` (self-intersecting polygon), `.projectionFailed`, `.geos`.
    public static func geodeticBuffer(
        around geometries: [some GeometryConvertible], distances: [Double], distanceUnit: LinearUnit = .meters,
        maxDeviation: Double? = nil, curveType: GeodeticCurveType = .geodesic, shouldUnion: Bool,
        outputSpatialReference: SpatialReference? = nil
    ) throws(EngineError) -> [Polygon] {
        try geodeticBuffer(around: geometries.map { $0.geometry }, distances: distances, distanceUnit: distanceUnit,
                           maxDeviation: maxDeviation, shouldUnion: shouldUnion,
                           outputSpatialReference: outputSpatialReference, mergingPolygons: true,
                           seedingLines: true)
    }

    /// ``geodeticBuffer(around:distances:distanceUnit:maxDeviation:curveType:shouldUnion:outputSpatialReference:)``
    /// with the merging of polygons before a union (`BufferPreUnion`) on or off (`mergingPolygons`: off only for
    /// the tests that compare the two paths), and the seeded attempt for lines (`SeededLineBuffer`) on or off
    /// (`seedingLines`: off only for the tests of the exact path on lines the attempt takes).
    static func geodeticBuffer(
        around gs: [Geometry], distances: [Double], distanceUnit: LinearUnit, maxDeviation: Double?,
        shouldUnion: Bool, outputSpatialReference: SpatialReference?, mergingPolygons: Bool,
        seedingLines: Bool = true
    ) throws(EngineError) -> [Polygon] {
        guard let sr = gs.first?.spatialReference else { return [] }
        guard distances.count == gs.count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: gs.count, distances: distances.count)
        }
        if let other = gs.first(where: { $0.spatialReference != sr }) {
            throw .spatialReferenceMismatch(sr, other.spatialReference)
        }
        let frame = try GeodeticFrame(input: sr, output: outputSpatialReference)
        let context = try GEOSContext()
        var distancesInMeters: [Double] = [], tolerances: [Double] = []
        for (i, g) in gs.enumerated() {
            let d = distanceUnit.convert(distances.count == 1 ? distances[0] : distances[i], to: .meters)
            tolerances.append(try deviation(maxDeviation.map { distanceUnit.convert($0, to: .meters) }, distance: d, index: i))
            try validate(geodeticDistance: d, for: g, index: i, geodesic: frame.geodesic)
            distancesInMeters.append(d)
        }
        // A union admits each buffer on its own and counts only its result (its pieces are dissolved as it goes);
        // separate buffers are admitted together and counted as they are made.
        let estimates = gs.indices.map {
            estimatedGeodeticBufferVertices(gs[$0], distance: distancesInMeters[$0], tolerance: tolerances[$0])
        }
        try WorkBudget.admit(vertices: shouldUnion ? estimates.max() ?? 0 : estimates.reduce(0, +),
                             for: shouldUnion ? "a geodesic buffer of the union" : "the geodesic buffer")
        let pipeline = GeodeticBufferPipeline(frame: frame, context: context, geometries: gs,
                                              distances: distancesInMeters, tolerances: tolerances)
        if shouldUnion {
            let union = try WorkBudget.uncounted { () throws(EngineError) in try pipeline.union(mergingPolygons: mergingPolygons) }
            try WorkBudget.produce(vertices: union.vertexCount, by: "the geodesic union")
            return [union]
        }
        return try pipeline.buffers(seedingLines: seedingLines)
    }

    /// About how many vertices a geodesic buffer makes (`WorkBudget.admit(vertices:for:)` asks before the work): a
    /// circle of `distance` whose chords stay within 0.8 × `tolerance` of it, π/acos(1 − 0.8·tolerance/distance)
    /// vertices, around each point; half such a circle and two offset vertices for each vertex of a line or ring.
    /// - Parameters:
    ///   - g: The geometry.
    ///   - distance: The buffer distance, meters.
    ///   - tolerance: The deviation allowed, meters.
    static func estimatedGeodeticBufferVertices(_ g: Geometry, distance: Double, tolerance: Double) -> Double {
        let ratio = min(1, 0.8 * tolerance / max(abs(distance), 1e-300))
        let circle = max(8, Double.pi / acos(1 - ratio))
        let n = Double(g.coordinates.count)
        switch g {
        case .point, .multipoint: return n * circle
        case .polyline, .polygon, .envelope: return n * (circle / 2 + 2)
        }
    }

    /// The largest geodesic buffer distance in meters for points on an ellipsoid: 99.9 % of half the meridian.
    /// Closer to the antipode the circle nears the cut locus, where geodesics of that length stop being shortest.
    static func maximumGeodeticPointDistance(_ g: Geodesic) -> Double { 0.999 * g.halfMeridian }
    /// The largest geodesic buffer distance in meters for lines and polygons: 45 % of half the meridian (offset
    /// curves of a geodesic degenerate at a quarter meridian).
    static func maximumGeodeticLineDistance(_ g: Geodesic) -> Double { 0.45 * g.halfMeridian }

    private static func deviation(_ requested: Double?, distance d: Double, index: Int) throws(EngineError) -> Double {
        guard let requested else { return max(defaultGeodeticMaxDeviationRatio * abs(d), min(1e-4, abs(d) / 2)) }
        guard requested.isFinite, requested >= 1e-4, requested >= 1e-6 * abs(d), requested <= abs(d) / 2 else {
            throw EngineError.invalidDistance("maxDeviation \(requested) m must be at least 0.1 mm and 1e-6 × |distance|, and at most |distance|/2 (distance \(d) m)")
                .at(EngineError.Location(geometry: index))
        }
        return requested
    }

    private static func validate(geodeticDistance d: Double, for g: Geometry, index: Int, geodesic: Geodesic) throws(EngineError) {
        do { try validate(geodeticDistance: d, for: g, geodesic: geodesic) } catch { throw error.at(EngineError.Location(geometry: index)) }
    }

    private static func validate(geodeticDistance d: Double, for g: Geometry, geodesic: Geodesic) throws(EngineError) {
        guard d.isFinite else { throw .invalidDistance("distance \(d) is not a finite number") }
        guard d == 0 || abs(d) >= minimumBufferDistance else {
            throw .invalidDistance((bufferDistanceProblem(d, metersPerUnit: 1, unit: "m") ?? ""))
        }
        switch g {
        case .point, .multipoint:
            guard d > 0 else { throw .invalidDistance("a \(g.typeName.lowercased()) needs a positive distance, got \(d) m") }
            let limit = maximumGeodeticPointDistance(geodesic)
            guard d <= limit else {
                throw .invalidDistance(String(format: "%.10g m is more than %.0f m, 99.9%% of half the meridian (the farthest any point can be); the buffer would be nearly the whole ellipsoid", d, limit))
            }
        case .polyline:
            guard d > 0 else { throw .invalidDistance("a polyline needs a positive distance, got \(d) m") }
            fallthrough
        case .polygon, .envelope:
            guard d != 0 else { throw .invalidDistance("a polygon needs a non-zero distance") }
            let limit = maximumGeodeticLineDistance(geodesic)
            guard abs(d) <= limit else {
                throw .invalidDistance(String(format: "|%.10g| m is more than %.0f m, the largest geodesic buffer distance for lines and polygons (45%% of half the meridian)", d, limit))
            }
        }
    }
}
