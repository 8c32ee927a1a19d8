import CPROJ
import Foundation
import MeridianCore

extension SpatialReference {
    /// Creates a spatial reference from a well-known ID, as ArcGIS does: an EPSG code, else an ESRI code
    /// (102100 and 102113 are Web Mercator's ESRI aliases).
    /// - Parameter wkid: A positive code, e.g. 4326, 3857, 32038.
    /// - Throws: `EngineError.unknownSpatialReference` when neither EPSG nor ESRI has the code.
    public init(wkid: Int) throws(EngineError) {
        if wkid == 102100 || wkid == 102113 { self = .webMercator; return }
        do {
            self = try SpatialReference(code: "EPSG:\(wkid)")
        } catch {
            do { self = try SpatialReference(code: "ESRI:\(wkid)") } catch {
                throw .unknownSpatialReference(String(wkid), reason: "no EPSG or ESRI code \(wkid) in PROJ's database")
            }
        }
    }

    /// Creates a spatial reference from an authority code such as `EPSG:32038`, `ESRI:102003`, `epsg:4326`,
    /// or a bare number (taken as EPSG, then ESRI).
    /// - Parameter code: `AUTHORITY:CODE` or a number.
    /// - Throws: `EngineError.unknownSpatialReference`.
    public init(code: String) throws(EngineError) {
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        if let n = Int(trimmed), n > 0 { try self.init(wkid: n); return }
        let pieces = trimmed.split(separator: ":", maxSplits: 1)
        guard pieces.count == 2, let number = Int(pieces[1]), number > 0 else {
            throw .unknownSpatialReference(code, reason: "expected AUTHORITY:CODE such as EPSG:4326")
        }
        let authority = pieces[0].uppercased()
        if authority == "ESRI" && (number == 102100 || number == 102113) { self = .webMercator; return }
        if authority == "EPSG" && number == 4326 { self = .wgs84; return }
        if authority == "EPSG" && number == 3857 { self = .webMercator; return }
        try self.init(proj: "\(authority):\(number)", wkid: number)
    }

    /// Creates a spatial reference from OGC WKT (WKT1 or WKT2).
    /// - Parameter wkt: The WKT text.
    /// - Throws: `EngineError.unknownSpatialReference` when PROJ cannot parse it.
    public init(wkt: String) throws(EngineError) {
        try self.init(proj: wkt, wkid: nil)
    }

    /// Creates a spatial reference from a PROJ string such as `+proj=utm +zone=14 +datum=WGS84 +units=m`.
    /// - Parameter projString: The PROJ string (`+type=crs` is added when missing).
    /// - Throws: `EngineError.unknownSpatialReference`.
    public init(projString: String) throws(EngineError) {
        let definition = projString.contains("+type=crs") ? projString : projString + " +type=crs"
        try self.init(proj: definition, wkid: nil)
    }

    /// Parses any of the accepted forms: a code (`EPSG:n`, `ESRI:n`, a bare number), WKT or a PROJ string.
    /// - Parameter text: The definition as a user typed it.
    /// - Throws: `EngineError.unknownSpatialReference`.
    public init(parsing text: String) throws(EngineError) {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("+") || t.hasPrefix("proj=") {
            try self.init(projString: t)
        } else if t.contains("[") {
            try self.init(wkt: t)
        } else {
            try self.init(code: t)
        }
    }

    /// A spatial reference from any definition `proj_create` accepts, asking PROJ even for the codes that have
    /// constants (`.wgs84`, `.webMercator`); the tests use it to check those constants against PROJ.
    init(proj definition: String, wkid: Int?) throws(EngineError) {
        let context = PROJContext()
        guard let created = try context.making({ proj_create($0, definition) }) else {
            throw .unknownSpatialReference(definition, reason: context.lastMessage())
        }
        let object = PROJObject(created, context: context)
        guard proj_is_crs(object.pointer) != 0 else {
            throw .unknownSpatialReference(definition, reason: "not a coordinate reference system")
        }
        // A BoundCRS (e.g. from +towgs84) describes its source CRS. Its transformation may name grid files: PROJ
        // looks them up now (through PROJFilePolicy), so a definition naming a file it may not read is refused when
        // it is made, wherever it came from, and not only when something is projected.
        var crs = object
        if proj_get_type(crs.pointer) == PJ_TYPE_BOUND_CRS {
            if let operation = proj_crs_get_coordoperation(context.handle, crs.pointer) {
                _ = proj_coordoperation_get_grid_used_count(context.handle, operation)
                proj_destroy(operation)
                try context.checkFileAccess()
            }
            if let base = proj_get_source_crs(context.handle, crs.pointer) { crs = PROJObject(base, context: context) }
        }
        let name = proj_get_name(crs.pointer).map { String(cString: $0) } ?? definition
        let kind: Kind
        switch proj_get_type(crs.pointer) {
        case PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS: kind = .geographic
        case PJ_TYPE_PROJECTED_CRS: kind = .projected
        default: kind = .other
        }
        let unit = kind == .projected ? SpatialReference.axisUnit(crs, context: context) : nil
        let ellipsoid = SpatialReference.ellipsoid(crs, context: context)
        let area = SpatialReference.areaOfUse(crs, context: context)
        self.init(definition: definition, wkid: wkid, name: name, kind: kind, unit: unit, ellipsoid: ellipsoid,
                  areaOfUse: area)
        // A WKT or PROJ string (often read from a data file) can name grid or init files that PROJ only looks for
        // when it makes an operation (a WKT1 EXTENSION["PROJ4", "… +nadgrids=…"], a BoundCRS's PARAMETERFILE). Making
        // the one to WGS 84 now (kept in Transformation's cache for later use) refuses such a definition here, where
        // its source can be named. Other failures are left to the operations that need it.
        if wkid == nil {
            do { _ = try Transformation.between(self, .wgs84) } catch .fileRefused(let path) {
                throw .fileRefused(path)
            } catch {}
        }
    }

