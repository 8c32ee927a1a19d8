import Foundation
import MeridianCore

/// Projects many vertices with PROJ run on a few points per tile instead of on every vertex: the idea of GDAL's
/// approximate transformer, with a threshold far below anything a map or a measurement can see.
///
/// The source's plane (or its longitude/latitude) is cut into square tiles (`tileMeters`, or `tileDegrees` for a
/// geographic source, on a side to begin with). In a tile, each output coordinate is replaced by the tensor
/// Chebyshev interpolant of degree `degree` through PROJ's values at (`degree` + 1)² Chebyshev points of the tile.
/// The interpolant is kept only when it matches PROJ within `bound` at `checksPerSide`² more points of the tile, its
/// corners and the middles of its edges among them: `tolerance` (1e-11°, about 1 µm on the ground) into a geographic
/// target, `metricTolerance` (1 µm) into a projected one. Otherwise the tile is cut into four, down to a thirty-second
/// of its side (`deepestLevel`), and the vertices of a tile that never passes go through PROJ. So do the vertices
/// with a height (PROJ transforms it too), and every vertex of a tile that PROJ cannot take whole, that reaches outside the area of
/// use of the source and of the target widened as their horizons are (`ProjectionHorizon.margin`, 5°; latitudes within
/// ±89.9°: longitude/latitude of its points), or where PROJ does not
/// run one smooth operation (`OperationChoice`).
///
/// Why the interpolant is right: it is used only where PROJ runs one operation without grids or time-dependent steps
/// at every point of the tile (`OperationChoice`, `SmoothOperation`: projections, unit conversions, Helmert and
/// Molodensky shifts and their concatenations), a function with derivatives of every order wherever it is defined,
/// and a degree-5 interpolant of such a function over a tile of 32 km (0.25°) differs from it by less than rounding.
/// Measured for EPSG:5070 → WGS 84 against pyproj on 41 × 41 points per tile: at most 1.4e-13° (32 km and 64 km tiles
/// alike); the Swift and Python tests measure every other case they run. The checks' threshold is some 70 times that;
/// a tile whose interpolant is off by more shows it at its check points (the error of an interpolant through
/// Chebyshev points grows towards the tile's corners and edges, where the checks are).
///
/// Why it is worth it: PROJ costs 100–500 ns per vertex (an inverse Albers iterates with a logarithm, a sine and a
/// cosine per step; NAD27 → WGS 84 converts to geocentric coordinates and back); the interpolant about 20 ns, plus
/// 61 PROJ calls per tile.
///
/// Thread-safe: tiles are shared between threads (made by whichever thread first needs one, kept in a cache under a
/// lock, at most `cacheLimit` of them); a tile's interpolant depends only on the tile, so a vertex's result depends
/// only on the vertex: not on which thread made its tile, how many threads share the vertices, or which other
/// vertices come in the same call (one vertex alone is interpolated as it would be among a million).
public final class InterpolatedProjection: @unchecked Sendable {
    /// The spatial reference of the coordinates given.
    public let source: SpatialReference
    /// The spatial reference of the coordinates produced.
    public let target: SpatialReference
    /// Whether tiles are used at all; false when PROJ runs no smooth operation between the two (a grid shift), a
    /// spatial reference is neither geographic in degrees nor projected, or neither has an area of use: then every
    /// vertex goes through PROJ.
    public let interpolates: Bool
    /// The largest difference between a tile's interpolant and PROJ allowed at the tile's check points, in the
    /// target's unit: `tolerance` degrees or `metricTolerance` meters.
    public let bound: Double

    /// The bound into a geographic target, in degrees (1e-11° is 1.1 µm of latitude, at most that of longitude).
    public static let tolerance = 1e-11
    /// The bound into a projected target, in meters: 1 µm, the ground distance of `tolerance` (a projection's scale
    /// is within a few percent of 1 where it is used, so a micrometre on the map is about one on the ground).
    public static let metricTolerance = 1e-6
    /// Arrays with at least this many vertices are shared between threads (`Parallelism.threadCount`).
    public static let parallelMinimum = 32_768
    /// The degree of the interpolant in x and in y (`TileModel.evaluate` is written out for 5).
    static let degree = 5
    /// Check points per side of a tile, evenly spaced from edge to edge.
    static let checksPerSide = 5
    /// The side of a tile before any cut, in meters, in a projected source.
    static let tileMeters = 32_000.0
    /// The side of a tile before any cut, in degrees, in a geographic source (about 28 km of latitude).
    static let tileDegrees = 0.25
    /// How often a tile may be cut into four (32 km down to 1 km).
    static let deepestLevel = 5
    /// Tiles kept at most; the cache is emptied when it is full (a tile costs about 1 KB, 61 PROJ calls to remake).
    static let cacheLimit = 16_384

