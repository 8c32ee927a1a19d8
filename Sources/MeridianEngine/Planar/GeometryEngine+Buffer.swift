import Foundation
import MeridianCore

// MARK: - Buffers

/// How the ends of buffered lines are drawn.
public enum EndCapStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// A half circle (the default).
    case round
    /// Cut square at the line's end.
    case flat
    /// A square extending `distance` past the end.
    case square
}

/// How buffered lines and polygons turn at their vertices.
public enum JoinStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// An arc (the default).
    case round
    /// A sharp corner, cut at the mitre limit.
    case mitre
    /// A straight cut across the corner.
    case bevel
}

/// How a buffer's curves are approximated.
///
/// Each quarter circle becomes `segmentsPerQuarterCircle` (q) straight chords, with the vertices on the circle.
/// A chord spanning π/(2q) deviates from the arc by at most r·(1 − cos(π/(4q))): with the default q = 16 that is
/// 0.12% of the radius (6.4 ft for a 1-mile buffer), and a point's buffer, a regular 4q-gon, has
/// (2q/π)·sin(π/(2q)) = 0.99839 of the circle's area (0.16% less).
public struct BufferParameters: Sendable, Hashable, Codable {
    /// Chords per quarter circle, q ≥ 1. Default 16 (64 vertices on a point's buffer).
    public var segmentsPerQuarterCircle: Int
    /// End caps of buffered lines.
    public var endCapStyle: EndCapStyle
    /// Joins of buffered lines and polygons.
    public var joinStyle: JoinStyle
    /// For mitre joins: the largest ratio of mitre length to distance before the corner is bevelled (default 5).
    public var mitreLimit: Double

    /// Creates buffer parameters.
    /// - Parameters:
    ///   - segmentsPerQuarterCircle: Chords per quarter circle, 1…1000 (default 16).
    ///   - endCapStyle: Line end caps (default round).
    ///   - joinStyle: Vertex joins (default round).
    ///   - mitreLimit: Mitre ratio limit (default 5).
    public init(segmentsPerQuarterCircle: Int = 16, endCapStyle: EndCapStyle = .round, joinStyle: JoinStyle = .round,
                mitreLimit: Double = 5) {
        self.segmentsPerQuarterCircle = segmentsPerQuarterCircle
        self.endCapStyle = endCapStyle
        self.joinStyle = joinStyle
        self.mitreLimit = mitreLimit
    }

    /// The defaults: 16 chords per quarter circle, round caps and joins.
    public static let `default` = BufferParameters()

    /// The largest distance between a true circular arc of radius 1 and its chords: 1 − cos(π/(4q)).
    public var relativeChordError: Double { 1 - cos(Double.pi / (4 * Double(segmentsPerQuarterCircle))) }
}

extension GeometryEngine {
    /// The largest buffer distance accepted, in meters: half the Earth's equatorial circumference. No planar
    /// projection is meaningful beyond it.
    public static let maximumBufferDistance = 20_037_508.342789244

    /// The smallest non-zero |distance| of any buffer, planar and geodesic alike, in meters: 1 µm, a thousand
    /// times the ground resolution of double-precision degrees (about 1e-9 m). Below it a buffer's vertices collapse
    /// onto its input's (GEOS answers a point's buffer of 1e-300 with an empty polygon).
    public static let minimumBufferDistance = 1e-6

