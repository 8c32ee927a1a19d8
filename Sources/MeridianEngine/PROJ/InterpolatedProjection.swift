import Foundation
import MeridianCore

/// Projects many vertices out of a projected spatial reference into a geographic one with PROJ run on a few points
/// per tile instead of on every vertex: the idea of GDAL's approximate transformer, with a threshold far below
/// anything a map or a measurement can see.
///
/// The plane is cut into square tiles (`tileMeters` on a side to begin with). In a tile, longitude and latitude are
/// each replaced by the tensor Chebyshev interpolant of degree `degree` through PROJ's values at
/// (`degree` + 1)² Chebyshev points of the tile. The interpolant is kept only when it matches PROJ within
/// `tolerance` degrees (1e-11°, about 1 µm on the ground) at `checksPerSide`² more points of the tile, its corners
/// and the middles of its edges among them; otherwise the tile is cut into four, down to 1 km (`deepestLevel`), and
/// the vertices of a tile that never passes go through PROJ. So do the vertices of a ring with a height, and every
/// vertex of a tile that PROJ cannot take whole or that reaches outside the source's area of use widened by a tenth
/// (where `BareInverse` compared PROJ's step with the full operation).
///
/// Why the interpolant is right: it is used only for operations that are one analytic projection step
/// (`Transformation.runsBareInverse`: no grids, no datum shifts), whose inverse is smooth wherever it is defined, and
/// a degree-5 interpolant of such a function over 32 km differs from it by less than rounding. Measured for
/// EPSG:5070 → WGS 84 against pyproj on 41 × 41 points per tile: at most 1.4e-13° (32 km and 64 km tiles alike),
/// about as much as two doubles apart at longitude 96°. The checks' threshold is some 70 times that; a tile whose
/// interpolant is off by more shows it at its check points (the error of an interpolant through Chebyshev points
/// grows towards the tile's corners and edges, where the checks are), and the Python harness compares every output
/// vertex with pyproj.
///
/// Why it is worth it: PROJ's inverse Albers costs about 250 ns per vertex (an iteration with a logarithm and a
/// sine and cosine per step); the interpolant about 20 ns, plus 61 PROJ calls per tile (a union of 100,000
/// buffers over 580 km × 580 km of CONUS touches about 400 tiles and has 5.1 million vertices).
///
/// Thread-safe: tiles are shared between threads (made by whichever thread first needs one, kept in a cache under a
/// lock, at most `cacheLimit` of them); a tile's interpolant depends only on the tile, so results do not depend on
/// which thread made it.
public final class InterpolatedProjection: @unchecked Sendable {
    /// The spatial reference of the coordinates given.
    public let source: SpatialReference
    /// The spatial reference of the coordinates produced.
    public let target: SpatialReference
    /// Whether tiles are used at all; false when the operation is not one analytic projection step into a geographic
    /// spatial reference, or the source has no area of use clear of ±180°: then every vertex goes through PROJ.
    public let interpolates: Bool

    /// The largest difference in degrees allowed between a tile's interpolant and PROJ at the tile's check points.
    public static let tolerance = 1e-11
    /// The degree of the interpolant in x and in y (`TileModel.evaluate` is written out for 5).
    static let degree = 5
    /// Check points per side of a tile, evenly spaced from edge to edge.
    static let checksPerSide = 5
    /// The side of a tile before any cut, in meters.
    static let tileMeters = 32_000.0
    /// How often a tile may be cut into four (32 km down to 1 km).
    static let deepestLevel = 5
    /// Tiles kept at most; the cache is emptied when it is full (a tile costs about 1 KB, 61 PROJ calls to remake).
    static let cacheLimit = 16_384

    private let transformation: Transformation
    /// The threshold the checks use (`tolerance`, but in tests).
    private let checkTolerance: Double
    /// Tile sides in source units by level, and their inverses.
    private let sides: [Double]
    private let inverseSides: [Double]
    /// The source's area of use widened by a tenth on each side (`BareInverse.comparedBox`; degrees, clear of ±180°
    /// whenever `interpolates`).
    private let west: Double, south: Double, east: Double, north: Double
    private let lock = NSLock()
    private var tiles: [TileKey: Tile] = [:]

