import CPROJ
import Foundation
import MeridianCore

/// Which operation PROJ runs where, for a transformation between two spatial references: what
/// `InterpolatedProjection` needs to know before it replaces PROJ on a tile by a polynomial.
///
/// `proj_create_crs_to_crs` either makes one operation, run on every point, or — when several operations apply in
/// different places (NAD27 → WGS 84: a Helmert shift for the CONUS west of the Mississippi, another for the whole
/// CONUS, another for Mexico, …) — a set of candidates, and then chooses one per point: the most accurate of those
/// whose area of use, as a box in source coordinates, holds the point (PROJ 9.1: `pj_get_suggested_operation` in
/// `4D_api.cpp`), or, where none does, the first that needs no grid. PROJ does not expose the candidates, so this
/// type makes the same list with PROJ's public functions, the way PROJ 9.1.1 makes it
/// (`pj_create_prepared_operations`: the same operation factory settings, each area of use taken into the source
/// spatial reference through 21 points per side of its box), and decides for a whole tile at once: a tile that lies
/// inside or outside every candidate's box gets the same operation at every point, which must then be smooth
/// (`SmoothOperation`); a tile that a box's edge crosses is cut smaller (or left to PROJ).
///
/// The copy of PROJ's choice is checked against PROJ when it is made (`agreesWithPROJ`: at the centre of every
/// candidate's box, PROJ's last used operation must be the one predicted) and is used only with PROJ 9.1, whose
/// choice it copies; with another PROJ, transformations with several candidates are left to PROJ entirely.
struct OperationChoice: Sendable {
    /// One candidate operation of a set, as PROJ 9.1 prepares it.
    struct Candidate: Sendable {
        let name: String
        /// Meters; negative when unknown.
        let accuracy: Double
        let isOffshore: Bool
        /// The candidate's area of use as a box in the source spatial reference (longitude/latitude and
        /// easting/northing order), edges included.
        let minX: Double, minY: Double, maxX: Double, maxY: Double
        let usesGrids: Bool
        let isSmooth: Bool

        func contains(_ x: Double, _ y: Double) -> Bool { x >= minX && y >= minY && x <= maxX && y <= maxY }
    }

    /// What runs on a tile.
    enum Verdict: Equatable {
        /// One smooth operation at every point of the tile (its name).
        case smooth(String)
        /// One operation everywhere on the tile, but not smooth (a grid shift): left to PROJ.
        case notSmooth
        /// A candidate's box has an edge across the tile: different operations on different points.
        case mixed
    }

    /// The candidates, in PROJ's order; empty when PROJ runs one operation everywhere.
    let candidates: [Candidate]
    /// The single operation's name and whether it is smooth (when `candidates` is empty).
    let single: (name: String, isSmooth: Bool)

