import Foundation
import MeridianCore

// MARK: - Offsets: a geometry at a constant distance from a polyline or polygon (GEOS underneath)

/// How ``GeometryEngine/offset(_:byDistance:offsetType:bevelRatio:flattenError:)->Geometry`` turns at convex corners.
public enum OffsetType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A sharp corner, cut where it would reach farther than `bevelRatio` × distance.
    case mitered
    /// A straight cut across the corner.
    case bevelled
    /// An arc of the offset distance around the corner.
    case rounded
    /// A square corner (ArcGIS's "squared"): the arc replaced by its circumscribed square, drawn as a mitre
    /// limited at √2 × distance.
    case squared
}

extension GeometryEngine {
    /// Refuses an offset distance that dwarfs the geometry: the result's coordinates are about M + |d| (M the
    /// largest coordinate), where doubles step by ulp(M + |d|), and a geometry whose extent is under 1,000 such
    /// steps collapses there (a 10-unit square offset by 1e300 in a unit of 1e-300 m, which the Earth bound lets
    /// through, gave a pentagon). The same 1,000 steps as the command line's rule for buffer distances too fine
    /// for the coordinates.
    static func requireResolved(_ g: Geometry, atOffset distance: Double) throws(EngineError) {
        var xMin = Double.infinity, xMax = -Double.infinity, yMin = Double.infinity, yMax = -Double.infinity
        for c in g.coordinates {
            xMin = min(xMin, c.x)
            xMax = max(xMax, c.x)
            yMin = min(yMin, c.y)
            yMax = max(yMax, c.y)
        }
        let extent = max(xMax - xMin, yMax - yMin)
        guard extent > 0, extent.isFinite else { return }
        let scale = max(abs(xMin), abs(xMax), abs(yMin), abs(yMax)) + abs(distance)
        guard extent < 1000 * scale.ulp else { return }
        throw .invalidArgument("the offset distance \(distance) dwarfs the geometry: its extent, \(extent), is under 1,000 steps of a double at the result's coordinates (about \(scale), where doubles step by \(scale.ulp))")
    }