    /// A projection between two spatial references that interpolates where it can (see the type's description).
    /// - Parameters:
    ///   - source: The coordinates' spatial reference.
    ///   - target: The spatial reference wanted.
    /// - Throws: `EngineError.proj` when PROJ has no operation between them.
    public convenience init(from source: SpatialReference, to target: SpatialReference) throws(EngineError) {
        try self.init(from: source, to: target, tolerance: Self.tolerance)
    }

    /// `init(from:to:)` with another threshold for the checks (tests make every tile fail with 0).
    init(from source: SpatialReference, to target: SpatialReference, tolerance: Double) throws(EngineError) {
        checkTolerance = tolerance
        self.source = source
        self.target = target
        transformation = try Transformation.between(source, target)
        let unit = source.unit?.metersPerUnit ?? 0
        let side = unit > 0 ? Self.tileMeters / unit : 0
        sides = (0...Self.deepestLevel).map { side / Double(1 << $0) }
        inverseSides = sides.map { 1 / $0 }
        // Where BareInverse compared the projection step with the whole operation (none: nothing interpolated).
        let box = source.areaOfUse.map(BareInverse.comparedBox) ?? (west: 0, south: 0, east: 0, north: 0)
        (west, south, east, north) = box
        interpolates = source != target && source.isProjected && target.kind == .geographic && side > 0
            && transformation.runsBareInverse && box.west > -180 && box.east < 180 && box.west < box.east
    }

    /// Projects a polygon in place, ring by ring.
    /// - Parameter polygon: A polygon in `source`; in `target` on success (discard it when this throws: it may be
    ///   partly projected).
    /// - Throws: `EngineError.spatialReferenceMismatch` for a polygon not in `source`, `.projectionFailed` naming
    ///   the ring's first vertex that PROJ cannot transform.
    public func project(_ polygon: inout Polygon) throws(EngineError) {
        guard polygon.spatialReference == source else {
            throw .spatialReferenceMismatch(source, polygon.spatialReference)
        }
        guard source != target else { return }
        var parts = polygon.parts
        polygon = Polygon(parts: [], spatialReference: target)  // drops the other reference to the rings
        for i in parts.indices {
            var shell = parts[i].shell
            parts[i].shell = []
            try transform(&shell)
            parts[i].shell = shell
            for h in parts[i].holes.indices {
                var hole = parts[i].holes[h]
                parts[i].holes[h] = []
                try transform(&hole)
                parts[i].holes[h] = hole
            }
        }
        polygon = Polygon(parts: parts, spatialReference: target)
    }

    /// Transforms coordinates from `source` to `target` in place.
    /// - Parameter coordinates: Coordinates in `source`; unchanged when this throws.
    /// - Throws: `EngineError.projectionFailed` naming the first vertex (by index) that PROJ cannot transform.
    public func transform(_ coordinates: inout [Coordinate]) throws(EngineError) {
        guard source != target else { return }
        guard interpolates, !coordinates.contains(where: { $0.z != nil }) else {
            _ = try transformation.transform(&coordinates, reportsOperation: false)
            return
        }
        var result = coordinates
        var byPROJ: [Int] = []
        // The current tile's coefficients are copied next to the loop, so evaluating a vertex reads no array.
        let count = (Self.degree + 1) * (Self.degree + 1)
        withUnsafeTemporaryAllocation(of: SIMD2<Double>.self, capacity: count) { scratch in
            let coefficients = UnsafeBufferPointer(scratch)
            result.withUnsafeMutableBufferPointer { r in
                var model: TileModel?
                for i in r.indices {
                    let c = r[i]
                    if let m = model, m.contains(c.x, c.y) {
                        r[i] = m.evaluate(c.x, c.y, coefficients: coefficients)
                    } else if let m = resolve(c.x, c.y) {
                        model = m
                        _ = scratch.initialize(fromContentsOf: m.coefficients)
                        r[i] = m.evaluate(c.x, c.y, coefficients: coefficients)
                    } else {
                        byPROJ.append(i)
                    }
                }
            }
        }
        if !byPROJ.isEmpty {
            var rest = byPROJ.map { coordinates[$0] }
            _ = try transformation.transform(&rest, reportsOperation: false, vertexNumbers: byPROJ)
            for (k, i) in byPROJ.enumerated() { result[i] = rest[k] }
        }
        coordinates = result
    }