    /// The operation on every point of the box [minX, maxX] × [minY, maxY] (source coordinates), if there is one.
    func verdict(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Verdict {
        guard !candidates.isEmpty else { return single.isSmooth ? .smooth(single.name) : .notSmooth }
        // Candidates whose box holds the whole tile apply everywhere on it; those whose box edge crosses it apply
        // on part of it: the tile is uniform when every combination of the crossing ones gives the same choice.
        var applies: [Bool] = []
        var crossing: [Int] = []
        for (i, c) in candidates.enumerated() {
            let holds = minX >= c.minX && minY >= c.minY && maxX <= c.maxX && maxY <= c.maxY
            let misses = maxX < c.minX || maxY < c.minY || minX > c.maxX || minY > c.maxY
            if !holds && !misses { crossing.append(i) }
            applies.append(holds)
        }
        guard crossing.count <= Self.crossingLimit else { return .mixed }
        var chosen: Int?
        for combination in 0..<(1 << crossing.count) {
            for (bit, i) in crossing.enumerated() { applies[i] = combination & (1 << bit) != 0 }
            let pick = Self.choose(candidates, where: applies)
            if combination == 0 {
                chosen = pick
            } else if pick != chosen {
                return .mixed
            }
        }
        guard let chosen else { return .notSmooth }
        return candidates[chosen].isSmooth ? .smooth(candidates[chosen].name) : .notSmooth
    }

    /// The most candidate boxes whose edges may cross a tile that still gets one verdict (2^n choices are made).
    static let crossingLimit = 6

    /// PROJ 9.1's choice among the candidates whose box holds the point (`applies`): `pj_get_suggested_operation`,
    /// then, when none applies, the first candidate without grids (`proj_trans`); its index, nil when there is none.
    static func choose(_ candidates: [Candidate], where applies: [Bool]) -> Int? {
        var best = -1
        var bestAccuracy = Double.greatestFiniteMagnitude
        for (i, c) in candidates.enumerated() where applies[i] {
            let contained = best >= 0 && c.accuracy == bestAccuracy && c.minX > candidates[best].minX
                && c.minY > candidates[best].minY && c.maxX < candidates[best].maxX && c.maxY < candidates[best].maxY
            if best < 0 || (c.accuracy >= 0 && (c.accuracy < bestAccuracy || contained) && !c.isOffshore) {
                best = i
                bestAccuracy = c.accuracy
            }
        }
        if best >= 0 { return best }
        return candidates.firstIndex { !$0.usesGrids }
    }

    /// The operation PROJ 9.1 runs at one point (the same choice `verdict` makes for a tile).
    func operationName(atX x: Double, y: Double) -> String? {
        guard !candidates.isEmpty else { return single.name }
        return Self.choose(candidates, where: candidates.map { $0.contains(x, y) }).map { candidates[$0].name }
    }
}

extension OperationChoice {
    /// The choice for `operation`, PROJ's `proj_create_crs_to_crs` object between `source` and `target` (normalised
    /// for visualisation); nil when it cannot be known (another PROJ than 9.1 with several candidates, a list that
    /// does not match PROJ's, or an object PROJ cannot describe).
    /// - Parameters:
    ///   - operation: The object whose choice is described.
    ///   - context: Its context (used to make the candidates, on this thread).
    ///   - name: Runs PROJ's object at a point and names the operation it used (the check of the copied choice).
    static func make(for operation: PROJObject, from source: SpatialReference, to target: SpatialReference,
                     context: PROJContext, name: (Coordinate) -> String?) -> OperationChoice? {
        let h = context.handle
        defer { context.clearMessages() }
        // A set of candidates has no ISO object behind it (its type is unknown) and no PROJ string.
        let text = proj_as_proj_string(h, operation.pointer, PJ_PROJ_5, nil).map { String(cString: $0) }
        guard proj_get_type(operation.pointer) == PJ_TYPE_UNKNOWN && text == nil else {
            guard let text else { return nil }
            let name = proj_get_name(operation.pointer).map { String(cString: $0) } ?? ""
            return OperationChoice(candidates: [], single: (name, SmoothOperation.isSmooth(text)))
        }
        guard PROJInfo.version.hasPrefix("9.1."),
              let candidates = PreparedCandidates(source: source, target: target, context: context)?.list,
              candidates.count >= 2
        else { return nil }
        let choice = OperationChoice(candidates: candidates, single: ("", false))
        return choice.agreesWithPROJ(name) ? choice : nil
    }

    /// Whether PROJ runs the predicted operation at the centre of every candidate's box (where the box is finite).
    private func agreesWithPROJ(_ name: (Coordinate) -> String?) -> Bool {
        for c in candidates where [c.minX, c.minY, c.maxX, c.maxY].allSatisfy({ abs($0) < 1e300 }) {
            let x = (c.minX + c.maxX) / 2, y = (c.minY + c.maxY) / 2
            guard let used = name(Coordinate(x: x, y: y)),
                  Self.withoutAxisSwaps(used) == operationName(atX: x, y: y) else { return false }
        }
        return true
    }

    /// An operation's name without the axis swaps PROJ's normalisation for visualisation adds before and after it
    /// ("axis order change (2D) + Inverse of NAD27 to WGS 84 (6) + Texas CS27 North Central zone").
    static func withoutAxisSwaps(_ name: String) -> String {
        let swap = "axis order change (2D)"
        var n = Substring(name)
        if n.hasPrefix(swap + " + ") { n = n.dropFirst(swap.count + 3) }
        if n.hasSuffix(" + " + swap) { n = n.dropLast(swap.count + 3) }
        return String(n)
    }
}

/// The candidate list of PROJ 9.1.1's `proj_create_crs_to_crs_from_pj` and `pj_create_prepared_operations`, made
/// with the public API.
private struct PreparedCandidates {
    let list: [OperationChoice.Candidate]

