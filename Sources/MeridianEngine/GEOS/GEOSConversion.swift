import CGEOS
import MeridianCore

extension GEOSContext {
    // MARK: Meridian → GEOS

    /// Builds the GEOS geometry for a Meridian geometry, checking coordinates first.
    func make(_ geometry: Geometry) throws(EngineError) -> GEOSGeometryRef {
        switch geometry {
        case .point(let p):
            try check([p.coordinate], "point")
            if let z = p.z {
                let seq = try sequence([Coordinate(x: p.x, y: p.y, z: z)])
                return try own(GEOSGeom_createPoint_r(handle, seq), "create point")
            }
            return try own(GEOSGeom_createPointFromXY_r(handle, p.x, p.y), "create point")
        case .multipoint(let m):
            try check(m.coordinates, "multipoint")
            var points: [GEOSGeometryRef] = []
            points.reserveCapacity(m.coordinates.count)
            for c in m.coordinates {
                points.append(try make(.point(Point(c, spatialReference: m.spatialReference))))
            }
            return try collection(GEOS_MULTIPOINT, points)
        case .polyline(let l):
            // An empty polyline (e.g. from WKT `LINESTRING EMPTY` or an overlay) is GEOS's empty line string.
            if l.parts.isEmpty { return try own(GEOSGeom_createEmptyLineString_r(handle), "create empty line") }
            var lines: [GEOSGeometryRef] = []
            for (i, part) in l.parts.enumerated() {
                try check(part, "polyline part \(i)")
                guard part.count >= 2 else {
                    throw .badGeometry(.malformed("polyline part \(i) has \(part.count) vertex; at least 2 are needed"))
                }
                lines.append(try own(GEOSGeom_createLineString_r(handle, try sequence(part)), "create line"))
            }
            return lines.count == 1 ? lines[0] : try collection(GEOS_MULTILINESTRING, lines)
        case .polygon(let p):
            // An empty polygon (e.g. a polygon buffered inwards to nothing) is GEOS's empty polygon, so engine
            // results can be passed back to the engine (area 0, union with it is the other operand, …).
            if p.parts.isEmpty { return try own(GEOSGeom_createEmptyPolygon_r(handle), "create empty polygon") }
            var polygons: [GEOSGeometryRef] = []
            polygons.reserveCapacity(p.parts.count)
            for (i, part) in p.parts.enumerated() { polygons.append(try make(part, index: i)) }
            return polygons.count == 1 ? polygons[0] : try collection(GEOS_MULTIPOLYGON, polygons)
        case .envelope(let e):
            return try make(.polygon(e.polygon))
        }
    }

    private func make(_ part: Polygon.Part, index: Int) throws(EngineError) -> GEOSGeometryRef {
        let shell = try ring(part.shell, "polygon part \(index) shell")
        var holes: [GEOSGeometryRef] = []
        for (h, hole) in part.holes.enumerated() { holes.append(try ring(hole, "polygon part \(index) hole \(h)")) }
        var holePointers: [OpaquePointer?] = holes.map { $0.release() }
        let shellPointer = shell.release()
        let made = holePointers.withUnsafeMutableBufferPointer {
            GEOSGeom_createPolygon_r(handle, shellPointer, $0.baseAddress, UInt32($0.count))
        }
        return try own(made, "create polygon")
    }

    private func ring(_ coordinates: [Coordinate], _ label: String) throws(EngineError) -> GEOSGeometryRef {
        try check(coordinates, label)
        let closed = Polygon.closed(coordinates)
        // GEOS builds rings of three coordinates (two distinct vertices and the closing one), as its WKT reader
        // does; such a ring is invalid (`isSimple` says so, `requireValid` refuses it for overlays and buffers).
        guard closed.count >= 3 else {
            throw .badGeometry(.malformed("\(label) has \(coordinates.count) vertices; a ring needs at least 2 distinct ones"))
        }
        return try own(GEOSGeom_createLinearRing_r(handle, try sequence(closed)), "create ring")
    }