    /// The conversion factor to radians of the first axis's unit, for a geographic spatial reference (π/180 for
    /// degrees); nil when PROJ cannot say.
    func angularUnitFactor() -> Double? {
        let context = PROJContext()
        guard isGeographic, let created = proj_create(context.handle, definition) else { return nil }
        var crs = PROJObject(created, context: context)
        if proj_get_type(crs.pointer) == PJ_TYPE_BOUND_CRS, let base = proj_get_source_crs(context.handle, crs.pointer) {
            crs = PROJObject(base, context: context)
        }
        guard let cs = proj_crs_get_coordinate_system(context.handle, crs.pointer) else { return nil }
        defer { proj_destroy(cs) }
        var factor = 0.0
        guard proj_cs_get_axis_info(context.handle, cs, 0, nil, nil, nil, &factor, nil, nil, nil) != 0 else {
            return nil
        }
        return factor
    }

    private static func axisUnit(_ crs: PROJObject, context: PROJContext) -> LinearUnit? {
        guard let cs = proj_crs_get_coordinate_system(context.handle, crs.pointer) else { return nil }
        defer { proj_destroy(cs) }
        var factor = 0.0
        var unitName: UnsafePointer<CChar>?
        guard proj_cs_get_axis_info(context.handle, cs, 0, nil, nil, nil, &factor, &unitName, nil, nil) != 0 else {
            return nil
        }
        let name = unitName.map { String(cString: $0) } ?? "unknown"
        // Use the exact definitions where PROJ's factor is the rounded double of a known one.
        for known in [LinearUnit.meters, .feet, .usSurveyFeet] where abs(known.metersPerUnit - factor) < 1e-15 {
            return LinearUnit(name: name, metersPerUnit: known.metersPerUnit)
        }
        return LinearUnit(name: name, metersPerUnit: factor)
    }

    private static func ellipsoid(_ crs: PROJObject, context: PROJContext) -> Ellipsoid {
        guard let e = proj_get_ellipsoid(context.handle, crs.pointer) else { return .wgs84 }
        defer { proj_destroy(e) }
        var a = 0.0, b = 0.0, inverseFlattening = 0.0
        var computed: Int32 = 0
        guard proj_ellipsoid_get_parameters(context.handle, e, &a, &b, &computed, &inverseFlattening) != 0 else {
            return .wgs84
        }
        return Ellipsoid(semiMajorAxis: a, flattening: inverseFlattening == 0 ? 0 : 1 / inverseFlattening)
    }

    private static func areaOfUse(_ crs: PROJObject, context: PROJContext) -> AreaOfUse? {
        var w = 0.0, s = 0.0, e = 0.0, n = 0.0
        var name: UnsafePointer<CChar>?
        guard proj_get_area_of_use(context.handle, crs.pointer, &w, &s, &e, &n, &name) != 0, w > -1000 else {
            return nil
        }
        return AreaOfUse(name: name.map { String(cString: $0) } ?? "", west: w, south: s, east: e, north: n)
    }
}

extension SpatialReference {
    /// The geographic (longitude/latitude) spatial reference of this one's datum: itself when geographic, else
    /// its base geographic CRS as PROJ reports it (e.g. EPSG:4267 NAD27 for EPSG:32038).
    /// - Throws: `EngineError.unknownSpatialReference` when PROJ cannot tell.
    func geographicBase() throws(EngineError) -> SpatialReference {
        if isUnspecified { throw .spatialReferenceRequired(operation: "a geodesic operation") }
        if isGeographic { return self }
        let context = PROJContext()
        guard let created = try context.making({ proj_create($0, definition) }) else {
            throw .unknownSpatialReference(definition, reason: context.lastMessage())
        }
        var crs = PROJObject(created, context: context)
        if proj_get_type(crs.pointer) == PJ_TYPE_BOUND_CRS, let base = proj_get_source_crs(context.handle, crs.pointer) {
            crs = PROJObject(base, context: context)
        }
        guard let geodetic = proj_crs_get_geodetic_crs(context.handle, crs.pointer) else {
            throw .unknownSpatialReference(definition, reason: "no geodetic datum: \(context.lastMessage())")
        }
        let base = PROJObject(geodetic, context: context)
        if let auth = proj_get_id_auth_name(base.pointer, 0), let code = proj_get_id_code(base.pointer, 0) {
            let text = "\(String(cString: auth)):\(String(cString: code))"
            if text == "EPSG:4326" { return .wgs84 }
            if let sr = try? SpatialReference(code: text), sr.isGeographic { return sr }
        }
        guard let wkt = proj_as_wkt(context.handle, base.pointer, PJ_WKT2_2019, nil) else {
            throw .unknownSpatialReference(definition, reason: "its geographic CRS cannot be written as WKT")
        }
        let sr = try SpatialReference(wkt: String(cString: wkt))
        guard sr.isGeographic else {
            throw .unknownSpatialReference(definition, reason: "its datum's CRS is not geographic (\(sr.kind.rawValue))")
        }
        return sr
    }
}