    /// The one rule for the size of a non-zero buffer distance, which the buffers, the command line and the viewer
    /// all apply: why `distance` cannot be used, or `nil` when it can (zero, or |distance| from
    /// `minimumBufferDistance` to `maximumBufferDistance`). Not finite is left to the callers (their messages
    /// name the value as they read it).
    /// - Parameters:
    ///   - distance: The distance, in its unit.
    ///   - metersPerUnit: Meters per unit of `distance` (1 for meters and for coordinates without a unit).
    ///   - unit: The unit's name or abbreviation for the message, e.g. "mi"; `nil` to show the plain number.
    /// - Returns: A reason naming the value (and its meters, for another unit) and the limit, e.g. "|1e-300| mi
    ///   (1.61e-297 m) is less than 1 µm, the smallest buffer distance (planar and geodesic alike)".
    public static func bufferDistanceProblem(_ distance: Double, metersPerUnit: Double, unit: String? = nil)
        -> String?
    {
        let meters = abs(distance) * metersPerUnit
        guard distance.isFinite, distance != 0 else { return nil }
        var value = String(format: "|%.10g|", distance) + (unit.map { " " + $0 } ?? "")
        if meters < minimumBufferDistance {
            if metersPerUnit != 1 { value += String(format: " (%.3g m)", meters) }
            return value + " is less than 1 µm, the smallest buffer distance (planar and geodesic alike)"
        }
        if meters > maximumBufferDistance {
            if metersPerUnit != 1 { value += String(format: " (%.0f m)", meters) }
            return value + String(format: " exceeds half the Earth's circumference (%.0f m), the largest buffer distance", maximumBufferDistance)
        }
        return nil
    }

    /// Buffers one geometry in its own (projected) spatial reference (ArcGIS's `buffer(around:distance:)`).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or envelope in a projected spatial reference.
    ///   - distance: The buffer distance, in `distanceUnit` or, when that is `nil`, in the spatial reference's unit
    ///     (US survey feet for EPSG:32038). Negative shrinks polygons; zero or negative gives points and lines an
    ///     empty polygon (as GEOS, JTS and ArcGIS do). Its size in meters must not exceed `maximumBufferDistance`.
    ///   - distanceUnit: The unit of `distance`; `nil` (default) for the spatial reference's own unit, as ArcGIS.
    ///   - parameters: Segments per quarter circle, end caps and joins.
    /// - Returns: The buffer polygon (possibly empty, e.g. a polygon shrunk to nothing).
    /// - Throws: `EngineError.geographicCoordinatesRefused` for degree coordinates (use `geodeticBuffer`),
    ///   `.spatialReferenceRequired` for a `distanceUnit` with an unspecified spatial reference,
    ///   `.invalidDistance`, `.invalidGeometry` for self-intersecting polygons, `.badGeometry`.
    public static func buffer(
        around geometry: some GeometryConvertible, distance: Double, distanceUnit: LinearUnit? = nil,
        parameters: BufferParameters = .default
    ) throws(EngineError) -> Polygon {
        try buffer(around: [geometry.geometry], distances: [distance], distanceUnit: distanceUnit, shouldUnion: false,
                   parameters: parameters)[0]
    }