    private let transformation: Transformation
    /// Where PROJ runs which operation (nil: nothing is interpolated).
    private let choice: OperationChoice?
    /// From a projected source to WGS 84, to place the points of a tile when neither end is geographic.
    private let placement: Transformation?
    /// Tile sides in source units by level, and their inverses.
    private let sides: [Double]
    private let inverseSides: [Double]
    /// Where tiles may be interpolated: their points' longitude/latitude inside every box.
    private let domain: [WidenedArea]
    private let lock = NSLock()
    private var tiles: [ProjectionTileKey: ProjectionTile] = [:]

    /// A projection between two spatial references that interpolates where it can (see the type's description).
    /// - Parameters:
    ///   - source: The coordinates' spatial reference.
    ///   - target: The spatial reference wanted.
    /// - Throws: `EngineError.proj` when PROJ has no operation between them.
    public convenience init(from source: SpatialReference, to target: SpatialReference) throws(EngineError) {
        try self.init(Transformation.between(source, target), bound: nil)
    }

    /// `init(from:to:)` with another threshold for the checks, in the target's unit (tests make every tile fail with
    /// 0).
    convenience init(from source: SpatialReference, to target: SpatialReference, tolerance: Double) throws(EngineError) {
        try self.init(Transformation.between(source, target), bound: tolerance)
    }

    /// Interpolates `transformation` (PROJ's choice, or a chosen pipeline); `bound` nil for the default.
    init(_ transformation: Transformation, bound: Double?) throws(EngineError) {
        let source = transformation.source, target = transformation.target
        self.source = source
        self.target = target
        self.transformation = transformation
        let targetUnit = target.isProjected ? target.unit?.metersPerUnit ?? 0 : 1
        self.bound = bound ?? (target.isProjected ? Self.metricTolerance / targetUnit : Self.tolerance)
        let side = source.isProjected ? Self.tileMeters / (source.unit?.metersPerUnit ?? .infinity) : Self.tileDegrees
        sides = (0...Self.deepestLevel).map { side / Double(1 << $0) }
        inverseSides = sides.map { 1 / $0 }
        domain = [source.areaOfUse, target.areaOfUse].compactMap { $0.map(WidenedArea.init) }
        let kinds = [source, target].allSatisfy { $0.isProjected || ($0.isGeographic && Self.usesDegrees($0)) }
        let usable = source != target && kinds && side > 0 && side.isFinite && targetUnit > 0 && !domain.isEmpty
        let choice = usable ? try transformation.operationChoice() : nil
        self.choice = choice
        placement = usable && source.isProjected && target.isProjected
            ? try Transformation.between(source, .wgs84) : nil
        interpolates = choice.map { !($0.candidates.isEmpty && !$0.single.isSmooth) } ?? false
    }

    nonisolated(unsafe) private static var shared: [String: InterpolatedProjection] = [:]
    private static let sharedLock = NSLock()

    /// The projection between two spatial references, made once and kept (with its tiles) for every later call.
    /// - Parameters:
    ///   - pipeline: A PROJ pipeline to run instead of the operation PROJ would choose.
    ///   - inverse: Run `pipeline` backwards (it leads from `target` to `source`).
    /// - Throws: `EngineError.proj` when PROJ has no operation between them.
    static func between(_ source: SpatialReference, _ target: SpatialReference, pipeline: String? = nil,
                        inverse: Bool = false) throws(EngineError) -> InterpolatedProjection
    {
        let key = [source.definition, target.definition, pipeline ?? "", inverse ? "inverse" : ""]
            .joined(separator: "\u{0}")
        if let p = sharedLock.withLock({ shared[key] }) { return p }
        let made = try InterpolatedProjection(
            Transformation.between(source, target, pipeline: pipeline, inverse: inverse), bound: nil)
        return sharedLock.withLock {
            if let p = shared[key] { return p }
            if shared.count > 64 { shared.removeAll() }
            shared[key] = made
            return made
        }
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
        var local = LocalTiles()  // one table for all the rings (a union has hundreds of thousands of small ones)
        defer { local.release() }
        for i in parts.indices {
            var shell = parts[i].shell
            parts[i].shell = []
            try transform(&shell, local: &local, atomically: false)  // (the polygon is dropped on failure)
            parts[i].shell = shell
            for h in parts[i].holes.indices {
                var hole = parts[i].holes[h]
                parts[i].holes[h] = []
                try transform(&hole, local: &local, atomically: false)
                parts[i].holes[h] = hole
            }
        }
        polygon = Polygon(parts: parts, spatialReference: target)
    }

