import CGDAL
import Foundation
import MeridianCore

/// Geometries between OGR and Meridian, through ISO WKB (MeridianCore's `WKB` codec) except single points, whose
/// coordinates are read directly.
///
/// Read: curves are linearised (OGR's default step of 4°), M values are dropped (Meridian has no M), an empty
/// geometry is `nil` as in GeoJSON; geometry collections, polyhedral surfaces, TINs and non-finite coordinates are
/// refused by the WKB reader with its reason. Written by `OGRGeometryBuilder`.
struct OGRGeometryCodec {
    /// The spatial reference given to the geometries read.
    private(set) var spatialReference: SpatialReference
    /// Bounds on a geometry's size.
    let limits: FeatureDataLimits
    /// Reused for every geometry's WKB.
    private var buffer: [UInt8] = []

    init(spatialReference: SpatialReference, limits: FeatureDataLimits) {
        self.spatialReference = spatialReference
        self.limits = limits
    }

    /// Gives the geometries read from now on a spatial reference of their own (`SpatialReference.unshared`): called
    /// at the start of each Arrow batch (thousands of features). The feature-by-feature read keeps one for all: it
    /// may be asked for one feature at a time, and a copy per feature would cost memory for nothing.
    mutating func startBatch() { spatialReference = spatialReference.unshared }

    /// The geometry of an OGR feature (borrowed; its M values may be dropped in place), or `nil` for none or empty.
    mutating func geometry(of feature: OGRFeatureH) throws(FieldValueError) -> Geometry? {
        guard let g = gdal.OGR_F_GetGeometryRef(feature) else { return nil }
        return try geometry(ogr: g)
    }

    /// The geometry of ISO WKB as GDAL's Arrow stream gives it: a point read directly, anything else by MeridianCore's
    /// WKB reader, or, for what it refuses (M values, curves), through OGR as features are.
    mutating func geometry(wkb: UnsafeRawBufferPointer) throws(FieldValueError) -> Geometry? {
        if let point = try OGRGeometryCodec.point(wkb, spatialReference: spatialReference) { return point }
        guard wkb.count <= limits.maximumGeometryBytes else {
            throw FieldValueError("its geometry takes \(wkb.count) bytes, more than the limit of \(limits.maximumGeometryBytes)")
        }
        if let geometry = try? WKB.decode(Data(wkb), spatialReference: spatialReference) {
            return geometry.coordinates.isEmpty ? nil : geometry
        }
        var g: OGRGeometryH?
        guard gdal.OGR_G_CreateFromWkbEx(wkb.baseAddress, nil, &g, wkb.count) == OGRERR_NONE, let g else {
            throw FieldValueError("its geometry (WKB) cannot be read")
        }
        defer { gdal.OGR_G_DestroyGeometry(g) }
        return try geometry(ogr: g)
    }

    /// A 2D or 3D little-endian WKB point; `nil` for anything else (an empty point included, which the general path
    /// reads as no geometry).
    static func point(_ wkb: UnsafeRawBufferPointer, spatialReference: SpatialReference) throws(FieldValueError) -> Geometry? {
        try pointCoordinate(wkb).map { .point(Point($0, spatialReference: spatialReference)) }
    }

    /// The coordinate of a 2D or 3D little-endian WKB point; `nil` for anything else or an empty point.
    static func pointCoordinate(_ wkb: UnsafeRawBufferPointer) throws(FieldValueError) -> Coordinate? {
        guard wkb.count == 21 || wkb.count == 29, wkb[0] == 1 else { return nil }
        let type = wkb.loadUnaligned(fromByteOffset: 1, as: UInt32.self).littleEndian
        guard (type == 1 && wkb.count == 21) || (type == 1001 && wkb.count == 29) else { return nil }
        func double(_ at: Int) -> Double { Double(bitPattern: wkb.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian) }
        let c = Coordinate(x: double(5), y: double(13), z: type == 1001 ? double(21) : nil)
        if c.x.isNaN, c.y.isNaN { return nil }
        guard c.x.isFinite, c.y.isFinite, c.z?.isFinite ?? true else {
            throw FieldValueError("its point has a coordinate that is not a finite number")
        }
        return c
    }

    /// The coordinate of a non-empty OGR point (z when it has one).
    /// - Throws: For a coordinate that is not a finite number.
    static func pointCoordinate(ogr g: OGRGeometryH) throws(FieldValueError) -> Coordinate {
        let c = Coordinate(x: gdal.OGR_G_GetX(g, 0), y: gdal.OGR_G_GetY(g, 0), z: gdal.OGR_G_Is3D(g) != 0 ? gdal.OGR_G_GetZ(g, 0) : nil)
        guard c.x.isFinite, c.y.isFinite, c.z?.isFinite ?? true else {
            throw FieldValueError("its point has a coordinate that is not a finite number")
        }
        return c
    }

    /// An OGR geometry (borrowed; its M values may be dropped in place) as Meridian's, `nil` when empty.
    private mutating func geometry(ogr g: OGRGeometryH) throws(FieldValueError) -> Geometry? {
        guard gdal.OGR_G_IsEmpty(g) == 0 else { return nil }
        if gdal.OGR_GT_Flatten(gdal.OGR_G_GetGeometryType(g)) == wkbPoint {
            return .point(Point(try OGRGeometryCodec.pointCoordinate(ogr: g), spatialReference: spatialReference))
        }
        var linear: OGRGeometryH?
        defer { if let linear { gdal.OGR_G_DestroyGeometry(linear) } }
        var source = g
        if gdal.OGR_G_HasCurveGeometry(g, 0) != 0 {
            guard let l = gdal.OGR_G_GetLinearGeometry(g, 0, nil) else {
                throw FieldValueError("its curved geometry cannot be converted to straight segments")
            }
            linear = l
            source = l
        }
        if gdal.OGR_G_IsMeasured(source) != 0 { gdal.OGR_G_SetMeasured(source, 0) }
        let size = gdal.OGR_G_WkbSizeEx(source)
        guard size <= limits.maximumGeometryBytes else {
            throw FieldValueError("its geometry takes \(size) bytes, more than the limit of \(limits.maximumGeometryBytes)")
        }
        if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
        let status = buffer.withUnsafeMutableBufferPointer { gdal.OGR_G_ExportToIsoWkb(source, wkbNDR, $0.baseAddress) }
        guard status == OGRERR_NONE else { throw FieldValueError("GDAL cannot export its geometry") }
        do {
            return try WKB.decode(Data(buffer[0..<size]), spatialReference: spatialReference)
        } catch {
            throw FieldValueError("its geometry cannot be read: \(error.message)")
        }
    }
}
