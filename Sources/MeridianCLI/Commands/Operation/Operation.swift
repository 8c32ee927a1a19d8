import Foundation
import Meridian
import MeridianIO

/// One operation of `meridian op`, one of its modes, declared once: its name, its line of `--help`, what `--with`
/// must be and what it does. A new operation is one such declaration (the files `Operation+*.swift` hold them, by
/// kind) and one line in `Operation.all`; each option of the command declares the operations it applies to.
struct Operation: CommandMode, Equatable {
    /// What an operation needs `--with`.
    enum Other: Sendable {
        /// Nothing: `--with` is not accepted.
        case none
        /// Any geometry.
        case geometry
        /// A line (LINESTRING or MULTILINESTRING).
        case line
        /// A line with one path (a LINESTRING).
        case onePathLine
    }

    /// What an operation does with the input's features.
    enum Action: Sendable {
        /// The features made from one feature's geometry (none, one or several).
        case features(@Sendable (GeometryOperation, Geometry, Feature) throws(EngineError) -> [Feature])
        /// True or false for one feature's geometry.
        case predicate(@Sendable (GeometryOperation, Geometry) throws(EngineError) -> Bool)
        /// The features made from the whole input at once.
        case wholeInput(@Sendable (GeometryOperation, FeatureInput) throws(CommandError) -> [Feature])
    }

    /// The operations, in the order of `--help` and the reference page: the one registration of each.
    static let all: [Operation] = [
        .convexHull, .boundary, .labelPoint, .simplify, .densify, .generalize, .offset, .clip,
        .ellipse, .sector,
        .intersection, .union, .difference, .symmetricDifference, .cut, .extend, .reshape, .autoComplete,
        .contains, .within, .intersects, .disjoint, .touches, .crosses, .overlaps, .equals, .relate,
        .isSimple,
    ]

    /// The name on the command line, e.g. "convex-hull".
    let rawValue: String
    /// One line for `--help` and the reference page.
    let summary: String
    /// What `--with` must be.
    let other: Other
    /// What the operation does.
    let action: Action

    /// An operation.
    init(_ name: String, with other: Other = .none, summary: String, action: Action) {
        (rawValue, self.other, self.summary, self.action) = (name, other, summary, action)
    }

    /// An operation making at most one geometry from each feature's geometry, written with the feature's properties.
    init(_ name: String, with other: Other = .none, summary: String,
         geometry: @escaping @Sendable (GeometryOperation, Geometry) throws(EngineError) -> Geometry?)
    {
        self.init(name, with: other, summary: summary, action: .features { op, g, feature throws(EngineError) in
            try geometry(op, g).map { [Feature(geometry: $0, properties: feature.properties, id: feature.id)] } ?? []
        })
    }

    /// The registered operation named `rawValue`.
    init?(rawValue: String) {
        guard let found = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }

    /// Every registered operation.
    static var allCases: [Operation] { all }

    static func == (a: Operation, b: Operation) -> Bool { a.rawValue == b.rawValue }

    /// Whether the operation answers true or false.
    var isPredicate: Bool {
        if case .predicate = action { return true }
        return false
    }

    /// Whether the operation needs the whole input at once.
    var readsWholeInput: Bool {
        if case .wholeInput = action { return true }
        return false
    }

    /// Whether the operation needs `--with`.
    var needsOther: Bool { other != .none }

    /// Whether `--with` must be a line.
    var needsLine: Bool { other == .line || other == .onePathLine }

    /// The operations that take `--with`.
    static let withOther = Modes.of(allCases.filter { $0.needsOther }, title: "the overlays, edits and predicates",
                                   tag: "overlays, edits, predicates")
    /// The operations that write geometries (the others print true or false).
    static let writingGeometries = Modes.of(allCases.filter { !$0.isPredicate }, title: "the operations that write geometries: a predicate prints true or false on standard output",
                                            tag: "all but the predicates")
    /// The geodesic shapes around points.
    static let shapes = Modes.of(Operation.ellipse, .sector)
}

/// The geometry type `op ellipse` and `op sector` make.
enum ShapeType: String, CaseIterable {
    case polygon, polyline, multipoint
}

/// `op clip --envelope XMIN,YMIN,XMAX,YMAX`, in the input's spatial reference.
struct EnvelopeBounds {
    let xMin, yMin, xMax, yMax: Double
}

extension ValueKind where Value == EnvelopeBounds {
    /// Four comma-separated numbers, the minima no larger than the maxima.
    static var envelope: ValueKind {
        ValueKind(placeholder: "XMIN,YMIN,XMAX,YMAX", summary: "four numbers, XMIN <= XMAX and YMIN <= YMAX",
                  show: { "\($0.xMin),\($0.yMin),\($0.xMax),\($0.yMax)" }) { text, option throws(CommandError) in
            let v = text.split(separator: ",").map { NumberText.finite($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4, let x0 = v[0], let y0 = v[1], let x1 = v[2], let y1 = v[3], x0 <= x1, y0 <= y1 else {
                throw .usage("\(option) expects XMIN,YMIN,XMAX,YMAX with XMIN <= XMAX and YMIN <= YMAX, got '\(text)'")
            }
            return EnvelopeBounds(xMin: x0, yMin: y0, xMax: x1, yMax: y1)
        }
    }
}

extension ValueKind where Value == GeometryEngine.ExtendOptions {
    /// The extend options by name, comma-separated.
    static var extendOptions: ValueKind {
        let names: [(String, GeometryEngine.ExtendOptions)] = [
            ("relocate-ends", .relocateEnds), ("keep-end-attributes", .keepEndAttributes),
            ("no-end-attributes", .noEndAttributes), ("do-not-extend-from-start-point", .doNotExtendFromStartPoint),
            ("do-not-extend-from-end-point", .doNotExtendFromEndPoint),
        ]
        let listed = names.map { $0.0 }.joined(separator: ", ")
        return ValueKind(placeholder: "LIST", summary: "comma-separated: \(listed)", show: { _ in "" }) { text, option throws(CommandError) in
            var options: GeometryEngine.ExtendOptions = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                let key = name.trimmingCharacters(in: .whitespaces)
                guard let found = names.first(where: { $0.0 == key })?.1 else {
                    throw .usage("\(option): unknown option '\(key)' (use \(names.map { $0.0 }.sorted().joined(separator: ", ")))")
                }
                options.insert(found)
            }
            return options
        }
    }
}