    init?(source: SpatialReference, target: SpatialReference, context: PROJContext) {
        let h = context.handle
        guard let s = proj_create(h, Self.crsDefinition(source.definition)) else { return nil }
        let sourceCRS = PROJObject(s, context: context)
        guard let t = proj_create(h, Self.crsDefinition(target.definition)) else { return nil }
        let targetCRS = PROJObject(t, context: context)
        guard let factory = proj_create_operation_factory_context(h, nil) else { return nil }
        defer { proj_operation_factory_context_destroy(factory) }
        proj_operation_factory_context_set_allow_ballpark_transformations(h, factory, 1)
        proj_operation_factory_context_set_spatial_criterion(h, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
        proj_operation_factory_context_set_grid_availability_use(
            h, factory, proj_context_is_network_enabled(h) != 0
                ? PROJ_GRID_AVAILABILITY_KNOWN_AVAILABLE : PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID)
        guard let operations = proj_create_operations(h, sourceCRS.pointer, targetCRS.pointer, factory) else {
            return nil
        }
        defer { proj_list_destroy(operations) }
        guard let toSource = Self.geographicToCRS(sourceCRS, definition: source.definition, context: context),
              let toTarget = Self.geographicToCRS(targetCRS, definition: target.definition, context: context),
              let swap = Self.isSwappedForVisualization(sourceCRS, context: context)
        else { return nil }
        var list: [OperationChoice.Candidate] = []
        for i in 0..<proj_list_get_count(operations) {
            guard let raw = proj_list_get(h, operations, i) else { return nil }
            let op = PROJObject(raw, context: context)
            var w = 0.0, so = 0.0, e = 0.0, n = 0.0
            var areaName: UnsafePointer<CChar>?
            guard proj_get_area_of_use(h, op.pointer, &w, &so, &e, &n, &areaName) != 0 else { continue }
            let offshore = areaName.map { String(cString: $0).contains("- offshore") } ?? false
            let boxes = w <= e ? [(w, e)] : [(w, 180.0), (-180.0, e)]
            for (west, east) in boxes {
                let sourceBox = Self.reprojectedBox(toSource, west: west, south: so, east: east, north: n)
                let targetBox = Self.reprojectedBox(toTarget, west: west, south: so, east: east, north: n)
                guard sourceBox.minX <= sourceBox.maxX && targetBox.minX <= targetBox.maxX else { continue }
                let b = swap ? (minX: sourceBox.minY, minY: sourceBox.minX, maxX: sourceBox.maxY, maxY: sourceBox.maxX)
                    : sourceBox
                let text = proj_as_proj_string(h, op.pointer, PJ_PROJ_5, nil).map { String(cString: $0) }
                list.append(OperationChoice.Candidate(
                    name: proj_get_name(op.pointer).map { String(cString: $0) } ?? "",
                    accuracy: proj_coordoperation_get_accuracy(h, op.pointer), isOffshore: offshore,
                    minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY,
                    usesGrids: proj_coordoperation_get_grid_used_count(h, op.pointer) != 0,
                    isSmooth: text.map(SmoothOperation.isSmooth) ?? false))
            }
        }
        self.list = list
    }

    /// `pj_add_type_crs_if_needed`: PROJ strings become CRS definitions.
    static func crsDefinition(_ definition: String) -> String {
        let t = definition
        let isPROJString = t.hasPrefix("proj=") || t.hasPrefix("+proj=") || t.hasPrefix("+init=") || t.hasPrefix("init=")
        return isPROJString && !t.contains("type=crs") ? t + " +type=crs" : t
    }

    /// `geographicToCRS(_:context:)` for a CRS given by its definition, found once per definition (a search of
    /// PROJ's database) and kept as its PROJ string, from which it is made again (the same pipeline, so the same
    /// arithmetic).
    static func geographicToCRS(_ crs: PROJObject, definition: String, context: PROJContext) -> PROJObject? {
        let known = operationsToCRS.withLock { $0[definition] }
        if let text = known ?? nil, let made = proj_create(context.handle, text) {
            return PROJObject(made, context: context)
        }
        guard let op = geographicToCRS(crs, context: context) else { return nil }
        let text = proj_as_proj_string(context.handle, op.pointer, PJ_PROJ_5, nil).map { String(cString: $0) }
        operationsToCRS.withLock { $0[definition] = text }
        return op
    }

    /// The PROJ strings of `geographicToCRS` by CRS definition (nil: one that has none; then it is searched again).
    private static let operationsToCRS = LockedValue<[String: String?]>([:])

    /// `create_operation_to_geog_crs`: from longitude/latitude in degrees on the CRS's ellipsoid (Greenwich prime
    /// meridian) to the CRS, in its own axis order.
    static func geographicToCRS(_ crs: PROJObject, context: PROJContext) -> PROJObject? {
        let h = context.handle
        guard let g = proj_crs_get_geodetic_crs(h, crs.pointer) else { return nil }
        var geodetic = PROJObject(g, context: context)
        let type = proj_get_type(geodetic.pointer)
        if [PJ_TYPE_GEOCENTRIC_CRS, PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS].contains(type) {
            guard let d = proj_crs_get_datum_forced(h, geodetic.pointer) else { return nil }
            let datum = PROJObject(d, context: context)
            guard let c = proj_create_ellipsoidal_2D_cs(h, PJ_ELLPS2D_LONGITUDE_LATITUDE, nil, 0),
                  let el = proj_get_ellipsoid(h, datum.pointer) else { return nil }
            let cs = PROJObject(c, context: context), ellipsoid = PROJObject(el, context: context)
            var a = 0.0, inverseFlattening = 0.0
            proj_ellipsoid_get_parameters(h, ellipsoid.pointer, &a, nil, nil, &inverseFlattening)
            guard let made = proj_create_geographic_crs(
                h, "unnamed crs", "unnamed datum", proj_get_name(ellipsoid.pointer), a, inverseFlattening,
                "Reference prime meridian", 0, nil, 0, cs.pointer) else { return nil }
            geodetic = PROJObject(made, context: context)
        }
        guard proj_get_type(geodetic.pointer) == PJ_TYPE_GEOGRAPHIC_2D_CRS,
              let factory = proj_create_operation_factory_context(h, nil) else { return nil }
        defer { proj_operation_factory_context_destroy(factory) }
        proj_operation_factory_context_set_spatial_criterion(h, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
        proj_operation_factory_context_set_grid_availability_use(
            h, factory, PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID)
        guard let d2 = proj_crs_demote_to_2D(h, nil, crs.pointer) else { return nil }
        let crs2D = PROJObject(d2, context: context)
        guard let list = proj_create_operations(h, geodetic.pointer, crs2D.pointer, factory) else { return nil }
        defer { proj_list_destroy(list) }
        let count = proj_list_get_count(list)
        guard count > 0 else { return nil }
        for i in 0..<count {
            guard let raw = proj_list_get(h, list, i) else { continue }
            let op = PROJObject(raw, context: context)
            if proj_coordoperation_get_grid_used_count(h, op.pointer) == 0 { return op }
        }
        return proj_list_get(h, list, 0).map { PROJObject($0, context: context) }
    }

    /// `reproject_bbox`: the box around 21 points per side of a longitude/latitude box taken through `operation`
    /// (the whole world gives the largest box; points PROJ cannot take are left out; none left gives min > max).
    static func reprojectedBox(_ operation: PROJObject, west: Double, south: Double, east: Double, north: Double)
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)
    {
        let big = Double.greatestFiniteMagnitude
        if west == -180 && east == 180 && south == -90 && north == 90 { return (-big, -big, big, big) }
        let steps = 20, n = steps + 1
        var x = [Double](repeating: 0, count: 4 * n), y = [Double](repeating: 0, count: 4 * n)
        let stepLon = (east - west) / Double(steps), stepLat = (north - south) / Double(steps)
        for j in 0...steps {
            x[j] = west + Double(j) * stepLon
            y[j] = south
            x[n + j] = x[j]
            y[n + j] = north
            x[2 * n + j] = west
            y[2 * n + j] = south + Double(j) * stepLat
            x[3 * n + j] = east
            y[3 * n + j] = y[2 * n + j]
        }
        let count = 4 * n
        x.withUnsafeMutableBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in
                _ = proj_trans_generic(operation.pointer, PJ_FWD, xs.baseAddress, MemoryLayout<Double>.stride, count,
                                       ys.baseAddress, MemoryLayout<Double>.stride, count, nil, 0, 0, nil, 0, 0)
            }
        }
        var box = (minX: big, minY: big, maxX: -big, maxY: -big)
        for j in 0..<count where x[j] != .infinity && y[j] != .infinity {
            box = (min(box.minX, x[j]), min(box.minY, y[j]), max(box.maxX, x[j]), max(box.maxY, y[j]))
        }
        return box
    }

    /// Whether PROJ swaps the CRS's first two axes when it normalises for visualisation (latitude first, northing
    /// first): compares the first axis's direction before and after.
    static func isSwappedForVisualization(_ crs: PROJObject, context: PROJContext) -> Bool? {
        let h = context.handle
        guard let n = proj_normalize_for_visualization(h, crs.pointer) else { return nil }
        let normalised = PROJObject(n, context: context)
        guard let a = firstAxisDirection(crs, context: context),
              let b = firstAxisDirection(normalised, context: context) else { return nil }
        return a != b
    }

    private static func firstAxisDirection(_ crs: PROJObject, context: PROJContext) -> String? {
        let h = context.handle
        var object = crs
        if proj_get_type(crs.pointer) == PJ_TYPE_BOUND_CRS, let base = proj_get_source_crs(h, crs.pointer) {
            object = PROJObject(base, context: context)
        }
        guard let cs = proj_crs_get_coordinate_system(h, object.pointer) else { return nil }
        defer { proj_destroy(cs) }
        var direction: UnsafePointer<CChar>?
        guard proj_cs_get_axis_info(h, cs, 0, nil, nil, &direction, nil, nil, nil, nil) != 0 else { return nil }
        return direction.map { String(cString: $0) }
    }
}
