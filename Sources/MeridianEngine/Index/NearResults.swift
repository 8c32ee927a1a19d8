import MeridianCore

/// One feature found near a query geometry by a spatial index: which one and how far (ArcGIS Pro's Near tool writes
/// these as `NEAR_FID` and `NEAR_DIST`).
public struct NearFeature: Sendable, Hashable {
    /// The position of the feature in the array the index was built from.
    public var index: Int
    /// The distance from the query geometry to the feature (planar: in the spatial reference's unit; geodesic: in
    /// the unit the query asked for, meters by default).
    public var distance: Double

    /// Creates a result.
    /// - Parameters:
    ///   - index: The position of the feature in the indexed array.
    ///   - distance: Its distance from the query geometry.
    public init(index: Int, distance: Double) {
        self.index = index
        self.distance = distance
    }
}

/// One row of a near table: an input feature, a near feature within reach of it, their distance and the near
/// feature's rank among the input feature's matches (ArcGIS Pro's Generate Near Table writes `IN_FID`, `NEAR_FID`,
/// `NEAR_DIST` and `NEAR_RANK`).
///
/// Tables are ordered by `leftIndex`, then `distance`, then `rightIndex`; `rank` counts from 1 within one input
/// feature in that order, so equally distant near features are ranked by their index.
public struct NearPair: Sendable, Hashable {
    /// The position of the input ("left") feature in its array.
    public var leftIndex: Int
    /// The position of the near ("right") feature in its array (or in the index it was looked up in).
    public var rightIndex: Int
    /// Their distance, in the unit the call states.
    public var distance: Double
    /// 1 for the input feature's nearest match, 2 for the next, …
    public var rank: Int

    /// Creates a row.
    /// - Parameters:
    ///   - leftIndex: The input feature's position.
    ///   - rightIndex: The near feature's position.
    ///   - distance: Their distance.
    ///   - rank: The near feature's rank among the input feature's matches, from 1.
    public init(leftIndex: Int, rightIndex: Int, distance: Double, rank: Int) {
        self.leftIndex = leftIndex
        self.rightIndex = rightIndex
        self.distance = distance
        self.rank = rank
    }
}

// MARK: - Checks shared by the planar and geodesic proximity entry points

extension GeometryEngine {
    /// One distance per input feature from a list of one for all or one each.
    /// - Throws: `.distanceCountMismatch` for any other count; `.invalidDistance` for a distance that is negative,
    ///   NaN or infinite, naming the input feature it belongs to (the first one for a single distance).
    static func proximityDistances(_ distances: [Double], count: Int) throws(EngineError) -> (Int) -> Double {
        guard distances.count == count || distances.count == 1 else {
            throw .distanceCountMismatch(geometries: count, distances: distances.count)
        }
        for (i, d) in distances.enumerated() where !(d >= 0 && d.isFinite) {
            let refusal = "is \(d); a search distance must be finite and 0 or more"
            guard distances.count > 1 else { throw .invalidDistance("the distance " + refusal) }
            throw EngineError.invalidDistance("its distance " + refusal).at(EngineError.Location(.inputFeatures, geometry: i))
        }
        return distances.count == 1 ? { _ in distances[0] } : { distances[$0] }
    }

    /// Checks a nearest-neighbour request: `k` ≥ 1 and a `maxDistance` that is nil or finite and ≥ 0.
    static func checkNearest(k: Int, maxDistance: Double?) throws(EngineError) {
        guard k >= 1 else { throw .invalidArgument("the number of nearest features must be 1 or more, got \(k)") }
        if let m = maxDistance, !(m >= 0 && m.isFinite) {
            throw .invalidDistance("the maximum distance is \(m); it must be finite and 0 or more")
        }
    }

    /// The geometries of the input features: the array itself when it holds geometries (no copy of each).
    static func proximityGeometries<T: GeometryConvertible>(_ items: [T]) -> [Geometry] {
        if T.self == Geometry.self { return unsafeBitCast(items, to: [Geometry].self) }
        return items.map { $0.geometry }
    }

    /// Refuses a geometry without vertices or with a non-finite coordinate, located at `location` (nil: the error
    /// names "the query geometry").
    static func checkProximityGeometry(_ g: Geometry, at location: EngineError.Location?) throws(EngineError) {
        let kind = "(a \(g.typeName.lowercased()))"
        guard !g.coordinates.isEmpty else {
            throw proximityError(.badGeometry(.empty("\(kind) has no vertices")), at: location)
        }
        for c in g.coordinates where !(c.x.isFinite && c.y.isFinite) {
            throw proximityError(.badGeometry(.nonFiniteCoordinate("\(kind) has the coordinate (\(c.x), \(c.y))")),
                                 at: location)
        }
    }

    /// `error`, whose message goes on from the geometry's name, located at `location`, or naming "the query
    /// geometry" when there is no location.
    static func proximityError(_ error: EngineError, at location: EngineError.Location?) -> EngineError {
        location.map { error.at($0) } ?? error.naming("the query geometry") ?? error
    }

    /// The rows of a near table from each input feature's matches (already sorted by distance, then index).
    static func nearTable(_ matches: [[NearFeature]]) -> [NearPair] {
        var rows: [NearPair] = []
        rows.reserveCapacity(matches.reduce(0) { $0 + $1.count })
        for (left, found) in matches.enumerated() { appendNearRows(found, left: left, to: &rows) }
        return rows
    }

    /// Appends the rows of input feature `left`'s matches (sorted by distance, then index), ranked from 1, each
    /// distance given through `distance` (a unit conversion; as measured by default).
    @inline(__always)
    static func appendNearRows(_ found: [NearFeature], left: Int, distance: (Double) -> Double = { $0 },
                               to rows: inout [NearPair]) {
        for (rank, f) in found.enumerated() {
            rows.append(NearPair(leftIndex: left, rightIndex: f.index, distance: distance(f.distance), rank: rank + 1))
        }
    }
}

extension Array {
    /// Empties the array and keeps its memory, removing from the end: for a search's scratch arrays (its answer,
    /// candidates and stack, empty or of a few items) a handful of instructions, where `removeAll(keepingCapacity:
    /// true)` goes through `replaceSubrange` (47 instructions a search, callgrind).
    @inline(__always)
    mutating func removeAllKeepingCapacity() {
        while !isEmpty { removeLast() }
    }
}