    /// How many tiles are cached, by kind; for tests.
    var tileCounts: (interpolated: Int, cut: Int, byPROJ: Int) {
        lock.withLock {
            tiles.values.reduce(into: (0, 0, 0)) { n, tile in
                switch tile {
                case .model: n.0 += 1
                case .cut: n.1 += 1
                case .byPROJ: n.2 += 1
                }
            }
        }
    }

    // MARK: - Tiles

    private struct TileKey: Hashable {
        let level: Int
        let i: Int
        let j: Int
    }

    private enum Tile {
        /// The tile's interpolant.
        case model(TileModel)
        /// Cut into four: look at the next level.
        case cut
        /// Its vertices go through PROJ.
        case byPROJ
    }

    /// The tile's index along one axis at `level`, or nil for a coordinate too large (or not finite) to index.
    private func index(_ x: Double, level: Int) -> Int? {
        let t = (x * inverseSides[level]).rounded(.down)
        return abs(t) < 1e15 ? Int(t) : nil
    }

    /// The interpolant that applies at (x, y), making tiles as needed; nil when the vertex goes through PROJ.
    private func resolve(_ x: Double, _ y: Double) -> TileModel? {
        for level in 0...Self.deepestLevel {
            guard let i = index(x, level: level), let j = index(y, level: level) else { return nil }
            let key = TileKey(level: level, i: i, j: j)
            let tile = lock.withLock { tiles[key] } ?? makeTile(key)
            switch tile {
            case .model(let m): return m
            case .byPROJ: return nil
            case .cut: continue
            }
        }
        return nil
    }

    /// The Chebyshev points of the first kind on [-1, 1], from 1 down to -1.
    private static let nodes: [Double] = (0...degree).map { cos(Double.pi * (Double($0) + 0.5) / Double(degree + 1)) }

    /// Makes a tile (see the type's description) and caches it.
    private func makeTile(_ key: TileKey) -> Tile {
        let n = Self.degree + 1, side = sides[key.level]
        let xc = (Double(key.i) + 0.5) * side, yc = (Double(key.j) + 0.5) * side, half = side / 2
        let checks = (0..<Self.checksPerSide).map { -1 + 2 * Double($0) / Double(Self.checksPerSide - 1) }
        var points: [Coordinate] = []
        points.reserveCapacity(n * n + checks.count * checks.count)
        for u in Self.nodes { for v in Self.nodes { points.append(Coordinate(x: xc + u * half, y: yc + v * half)) } }
        for u in checks { for v in checks { points.append(Coordinate(x: xc + u * half, y: yc + v * half)) } }
        let tile: Tile
        do throws(EngineError) {
            var values = points
            _ = try transformation.transform(&values, reportsOperation: false)
            let inside = values.allSatisfy { $0.x >= west && $0.x <= east && $0.y >= south && $0.y <= north }
            if !inside {
                tile = .byPROJ
            } else {
                let model = TileModel(level: key.level, i: key.i, j: key.j, side: side, values: values[..<(n * n)])
                // Written so that a NaN fails the check.
                let passes = ((n * n)..<points.count).allSatisfy { k in
                    let p = model.evaluate(points[k].x, points[k].y)
                    return abs(p.x - values[k].x) <= checkTolerance && abs(p.y - values[k].y) <= checkTolerance
                }
                tile = passes ? .model(model) : key.level < Self.deepestLevel ? .cut : .byPROJ
            }
        } catch {
            tile = key.level < Self.deepestLevel ? .cut : .byPROJ
        }
        lock.withLock {
            if tiles.count >= Self.cacheLimit { tiles.removeAll(keepingCapacity: true) }
            tiles[key] = tile
        }
        return tile
    }
}

