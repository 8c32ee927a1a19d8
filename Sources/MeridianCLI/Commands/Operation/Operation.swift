import Foundation
import Meridian
import MeridianIO

/// The operations of `meridian op`, its modes: each option of the command declares the operations it applies to.
enum Operation: String, CommandMode {
    case convexHull = "convex-hull", boundary, labelPoint = "label-point", simplify, densify, generalize, offset,
         clip, ellipse, sector
    case intersection, union, difference, symmetricDifference = "symmetric-difference", cut, extend, reshape,
         autoComplete = "auto-complete"
    case contains, within, intersects, disjoint, touches, crosses, overlaps, equals, relate
    case isSimple = "is-simple"

    /// Whether the operation answers true or false.
    var isPredicate: Bool {
        switch self {
        case .contains, .within, .intersects, .disjoint, .touches, .crosses, .overlaps, .equals, .relate, .isSimple:
            true
        default: false
        }
    }

    /// Whether the operation needs `--with`.
    var needsOther: Bool {
        (isPredicate && self != .isSimple)
            || [.intersection, .union, .difference, .symmetricDifference, .cut, .extend, .reshape, .autoComplete]
                .contains(self)
    }

    /// Whether `--with` must be a line.
    var needsLine: Bool { [.cut, .extend, .reshape, .autoComplete].contains(self) }

    /// The operations that take `--with`.
    static let withOther = Modes.of(allCases.filter { $0.needsOther }, title: "the overlays, edits and predicates",
                                   tag: "overlays, edits, predicates")
    /// The operations that write geometries (the others print true or false).
    static let writingGeometries = Modes.of(allCases.filter { !$0.isPredicate }, title: "the operations that write geometries: a predicate prints true or false on standard output",
                                            tag: "all but the predicates")
    /// The geodesic shapes around points.
    static let shapes = Modes.of(Operation.ellipse, .sector)

    var summary: String {
        switch self {
        case .convexHull: "the smallest convex polygon (a line or point when degenerate); --merge: one hull around all features"
        case .boundary: "polygon rings as lines, line end points as points (the OGC rule)"
        case .labelPoint: "a point inside each polygon"
        case .simplify: "made topologically correct (a bow tie becomes two triangles)"
        case .densify: "vertices added so that no segment is longer than L"
        case .generalize: "Douglas-Peucker: removed vertices lie within D of the result"
        case .offset: "lines: D to the right of their direction (negative: left); polygons: grown by D (negative: shrunk)"
        case .clip: "the part inside the rectangle"
        case .ellipse: "around each point: the points at geodesic distance r(phi) from the centre along azimuth 90 + D + phi, r(phi) the radius of the plane ellipse with semi-axes A, B (the longer along D); edges at most L long (default: N vertices), at most N vertices"
        case .sector: "the part of the ellipse from direction T (from the major axis) sweeping S clockwise: a polygon with the centre, or the arc as a polyline or multipoint"
        case .intersection, .union, .difference, .symmetricDifference: "the \(rawValue) of the feature and the --with geometry"
        case .cut: "--with a line: the pieces left of it, right of it, then the pieces on neither side (ArcGIS's order), one output geometry each, empty sides left out; GeoJSON gives each a \"cut\" property: left, right or undefined. A feature the line does not cut writes nothing"
        case .extend: "--with a line: each line's ends extended along their end segments to the nearest point of it (ArcGIS's extend). A line with no end extended writes nothing"
        case .reshape: "--with a one-path line: the line or polygon reshaped by it (ArcGIS's rules); a feature it does not reshape writes nothing"
        case .autoComplete: "--with lines: the new polygons closing the gaps between the input polygons and the lines (ArcGIS's autoComplete), one per gap"
        case .relate: "true when the DE-9IM relation of the feature (first) and the --with geometry matches the pattern, e.g. T*F**F***"
        case .isSimple: "true when the feature is topologically simple (ArcGIS isSimple: lines without self-intersections, polygons valid); simplify repairs what is not"
        case .contains: "true when the feature contains the --with geometry"
        case .within: "true when the feature lies within the --with geometry"
        case .intersects: "true when the feature intersects the --with geometry"
        case .disjoint: "true when the feature is disjoint from the --with geometry"
        case .touches: "true when the feature touches the --with geometry"
        case .crosses: "true when the feature crosses the --with geometry"
        case .overlaps: "true when the feature overlaps the --with geometry"
        case .equals: "true when the feature equals the --with geometry"
        }
    }
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
