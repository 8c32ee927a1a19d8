import CGDAL
import MeridianCore

/// Builds the OGR geometries written to a table directly from Meridian's, ring by ring: each ring's vertices are
/// copied into one reused buffer of doubles and handed to GDAL (`OGR_G_SetPoints`), each ring to its polygon and
/// each polygon to its multipolygon (`OGR_G_AddGeometryDirectly`). No WKB of the whole geometry and no flattened
/// copy of its vertices is made, so writing a union of tens of millions of vertices costs GDAL's own copy only.
///
/// Written: a point as Point; a multipoint as MultiPoint; polylines and polygons as MultiLineString and
/// MultiPolygon when `promoteToMulti` (what `ogr2ogr -nlt PROMOTE_TO_MULTI` does; GeoPackage, FlatGeobuf and PostGIS
/// columns hold one type), else a one-part polyline as LineString and a one-part polygon as Polygon (more parts as
/// the multi-geometry); an envelope as its polygon; no parts as an empty geometry of that type. With `hasZ`, every
/// geometry has z (a vertex without one gets NaN, as in WKB; the writer refuses such features before). With
/// `clockwiseShells` (a shapefile's rule, which GDAL then takes as given: `SHAPE_REWIND_ON_WRITE=NO`), polygon
/// shells are written clockwise and holes counter-clockwise, each ring reversed when its signed area says
/// otherwise; without, rings are written as they are.
struct OGRGeometryBuilder {
    /// Whether every geometry is written with z.
    let hasZ: Bool
    /// Whether polylines and polygons are always written as multi-geometries.
    let promoteToMulti: Bool
    /// Whether shells are turned clockwise and holes counter-clockwise.
    let clockwiseShells: Bool
    /// One ring's vertices as x, y (, z) doubles, reused from ring to ring.
    private var scratch: [Double] = []

    init(hasZ: Bool, promoteToMulti: Bool, clockwiseShells: Bool) {
        self.hasZ = hasZ
        self.promoteToMulti = promoteToMulti
        self.clockwiseShells = clockwiseShells
    }

    /// An OGR geometry owned by the caller, who hands it to `OGR_F_SetGeometryDirectly` or destroys it.
    mutating func make(_ geometry: Geometry) throws(FieldValueError) -> OGRGeometryH {
        switch geometry {
        case .point(let p): return try point(p.coordinate)
        case .multipoint(let m):
            return try collection(wkbMultiPoint, m.coordinates) { (b, c) throws(FieldValueError) in try b.point(c) }
        case .polyline(let l):
            if l.parts.count == 1, !promoteToMulti { return try line(l.parts[0], type: wkbLineString) }
            let type = promoteToMulti || !l.parts.isEmpty ? wkbMultiLineString : wkbLineString
            return try collection(type, l.parts) { (b, part) throws(FieldValueError) in try b.line(part, type: wkbLineString) }
        case .polygon(let p): return try polygon(p.parts)
        case .envelope(let e): return try polygon(e.polygon.parts)
        }
    }

    /// A new empty MultiPolygon for `add(_:to:)`, owned by the caller.
    func multiPolygon() throws(FieldValueError) -> OGRGeometryH { try create(wkbMultiPolygon) }

    /// Adds polygon parts to a MultiPolygon made by `multiPolygon()`, each as `make` writes a part.
    mutating func add(_ parts: [Polygon.Part], to multi: OGRGeometryH) throws(FieldValueError) {
        for part in parts {
            let g = try polygon(part)
            try Self.add(g, to: multi)
        }
    }

    /// A Polygon for one part (unless `promoteToMulti`), else a MultiPolygon (an empty one for no parts, or an
    /// empty Polygon when not promoting).
    private mutating func polygon(_ parts: [Polygon.Part]) throws(FieldValueError) -> OGRGeometryH {
        if parts.count == 1, !promoteToMulti { return try polygon(parts[0]) }
        let type = promoteToMulti || !parts.isEmpty ? wkbMultiPolygon : wkbPolygon
        return try collection(type, parts) { (b, part) throws(FieldValueError) in try b.polygon(part) }
    }