    /// A collection of the given type; GEOS takes ownership of the members.
    func collection(_ type: GEOSGeomTypes, _ members: [GEOSGeometryRef]) throws(EngineError) -> GEOSGeometryRef {
        var pointers: [OpaquePointer?] = members.map { $0.release() }
        let made = pointers.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(handle, Int32(type.rawValue), $0.baseAddress, UInt32($0.count))
        }
        return try own(made, "create collection")
    }

    /// A geometry collection of `members` (GEOS takes ownership of them).
    func collection(_ members: [GEOSGeometryRef]) throws(EngineError) -> GEOSGeometryRef {
        try collection(GEOS_GEOMETRYCOLLECTION, members)
    }

    /// GEOS's empty polygon.
    func emptyPolygon(_ operation: String) throws(EngineError) -> GEOSGeometryRef {
        try own(GEOSGeom_createEmptyPolygon_r(handle), operation)
    }

    /// A line string through `coordinates` as they are: no finiteness or vertex-count check (callers that build
    /// their own coordinates; `make(_:)` checks outside input).
    func lineString(_ coordinates: [Coordinate]) throws(EngineError) -> GEOSGeometryRef {
        try own(GEOSGeom_createLineString_r(handle, try sequence(coordinates)), "create line")
    }

    /// A polygon without holes from its closed shell given as interleaved x, y (`2 × vertices` values, the first
    /// vertex repeated at the end), built in one copy with no checks (for rings the caller constructed itself).
    func polygon(closedShell xy: [Double], _ operation: String) throws(EngineError) -> GEOSGeometryRef {
        guard let seq = GEOSCoordSeq_copyFromBuffer_r(handle, xy, UInt32(xy.count / 2), 0, 0),
            let ring = GEOSGeom_createLinearRing_r(handle, seq),
            let polygon = GEOSGeom_createPolygon_r(handle, ring, nil, 0)
        else { throw error(operation) }
        return GEOSGeometryRef(context: self, pointer: polygon)
    }

    /// A coordinate sequence copied in one call from an interleaved buffer.
    func sequence(_ coordinates: [Coordinate]) throws(EngineError) -> OpaquePointer {
        let hasZ = coordinates.contains { $0.z != nil }
        let dims = hasZ ? 3 : 2
        var buffer = [Double](repeating: .nan, count: coordinates.count * dims)
        for (i, c) in coordinates.enumerated() {
            buffer[i * dims] = c.x
            buffer[i * dims + 1] = c.y
            if hasZ { buffer[i * dims + 2] = c.z ?? .nan }
        }
        guard let seq = GEOSCoordSeq_copyFromBuffer_r(handle, buffer, UInt32(coordinates.count), hasZ ? 1 : 0, 0) else {
            throw error("create coordinate sequence")
        }
        return seq
    }

    private func check(_ coordinates: [Coordinate], _ label: String) throws(EngineError) {
        if let i = coordinates.firstIndex(where: { !$0.isFinite }) {
            let c = coordinates[i]
            throw .badGeometry(.nonFiniteCoordinate("\(label), vertex \(i): (\(c.x), \(c.y)\(c.z.map { ", \($0)" } ?? ""))"))
        }
    }

    /// A GEOS operation from one geometry to another, its result converted back into the operand's spatial reference.
    func unary(_ g: Geometry, _ op: (GEOSGeometryRef) throws(EngineError) -> GEOSGeometryRef)
        throws(EngineError) -> Geometry
    {
        try geometry(try op(try make(g)), in: g.spatialReference)
    }

    // MARK: GEOS → Meridian

    /// Reads the vertices of a GEOS coordinate sequence.
    func coordinates(of seq: OpaquePointer?, hasZ: Bool) throws(EngineError) -> [Coordinate] {
        var size: UInt32 = 0
        guard let seq, GEOSCoordSeq_getSize_r(handle, seq, &size) != 0 else { throw error("read coordinate sequence") }
        let dims = hasZ ? 3 : 2
        var buffer = [Double](repeating: 0, count: Int(size) * dims)
        guard GEOSCoordSeq_copyToBuffer_r(handle, seq, &buffer, hasZ ? 1 : 0, 0) != 0 else {
            throw error("read coordinate sequence")
        }
        var result: [Coordinate] = []
        result.reserveCapacity(Int(size))
        for i in 0..<Int(size) {
            let z = hasZ ? buffer[i * 3 + 2] : .nan
            result.append(Coordinate(x: buffer[i * dims], y: buffer[i * dims + 1], z: z.isNaN ? nil : z))
        }
        return result
    }

    /// The vertices of a point, line string or linear ring (2D).
    func lineCoordinates(_ ref: GEOSGeometryRef, _ operation: String) throws(EngineError) -> [Coordinate] {
        guard let seq = GEOSGeom_getCoordSeq_r(handle, ref.pointer) else { throw error(operation) }
        return try coordinates(of: seq, hasZ: false)
    }

    private func coordinates(ofSimple g: OpaquePointer) throws(EngineError) -> [Coordinate] {
        try coordinates(of: GEOSGeom_getCoordSeq_r(handle, g), hasZ: GEOSHasZ_r(handle, g) == 1)
    }

    private func polygonPart(_ g: OpaquePointer) throws(EngineError) -> Polygon.Part? {
        guard GEOSisEmpty_r(handle, g) == 0 else { return nil }
        let shell = try coordinates(ofSimple: GEOSGetExteriorRing_r(handle, g)!)
        var holes: [[Coordinate]] = []
        let n = GEOSGetNumInteriorRings_r(handle, g)
        if n > 0 {
            for i in 0..<n { holes.append(try coordinates(ofSimple: GEOSGetInteriorRingN_r(handle, g, i)!)) }
        }
        return Polygon.Part(shell: shell, holes: holes)
    }

    /// The polygonal parts of a GEOS geometry (polygons and multipolygons; other members are ignored), oriented
    /// with counter-clockwise shells and clockwise holes.
    func polygon(_ ref: GEOSGeometryRef, in spatialReference: SpatialReference) throws(EngineError) -> Polygon {
        var parts: [Polygon.Part] = []
        try collectPolygons(ref.pointer, into: &parts)
        return Polygon(parts: parts.map(GEOSContext.oriented), spatialReference: spatialReference)
    }

    private func collectPolygons(_ g: OpaquePointer, into parts: inout [Polygon.Part]) throws(EngineError) {
        switch GEOSGeomTypeId_r(handle, g) {
        case Int32(GEOS_POLYGON.rawValue):
            if let part = try polygonPart(g) { parts.append(part) }
        case Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
            let n = GEOSGetNumGeometries_r(handle, g)
            if n > 0 { for i in 0..<n { try collectPolygons(GEOSGetGeometryN_r(handle, g, i)!, into: &parts) } }
        default: break
        }
    }

    /// Shell counter-clockwise, holes clockwise (RFC 7946).
    static func oriented(_ part: Polygon.Part) -> Polygon.Part {
        Polygon.Part(
            shell: Polygon.signedArea(part.shell) < 0 ? part.shell.reversed() : part.shell,
            holes: part.holes.map { Polygon.signedArea($0) > 0 ? $0.reversed() : $0 })
    }

    /// Converts any GEOS geometry back to the closest Meridian geometry. Empty results become an empty polygon,
    /// polyline or multipoint of the matching dimension.
    func geometry(_ ref: GEOSGeometryRef, in sr: SpatialReference) throws(EngineError) -> Geometry {
        let g = ref.pointer
        let type = GEOSGeomTypeId_r(handle, g)
        switch type {
        case Int32(GEOS_POINT.rawValue):
            if GEOSisEmpty_r(handle, g) != 0 { return .multipoint(Multipoint([], spatialReference: sr)) }
            let c = try coordinates(ofSimple: g)
            return .point(Point(c[0], spatialReference: sr))
        case Int32(GEOS_MULTIPOINT.rawValue):
            var cs: [Coordinate] = []
            let n = GEOSGetNumGeometries_r(handle, g)
            if n > 0 { for i in 0..<n { cs += try coordinates(ofSimple: GEOSGetGeometryN_r(handle, g, i)!) } }
            return .multipoint(Multipoint(cs, spatialReference: sr))
        case Int32(GEOS_LINESTRING.rawValue), Int32(GEOS_LINEARRING.rawValue):
            let cs = try coordinates(ofSimple: g)
            return .polyline(Polyline(parts: cs.isEmpty ? [] : [cs], spatialReference: sr))
        case Int32(GEOS_MULTILINESTRING.rawValue):
            var parts: [[Coordinate]] = []
            let n = GEOSGetNumGeometries_r(handle, g)
            if n > 0 { for i in 0..<n { parts.append(try coordinates(ofSimple: GEOSGetGeometryN_r(handle, g, i)!)) } }
            return .polyline(Polyline(parts: parts.filter { !$0.isEmpty }, spatialReference: sr))
        case Int32(GEOS_POLYGON.rawValue), Int32(GEOS_MULTIPOLYGON.rawValue):
            return .polygon(try polygon(ref, in: sr))
        default:
            // A mixed collection: keep the members of the highest dimension, as overlay results are read.
            let dimension = GEOSGeom_getDimensions_r(handle, g)
            if dimension == 2 { return .polygon(try polygon(ref, in: sr)) }
            var parts: [[Coordinate]] = []
            var points: [Coordinate] = []
            let n = GEOSGetNumGeometries_r(handle, g)
            if n > 0 {
                for i in 0..<n {
                    let member = GEOSGetGeometryN_r(handle, g, i)!
                    let clone = try own(GEOSGeom_clone_r(handle, member), "clone")
                    switch try geometry(clone, in: sr) {
                    case .polyline(let l): parts += l.parts
                    case .point(let p): points.append(p.coordinate)
                    case .multipoint(let m): points += m.coordinates
                    default: break
                    }
                }
            }
            if dimension == 1 { return .polyline(Polyline(parts: parts, spatialReference: sr)) }
            return .multipoint(Multipoint(points, spatialReference: sr))
        }
    }
}