/// A tile's interpolants: longitude and latitude as sums of c_kl T_k(u) T_l(v) over k, l ≤ `degree`, for the
/// tile's coordinates u, v in [-1, 1], plus the value at the first node (the sums are of small numbers, added to it
/// last, so rounding stays at the last place of the result).
private struct TileModel: Sendable {
    let level: Int
    let i: Double, j: Double
    let inverseSide: Double
    let xc: Double, yc: Double, scale: Double
    /// Longitude and latitude at the first node.
    let origin: SIMD2<Double>
    /// c_kl for longitude and latitude at [k × n + l], n = `degree` + 1.
    let coefficients: [SIMD2<Double>]

    /// The interpolants through `values` (longitude in x, latitude in y) at the tile's Chebyshev points, in the
    /// order (node u, node v) with v varying fastest.
    init(level: Int, i: Int, j: Int, side: Double, values: ArraySlice<Coordinate>) {
        let n = InterpolatedProjection.degree + 1
        self.level = level
        self.i = Double(i)
        self.j = Double(j)
        inverseSide = 1 / side
        xc = (Double(i) + 0.5) * side
        yc = (Double(j) + 0.5) * side
        scale = 2 / side
        let first = values[values.startIndex]
        origin = SIMD2(first.x, first.y)
        // T_k at node a: cos(k π (a + ½) / n).
        let t = (0..<n).map { k in (0..<n).map { a in cos(Double(k) * Double.pi * (Double(a) + 0.5) / Double(n)) } }
        var c: [SIMD2<Double>] = []
        for k in 0..<n {
            for l in 0..<n {
                var sum = SIMD2<Double>()
                for a in 0..<n {
                    for b in 0..<n {
                        let v = values[values.startIndex + a * n + b]
                        sum += (SIMD2(v.x, v.y) - origin) * (t[k][a] * t[l][b])
                    }
                }
                c.append(sum * ((k == 0 ? 1 : 2) * (l == 0 ? 1 : 2) / Double(n * n)))
            }
        }
        coefficients = c
    }

    /// Whether (x, y) lies in this tile (the same test `InterpolatedProjection.resolve` makes).
    @inline(__always)
    func contains(_ x: Double, _ y: Double) -> Bool {
        (x * inverseSide).rounded(.down) == i && (y * inverseSide).rounded(.down) == j
    }

    /// Longitude and latitude at (x, y).
    func evaluate(_ x: Double, _ y: Double) -> Coordinate {
        coefficients.withUnsafeBufferPointer { evaluate(x, y, coefficients: $0) }
    }

    /// Longitude and latitude at (x, y), with the coefficients read from `c` (a copy of `coefficients` the caller
    /// keeps at hand while it evaluates many vertices of the tile).
    @inline(__always)
    func evaluate(_ x: Double, _ y: Double, coefficients c: UnsafeBufferPointer<SIMD2<Double>>) -> Coordinate {
        let u = (x - xc) * scale, v = (y - yc) * scale
        // T_0 … T_5 of u and of v.
        let u2 = 2 * u * u - 1, u3 = 2 * u * u2 - u, u4 = 2 * u * u3 - u2, u5 = 2 * u * u4 - u3
        let v2 = 2 * v * v - 1, v3 = 2 * v * v2 - v, v4 = 2 * v * v3 - v2, v5 = 2 * v * v4 - v3
        @inline(__always) func row(_ k: Int) -> SIMD2<Double> {
            let r = c[6 * k] + c[6 * k + 1] * v + c[6 * k + 2] * v2
            return r + c[6 * k + 3] * v3 + c[6 * k + 4] * v4 + c[6 * k + 5] * v5
        }
        var sum = row(0) + row(1) * u + row(2) * u2
        sum += row(3) * u3 + row(4) * u4 + row(5) * u5
        let p = origin + sum
        return Coordinate(x: p.x, y: p.y)
    }
}