    /// One polygon: the shell, then the holes.
    private mutating func polygon(_ part: Polygon.Part) throws(FieldValueError) -> OGRGeometryH {
        let g = try create(wkbPolygon)
        do {
            let shell = try ring(part.shell, clockwise: true)
            try Self.add(shell, to: g)
            for hole in part.holes {
                let ring = try ring(hole, clockwise: false)
                try Self.add(ring, to: g)
            }
        } catch {
            gdal.OGR_G_DestroyGeometry(g)
            throw error
        }
        return g
    }

    /// A geometry of `type` whose members are made by `member`, one per element.
    private mutating func collection<Element>(
        _ type: OGRwkbGeometryType, _ elements: [Element],
        member: (inout OGRGeometryBuilder, Element) throws(FieldValueError) -> OGRGeometryH
    ) throws(FieldValueError) -> OGRGeometryH {
        let g = try create(type)
        do {
            for element in elements {
                let m = try member(&self, element)
                try Self.add(m, to: g)
            }
        } catch {
            gdal.OGR_G_DestroyGeometry(g)
            throw error
        }
        return g
    }

    /// A point.
    private func point(_ c: Coordinate) throws(FieldValueError) -> OGRGeometryH {
        let g = try create(wkbPoint)
        if hasZ { gdal.OGR_G_SetPoint(g, 0, c.x, c.y, c.z ?? .nan) } else { gdal.OGR_G_SetPoint_2D(g, 0, c.x, c.y) }
        return g
    }

    /// A ring of a polygon, turned clockwise or counter-clockwise when `clockwiseShells` (`clockwise` says which a
    /// shell takes; a hole takes the other).
    private mutating func ring(_ coordinates: [Coordinate], clockwise: Bool) throws(FieldValueError) -> OGRGeometryH {
        let reversed = clockwiseShells && (Polygon.signedArea(coordinates) < 0) != clockwise
        return try line(coordinates, type: wkbLinearRing, reversed: reversed)
    }

    /// A line string or linear ring, its vertices in order or reversed.
    private mutating func line(_ coordinates: [Coordinate], type: OGRwkbGeometryType, reversed: Bool = false)
        throws(FieldValueError) -> OGRGeometryH
    {
        let n = coordinates.count
        guard n <= Int(Int32.max) else { throw FieldValueError("a part has \(n) vertices, more than GDAL takes") }
        // A linear ring has no z type of its own: GDAL gives it z with z values.
        let g = try create(type, z: type != wkbLinearRing)
        guard n > 0 else { return g }
        let width = hasZ ? 3 : 2
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(width * n)
        for i in 0..<n {
            let c = coordinates[reversed ? n - 1 - i : i]
            scratch.append(c.x)
            scratch.append(c.y)
            if hasZ { scratch.append(c.z ?? .nan) }
        }
        let stride = Int32(width * MemoryLayout<Double>.stride)
        scratch.withUnsafeBytes { raw in
            guard let x = raw.baseAddress else { return }
            let y = x + MemoryLayout<Double>.stride
            gdal.OGR_G_SetPoints(g, Int32(n), x, stride, y, stride, hasZ ? y + MemoryLayout<Double>.stride : nil,
                            hasZ ? stride : 0)
        }
        return g
    }

    /// A new empty geometry of a type, with z when `hasZ` (and `z`).
    private func create(_ type: OGRwkbGeometryType, z: Bool = true) throws(FieldValueError) -> OGRGeometryH {
        guard let g = gdal.OGR_G_CreateGeometry(hasZ && z ? gdal.OGR_GT_SetZ(type) : type) else {
            throw FieldValueError("GDAL could not create a geometry")
        }
        return g
    }

    /// Hands `member` to `container` (which then owns it), or destroys it when GDAL refuses.
    private static func add(_ member: OGRGeometryH, to container: OGRGeometryH) throws(FieldValueError) {
        guard gdal.OGR_G_AddGeometryDirectly(container, member) == OGRERR_NONE else {
            gdal.OGR_G_DestroyGeometry(member)
            throw FieldValueError("GDAL could not assemble its geometry")
        }
    }
}
