import CGDAL
import MeridianCore
import MeridianEngine

/// Conversions between OGR's spatial reference objects and Meridian's ``/MeridianCore/SpatialReference``, which is
/// built by PROJ from a code or WKT (`SpatialReference(wkid:)`, `SpatialReference(wkt:)` of MeridianEngine).
enum OGRSpatialReference {
    /// Meridian's spatial reference for an OGR one (borrowed, not released here): its EPSG or ESRI code when it has
    /// one (a GeoPackage's `gpkg_spatial_ref_sys` and PostGIS's `spatial_ref_sys` name one; GDAL identifies most
    /// `.prj` files), else the one EPSG entry PROJ's database matches with full confidence, else its WKT2.
    /// - Parameter srs: An OGR spatial reference.
    /// - Throws: `EngineError.unknownSpatialReference` when PROJ cannot use its definition.
    static func meridian(_ srs: OGRSpatialReferenceH) throws(EngineError) -> SpatialReference {
        if let code = authorityCode(srs) { return code }
        if let match = fullMatch(srs) { return match }
        let wkt: String? = withCStringList(["FORMAT=WKT2_2019", "MULTILINE=NO"]) { options in
            var text: UnsafeMutablePointer<CChar>?
            guard gdal.OSRExportToWktEx(srs, &text, options.constant) == OGRERR_NONE else { gdal.VSIFree(text); return nil }
            return takeGDALString(text)
        }
        guard let wkt else { throw .unknownSpatialReference("(from the source)", reason: "GDAL cannot export it as WKT") }
        return try SpatialReference(wkt: wkt)
    }

    /// The spatial reference of an EPSG or ESRI code carried by the object itself.
    private static func authorityCode(_ srs: OGRSpatialReferenceH) -> SpatialReference? {
        guard let name = gdal.OSRGetAuthorityName(srs, nil).map({ String(cString: $0) }),
              let code = gdal.OSRGetAuthorityCode(srs, nil).flatMap({ Int(String(cString: $0)) }), code > 0
        else { return nil }
        switch name.uppercased() {
        case "EPSG": return try? SpatialReference(code: "EPSG:\(code)")
        case "ESRI": return try? SpatialReference(code: "ESRI:\(code)")
        default: return nil
        }
    }

    /// The EPSG entry that PROJ's database says is the same system with 100% confidence, when exactly one is.
    private static func fullMatch(_ srs: OGRSpatialReferenceH) -> SpatialReference? {
        var count: Int32 = 0
        var confidences: UnsafeMutablePointer<Int32>?
        guard let matches = gdal.OSRFindMatches(srs, nil, &count, &confidences) else { return nil }
        defer {
            gdal.OSRFreeSRSArray(matches)
            gdal.VSIFree(confidences)
        }
        let sure = (0..<Int(count)).filter { confidences?[$0] == 100 }
        guard sure.count == 1, let match = matches[sure[0]] else { return nil }
        return authorityCode(match)
    }

    /// A new OGR spatial reference (the caller releases it with `OSRRelease`) for Meridian's, with coordinates in
    /// x/y (longitude/latitude) order as Meridian keeps them; `nil` for `.unspecified`.
    /// - Parameter spatialReference: Any spatial reference.
    /// - Throws: `EngineError.unknownSpatialReference` when GDAL cannot import its definition.
    static func make(_ spatialReference: SpatialReference) throws(EngineError) -> OGRSpatialReferenceH? {
        guard !spatialReference.isUnspecified else { return nil }
        guard let srs = gdal.OSRNewSpatialReference(nil) else {
            throw .unknownSpatialReference(spatialReference.definition, reason: "GDAL could not create it")
        }
        let definition = spatialReference.definition
        let parts = definition.split(separator: ":", maxSplits: 1)
        let status: OGRErr
        if parts.count == 2, parts[0] == "EPSG", let code = Int32(parts[1]) {
            status = gdal.OSRImportFromEPSG(srs, code)
        } else if parts.count == 2, parts[0] == "ESRI", Int32(parts[1]) != nil {
            status = gdal.OSRSetFromUserInput(srs, definition)
        } else if definition.hasPrefix("+") {
            status = gdal.OSRImportFromProj4(srs, definition)
        } else {
            status = definition.withCString { text in
                var cursor: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: text)
                return gdal.OSRImportFromWkt(srs, &cursor)
            }
        }
        guard status == OGRERR_NONE else {
            gdal.OSRRelease(srs)
            throw .unknownSpatialReference(definition, reason: "GDAL could not import it")
        }
        gdal.OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER)
        return srs
    }
}
