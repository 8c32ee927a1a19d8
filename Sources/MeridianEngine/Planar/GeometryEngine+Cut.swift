import Foundation
import MeridianCore

extension GeometryEngine {
    /// Cuts a polyline or polygon with a polyline (ArcGIS `cut(_:usingCutter:)`).
    ///
    /// The result follows ArcGIS's order: first everything left of the cutter (one geometry, all left pieces),
    /// then everything right of it (pieces running along the cutter count as right), then each piece that is on
    /// neither side (an "undefined" cut, e.g. a polygon face bounded only by the cutter's dangles and the outline)
    /// as a geometry of its own. Left and right follow the cutter's direction: walking along it, left is on the
    /// left hand. A side with no piece is an empty geometry of the input's type, so the first two positions always
    /// mean left and right. When the cutter does not cut the geometry into two or more pieces the result is empty.
    ///
    /// Polygons are cut by noding their rings with the cutter and polygonizing (GEOS `polygonize`): each face
    /// inside the polygon is a piece, on the left when one of its edges runs along the cutter in the cutter's
    /// direction with the face on its left. Polylines are noded with the cutter; a piece lies on the side of the
    /// cutter where its first segment's midpoint is (measured from the nearest cutter segment).
    /// - Parameters:
    ///   - geometry: A polyline, polygon or envelope.
    ///   - cutter: The cutting polyline, in the same spatial reference.
    /// - Returns: `[left, right, undefined…]`, or `[]` when nothing was cut.
    /// - Throws: `.invalidArgument` for points, `.spatialReferenceMismatch`, `.invalidGeometry` for invalid
    ///   polygons, `.geos`.
    public static func cut(_ geometry: some GeometryConvertible, usingCutter cutter: Polyline) throws(EngineError) -> [Geometry] {
        let g = geometry.geometry
        try requireSameSpatialReference(g.spatialReference, cutter.spatialReference)
        let sr = g.spatialReference
        let segments = cutter.parts.flatMap { part in zip(part, part.dropFirst()).map { ($0, $1) } }
            .filter { $0.0.x != $0.1.x || $0.0.y != $0.1.y }
        guard !segments.isEmpty else { return [] }
        let context = try GEOSContext()
        let cutterRef = try context.make(.polyline(cutter))
        switch g {
        case .point, .multipoint:
            throw .invalidArgument("a cut needs a polyline or a polygon, got a \(g.typeName.lowercased())")
        case .polyline:
            let ref = try context.make(g)
            let noded = try ref.union(cutterRef, "cut")
            guard case .polyline(let all) = try context.geometry(noded, in: sr) else { return [] }
            // The pieces of the line: noded parts whose first segment's midpoint lies on the line.
            let prepared = try GEOSPreparedGeometry(ref, "cut")
            let scale = max(1, g.extent.map { max($0.width, $0.height) } ?? 1)
            var pieces: [[Coordinate]] = []
            for part in all.parts where part.count >= 2 {
                let mid = Coordinate(x: (part[0].x + part[1].x) / 2, y: (part[0].y + part[1].y) / 2)
                let point = try context.make(.point(Point(mid, spatialReference: sr)))
                if try prepared.distance(to: point, "cut") <= 1e-9 * scale { pieces.append(part) }
            }
            guard pieces.count >= 2 else { return [] }
            var left: [[Coordinate]] = [], right: [[Coordinate]] = []
            for piece in pieces {
                let mid = Coordinate(x: (piece[0].x + piece[1].x) / 2, y: (piece[0].y + piece[1].y) / 2)
                if side(of: mid, from: segments) > 0 { left.append(piece) } else { right.append(piece) }
            }
            func merged(_ parts: [[Coordinate]]) throws(EngineError) -> Geometry {
                guard !parts.isEmpty else { return .polyline(Polyline(parts: [], spatialReference: sr)) }
                let r = try context.make(.polyline(Polyline(parts: parts, spatialReference: sr)))
                return try context.geometry(try r.lineMerged("cut"), in: sr)
            }
            return [try merged(left), try merged(right)]
        case .polygon, .envelope:
            let ref = try context.make(g)
            try context.requireValid(ref, g)
            let noded = try ref.boundary("cut").union(cutterRef, "cut")
            let faces = try noded.polygonized("cut")
            guard case .polygon(let all) = try context.geometry(faces, in: sr) else { return [] }
            let prepared = try GEOSPreparedGeometry(ref, "cut")
            var inside: [Polygon.Part] = []
            for face in all.parts {
                let faceRef = try context.make(.polygon(Polygon(parts: [face], spatialReference: sr)))
                if prepared.contains(try faceRef.pointOnSurface("cut")) == true { inside.append(face) }
            }
            guard inside.count >= 2 else { return [] }
            let scale = max(1, g.extent.map { max($0.width, $0.height) } ?? 1)
            var left: [Polygon.Part] = [], right: [Polygon.Part] = [], undefined: [Polygon.Part] = []
            for face in inside {
                switch faceSide(face, cutter: segments, tolerance: 1e-9 * scale) {
                case 1: left.append(face)
                case -1: right.append(face)
                default: undefined.append(face)
                }
            }
            func dissolved(_ parts: [Polygon.Part]) throws(EngineError) -> Geometry {
                guard !parts.isEmpty else { return .polygon(Polygon(parts: [], spatialReference: sr)) }
                return try union(of: parts.map { Polygon(parts: [$0], spatialReference: sr) })
            }
            return [try dissolved(left), try dissolved(right)]
                + undefined.map { .polygon(Polygon(parts: [$0], spatialReference: sr)) }
        }
    }

    /// Which side of the nearest cutter segment a point lies on: positive left, negative right, 0 on it.
    private static func side(of p: Coordinate, from segments: [(Coordinate, Coordinate)]) -> Double {
        var best = Double.infinity, answer = 0.0
        for (a, b) in segments {
            let dx = b.x - a.x, dy = b.y - a.y
            let t = min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)))
            let d = hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
            if d < best {
                best = d
                answer = dx * (p.y - a.y) - dy * (p.x - a.x)
            }
        }
        return answer
    }

    /// 1 when an edge of the face runs along the cutter in the cutter's direction with the face on its left,
    /// −1 when with the face on its right, 0 when no edge lies on the cutter. Rings are walked with the face on
    /// their left (shell counter-clockwise, holes clockwise).
    private static func faceSide(_ face: Polygon.Part, cutter: [(Coordinate, Coordinate)], tolerance: Double) -> Int {
        var rings: [[Coordinate]] = []
        for (k, ring) in face.rings.enumerated() {
            let counterClockwise = Polygon.signedArea(ring) > 0
            rings.append((k == 0) == counterClockwise ? ring : ring.reversed())
        }
        for ring in rings {
            for (p, q) in zip(ring, ring.dropFirst()) {
                for (a, b) in cutter {
                    let dx = b.x - a.x, dy = b.y - a.y
                    let length = hypot(dx, dy)
                    func onSegment(_ c: Coordinate) -> Bool {
                        let along = ((c.x - a.x) * dx + (c.y - a.y) * dy) / length
                        let across = abs(dx * (c.y - a.y) - dy * (c.x - a.x)) / length
                        return across <= tolerance && along >= -tolerance && along <= length + tolerance
                    }
                    guard onSegment(p), onSegment(q), p != q else { continue }
                    return (q.x - p.x) * dx + (q.y - p.y) * dy > 0 ? 1 : -1
                }
            }
        }
        return 0
    }
}
