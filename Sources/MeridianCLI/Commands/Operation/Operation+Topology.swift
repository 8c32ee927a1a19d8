import Foundation
import Meridian
import MeridianIO

/// The operations of one geometry alone: one declaration each, registered in `Operation.all`.
extension Operation {
    /// `convex-hull` (with `--merge`, `GeometryOperation.mergedHull` makes one hull of all the features).
    static let convexHull: Operation = Operation(
        "convex-hull",
        summary: "the smallest convex polygon (a line or point when degenerate); --merge: one hull around all features",
        geometry: { _, g throws(EngineError) in try GeometryEngine.convexHull(for: g) })

    /// `boundary`.
    static let boundary: Operation = Operation(
        "boundary", summary: "polygon rings as lines, line end points as points (the OGC rule)",
        geometry: { _, g throws(EngineError) in try GeometryEngine.boundary(of: g) })

    /// `label-point`.
    static let labelPoint: Operation = Operation(
        "label-point", summary: "a point inside each polygon",
        geometry: { _, g throws(EngineError) in
            switch g {
            case .polygon(let p): return .point(try GeometryEngine.labelPoint(for: p))
            case .envelope(let e): return .point(try GeometryEngine.labelPoint(for: e.polygon))
            default: throw .invalidArgument("a label point needs a polygon, got a \(g.typeName.lowercased())")
            }
        })

    /// `simplify`.
    static let simplify: Operation = Operation(
        "simplify", summary: "made topologically correct (a bow tie becomes two triangles)",
        geometry: { _, g throws(EngineError) in try GeometryEngine.simplify(g) })

    /// `densify --max-segment-length L`.
    static let densify: Operation = Operation(
        "densify", summary: "vertices added so that no segment is longer than L",
        geometry: { op, g throws(EngineError) in
            try GeometryEngine.densify(g, maxSegmentLength: op.command.maxSegmentLength ?? 0)
        })

    /// `generalize --max-deviation D`.
    static let generalize: Operation = Operation(
        "generalize", summary: "Douglas-Peucker: removed vertices lie within D of the result",
        geometry: { op, g throws(EngineError) in
            try GeometryEngine.generalize(g, maxDeviation: op.command.maxDeviation ?? 0,
                                          removeDegenerateParts: op.command.removeDegenerateParts)
        })

    /// `offset --distance D`.
    static let offset: Operation = Operation(
        "offset",
        summary: "lines: D to the right of their direction (negative: left); polygons: grown by D (negative: shrunk)",
        geometry: { op, g throws(EngineError) in
            let c = op.command, d = c.distance ?? 0
            return try GeometryEngine.offset(g, byDistance: d, offsetType: c.offsetType, bevelRatio: c.bevelRatio,
                                             flattenError: c.flattenError ?? abs(d) / 1000)
        })

    /// `clip --envelope XMIN,YMIN,XMAX,YMAX`.
    static let clip: Operation = Operation(
        "clip", summary: "the part inside the rectangle",
        geometry: { op, g throws(EngineError) in
            guard let b = op.command.envelope else { throw .invalidArgument("clip needs an envelope") }
            return try GeometryEngine.clip(g, to: Envelope(xMin: b.xMin, yMin: b.yMin, xMax: b.xMax, yMax: b.yMax,
                                                           spatialReference: op.spatialReference))
        })
}
