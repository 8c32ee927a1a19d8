import MeridianCore

/// The polygons of a buffer union merged before buffering, for geodesic and planar buffers alike: for
/// a positive distance d the buffer of a union is the union of the buffers (the points within d of A ∪ B are
/// those within d of A or of B), so polygons buffered at the same distance (and maxDeviation) can be merged first
/// and buffered once. A coverage such as counties then needs only its outer boundary buffered instead of every
/// county's.
///
/// Exactness: the merge is GEOS's coverage union, accepted only when its rings use exactly the input's edges:
/// the sum of the merged polygon's oriented ring edges (interior on the left) must equal the sum of the inputs'
/// oriented ring edges, where an edge and its reverse cancel (a boundary shared by two neighbours). That is an
/// identity between boundary chains, so the merged region's winding number equals the sum of the inputs' at every
/// point: the inputs do not overlap and their union is the merged polygon, with every edge joining the same two
/// vertices as an input edge, so the same geodesic. It holds whether edges are read as straight lines or as
/// geodesics. Pieces around the edges shared by two inputs are not needed: a point within d of such an edge and
/// outside the union reaches it across the union's boundary, so it lies within d of a boundary edge.
///
/// Not merged (buffered one by one as before): negative distances (an inset of a union is not the union of the
/// insets), points and lines (GEOS would node crossing lines at new vertices that are not on the geodesics), a
/// group whose members are not all valid for GEOS (the one-by-one path reports the invalid geometry), geographic
/// polygons touching ±180° or ±90° or with an edge spanning 180° of longitude or more (their straight edges in
/// longitude/latitude need not run the way the geodesics do), and any group whose coverage union fails the check
/// (overlapping inputs, neighbours not sharing vertices).
struct BufferPreUnion {
    /// The geometries to buffer (each merged group in place of its first member), with their distances and
    /// tolerances (as given), and the index in the input of each (of a group's first member).
    var geometries: [Geometry] = []
    var distances: [Double] = []
    var tolerances: [Double] = []
    var indices: [Int] = []

    /// The geometries as they are, nothing merged.
    init(geometries: [Geometry], distances: [Double], tolerances: [Double]) {
        self.geometries = geometries
        self.distances = distances
        self.tolerances = tolerances
        indices = Array(geometries.indices)
    }

    /// Merges the groups of `geometries` that can be merged exactly.
    /// - Parameters:
    ///   - geometries: The buffer's inputs, all in one spatial reference.
    ///   - distances: One distance per geometry, in any one unit (non-zero; validated by the caller).
    ///   - tolerances: One maxDeviation per geometry (geodesic buffers), any value for planar buffers; only
    ///     geometries with equal distances and tolerances are merged.
    ///   - context: The GEOS context of the buffer.
    init(_ geometries: [Geometry], distances: [Double], tolerances: [Double], context: GEOSContext)
        throws(EngineError)
    {
        struct Key: Hashable {
            var distance: Double
            var tolerance: Double
        }
        var groups: [Key: [Int]] = [:]
        var polygons: [Int: Polygon] = [:]
        for (i, g) in geometries.enumerated() where distances[i] > 0 {
            guard let p = Self.mergeable(g) else { continue }
            polygons[i] = p
            groups[Key(distance: distances[i], tolerance: tolerances[i]), default: []].append(i)
        }
        var replaced: [Int: Geometry] = [:]
        var dropped = Set<Int>()
        for members in groups.values where members.count >= 2 {
            try WorkBudget.check()
            guard let merged = Self.coverageUnion(members.map { polygons[$0]! }, context: context) else { continue }
            replaced[members[0]] = .polygon(merged)
            dropped.formUnion(members.dropFirst())
        }
        for (i, g) in geometries.enumerated() where !dropped.contains(i) {
            self.geometries.append(replaced[i] ?? g)
            self.distances.append(distances[i])
            self.tolerances.append(tolerances[i])
            indices.append(i)
        }
    }

    /// The polygon of a geometry that may join a group: a non-empty polygon or envelope, and in a geographic
    /// spatial reference one whose vertices lie strictly inside ±180° and ±90° and whose edges span less than 180°
    /// of longitude, so that each straight edge in longitude/latitude runs the same way round as its geodesic;
    /// `nil` for anything else.
    static func mergeable(_ g: Geometry) -> Polygon? {
        let polygon: Polygon
        switch g {
        case .polygon(let p): polygon = p
        case .envelope(let e): polygon = e.polygon
        default: return nil
        }
        guard !polygon.parts.isEmpty else { return nil }
        for ring in polygon.rings {
            guard ring.count >= 3, ring.allSatisfy({ $0.isFinite }) else { return nil }
            guard g.spatialReference.isGeographic else { continue }
            let closed = Polygon.closed(ring)
            for i in closed.indices {
                let c = closed[i]
                guard abs(c.x) < 180, abs(c.y) < 90 else { return nil }
                if i > 0 && abs(c.x - closed[i - 1].x) >= 180 { return nil }
            }
        }
        return polygon
    }

    /// GEOS's coverage union of `polygons` when every input is valid for GEOS, the union is valid, and its
    /// oriented ring edges sum to the inputs' (see the type's discussion); `nil` otherwise.
    static func coverageUnion(_ polygons: [Polygon], context: GEOSContext) -> Polygon? {
        guard let sr = polygons.first?.spatialReference,
              let members = try? polygons.map({ p throws(EngineError) in try context.make(.polygon(p)) }),
              members.allSatisfy({ $0.isValid }),
              let collection = try? context.collection(members),
              let unioned = try? collection.coverageUnion(),
              unioned.isValid,
              let merged = try? context.polygon(unioned, in: sr), !merged.parts.isEmpty
        else { return nil }
        var chain = EdgeChain()
        for p in polygons { for part in p.parts { chain.add(GEOSContext.oriented(closedPart(part)), sign: 1) } }
        for part in merged.parts { chain.add(GEOSContext.oriented(closedPart(part)), sign: -1) }
        return chain.isZero ? merged : nil
    }

    private static func closedPart(_ part: Polygon.Part) -> Polygon.Part {
        Polygon.Part(shell: Polygon.closed(part.shell), holes: part.holes.map(Polygon.closed))
    }
}

/// A sum of directed edges with integer weights, an edge from b to a counting as minus the edge from a to b;
/// edges of zero length are left out.
struct EdgeChain {
    private struct Edge: Hashable {
        var a: XY
        var b: XY
    }

    private var weights: [Edge: Int] = [:]

    /// Adds the edges of a part's closed rings, each directed as the ring runs, with weight `sign`.
    mutating func add(_ part: Polygon.Part, sign: Int) {
        for ring in part.rings {
            for i in ring.indices.dropLast() {
                let a = XY(ring[i]), b = XY(ring[i + 1])
                if a == b { continue }
                if a.x < b.x || (a.x == b.x && a.y < b.y) {
                    weights[Edge(a: a, b: b), default: 0] += sign
                } else {
                    weights[Edge(a: b, b: a), default: 0] -= sign
                }
            }
        }
    }

    /// Whether every edge's weight is zero.
    var isZero: Bool { weights.values.allSatisfy { $0 == 0 } }
}
