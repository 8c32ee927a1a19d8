import Foundation
import Meridian

/// `meridian op`: one planar `GeometryEngine` operation applied to every feature of the input, in the input's own
/// coordinates: the topology operations, the overlays with one other geometry, and the relational predicates.
public enum OperationCommand: Command {
    /// The subcommand name.
    public static let name = "op"
    /// One line for `meridian --help`.
    public static let summary = "planar geometry operations and predicates (convex-hull, clip, simplify, touches, ...)"
    /// The `--help` text.
    public static let help = """
        Usage: meridian op OPERATION [INPUT] [--in-srs SRS] [options] [-o OUTPUT]

        Applies one planar GeometryEngine operation to every feature of INPUT, in the input's own coordinates and
        unit (degrees for longitude/latitude input: project it first for distances in meters).

        INPUT            a path or - (stdin, the default): GeoJSON (WGS84), CSV or WKT (one geometry per line)
        --in-srs SRS     spatial reference of CSV x,y / WKT input (default WGS84)
        -o, --output     .wkt (one geometry per line, in the input's spatial reference; the stdout default) or
                         .geojson (WGS84); predicates print true or false, one line per feature

        Operations on each feature:
          convex-hull [--merge]            the smallest convex polygon (a line or point when degenerate);
                                           --merge: one hull around all features
          boundary                         polygon rings as lines, line end points as points (the OGC rule)
          label-point                      a point inside each polygon
          simplify                         made topologically correct (a bow tie becomes two triangles)
          densify --max-segment-length L   vertices added so that no segment is longer than L
          generalize --max-deviation D [--remove-degenerate-parts]
                                           Douglas-Peucker: removed vertices lie within D of the result
          offset --distance D [--type mitered|bevelled|rounded|squared] [--bevel-ratio R] [--flatten-error E]
                                           lines: D to the right of their direction (negative: left); polygons:
                                           grown by D (negative: shrunk). Defaults: mitered, 10, D/1000
          clip --envelope XMIN,YMIN,XMAX,YMAX
                                           the part inside the rectangle
        Geodesic shapes around each point feature (on its spatial reference's ellipsoid; lengths in meters,
        angles in degrees: 0 is east, growing clockwise, as in ArcGIS; output in the input's spatial reference):
          ellipse --semi-axis-1 A --semi-axis-2 B [--axis-direction D] [--max-segment-length L]
                  [--max-point-count N] [--geometry-type polygon|polyline|multipoint]
                                           the points at geodesic distance r(phi) from the centre along azimuth
                                           90 + D + phi, r(phi) the radius of the plane ellipse with semi-axes A, B
                                           (the longer along D); edges at most L long (default: N vertices),
                                           at most N vertices (default 10000)
          sector  (the ellipse options) --sector-angle S [--start-direction T]
                                           the part of the ellipse from direction T (from the major axis) sweeping
                                           S clockwise: a polygon with the centre, or the arc as a polyline or
                                           multipoint
        Operations with one other geometry (--with WKT, in the input's spatial reference):
          intersection, union, difference, symmetric-difference
          cut                              --with a line: the pieces left of it, right of it, then the pieces on
                                           neither side (ArcGIS's order), one output geometry each, empty sides
                                           left out; GeoJSON gives each a "cut" property: left, right or undefined.
                                           A feature the line does not cut writes nothing
          extend [--extend-options LIST]   --with a line: each line's ends extended along their end segments to the
                                           nearest point of it (ArcGIS's extend); LIST: comma-separated
                                           relocate-ends, keep-end-attributes, no-end-attributes,
                                           do-not-extend-from-start-point, do-not-extend-from-end-point.
                                           A line with no end extended writes nothing
          reshape                          --with a one-path line: the line or polygon reshaped by it (ArcGIS's
                                           rules); a feature it does not reshape writes nothing
          auto-complete                    --with lines: the new polygons closing the gaps between the input
                                           polygons and the lines (ArcGIS's autoComplete), one per gap
          contains, within, intersects, disjoint, touches, crosses, overlaps, equals
                                           predicates: is the feature ... the other geometry?
          relate --pattern DE9IM           the DE-9IM pattern, e.g. T*F**F*** (the feature first)
        Predicate of each feature alone:
          is-simple                        true when the feature is topologically simple (ArcGIS isSimple: lines
                                           without self-intersections, polygons valid); simplify repairs what is not

        Example: meridian op clip parcels.wkt --in-srs EPSG:32038 --envelope 2200000,390000,2210000,400000
        """

