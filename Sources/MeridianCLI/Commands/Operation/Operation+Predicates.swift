import Foundation
import Meridian
import MeridianIO

/// The predicates, printing true or false for each feature: one declaration each, registered in `Operation.all`.
extension Operation {
    /// A predicate of the feature and the `--with` geometry.
    private static func relation(
        _ name: String, _ summary: String,
        _ answer: @escaping @Sendable (Geometry, Geometry) throws(EngineError) -> Bool
    ) -> Operation {
        Operation(name, with: .geometry, summary: summary, action: .predicate { op, g throws(EngineError) in
            try answer(g, try op.otherGeometry(for: name))
        })
    }

    /// `contains`.
    static let contains: Operation = relation("contains", "true when the feature contains the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.doesGeometry(g, contain: other)
    }
    /// `within`.
    static let within: Operation = relation("within", "true when the feature lies within the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, within: other)
    }
    /// `intersects`.
    static let intersects: Operation = relation("intersects", "true when the feature intersects the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, intersecting: other)
    }
    /// `disjoint`.
    static let disjoint: Operation = relation("disjoint", "true when the feature is disjoint from the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, disjointWith: other)
    }
    /// `touches`.
    static let touches: Operation = relation("touches", "true when the feature touches the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, touching: other)
    }
    /// `crosses`.
    static let crosses: Operation = relation("crosses", "true when the feature crosses the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, crossing: other)
    }
    /// `overlaps`.
    static let overlaps: Operation = relation("overlaps", "true when the feature overlaps the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, overlapping: other)
    }
    /// `equals`.
    static let equals: Operation = relation("equals", "true when the feature equals the --with geometry") {
        g, other throws(EngineError) in try GeometryEngine.isGeometry(g, equivalentTo: other)
    }

    /// `relate --pattern DE9IM`.
    static let relate: Operation = Operation(
        "relate", with: .geometry,
        summary: "true when the DE-9IM relation of the feature (first) and the --with geometry matches the pattern, e.g. T*F**F***",
        action: .predicate { op, g throws(EngineError) in
            try GeometryEngine.isGeometry(g, relatedTo: try op.otherGeometry(for: "relate"),
                                          byRelation: op.command.pattern ?? "")
        })

    /// `is-simple`, of the feature alone.
    static let isSimple: Operation = Operation(
        "is-simple",
        summary: "true when the feature is topologically simple (ArcGIS isSimple: lines without self-intersections, polygons valid); simplify repairs what is not",
        action: .predicate { _, g throws(EngineError) in try GeometryEngine.isSimple(g) })
}