    /// Buffers several geometries, one distance each, and returns one polygon per geometry or one unioned polygon
    /// (ArcGIS's `buffer(around:distances:shouldUnion:)`).
    ///
    /// Distance rule: give exactly one distance per geometry, or a single distance for all of them; any other count
    /// is an error (`distanceCountMismatch`), never silently padded or truncated.
    /// - Parameters:
    ///   - geometries: Geometries in one projected spatial reference.
    ///   - distances: Distances in `distanceUnit` or, when that is `nil`, in the spatial reference's unit (see
    ///     `buffer(around:distance:distanceUnit:parameters:)`).
    ///   - distanceUnit: The unit of `distances`; `nil` (default) for the spatial reference's own unit, as ArcGIS.
    ///   - shouldUnion: `true` to dissolve all buffers into one (multi-part) polygon.
    ///   - parameters: Segments per quarter circle, end caps and joins.
    /// - Returns: `geometries.count` polygons, or one polygon when `shouldUnion` (none when `geometries` is empty).
    public static func buffer(
        around geometries: [some GeometryConvertible], distances: [Double], distanceUnit: LinearUnit? = nil,
        shouldUnion: Bool, parameters: BufferParameters = .default
    ) throws(EngineError) -> [Polygon] {
        if shouldUnion, let points = Self.points(geometries),
           let union = try unionOfPointBuffers(points, distances: distances, distanceUnit: distanceUnit,
                                               parameters: parameters) {
            return [union]
        }
        let gs = geometries.map { $0.geometry }
        guard let (sr, distances) = try checkedDistances(
            distances, count: gs.count, spatialReference: gs.first?.spatialReference,
            other: { sr in gs.first(where: { $0.spatialReference != sr })?.spatialReference },
            unit: distanceUnit, parameters: parameters)
        else { return [] }
        // A union admits each buffer on its own (the pieces are dissolved as it goes) and counts its result; separate
        // buffers are admitted together.
        var largest = 0, sum = 0.0
        for g in gs {
            let n = estimatedBufferVertices(g, segmentsPerQuarterCircle: parameters.segmentsPerQuarterCircle)
            largest = max(largest, n)
            sum += Double(n)
        }
        try WorkBudget.admit(vertices: shouldUnion ? Double(largest) : sum,
                             for: shouldUnion ? "a buffer of the union" : "the buffers")
        if shouldUnion, let c = PointBufferUnion.circles(gs, distances: distances, parameters: parameters) {
            // Point buffers: built directly and unioned by CircleUnion (GEOS only for degenerate configurations).
            let union = try PointBufferUnion.union(x: c.x, y: c.y, radius: c.radius, parameters: parameters, in: sr).0
            try WorkBudget.produce(vertices: union.vertexCount, by: "the union of the buffers")
            return [union]
        }
        let distanceOf: @Sendable (Int) -> Double = { [distances] i in distances.count == 1 ? distances[0] : distances[i] }
        if !shouldUnion {
            return try bufferEach(gs, distance: distanceOf, parameters: parameters, in: sr)
        }
        let context = try GEOSContext()
        let params = try GEOSBufferParameters(parameters, context: context)
        var merged = BufferPreUnion(geometries: gs,
                                    distances: gs.indices.map(distanceOf),
                                    tolerances: Array(repeating: 0, count: gs.count))
        if shouldUnion && parameters.joinStyle == .round {
            // Polygons at the same positive distance are merged first where that is exact (`BufferPreUnion`).
            // Not with mitred or bevelled joins: a corner of one polygon that the union fills would stick out.
            merged = try BufferPreUnion(merged.geometries, distances: merged.distances, tolerances: merged.tolerances,
                                        context: context)
        }
        var buffers: [GEOSGeometryRef] = []
        buffers.reserveCapacity(merged.geometries.count)
        for (k, g) in merged.geometries.enumerated() {
            let i = merged.indices[k], d = merged.distances[k]
            let input = try context.make(g)
            do { try context.requireValid(input, g) } catch .invalidGeometry(let reason) {
                throw EngineError.invalidGeometry(reason: reason).at(EngineError.Location(geometry: i))
            }
            buffers.append(try input.buffer(d, params))
        }
        let union = try context.polygon(try context.unaryUnion(of: buffers), in: sr)
        try WorkBudget.produce(vertices: union.vertexCount, by: "the union of the buffers")
        return [union]
    }

    /// The union of round buffers around `Point`s for `buffer(around:distances:distanceUnit:shouldUnion:parameters:)`,
    /// without a `Geometry` made of every point: the same checks in the same order, so the same errors, and the
    /// same polygon (`PointBufferUnion`). Making and then reading a `Geometry` per point copies its spatial
    /// reference each time (a tenth of the whole union's instructions for 100,000 points, all on one thread).
    /// - Returns: nil, for the general path, when there are no points, the caps are not round, or a point or
    ///   distance is not one `PointBufferUnion` takes (that path then checks the same again and goes to GEOS).
    private static func unionOfPointBuffers(
        _ points: [Point], distances: [Double], distanceUnit: LinearUnit?, parameters: BufferParameters
    ) throws(EngineError) -> Polygon? {
        guard parameters.endCapStyle == .round,
              let (sr, distances) = try checkedDistances(
                  distances, count: points.count, spatialReference: points.first?.spatialReference,
                  other: { sr in Self.firstOther(than: sr, in: points) }, unit: distanceUnit, parameters: parameters)
        else { return nil }
        let probe = Geometry.point(points[0])  // every point's buffer has as many vertices
        try WorkBudget.admit(vertices: Double(estimatedBufferVertices(probe, segmentsPerQuarterCircle:
                                                                        parameters.segmentsPerQuarterCircle)),
                             for: "a buffer of the union")
        var x: [Double] = [], y: [Double] = []
        x.reserveCapacity(points.count)
        y.reserveCapacity(points.count)
        // Read in place: `for p in points` copies each point, retaining and releasing its spatial reference's fields.
        let finite = points.withUnsafeBufferPointer { (b: UnsafeBufferPointer<Point>) -> Bool in
            for i in b.indices {
                let c = b[i].coordinate
                guard c.x.isFinite, c.y.isFinite else { return false }
                x.append(c.x)
                y.append(c.y)
            }
            return true
        }
        guard finite else { return nil }
        guard distances.allSatisfy({ $0 > 0 }) else { return nil }
        let radius = distances.count == 1 ? Array(repeating: distances[0], count: points.count) : distances
        let union = try PointBufferUnion.union(x: x, y: y, radius: radius, parameters: parameters, in: sr).0
        try WorkBudget.produce(vertices: union.vertexCount, by: "the union of the buffers")
        return union
    }