extension GEOSContext {
    /// A GEOS geometry split by dimension, lowest first, leaving out empty members: the points as one
    /// ``/MeridianCore/Multipoint``, the lines as one ``/MeridianCore/Polyline``, the areas as one ``/MeridianCore/Polygon``.
    func geometriesByDimension(_ ref: GEOSGeometryRef, in sr: SpatialReference) throws(EngineError) -> [Geometry] {
        var points: [Coordinate] = [], lines: [[Coordinate]] = [], hasArea = false
        func walk(_ g: OpaquePointer) throws(EngineError) {
            guard GEOSisEmpty_r(handle, g) == 0 else { return }
            switch GEOSGeomTypeId_r(handle, g) {
            case Int32(GEOS_MULTIPOINT.rawValue), Int32(GEOS_MULTILINESTRING.rawValue),
                Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
                let n = GEOSGetNumGeometries_r(handle, g)
                if n > 0 { for i in 0..<n { try walk(GEOSGetGeometryN_r(handle, g, i)!) } }
            case Int32(GEOS_POLYGON.rawValue):
                hasArea = true
            default:
                let clone = try own(GEOSGeom_clone_r(handle, g), "clone")
                switch try geometry(clone, in: sr) {
                case .point(let p): points.append(p.coordinate)
                case .polyline(let l): lines += l.parts
                default: break
                }
            }
        }
        try walk(ref.pointer)
        var result: [Geometry] = []
        if !points.isEmpty { result.append(.multipoint(Multipoint(points, spatialReference: sr))) }
        if !lines.isEmpty { result.append(.polyline(Polyline(parts: lines, spatialReference: sr))) }
        if hasArea { result.append(.polygon(try polygon(ref, in: sr))) }
        return result
    }
}