    /// The operations, by name.
    enum Operation: String, CaseIterable {
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
    }

    /// Applies the operation to every feature and writes the results (or true/false lines).
    /// - Throws: `CommandError.usage` for an unknown operation or bad options, `.failure` naming the feature whose
    ///   operation failed, or for unreadable input or an unwritable output.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        let inSRS = try (try arguments.option("--in-srs")).map { (t: String) throws(CommandError) in try parseSpatialReference(t) }
        let withText = try arguments.option("--with")
        let merge = arguments.flag("--merge")
        let removeDegenerate = arguments.flag("--remove-degenerate-parts")
        let numbers = try NumericOptions(&arguments)
        let typeText = try arguments.option("--type")
        let pattern = try arguments.option("--pattern")
        let envelopeText = try arguments.option("--envelope")
        let geometryTypeText = try arguments.option("--geometry-type")
        let extendText = try arguments.option("--extend-options")
        let output = OutputFile(try arguments.option("--output", "-o"))
        let positionals = try arguments.finish(maximumPositionals: 2)

        guard let opName = positionals.first else {
            throw .usage("missing OPERATION: \(Operation.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let op = Operation(rawValue: opName) else {
            throw .usage("unknown operation '\(opName)': use one of \(Operation.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ["", "wkt", "geojson", "json"].contains(output.format) else {
            throw .usage("unknown output format '.\(output.format)' (use .wkt or .geojson)")
        }
        if op.isPredicate, output.format != "" {
            throw .usage("\(op.rawValue) prints true or false; write it to stdout, not -o")
        }
        if op.needsOther, withText == nil { throw .usage("\(op.rawValue) needs --with GEOMETRY (WKT, in the input's spatial reference)") }
        if !op.needsOther, withText != nil { throw .usage("--with applies to overlays and predicates, not \(op.rawValue)") }
        if op == .relate, pattern == nil { throw .usage("relate needs --pattern, e.g. T*F**F***") }
        if op != .relate, pattern != nil { throw .usage("--pattern applies to relate") }
        if merge, op != .convexHull { throw .usage("--merge applies to convex-hull") }
        if removeDegenerate, op != .generalize { throw .usage("--remove-degenerate-parts applies to generalize") }
        let offsetType = try typeText.map { (t: String) throws(CommandError) -> OffsetType in
            guard op == .offset else { throw .usage("--type applies to offset") }
            guard let type = OffsetType(rawValue: t) else {
                throw .usage("--type expects mitered, bevelled, rounded or squared, got '\(t)'")
            }
            return type
        }
        try numbers.check(for: op)
        if geometryTypeText != nil, op != .ellipse, op != .sector {
            throw .usage("--geometry-type applies to ellipse and sector")
        }
        let shapeType = geometryTypeText ?? "polygon"
        guard ["polygon", "polyline", "multipoint"].contains(shapeType) else {
            throw .usage("--geometry-type expects polygon, polyline or multipoint, got '\(shapeType)'")
        }

        let input = try FeatureInput.read(positionals.count > 1 ? positionals[1] : nil, inputSpatialReference: inSRS,
                                          defaultXYSpatialReference: inSRS ?? .wgs84, io: io)
        let sr = input.spatialReference
        var other: Geometry?
        if let withText {
            do { other = try WKT.decode(withText, spatialReference: sr) } catch {
                throw .usage("--with: \(error.description)")
            }
        }
        if [.cut, .extend, .reshape, .autoComplete].contains(op), let other, other.polyline == nil {
            throw .usage("\(op.rawValue) needs a line --with (LINESTRING or MULTILINESTRING), got a \(other.typeName.lowercased())")
        }
        if op == .reshape, let parts = other?.polyline?.parts.count, parts != 1 {
            throw .usage("reshape needs a line with one path --with (a LINESTRING), got \(parts) paths")
        }
        var extendOptions: GeometryEngine.ExtendOptions = []
        if let extendText {
            guard op == .extend else { throw .usage("--extend-options applies to extend") }
            let names: [String: GeometryEngine.ExtendOptions] = [
                "relocate-ends": .relocateEnds, "keep-end-attributes": .keepEndAttributes,
                "no-end-attributes": .noEndAttributes, "do-not-extend-from-start-point": .doNotExtendFromStartPoint,
                "do-not-extend-from-end-point": .doNotExtendFromEndPoint,
            ]
            for name in extendText.split(separator: ",", omittingEmptySubsequences: false) {
                let key = name.trimmingCharacters(in: .whitespaces)
                guard let option = names[key] else {
                    throw .usage("--extend-options: unknown option '\(key)' (use \(names.keys.sorted().joined(separator: ", ")))")
                }
                extendOptions.insert(option)
            }
        }
        var envelope: Envelope?
        if op == .clip {
            guard let envelopeText else { throw .usage("clip needs --envelope XMIN,YMIN,XMAX,YMAX") }
            let v = envelopeText.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4, let x0 = v[0], let y0 = v[1], let x1 = v[2], let y1 = v[3],
                  [x0, y0, x1, y1].allSatisfy(\.isFinite), x0 <= x1, y0 <= y1
            else { throw .usage("--envelope expects XMIN,YMIN,XMAX,YMAX with XMIN <= XMAX and YMIN <= YMAX, got '\(envelopeText)'") }
            envelope = Envelope(xMin: x0, yMin: y0, xMax: x1, yMax: y1, spatialReference: sr)
        } else if envelopeText != nil {
            throw .usage("--envelope applies to clip")
        }

        var answers: [Bool] = []
        var results: [Feature] = []
        let features = input.features
        if op == .autoComplete {
            var polygons: [Polygon] = []
            for (i, feature) in features.enumerated() {
                switch feature.geometry {
                case .polygon(let p): polygons.append(p)
                case .envelope(let e): polygons.append(e.polygon)
                default: throw .failure("\(input.labels[i]): auto-complete needs polygons, got \(feature.geometry.map { "a " + $0.typeName.lowercased() } ?? "no geometry")")
                }
            }
            let made = try engine { () throws(EngineError) in
                try GeometryEngine.autoComplete(existingBoundaries: polygons, newBoundaries: [other!.polyline!])
            }
            results = made.map { Feature(geometry: .polygon($0), properties: [:], id: nil) }
        } else if op == .convexHull, merge {
            let all = features.compactMap(\.geometry)
            let hull = try engine { () throws(EngineError) in try GeometryEngine.convexHull(for: all, shouldMerge: true) }
            results = hull.map { Feature(geometry: $0, properties: [:], id: nil) }
        } else {
            for (i, feature) in features.enumerated() {
                guard let g = feature.geometry else { throw .failure("\(input.labels[i]) has no geometry") }
                do throws(EngineError) {
                    if op == .isSimple {
                        answers.append(try GeometryEngine.isSimple(g))
                    } else if op.isPredicate {
                        answers.append(try predicate(op, g, other!, pattern: pattern ?? ""))
                    } else if op == .cut {
                        for (k, piece) in try GeometryEngine.cut(g, usingCutter: other!.polyline!).enumerated()
                        where !piece.coordinates.isEmpty {
                            var properties = feature.properties
                            properties["cut"] = .string(k == 0 ? "left" : k == 1 ? "right" : "undefined")
                            results.append(Feature(geometry: piece, properties: properties, id: feature.id))
                        }
                    } else if op == .extend || op == .reshape {
                        let line = other!.polyline!
                        var r: Geometry?
                        switch (op, g) {
                        case (.extend, .polyline(let l)): r = try GeometryEngine.extend(l, using: line, options: extendOptions).map { .polyline($0) }
                        case (.reshape, .polyline(let l)): r = try GeometryEngine.reshape(l, using: line).map { .polyline($0) }
                        case (.reshape, .polygon(let p)): r = try GeometryEngine.reshape(p, using: line).map { .polygon($0) }
                        case (.reshape, .envelope(let e)): r = try GeometryEngine.reshape(e.polygon, using: line).map { .polygon($0) }
                        default:
                            throw EngineError.invalidArgument("\(op.rawValue) needs a \(op == .extend ? "line" : "line or polygon"), got a \(g.typeName.lowercased())")
                        }
                        if let r { results.append(Feature(geometry: r, properties: feature.properties, id: feature.id)) }
                    } else if op == .ellipse || op == .sector {
                        guard let center = g.point else {
                            throw EngineError.invalidArgument("\(op.rawValue) needs a point feature (its centre), got a \(g.typeName.lowercased())")
                        }
                        let r = try shape(op, center: center, numbers: numbers, type: shapeType)
                        results.append(Feature(geometry: r, properties: feature.properties, id: feature.id))
                    } else {
                        let r = try apply(op, g, other: other, envelope: envelope, numbers: numbers,
                                          offsetType: offsetType ?? .mitered, removeDegenerate: removeDegenerate)
                        results.append(Feature(geometry: r, properties: feature.properties, id: feature.id))
                    }
                } catch {
                    throw .failure("\(input.labels[i]): \(error.description)")
                }
            }
        }
        if op.isPredicate {
            io.output(Data(answers.map { $0 ? "true\n" : "false\n" }.joined().utf8))
            return
        }
        if output.format == "geojson" || output.format == "json" {
            try output.stream(io: io) { out throws(CommandError) in try FeatureEncoding.writeGeoJSON(results, to: &out) }
        } else {
            try output.stream(io: io) { out throws(CommandError) in
                FeatureEncoding.writeWKT(results.compactMap(\.geometry), to: &out)
            }
        }
    }

    /// The numeric options, each checked once it is known which operation they belong to.
    struct NumericOptions {
        var maxSegmentLength: Double?
        var maxDeviation: Double?
        var distance: Double?
        var bevelRatio: Double?
        var flattenError: Double?
        var semiAxis1: Double?
        var semiAxis2: Double?
        var axisDirection: Double?
        var startDirection: Double?
        var sectorAngle: Double?
        var maxPointCount: Double?

        init(_ arguments: inout Arguments) throws(CommandError) {
            func number(_ name: String) throws(CommandError) -> Double? {
                guard let text = try arguments.option(name) else { return nil }
                guard let v = Double(text), v.isFinite else { throw .usage("\(name) expects a finite number, got '\(text)'") }
                return v
            }
            maxSegmentLength = try number("--max-segment-length")
            maxDeviation = try number("--max-deviation")
            distance = try number("--distance")
            bevelRatio = try number("--bevel-ratio")
            flattenError = try number("--flatten-error")
            semiAxis1 = try number("--semi-axis-1")
            semiAxis2 = try number("--semi-axis-2")
            axisDirection = try number("--axis-direction")
            startDirection = try number("--start-direction")
            sectorAngle = try number("--sector-angle")
            maxPointCount = try number("--max-point-count")
            if let n = maxPointCount, n.rounded() != n || n < 1 || n > 10_000_000 {
                throw .usage("--max-point-count expects a whole number from 1 to 10000000, got \(n)")
            }
        }

        /// Refuses options that do not belong to `op` and missing required ones (the ranges are the engine's).
        func check(for op: Operation) throws(CommandError) {
            let given: [(String, Double?, Set<Operation>)] = [
                ("--max-segment-length", maxSegmentLength, [.densify, .ellipse, .sector]),
                ("--max-deviation", maxDeviation, [.generalize]),
                ("--semi-axis-1", semiAxis1, [.ellipse, .sector]), ("--semi-axis-2", semiAxis2, [.ellipse, .sector]),
                ("--axis-direction", axisDirection, [.ellipse, .sector]), ("--max-point-count", maxPointCount, [.ellipse, .sector]),
                ("--start-direction", startDirection, [.sector]), ("--sector-angle", sectorAngle, [.sector]),
                ("--distance", distance, [.offset]), ("--bevel-ratio", bevelRatio, [.offset]),
                ("--flatten-error", flattenError, [.offset]),
            ]
            for (name, value, ops) in given where value != nil && !ops.contains(op) {
                throw .usage("\(name) does not apply to \(op.rawValue)")
            }
            if op == .densify, maxSegmentLength == nil { throw .usage("densify needs --max-segment-length") }
            if op == .generalize, maxDeviation == nil { throw .usage("generalize needs --max-deviation") }
            if op == .offset, distance == nil { throw .usage("offset needs --distance") }
            if op == .ellipse || op == .sector, semiAxis1 == nil || semiAxis2 == nil {
                throw .usage("\(op.rawValue) needs --semi-axis-1 and --semi-axis-2 (meters)")
            }
            if op == .sector, sectorAngle == nil { throw .usage("sector needs --sector-angle (degrees)") }
        }
    }

    private static func apply(
        _ op: Operation, _ g: Geometry, other: Geometry?, envelope: Envelope?, numbers: NumericOptions,
        offsetType: OffsetType, removeDegenerate: Bool
    ) throws(EngineError) -> Geometry {
        switch op {
        case .convexHull: return try GeometryEngine.convexHull(for: g)
        case .boundary: return try GeometryEngine.boundary(of: g)
        case .labelPoint:
            switch g {
            case .polygon(let p): return .point(try GeometryEngine.labelPoint(for: p))
            case .envelope(let e): return .point(try GeometryEngine.labelPoint(for: e.polygon))
            default: throw .invalidArgument("a label point needs a polygon, got a \(g.typeName.lowercased())")
            }
        case .simplify: return try GeometryEngine.simplify(g)
        case .densify: return try GeometryEngine.densify(g, maxSegmentLength: numbers.maxSegmentLength!)
        case .generalize:
            return try GeometryEngine.generalize(g, maxDeviation: numbers.maxDeviation!, removeDegenerateParts: removeDegenerate)
        case .offset:
            let d = numbers.distance!
            return try GeometryEngine.offset(g, byDistance: d, offsetType: offsetType, bevelRatio: numbers.bevelRatio ?? 10,
                                             flattenError: numbers.flattenError ?? abs(d) / 1000)
        case .clip: return try GeometryEngine.clip(g, to: envelope!)
        case .intersection: return try GeometryEngine.intersection(g, other!)
        case .union: return try GeometryEngine.union(g, other!)
        case .difference: return try GeometryEngine.difference(g, other!)
        case .symmetricDifference: return try GeometryEngine.symmetricDifference(g, other!)
        default: throw .invalidArgument("\(op.rawValue) is a predicate")
        }
    }

    /// The geodesic ellipse or sector around `center`, as the geometry type named `type`.
    private static func shape(_ op: Operation, center: Point, numbers n: NumericOptions, type: String) throws(EngineError) -> Geometry {
        func ellipse<G: GeodesicShapeGeometry>(_: G.Type) throws(EngineError) -> Geometry {
            try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<G>(
                axisDirection: n.axisDirection ?? 0, center: center, maxPointCount: Int(n.maxPointCount ?? 10_000),
                maxSegmentLength: n.maxSegmentLength ?? 0, semiAxis1Length: n.semiAxis1!, semiAxis2Length: n.semiAxis2!)).geometry
        }
        func sector<G: GeodesicShapeGeometry>(_: G.Type) throws(EngineError) -> Geometry {
            try GeometryEngine.geodesicSector(parameters: GeodesicSectorParameters<G>(
                axisDirection: n.axisDirection ?? 0, center: center, maxPointCount: Int(n.maxPointCount ?? 10_000),
                maxSegmentLength: n.maxSegmentLength ?? 0, sectorAngle: n.sectorAngle!, semiAxis1Length: n.semiAxis1!,
                semiAxis2Length: n.semiAxis2!, startDirection: n.startDirection ?? 0)).geometry
        }
        switch (op, type) {
        case (.ellipse, "polyline"): return try ellipse(Polyline.self)
        case (.ellipse, "multipoint"): return try ellipse(Multipoint.self)
        case (.ellipse, _): return try ellipse(Polygon.self)
        case (_, "polyline"): return try sector(Polyline.self)
        case (_, "multipoint"): return try sector(Multipoint.self)
        default: return try sector(Polygon.self)
        }
    }

    private static func predicate(_ op: Operation, _ g: Geometry, _ other: Geometry, pattern: String) throws(EngineError) -> Bool {
        switch op {
        case .contains: try GeometryEngine.doesGeometry(g, contain: other)
        case .within: try GeometryEngine.isGeometry(g, within: other)
        case .intersects: try GeometryEngine.isGeometry(g, intersecting: other)
        case .disjoint: try GeometryEngine.isGeometry(g, disjointWith: other)
        case .touches: try GeometryEngine.isGeometry(g, touching: other)
        case .crosses: try GeometryEngine.isGeometry(g, crossing: other)
        case .overlaps: try GeometryEngine.isGeometry(g, overlapping: other)
        case .equals: try GeometryEngine.isGeometry(g, equivalentTo: other)
        case .relate: try GeometryEngine.isGeometry(g, relatedTo: other, byRelation: pattern)
        default: throw .invalidArgument("\(op.rawValue) is not a predicate")
        }
    }
}