    /// `transform(_:threads:)` on this thread, with the tiles met so far in `local` (shared by several calls).
    /// - Parameter atomically: Whether `coordinates` must be left as they were when this throws (false: they may
    ///   be partly transformed, and no copy of them is made).
    func transform(_ coordinates: inout [Coordinate], local: inout LocalTiles, atomically: Bool = true)
        throws(EngineError)
    {
        guard source != target else { return }
        guard interpolates else {
            _ = try transformation.transform(&coordinates, reportsOperation: false)
            return
        }
        guard atomically else {
            try coordinates.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<Coordinate>) throws(EngineError) in
                try transformPiece(buffer, first: 0, local: &local)
            }
            return
        }
        var result = coordinates
        try result.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<Coordinate>) throws(EngineError) in
            try transformPiece(buffer, first: 0, local: &local)
        }
        coordinates = result
    }

    /// Transforms coordinates from `source` to `target` in place, on up to `threads` threads (`parallelMinimum`
    /// vertices or more); the result is the same for every thread count.
    /// - Parameters:
    ///   - coordinates: Coordinates in `source`; unchanged when this throws.
    ///   - threads: The most threads to use (default `Parallelism.threadCount`).
    /// - Throws: `EngineError.projectionFailed` located at the first vertex (by index) that PROJ cannot transform.
    public func transform(_ coordinates: inout [Coordinate], threads: Int = Parallelism.threadCount)
        throws(EngineError)
    {
        try transform(&coordinates, threads: threads, atomically: true)
    }

    /// `transform(_:threads:)`, leaving `coordinates` partly transformed when it throws unless `atomically` (then
    /// no copy of them is made).
    func transform(_ coordinates: inout [Coordinate], threads: Int = Parallelism.threadCount, atomically: Bool)
        throws(EngineError)
    {
        guard source != target else { return }
        guard interpolates else {
            _ = try transformation.transform(&coordinates, reportsOperation: false)
            return
        }
        let n = coordinates.count
        let pieces = n >= Self.parallelMinimum ? min(max(threads, 1), n / (Self.parallelMinimum / 2)) : 1
        if pieces == 1 {
            var local = LocalTiles()
            defer { local.release() }
            try transform(&coordinates, local: &local, atomically: atomically)
            return
        }
        guard atomically else {
            try transformPieces(&coordinates, pieces: pieces)
            return
        }
        coordinates = try transformedCopy(of: coordinates, pieces: pieces)
    }

    /// `coordinates` transformed into a new array in `pieces` pieces on as many threads, each thread copying its
    /// own piece before transforming it: the copy an atomic transform needs is shared between the threads too,
    /// not made on one before they start.
    private func transformedCopy(of coordinates: [Coordinate], pieces: Int) throws(EngineError) -> [Coordinate] {
        let n = coordinates.count
        var failure: EngineError?
        let result = coordinates.withUnsafeBufferPointer { source in
            [Coordinate](unsafeUninitializedCapacity: n) { copy, initialized in
                let shared = SharedCoordinates(copy), input = ReadOnlyCoordinates(source)
                do throws(EngineError) {
                    try ForkJoin.forEach(count: pieces, threads: pieces) { [self] (p: Int) throws(EngineError) in
                        let range = (n * p / pieces)..<(n * (p + 1) / pieces)
                        let piece = UnsafeMutableBufferPointer(rebasing: shared.buffer[range])
                        _ = piece.initialize(fromContentsOf: input.buffer[range])
                        var local = LocalTiles()
                        defer { local.release() }
                        try transformPiece(piece, first: range.lowerBound, local: &local)
                    }
                    initialized = n
                } catch {
                    failure = error  // (a piece not started stays uninitialized: `Coordinate` is trivial)
                }
            }
        }
        if let failure { throw failure }
        return result
    }

    /// Transforms `coordinates` in place in `pieces` pieces on as many threads.
    private func transformPieces(_ coordinates: inout [Coordinate], pieces: Int) throws(EngineError) {
        let n = coordinates.count
        try coordinates.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<Coordinate>) throws(EngineError) in
            let shared = SharedCoordinates(buffer)
            try ForkJoin.forEach(count: pieces, threads: pieces) { [self] (p: Int) throws(EngineError) in
                let range = (n * p / pieces)..<(n * (p + 1) / pieces)
                var local = LocalTiles()
                defer { local.release() }
                try transformPiece(UnsafeMutableBufferPointer(rebasing: shared.buffer[range]), first: range.lowerBound,
                                   local: &local)
            }
        }
    }

    /// Interpolates a piece of an array in place, then runs PROJ on the vertices no interpolant covers.
    /// - Parameter first: The piece's first index in the caller's array (for error messages).
    private func transformPiece(_ piece: UnsafeMutableBufferPointer<Coordinate>, first: Int,
                                local: inout LocalTiles) throws(EngineError) {
        var byPROJ: [Int] = []
        interpolate(piece, local: &local, byPROJ: &byPROJ)
        guard !byPROJ.isEmpty else { return }
        var rest = byPROJ.map { piece[$0] }
        _ = try transformation.transform(&rest, reportsOperation: false, vertexNumbers: byPROJ.map { $0 + first })
        for (r, k) in byPROJ.enumerated() { piece[k] = rest[r] }
    }

    /// Replaces every vertex an interpolant covers by its value there, and lists the others (indices in `piece`).
    private func interpolate(_ piece: UnsafeMutableBufferPointer<Coordinate>, local: inout LocalTiles,
                             byPROJ: inout [Int]) {
        let inverseSide = inverseSides[0]
        // The level-0 tile of the last vertex, when it had an interpolant: most vertices follow one in the same tile.
        var currentKey = Int64.min
        var current = UnsafePointer<SIMD2<Double>>(bitPattern: 1)!
        for k in piece.indices {
            let c = piece[k]
            // Heights go through PROJ, which transforms them too.
            guard c.z == nil, let key = LocalTiles.packedKey(level: 0, c.x * inverseSide, c.y * inverseSide) else {
                byPROJ.append(k)
                continue
            }
            if key != currentKey {
                let value = local.value(of: key) ?? local.insert(key, tile(level: 0, c.x, c.y))
                switch value {
                case LocalTiles.byPROJ:
                    byPROJ.append(k)
                    continue
                case LocalTiles.cut:
                    guard let m = deeperModel(at: c.x, c.y, local: &local) else {
                        byPROJ.append(k)
                        continue
                    }
                    piece[k] = TileModel.evaluate(m, c.x, c.y)
                    continue
                default:
                    currentKey = key
                    current = UnsafePointer(bitPattern: value)!
                }
            }
            piece[k] = TileModel.evaluate(current, c.x, c.y)
        }
    }

    /// The interpolant at (x, y) below a cut level-0 tile, or nil when the vertex goes through PROJ.
    private func deeperModel(at x: Double, _ y: Double, local: inout LocalTiles) -> UnsafePointer<SIMD2<Double>>? {
        for level in 1...Self.deepestLevel {
            let inverseSide = inverseSides[level]
            guard let key = LocalTiles.packedKey(level: level, x * inverseSide, y * inverseSide) else { return nil }
            let value = local.value(of: key) ?? local.insert(key, tile(level: level, x, y))
            switch value {
            case LocalTiles.byPROJ: return nil
            case LocalTiles.cut: continue
            default: return UnsafePointer(bitPattern: value)
            }
        }
        return nil
    }

    /// The shared tile at `level` holding (x, y), made if needed.
    private func tile(level: Int, _ x: Double, _ y: Double) -> ProjectionTile {
        let inverseSide = inverseSides[level]
        let shared = ProjectionTileKey(level: level, i: Int((x * inverseSide).rounded(.down)),
                                       j: Int((y * inverseSide).rounded(.down)))
        return lock.withLock { tiles[shared] } ?? makeTile(shared)
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

    /// The Chebyshev points of the first kind on [-1, 1], from 1 down to -1.
    private static let nodes: [Double] = (0...degree).map { cos(Double.pi * (Double($0) + 0.5) / Double(degree + 1)) }

    /// Makes a tile (see the type's description) and caches it.
    private func makeTile(_ key: ProjectionTileKey) -> ProjectionTile {
        let tile = tileContent(key)
        lock.withLock {
            if tiles.count >= Self.cacheLimit { tiles.removeAll(keepingCapacity: true) }
            tiles[key] = tile
        }
        return tile
    }

    /// What a tile is: see the type's description.
    private func tileContent(_ key: ProjectionTileKey) -> ProjectionTile {
        let deeper: ProjectionTile = key.level < Self.deepestLevel ? .cut : .byPROJ
        let n = Self.degree + 1, side = sides[key.level]
        let xc = (Double(key.i) + 0.5) * side, yc = (Double(key.j) + 0.5) * side, half = side / 2
        // Vertices are put in tiles by rounding: the box checked is a millionth of a side larger all round.
        let reach = half * (1 + 2e-6)
        switch choice?.verdict(minX: xc - reach, minY: yc - reach, maxX: xc + reach, maxY: yc + reach) {
        case .smooth?: break
        case .mixed?: return deeper
        case .notSmooth?, nil: return .byPROJ
        }
        let checks = (0..<Self.checksPerSide).map { -1 + 2 * Double($0) / Double(Self.checksPerSide - 1) }
        var points: [Coordinate] = []
        points.reserveCapacity(n * n + checks.count * checks.count)
        for u in Self.nodes { for v in Self.nodes { points.append(Coordinate(x: xc + u * half, y: yc + v * half)) } }
        for u in checks { for v in checks { points.append(Coordinate(x: xc + u * half, y: yc + v * half)) } }
        var values = points
        do throws(EngineError) {
            _ = try transformation.transform(&values, reportsOperation: false)
        } catch {
            return deeper
        }
        guard let places = geographicPlaces(points, values),
              places.allSatisfy({ p in domain.allSatisfy { $0.contains(longitude: p.x, latitude: p.y) } })
        else { return .byPROJ }
        let model = TileModel(level: key.level, i: key.i, j: key.j, side: side, values: values[..<(n * n)])
        // Written so that a NaN fails the check.
        let passes = ((n * n)..<points.count).allSatisfy { k in
            let p = model.evaluate(points[k].x, points[k].y)
            return abs(p.x - values[k].x) <= bound && abs(p.y - values[k].y) <= bound
        }
        return passes ? .model(model) : deeper
    }

    /// The longitude/latitude of a tile's points (`points` in the source, `values` their images in the target): the
    /// geographic end's coordinates, or for two projected ends the points taken to WGS 84; nil when that fails.
    private func geographicPlaces(_ points: [Coordinate], _ values: [Coordinate]) -> [Coordinate]? {
        if source.isGeographic { return points }
        if target.isGeographic { return values }
        var places = points
        do throws(EngineError) {
            _ = try placement?.transform(&places, reportsOperation: false)
        } catch {
            return nil
        }
        return places
    }

    /// Whether a geographic spatial reference's coordinates are degrees (PROJ's unit of its first axis).
    private static func usesDegrees(_ sr: SpatialReference) -> Bool {
        guard let factor = sr.angularUnitFactor() else { return false }
        return abs(factor - Double.pi / 180) < 1e-15
    }
}

