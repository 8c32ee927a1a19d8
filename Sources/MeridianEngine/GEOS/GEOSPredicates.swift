import CGEOS
import MeridianCore

// MARK: - Spatial predicates (DE-9IM), plain and prepared

/// A GEOS spatial predicate between two geometries.
enum GEOSPredicate {
    case contains, within, intersects, disjoint, touches, crosses, overlaps, equals, covers
    /// Whether the DE-9IM matrix matches a nine-character pattern (GEOS `relatePattern`).
    case relate(pattern: String)
}

extension GEOSGeometryRef {
    /// Whether `predicate(self, other)` holds; GEOS's message (under `operation`) when GEOS fails.
    func satisfies(_ predicate: GEOSPredicate, _ other: GEOSGeometryRef, _ operation: String) throws(EngineError) -> Bool {
        let (h, a, b) = (context.handle, pointer, other.pointer)
        let value: CChar = switch predicate {
        case .contains: GEOSContains_r(h, a, b)
        case .within: GEOSWithin_r(h, a, b)
        case .intersects: GEOSIntersects_r(h, a, b)
        case .disjoint: GEOSDisjoint_r(h, a, b)
        case .touches: GEOSTouches_r(h, a, b)
        case .crosses: GEOSCrosses_r(h, a, b)
        case .overlaps: GEOSOverlaps_r(h, a, b)
        case .equals: GEOSEquals_r(h, a, b)
        case .covers: GEOSCovers_r(h, a, b)
        case .relate(let pattern): GEOSRelatePattern_r(h, a, b, pattern)
        }
        return try context.answer(value, operation)
    }
}

/// A geometry prepared by GEOS for many predicate and distance tests against it; keeps the geometry alive.
final class GEOSPreparedGeometry {
    /// The prepared geometry.
    let geometry: GEOSGeometryRef
    private let prepared: OpaquePointer
    private var handle: GEOSContextHandle_t { geometry.context.handle }

    /// Prepares `geometry`; GEOS's message (under `operation`) when GEOS fails.
    init(_ geometry: GEOSGeometryRef, _ operation: String) throws(EngineError) {
        self.geometry = geometry
        guard let p = GEOSPrepare_r(geometry.context.handle, geometry.pointer) else {
            throw geometry.context.error(operation)
        }
        prepared = p
    }

    deinit { GEOSPreparedGeom_destroy_r(handle, prepared) }

    /// Whether the prepared geometry intersects `other`; `nil` when GEOS fails.
    func intersects(_ other: GEOSGeometryRef) -> Bool? {
        Self.answer(GEOSPreparedIntersects_r(handle, prepared, other.pointer))
    }

    /// Whether the prepared geometry contains `other`; `nil` when GEOS fails.
    func contains(_ other: GEOSGeometryRef) -> Bool? {
        Self.answer(GEOSPreparedContains_r(handle, prepared, other.pointer))
    }

    /// Whether the point (x, y) lies in the prepared geometry or on its boundary (false when GEOS fails).
    func covers(_ c: Coordinate) -> Bool {
        guard let point = GEOSGeom_createPointFromXY_r(handle, c.x, c.y) else { return false }
        defer { GEOSGeom_destroy_r(handle, point) }
        return GEOSPreparedIntersects_r(handle, prepared, point) == 1
    }

    /// The smallest distance from the prepared geometry to `other`, as `GEOSDistance` gives it (0 when they
    /// intersect); GEOS's message (under `operation`) when GEOS fails.
    ///
    /// GEOS's prepared distance of a line (GEOS 3.11) measures between the two geometries' edges only, so a line
    /// lying inside a polygon's interior came out at its distance from the polygon's boundary instead of 0. When a
    /// polygon takes part and the edges are apart, the prepared intersection test decides.
    func distance(to other: GEOSGeometryRef, _ operation: String) throws(EngineError) -> Double {
        var d = 0.0
        guard GEOSPreparedDistance_r(handle, prepared, other.pointer, &d) == 1 else {
            throw geometry.context.error(operation)
        }
        let hasArea = GEOSGeom_getDimensions_r(handle, geometry.pointer) == 2
            || GEOSGeom_getDimensions_r(handle, other.pointer) == 2
        if d > 0, hasArea {
            guard let meets = intersects(other) else { throw geometry.context.error(operation) }
            if meets { return 0 }
        }
        return d
    }

    /// The smallest distance from the prepared geometry to the point (x, y); GEOS's message (under `operation`) when
    /// GEOS fails.
    func distance(to c: Coordinate, _ operation: String) throws(EngineError) -> Double {
        guard let point = GEOSGeom_createPointFromXY_r(handle, c.x, c.y) else { throw geometry.context.error(operation) }
        defer { GEOSGeom_destroy_r(handle, point) }
        var d = 0.0
        guard GEOSPreparedDistance_r(handle, prepared, point, &d) == 1 else { throw geometry.context.error(operation) }
        return d
    }

    private static func answer(_ value: CChar) -> Bool? {
        switch value {
        case 1: true
        case 0: false
        default: nil
        }
    }
}