    /// The spatial reference of the first point not in `sr`, nil when all are: compared in place, without a copy of
    /// each point (copies retain and release the spatial reference's fields: a twentieth of the union of 100,000
    /// points, all on one thread).
    private static func firstOther(than sr: SpatialReference, in points: [Point]) -> SpatialReference? {
        points.withUnsafeBufferPointer { (b: UnsafeBufferPointer<Point>) -> SpatialReference? in
            for i in b.indices where b[i].spatialReference.definition != sr.definition { return b[i].spatialReference }
            return nil
        }
    }

    /// `geometries` as the `[Point]` they are, or nil for any other element type: no cast of each element (a
    /// conditional cast of an array copies every element, 480 instructions a point).
    private static func points<T: GeometryConvertible>(_ geometries: [T]) -> [Point]? {
        T.self == Point.self ? unsafeBitCast(geometries, to: [Point].self) : nil  // (the same type: the same layout)
    }

    /// The spatial reference of the geometries and their distances, checked as a planar buffer needs them, in this
    /// order: one distance per geometry or one for all, every geometry in the first one's spatial reference, the
    /// distances converted from `unit` when one is given (refused for an unspecified or geographic spatial
    /// reference), a projected spatial reference, 1…1000 chords per quarter circle, and each distance finite and at
    /// most half the Earth's circumference (the first one that is not named by its geometry's index); the distances
    /// in the spatial reference's unit. Nil for no geometries.
    /// - Parameters:
    ///   - distances: One distance for all, or one per geometry.
    ///   - count: How many geometries.
    ///   - first: The first geometry's spatial reference (nil: no geometries).
    ///   - other: The first geometry's spatial reference that differs from the one given, nil when none does.
    ///   - distanceUnit: The distances' unit, nil for the spatial reference's.
    ///   - parameters: The buffer parameters (chords per quarter circle).
    private static func checkedDistances(
        _ distances: [Double], count: Int, spatialReference first: SpatialReference?,
        other: (SpatialReference) -> SpatialReference?, unit distanceUnit: LinearUnit?, parameters: BufferParameters
    ) throws(EngineError) -> (SpatialReference, [Double])? {
        guard let sr = first else { return nil }
        guard distances.count == count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: count, distances: distances.count)
        }
        if let other = other(sr) { throw .spatialReferenceMismatch(sr, other) }
        var distances = distances
        if let distanceUnit {
            if sr.isUnspecified {
                throw .spatialReferenceRequired(operation: "a buffer distance with a unit (give a plain number, in the coordinates' unit)")
            }
            guard let unit = sr.unit, sr.isProjected else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
            distances = distances.map { distanceUnit.convert($0, to: unit) }
        }
        guard !sr.isGeographic else { throw .geographicCoordinatesRefused(operation: "a planar buffer") }
        guard (1...1000).contains(parameters.segmentsPerQuarterCircle) else {
            throw .invalidDistance("segments per quarter circle must be in 1…1000, got \(parameters.segmentsPerQuarterCircle)")
        }
        let metersPerUnit = sr.unit?.metersPerUnit ?? 1
        // One distance for all: the first geometry's is the first to fail, if any.
        for i in 0..<(distances.count == 1 ? min(count, 1) : count) {
            try validate(distance: distances[i], index: i, metersPerUnit: metersPerUnit)
        }
        return (sr, distances)
    }

    /// About how many vertices planar buffers of these geometries have, without computing them (what
    /// `WorkBudget.admit(vertices:for:)` is asked before buffering): a circle of 4·`segmentsPerQuarterCircle` + 1
    /// vertices per point, per line part and per polygon part, and two offset vertices per input vertex.
    /// - Parameters:
    ///   - geometries: The geometries to buffer.
    ///   - segmentsPerQuarterCircle: Chords per quarter circle (`BufferParameters`).
    /// - Returns: The estimate (`Int.max` when it overflows).
    public static func estimatedBufferVertices(_ geometries: [Geometry], segmentsPerQuarterCircle: Int) -> Int {
        var total = 0
        for g in geometries {
            let n = estimatedBufferVertices(g, segmentsPerQuarterCircle: segmentsPerQuarterCircle)
            total = total.addingReportingOverflow(n).overflow ? Int.max : total + n
        }
        return total
    }

    /// `estimatedBufferVertices(_:segmentsPerQuarterCircle:)` of one geometry, counted in place.
    static func estimatedBufferVertices(_ g: Geometry, segmentsPerQuarterCircle: Int) -> Int {
        let circle = 4 * segmentsPerQuarterCircle + 1
        switch g {
        case .point: return circle
        case .multipoint(let m): return m.coordinates.count.multipliedReportingOverflow(by: circle).partialValue
        case .polyline(let l): return 2 * l.parts.reduce(0) { $0 + $1.count } + l.parts.count * circle
        case .polygon(let p): return 2 * p.vertexCount + p.parts.count * circle
        case .envelope: return 8 + circle
        }
    }

    /// Geometries buffered one by one with GEOS, in runs of at least `buffersPerRun` shared between
    /// `Parallelism.threadCount` threads (each run in its own GEOS context): the same polygons, in order, for every
    /// thread count.
    /// - Throws: The first geometry's error, in order (`invalidGeometry` naming "geometry i").
    private static func bufferEach(_ geometries: [Geometry], distance: @escaping @Sendable (Int) -> Double,
                                   parameters: BufferParameters, in sr: SpatialReference) throws(EngineError)
        -> [Polygon]
    {
        let threads = Parallelism.threadCount, n = geometries.count
        let runs = max(1, min(4 * threads, n / buffersPerRun))
        let pieces = try WorkBudget.map(count: runs, threads: threads) { (r: Int) throws(EngineError) -> [Polygon] in
            let context = try GEOSContext()
            let params = try GEOSBufferParameters(parameters, context: context)
            var result: [Polygon] = []
            for i in (n * r / runs)..<(n * (r + 1) / runs) {
                let input = try context.make(geometries[i])
                do throws(EngineError) { try context.requireValid(input, geometries[i]) } catch .invalidGeometry(let reason) {
                    throw EngineError.invalidGeometry(reason: reason).at(EngineError.Location(geometry: i))
                }
                result.append(try context.polygon(try input.buffer(distance(i), params), in: sr))
                try WorkBudget.produce(vertices: result[result.count - 1].vertexCount, by: "the buffers")
            }
            return result
        }
        return pieces.flatMap { $0 }
    }

    /// The fewest geometries `buffer(around:distances:shouldUnion: false)` hands to a thread at once.
    static let buffersPerRun = 64

    /// Refuses a buffer distance that is not finite or breaks `bufferDistanceProblem(_:metersPerUnit:unit:)`,
    /// naming the geometry it belongs to by its index.
    static func validate(distance d: Double, index: Int, metersPerUnit: Double) throws(EngineError) {
        guard d.isFinite else { throw EngineError.invalidDistance("distance \(d) is not a finite number").at(EngineError.Location(geometry: index)) }
        if let problem = bufferDistanceProblem(d, metersPerUnit: metersPerUnit) {
            throw EngineError.invalidDistance(problem).at(EngineError.Location(geometry: index))
        }
    }
}