/// An area of use widened by `ProjectionHorizon.margin` on each side, as the spatial reference's horizon is (the
/// region where Meridian projects at all), latitudes within ±89.9° (no tile reaches a pole), `east` past 180 when
/// the box crosses the antimeridian.
private struct WidenedArea {
    let west: Double, south: Double, east: Double, north: Double

    init(_ area: AreaOfUse) {
        let margin = ProjectionHorizon.margin
        let east = area.east < area.west ? area.east + 360 : area.east
        (west, self.east) = east - area.west + 2 * margin >= 360 ? (-180, 180) : (area.west - margin, east + margin)
        (south, north) = (max(area.south - margin, -89.9), min(area.north + margin, 89.9))
    }

    /// Whether a longitude/latitude lies in the box (longitudes also compared 360° apart).
    func contains(longitude: Double, latitude: Double) -> Bool {
        guard latitude >= south && latitude <= north else { return false }
        if east - west >= 360 { return longitude.isFinite }
        return [longitude, longitude + 360, longitude - 360].contains { $0 >= west && $0 <= east }
    }
}

/// Coordinates that the threads of one `transform` share, each writing only its own range.
private struct SharedCoordinates: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Coordinate>
    init(_ buffer: UnsafeMutableBufferPointer<Coordinate>) { self.buffer = buffer }
}

/// Coordinates that several threads read at once (the input of one `transform`, each thread its own range), held
/// by pointer so that no thread keeps the array itself alive.
struct ReadOnlyCoordinates: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Coordinate>
    init(_ buffer: UnsafeBufferPointer<Coordinate>) { self.buffer = buffer }
}
