import MeridianCore

// MARK: - Building one buffer

extension GeodeticBufferBuilder {
    /// The buffer of one geometry as GEOS polygons in output coordinates, and the elements it keeps its distance from.
    func buffer(_ geometry: Geometry, distance d: Double) throws(EngineError) -> (GEOSGeometryRef, ElementGroup) {
        let radius = abs(d)
        let paths = try GeometryEngine.geodeticVertices(of: geometry, in: frame)
        var g = geometry
        if case .envelope(let e) = g { g = .polygon(e.polygon) }

        // Vertices and segments, with physical points keyed once (poles at longitude 0, -180 as 180).
        func key(_ c: Coordinate) -> Coordinate {
            if abs(c.y) == 90 { return Coordinate(x: 0, y: c.y) }
            let x = normalizedLongitude(c.x)
            return Coordinate(x: x == -180 ? 180 : x, y: c.y)
        }
        var isolated: [Coordinate] = []
        var segments: [BufferSegment] = []
        var mandatory: [XY: [Double]] = [:]
        var vertexOrder: [Coordinate] = []
        func addVertex(_ c: Coordinate) {
            if mandatory[XY(c)] == nil { mandatory[XY(c)] = []; vertexOrder.append(c) }
        }
        switch g {
        case .point, .multipoint:
            for path in paths { for c in path { let k = key(c); if mandatory[XY(k)] == nil { isolated.append(k) }; addVertex(k) } }
        case .polyline, .polygon, .envelope:
            let isPolygon: Bool = { if case .polyline = g { return false } else { return true } }()
            for path in paths {
                var vertices = (isPolygon ? Polygon.closed(path) : path).map(key)
                vertices = vertices.enumerated().filter { i, c in i == 0 || geod.distance(vertices[i - 1], c) > 1e-9 }.map { $0.1 }
                if vertices.count == 1 || (isPolygon && vertices.count <= 2) {
                    if !isPolygon { isolated.append(vertices[0]); addVertex(vertices[0]) }
                    continue
                }
                for i in 0..<(vertices.count - 1) {
                    let a = vertices[i], b = vertices[i + 1]
                    // Cut edges of longitude/latitude polygons (RFC 7946 §3.1.9) are not boundary.
                    if isPolygon && g.spatialReference.isGeographic {
                        if abs(a.y) == 90 && abs(b.y) == 90 { continue }
                        if abs(a.x) == 180 && abs(b.x) == 180 { continue }
                    }
                    let line = geod.line(from: a, to: b)
                    let inv = geod.inverse(a, b)
                    segments.append(BufferSegment(a: a, b: b, line: line, azimuthA: inv.azimuth1, azimuthB: inv.azimuth2))
                    addVertex(a)
                    addVertex(b)
                    mandatory[XY(a)]!.append(contentsOf: [inv.azimuth1 + 90, inv.azimuth1 - 90])
                    mandatory[XY(b)]!.append(contentsOf: [inv.azimuth2 + 90, inv.azimuth2 - 90])
                }
            }
        }

        let union = try piecesUnion(isolated: isolated, segments: segments, mandatory: mandatory, radius: radius)
        let elements = vertexOrder.map { GeodeticElement(kind: .vertex($0), required: radius) }
            + segments.map { GeodeticElement(kind: .segment(start: $0.a, end: $0.b, line: $0.line), required: radius) }

        guard case .polygon(let polygon) = g else {
            return (union, ElementGroup(elements: elements, isInward: false, contains: nil, tolerance: tolerance))
        }
        let interior = try interiorPiece(polygon, paths: paths, distance: radius)
        if d > 0 {
            let result = try context.unaryUnion(of: [interior, union])
            return (result, ElementGroup(elements: elements, isInward: false, contains: nil, tolerance: tolerance))
        }
        let area = try GEOSPreparedGeometry(try interior.clone(), "prepare")
        let result = try interior.difference(union)
        return (result, ElementGroup(elements: elements, isInward: true, contains: { area.covers($0) },
                                    tolerance: tolerance))
    }

