import MeridianCore

/// The sizes a shapefile's `.shp` and `.dbf` reach, counted before each feature is written, so that a shapefile
/// beyond the format's 2 GB (its offsets are signed 32-bit counts of 16-bit words, 2^31 − 1 bytes as GDAL enforces
/// it) is refused with a clear reason rather than cut short.
struct ShapefileBudget {
    /// The largest `.shp` or `.dbf`, in bytes.
    static let defaultLimit = Int(Int32.max)

    let limit: Int
    let hasZ: Bool
    /// Bytes of one `.dbf` record: the deletion flag and every field's width.
    let dbfRecordBytes: Int
    private(set) var shpBytes = 100
    private(set) var dbfBytes: Int

    /// - Parameters:
    ///   - fieldWidths: The width of each `.dbf` field.
    ///   - hasZ: Whether records carry z (and M, as GDAL writes Z types).
    ///   - limit: The largest file, in bytes.
    init(fieldWidths: [Int], hasZ: Bool, limit: Int = ShapefileBudget.defaultLimit) {
        self.limit = limit
        self.hasZ = hasZ
        dbfRecordBytes = 1 + fieldWidths.reduce(0, +)
        dbfBytes = 32 + 32 * fieldWidths.count + 1
    }

    /// Counts one more record, or throws when the `.shp` or the `.dbf` would pass the limit.
    mutating func add(_ geometry: Geometry?) throws(FieldValueError) {
        try add(contentBytes: ShapefileBudget.contentBytes(geometry, hasZ: hasZ))
    }

    /// Counts one more record of `contentBytes` bytes of content (see `contentBytes(_:hasZ:)`), or throws when the
    /// `.shp` or the `.dbf` would pass the limit.
    mutating func add(contentBytes: Int) throws(FieldValueError) {
        let shp = shpBytes + 8 + contentBytes
        let dbf = dbfBytes + dbfRecordBytes
        guard shp <= limit, dbf <= limit else {
            throw FieldValueError("the shapefile's \(shp > limit ? ".shp" : ".dbf") would pass \(limit) bytes, the format's limit; write a GeoPackage (.gpkg) or FlatGeobuf (.fgb) instead")
        }
        (shpBytes, dbfBytes) = (shp, dbf)
    }

    /// The bytes of a record's content (ESRI Shapefile Technical Description, 1998): a null shape 4; a point 20
    /// (with z and m 36); a multipoint 40 + 16 n (z and m add 16 + 8 n each); a polyline or polygon 44 + 4 parts +
    /// 16 n (z and m add 16 + 8 n each).
    static func contentBytes(_ geometry: Geometry?, hasZ: Bool) -> Int {
        guard let geometry else { return 4 }
        let zm = { (n: Int) in hasZ ? 2 * (16 + 8 * n) : 0 }
        switch geometry {
        case .point: return hasZ ? 36 : 20
        case .multipoint(let m): return 40 + 16 * m.coordinates.count + zm(m.coordinates.count)
        case .polyline(let l):
            let n = l.parts.reduce(0) { $0 + $1.count }
            return 44 + 4 * l.parts.count + 16 * n + zm(n)
        case .polygon, .envelope:
            let rings = geometry.polygonRings
            return polygonContentBytes(rings: rings.count, vertices: rings.reduce(0) { $0 + $1.count }, hasZ: hasZ)
        }
    }

    /// The bytes of a polygon record's content with `rings` rings of `vertices` vertices in all.
    static func polygonContentBytes(rings: Int, vertices n: Int, hasZ: Bool) -> Int {
        44 + 4 * rings + 16 * n + (hasZ ? 2 * (16 + 8 * n) : 0)
    }
}

private extension Geometry {
    /// The rings of a polygon or an envelope.
    var polygonRings: [[Coordinate]] {
        switch self {
        case .polygon(let p): p.rings
        case .envelope(let e): e.polygon.rings
        default: []
        }
    }
}