    /// A geometry at a constant distance from a polyline or polygon (ArcGIS
    /// `offset(_:byDistance:offsetType:bevelRatio:flattenError:)`).
    ///
    /// ArcGIS's sides: a positive distance offsets a polyline to the right of its direction and grows a polygon
    /// outwards; a negative one offsets to the left and shrinks a polygon. (GEOS's offset curve takes the left
    /// side for positive distances; the sign is turned here.) Each polyline part gives one offset line (GEOS
    /// `offsetCurve`); a polygon gives the buffer polygon with the chosen corners.
    ///
    /// Known limitation with GEOS 3.11.1 (Debian 12): the *ends* of a polyline's offset can differ from GEOS 3.11.2
    /// and later, whose end handling was corrected: a curve may end on a stray vertex closer to the line than the
    /// offset, or stop short of where the newer GEOS ends it (16 of 80 random lines differ at an end from shapely's GEOS
    /// 3.11.4 in `Tests/python/test_cli_op_peers.py`; interior vertices and polygon offsets agree to 1e-9).
    /// - Parameters:
    ///   - geometry: A polyline, polygon or envelope.
    ///   - distance: The offset in the spatial reference's unit; not zero.
    ///   - offsetType: How convex corners are drawn.
    ///   - bevelRatio: For `.mitered`: the longest mitre, as a multiple of `distance`, before the corner is
    ///     bevelled (≥ 1; ArcGIS's default is 10).
    ///   - flattenError: For `.rounded`: the largest distance between the true arc and its chords, in the spatial
    ///     reference's unit (> 0; it sets the number of chords).
    /// - Throws: `.invalidArgument` for points, a zero or non-finite distance, or an out-of-range ratio or error;
    ///   `.invalidGeometry` for invalid polygons; `.geos`.
    public static func offset(
        _ geometry: some GeometryConvertible, byDistance distance: Double, offsetType: OffsetType,
        bevelRatio: Double = 10, flattenError: Double
    ) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        guard distance != 0, distance.isFinite else { throw .invalidArgument("the offset distance must be non-zero and finite, got \(distance)") }
        // As for buffers: no planar distance beyond half the Earth's circumference (1e300 gave a pentagon).
        guard abs(distance) * (g.spatialReference.unit?.metersPerUnit ?? 1) <= maximumBufferDistance else {
            throw .invalidArgument("the offset distance \(distance) exceeds half the Earth's circumference")
        }
        try requireResolved(g, atOffset: distance)
        guard bevelRatio >= 1, bevelRatio.isFinite else { throw .invalidArgument("the bevel ratio must be at least 1, got \(bevelRatio)") }
        guard flattenError > 0, flattenError.isFinite else { throw .invalidArgument("the flatten error must be positive, got \(flattenError)") }
        // Chords per quarter circle so that r·(1 − cos(π/(4q))) ≤ flattenError, capped at 1000.
        let ratio = min(1, flattenError / abs(distance))
        let quadrantSegments = Int(min(1000, max(1, (Double.pi / (4 * acos(1 - ratio))).rounded(.up))))
        let join: JoinStyle = switch offsetType {
        case .rounded: .round
        case .bevelled: .bevel
        case .mitered, .squared: .mitre
        }
        let mitreLimit = offsetType == .squared ? 2.0.squareRoot() : bevelRatio
        try WorkBudget.admit(vertices: Double(estimatedBufferVertices([g], segmentsPerQuarterCircle: quadrantSegments)),
                             for: "the offset")
        let context = try GEOSContext()
        switch g {
        case .point, .multipoint:
            throw .invalidArgument("an offset needs a polyline or a polygon, got a \(g.typeName.lowercased())")
        case .polyline(let line):
            var parts: [[Coordinate]] = []
            for part in line.parts {
                let ref = try context.make(.polyline(Polyline(parts: [part], spatialReference: line.spatialReference)))
                let curve = try ref.offsetCurve(-distance, quarterSegments: quadrantSegments, join: join,
                                                mitreLimit: mitreLimit)
                if case .polyline(let l) = try context.geometry(curve, in: line.spatialReference) { parts += l.parts }
            }
            try WorkBudget.produce(vertices: parts.reduce(0) { $0 + $1.count }, by: "the offset")
            return .polyline(Polyline(parts: parts, spatialReference: line.spatialReference))
        case .polygon, .envelope:
            let ref = try context.make(g)
            try context.requireValid(ref, g)
            // (GEOS's default end cap is round: the parameters are GEOS's defaults but for these three.)
            let params = try GEOSBufferParameters(
                BufferParameters(segmentsPerQuarterCircle: quadrantSegments, joinStyle: join, mitreLimit: mitreLimit),
                context: context, "offset")
            let grown = try context.polygon(try ref.buffer(distance, params, "offset"), in: g.spatialReference)
            try WorkBudget.produce(vertices: grown.vertexCount, by: "the offset")
            return .polygon(grown)
        }
    }

    /// A polyline's offset (see `offset(_:byDistance:offsetType:bevelRatio:flattenError:)`): a polyline, one
    /// part per input part.
    /// - Parameters:
    ///   - polyline: The line; a positive distance offsets it to the right of its direction.
    ///   - distance: The offset in the spatial reference's unit; not zero.
    ///   - offsetType: How convex corners are drawn.
    ///   - bevelRatio: For `.mitered`: the longest mitre, as a multiple of `distance` (≥ 1; default 10).
    ///   - flattenError: For `.rounded`: the largest distance between the true arc and its chords, in the spatial
    ///     reference's unit (> 0).
    /// - Throws: `.invalidArgument` for a zero or non-finite distance, or an out-of-range ratio or error; `.geos`.
    public static func offset(
        _ polyline: Polyline, byDistance distance: Double, offsetType: OffsetType, bevelRatio: Double = 10,
        flattenError: Double
    ) throws(EngineError) -> Polyline {
        try sameType(as: polyline, "offset", try offset(
            polyline.geometry, byDistance: distance, offsetType: offsetType, bevelRatio: bevelRatio,
            flattenError: flattenError))
    }

    /// A polygon's offset (see `offset(_:byDistance:offsetType:bevelRatio:flattenError:)`): the polygon grown
    /// (positive distance) or shrunk (negative), with the chosen corners.
    /// - Parameters:
    ///   - polygon: The area.
    ///   - distance: The offset in the spatial reference's unit; not zero.
    ///   - offsetType: How convex corners are drawn.
    ///   - bevelRatio: For `.mitered`: the longest mitre, as a multiple of `distance` (≥ 1; default 10).
    ///   - flattenError: For `.rounded`: the largest distance between the true arc and its chords, in the spatial
    ///     reference's unit (> 0).
    /// - Throws: `.invalidArgument` for a zero or non-finite distance, or an out-of-range ratio or error;
    ///   `.invalidGeometry` for an invalid polygon; `.geos`.
    public static func offset(
        _ polygon: Polygon, byDistance distance: Double, offsetType: OffsetType, bevelRatio: Double = 10,
        flattenError: Double
    ) throws(EngineError) -> Polygon {
        try sameType(as: polygon, "offset", try offset(
            polygon.geometry, byDistance: distance, offsetType: offsetType, bevelRatio: bevelRatio,
            flattenError: flattenError))
    }
}