    /// The input polygon in output coordinates, its geodesic edges densified to within a quarter of the distance
    /// (the band of pieces around each edge covers the rest), as GEOS polygons within [-180, 180] for geographic
    /// output.
    func interiorPiece(_ polygon: Polygon, paths: [[Coordinate]], distance: Double) throws(EngineError) -> GEOSGeometryRef {
        var iterator = paths.makeIterator()
        var parts: [GEOSGeometryRef] = []
        let limit = max(distance / 4, 1e-3)
        for part in polygon.parts {
            var rings: [[Coordinate]] = []
            for _ in part.rings { rings.append(try densifiedRing(iterator.next()!, tolerance: limit)) }
            let literal = !frame.geographicOutput || rings.allSatisfy { ring in
                zip(ring, ring.dropFirst()).allSatisfy { abs($0.x - $1.x) <= 180 || (abs($0.y) == 90 && abs($1.y) == 90) }
            }
            if literal {
                let p = Polygon(parts: [Polygon.Part(shell: rings[0], holes: Array(rings.dropFirst()))],
                                spatialReference: frame.outputSR)
                let ref = try context.make(.polygon(p))
                try context.requireValid(ref, .polygon(p))
                parts.append(ref)
                continue
            }
            // A ring crossing ±180°: unwrap, take the side it encloses in the plane, cut into tiles.
            var regions: [GEOSGeometryRef] = []
            for (i, ring) in rings.enumerated() {
                var unwrapped: [Coordinate] = []
                for c in ring { unwrapped.append(unwrapped.last.map { Coordinate(x: unwrappedLongitude(c.x, near: $0.x), y: c.y) } ?? c) }
                let winds = abs(unwrapped.last!.x - unwrapped.first!.x) > 180
                if !winds && Polygon.signedArea(unwrapped) < 0 { unwrapped.reverse() }
                let tiles = try geographicRegion(unwrapped)
                let region = try context.unaryUnion(of: tiles)
                if i == 0 { regions.append(region); continue }
                let shell = regions.removeLast()
                regions.append(try shell.difference(region))
            }
            parts += regions
        }
        return try context.unaryUnion(of: parts)
    }

    /// A ring's geodesic edges in output coordinates, split until each chord's midpoint is within `tolerance` m
    /// of the geodesic's midpoint. Longitudes stay continuous along each edge.
    func densifiedRing(_ ring: [Coordinate], tolerance: Double) throws(EngineError) -> [Coordinate] {
        let closed = Polygon.closed(ring)
        var out: [Coordinate] = [try sample(0, closed[0]).out]
        if frame.geographicOutput && frame.isIdentity { out[0] = closed[0] }
        for i in 0..<(closed.count - 1) {
            let a = closed[i], b = closed[i + 1]
            let endOut: Coordinate = frame.isIdentity ? b : try sample(0, b).out
            if (abs(a.y) == 90 && abs(b.y) == 90) || geod.distance(a, b) < 1e-9 {
                out.append(endOut)
                continue
            }
            let line = geod.line(from: a, to: b)
            var stack: [(Double, Double)] = [(0, line.length)]
            var pieces: [Double] = []
            var budget = 100_000
            while let (s0, s1) = stack.popLast() {
                budget -= 1
                let p0 = line.position(s0).coordinate, p1 = line.position(s1).coordinate
                let m = line.position((s0 + s1) / 2).coordinate
                let o0 = try frame.toOutput(p0), o1 = near(try frame.toOutput(p1), try frame.toOutput(p0))
                let chordMid = try frame.toCompute(Coordinate(x: (o0.x + o1.x) / 2, y: (o0.y + o1.y) / 2))
                if budget > 0 && geod.distance(chordMid, m) > tolerance {
                    stack.append(((s0 + s1) / 2, s1))
                    stack.append((s0, (s0 + s1) / 2))
                } else {
                    pieces.append(s1)
                }
            }
            for s in pieces.dropLast() {
                var c = try frame.toOutput(line.position(s).coordinate)
                if let last = out.last { c = near(c, last) }
                out.append(c)
            }
            var e = endOut
            if frame.geographicOutput && !frame.isIdentity, let last = out.last { e = near(e, last) }
            out.append(e)
        }
        return out
    }
}
