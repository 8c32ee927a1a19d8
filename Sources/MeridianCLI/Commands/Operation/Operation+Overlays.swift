import Foundation
import Meridian
import MeridianIO

/// The overlays and edits with the `--with` geometry: one declaration each, registered in `Operation.all`.
extension Operation {
    /// An overlay of the feature and the `--with` geometry.
    private static func overlay(
        _ name: String, _ body: @escaping @Sendable (Geometry, Geometry) throws(EngineError) -> Geometry
    ) -> Operation {
        Operation(name, with: .geometry, summary: "the \(name) of the feature and the --with geometry",
                  geometry: { op, g throws(EngineError) in try body(g, try op.otherGeometry(for: name)) })
    }

    /// `intersection`.
    static let intersection: Operation = overlay("intersection") { g, other throws(EngineError) in
        try GeometryEngine.intersection(g, other)
    }
    /// `union`.
    static let union: Operation = overlay("union") { g, other throws(EngineError) in try GeometryEngine.union(g, other) }
    /// `difference`.
    static let difference: Operation = overlay("difference") { g, other throws(EngineError) in
        try GeometryEngine.difference(g, other)
    }
    /// `symmetric-difference`.
    static let symmetricDifference: Operation = overlay("symmetric-difference") { g, other throws(EngineError) in
        try GeometryEngine.symmetricDifference(g, other)
    }

    /// `cut`: the pieces, each with a "cut" property.
    static let cut: Operation = Operation(
        "cut", with: .line,
        summary: "--with a line: the pieces left of it, right of it, then the pieces on neither side (ArcGIS's order), one output geometry each, empty sides left out; GeoJSON gives each a \"cut\" property: left, right or undefined. A feature the line does not cut writes nothing",
        action: .features { op, g, feature throws(EngineError) in
            guard let cutter = op.other?.polyline else { throw .invalidArgument("cut needs a line") }
            return try GeometryEngine.cut(g, usingCutter: cutter).enumerated().compactMap { k, piece in
                guard !piece.coordinates.isEmpty else { return nil }
                var properties = feature.properties
                properties["cut"] = .string(k == 0 ? "left" : k == 1 ? "right" : "undefined")
                return Feature(geometry: piece, properties: properties, id: feature.id)
            }
        })

    /// `extend`.
    static let extend: Operation = Operation(
        "extend", with: .line,
        summary: "--with a line: each line's ends extended along their end segments to the nearest point of it (ArcGIS's extend). A line with no end extended writes nothing",
        geometry: { op, g throws(EngineError) in
            let line = try op.otherLine(for: "extend")
            guard case .polyline(let l) = g else { throw .invalidArgument("extend needs a line, got a \(g.typeName.lowercased())") }
            return try GeometryEngine.extend(l, using: line, options: op.command.extendOptions).map { .polyline($0) }
        })

    /// `reshape`.
    static let reshape: Operation = Operation(
        "reshape", with: .onePathLine,
        summary: "--with a one-path line: the line or polygon reshaped by it (ArcGIS's rules); a feature it does not reshape writes nothing",
        geometry: { op, g throws(EngineError) in
            let line = try op.otherLine(for: "reshape")
            switch g {
            case .polyline(let l): return try GeometryEngine.reshape(l, using: line).map { .polyline($0) }
            case .polygon(let p): return try GeometryEngine.reshape(p, using: line).map { .polygon($0) }
            case .envelope(let e): return try GeometryEngine.reshape(e.polygon, using: line).map { .polygon($0) }
            default: throw .invalidArgument("reshape needs a line or polygon, got a \(g.typeName.lowercased())")
            }
        })

    /// `auto-complete`: every polygon at once.
    static let autoComplete: Operation = Operation(
        "auto-complete", with: .line,
        summary: "--with lines: the new polygons closing the gaps between the input polygons and the lines (ArcGIS's autoComplete), one per gap",
        action: .wholeInput { op, input throws(CommandError) in try op.autoComplete(input) })
}

extension GeometryOperation {
    /// `auto-complete`: the polygons closing the gaps between the input's polygons and the `--with` lines.
    fileprivate func autoComplete(_ input: FeatureInput) throws(CommandError) -> [Feature] {
        var polygons: [Polygon] = []
        for (i, feature) in input.features.enumerated() {
            switch feature.geometry {
            case .polygon(let p): polygons.append(p)
            case .envelope(let e): polygons.append(e.polygon)
            default: throw .failure("\(input.labels[i]): auto-complete needs polygons, got \(feature.geometry.map { "a " + $0.typeName.lowercased() } ?? "no geometry")")
            }
        }
        guard let lines = other?.polyline else { throw .usage("auto-complete needs lines --with") }
        let made = try engine { () throws(EngineError) in
            try GeometryEngine.autoComplete(existingBoundaries: polygons, newBoundaries: [lines])
        }
        return made.map { Feature(geometry: .polygon($0), properties: [:], id: nil) }
    }
}
