import Foundation
import Meridian
import MeridianIO

/// `meridian op`: one planar `GeometryEngine` operation applied to every feature of the input, in the input's own
/// coordinates: the topology operations, the overlays and edits with one other geometry, the relational predicates
/// and the geodesic shapes around points.
public struct OperationCommand: Command {
    /// "op".
    public static let name = "op"
    /// One line for `meridian --help`.
    public static let summary = "planar geometry operations and predicates (convex-hull, clip, simplify, touches, ...)"
    /// What `--help` says before the options.
    public static let discussion = """
        Applies one planar GeometryEngine operation to every feature of INPUT, in the input's own coordinates and
        unit (degrees for longitude/latitude input: project it first for distances in meters). Operations with one
        other geometry take it as --with WKT, in the input's spatial reference; predicates print true or false, one
        line per feature. The geodesic shapes (ellipse, sector) are made around each point feature on its spatial
        reference's ellipsoid: lengths in meters, angles in degrees (0 is east, growing clockwise, as in ArcGIS),
        output in the input's spatial reference. Features are read, operated on and written a batch at a time
        (memory holds the input's bytes and one batch; auto-complete, which needs every polygon at once, and a
        feature table output hold them all).
        """
    /// Examples for `--help`.
    public static let examples = [
        "meridian op clip parcels.wkt --in-srs EPSG:32038 --envelope 2200000,390000,2210000,400000",
        "meridian op sector cities.csv --semi-axis-1 50000 --semi-axis-2 20000 --sector-angle 90 -o sectors.geojson",
    ]

    @Mode(argument: "OPERATION", help: "the operation (below)")
    var operation: Operation

    var input = InputOptions()

    @Option("--with", as: .text("WKT", summary: "a WKT geometry in the input's spatial reference"),
            help: "the other geometry, in WKT in the input's spatial reference", modes: Operation.withOther,
            required: Operation.withOther)
    var other: String?

    @Flag("--merge", help: "one hull around all features", modes: .of(Operation.convexHull))
    var merge: Bool

    @Option("--max-segment-length", as: .number(placeholder: "L"), help: "the longest segment (ellipse and sector: the longest edge, by default set by --max-point-count)",
            modes: .of(Operation.densify, .ellipse, .sector), required: .of(Operation.densify))
    var maxSegmentLength: Double?

    @Option("--max-deviation", as: .number(placeholder: "D"), help: "the largest distance of a removed vertex from the result",
            modes: .of(Operation.generalize), required: .of(Operation.generalize))
    var maxDeviation: Double?

    @Flag("--remove-degenerate-parts", help: "drop parts that collapse", modes: .of(Operation.generalize))
    var removeDegenerateParts: Bool

    @Option("--distance", as: .number(placeholder: "D"), help: "the offset distance, in the input's unit",
            modes: .of(Operation.offset), required: .of(Operation.offset))
    var distance: Double?

    @Option("--type", as: .choice(OffsetType.self), help: "the corners of the offset", modes: .of(Operation.offset))
    var offsetType = OffsetType.mitered

    @Option("--bevel-ratio", as: .number(placeholder: "R"), help: "how far a mitered corner may reach, in distances",
            modes: .of(Operation.offset))
    var bevelRatio = 10.0

    @Option("--flatten-error", as: .number(placeholder: "E"), help: "the largest error of the curves (default |D|/1000)",
            modes: .of(Operation.offset))
    var flattenError: Double?

    @Option("--envelope", as: .envelope, help: "the rectangle, in the input's spatial reference", modes: .of(Operation.clip),
            required: .of(Operation.clip))
    var envelope: EnvelopeBounds?

    var shape = ShapeOptions()

    @Option("--extend-options", as: .extendOptions, help: "how the ends are extended (ArcGIS's extend options)",
            modes: .of(Operation.extend))
    var extendOptions: GeometryEngine.ExtendOptions = []

    @Option("--pattern", as: .text("DE9IM", summary: "a DE-9IM pattern of 9 characters: T, F, *, 0, 1, 2"),
            help: "the DE-9IM pattern, e.g. T*F**F*** (the feature first)", modes: .of(Operation.relate),
            required: .of(Operation.relate))
    var pattern: String?

    var workLimit = WorkLimitOptions(modes: Operation.writingGeometries)

    var threads = ThreadOptions()

    var output = OutputOptions(
        use: .operation, help: ".wkt (in the input's spatial reference; the standard output default), .geojson (WGS84), or \(OutputFormat.extensionList(OutputFormat.featureTables)) (in the input's spatial reference, with its attributes)",
        modes: Operation.writingGeometries)

    /// A command with every option at its default.
    public init() {}

    /// `--max-vertices`: the bound of the operation's work.
    public var maximumVertices: Int { workLimit.maximumVertices }

    /// Applies the operation to every feature and writes the results (or true/false lines), a batch of features at
    /// a time: memory holds the input's bytes, one batch and its results (and for a predicate one answer per
    /// feature), whatever the number of features. `auto-complete`, which needs every polygon at once, and a feature
    /// table output, written whole with the input's fields, read the whole input; `convex-hull --merge` keeps one
    /// hull, merged with each batch (the hull of the hulls is the hull).
    /// - Throws: `CommandError.usage` for a `--with` geometry of the wrong kind, `.failure` naming the feature whose
    ///   operation failed, or for unreadable input or an unwritable output.
    public func run(io: CommandIO) throws(CommandError) {
        try threads.run { () throws(CommandError) in try apply(io: io) }
    }

    /// `run(io:)` with the thread count set.
    private func apply(io: CommandIO) throws(CommandError) {
        let file = try output.file(standardOutput: .wkt)
        if operation.readsWholeInput || file.format.isFeatureTable {
            // Every polygon at once (auto-complete), or a feature table written whole with the input's fields.
            let features = try read(io: io)
            try write(try task(for: features.spatialReference).results(for: features), of: features, to: file, io: io)
            return
        }
        var task: GeometryOperation?
        func taskFor(_ batch: FeatureInput) throws(CommandError) -> GeometryOperation {
            if let task { return task }
            let made = try self.task(for: batch.spatialReference)
            task = made
            return made
        }
        if operation.isPredicate {
            var answers: [Bool] = []
            _ = try read(io: io, batchSize: FeatureEncoding.batchSize) { batch throws(CommandError) in
                answers += try taskFor(batch).answers(for: batch)
            }
            io.output(Data(answers.map { $0 ? "true\n" : "false\n" }.joined().utf8))
            return
        }
        try file.stream(io: io) { out throws(CommandError) in
            var writer = FeatureStreamWriter(format: file.format)
            writer.begin(&out)
            func append(_ results: [Feature]) throws(CommandError) { try writer.write(results[...], to: &out) }
            var hull: Geometry?
            _ = try read(io: io, batchSize: FeatureEncoding.batchSize) { batch throws(CommandError) in
                let task = try taskFor(batch)
                if operation == .convexHull, merge {
                    hull = try task.mergedHull(of: batch, with: hull)
                } else {
                    try append(try task.results(for: batch))
                }
            }
            if let hull { try append([Feature(geometry: hull, properties: [:], id: nil)]) }
            writer.end(&out)
        }
    }

    /// Reads the input: whole, or handed to `batch` `batchSize` features at a time.
    private func read(io: CommandIO, batchSize: Int? = nil,
                      batch: (FeatureInput) throws(CommandError) -> Void = { _ throws(CommandError) in })
        throws(CommandError) -> FeatureInput
    {
        try FeatureInput.read(input.path, layer: input.layer, inputSpatialReference: input.spatialReference,
                              defaultXYSpatialReference: input.spatialReference ?? .wgs84, io: io,
                              csv: FeatureInput.CSVOptions(batchSize: batchSize), batch: batch)
    }

    /// The operation with its `--with` geometry decoded in the input's spatial reference.
    private func task(for sr: SpatialReference) throws(CommandError) -> GeometryOperation {
        GeometryOperation(command: self, other: try otherGeometry(in: sr), spatialReference: sr)
    }

    /// Writes the features made from a whole input: as WKT, a GeoJSON FeatureCollection, or a feature table with
    /// the input's fields.
    private func write(_ results: [Feature], of features: FeatureInput, to file: OutputFile, io: CommandIO)
        throws(CommandError)
    {
        if file.format.isFeatureTable {
            try FeatureTableOutput.write(
                results, to: file,
                spatialReference: results.lazy.compactMap { $0.geometry }.first?.spatialReference ?? features.spatialReference,
                geometryType: FeatureTableOutput.geometryType(of: results.map { $0.geometry }),
                hasZ: results.contains { $0.geometry?.coordinates.contains { $0.z != nil } ?? false },
                fields: features.fields, io: io)
            return
        }
        try file.stream(io: io) { out throws(CommandError) in
            try FeatureStreamWriter.write(results, as: file.format, to: &out)
        }
    }

    /// `--with`, decoded in the input's spatial reference and checked against what the operation needs.
    private func otherGeometry(in sr: SpatialReference) throws(CommandError) -> Geometry? {
        guard let other else { return nil }
        let geometry: Geometry
        do { geometry = try WKT.decode(other, spatialReference: sr) } catch { throw .usage("--with: \(error.description)") }
        if operation.needsLine, geometry.polyline == nil {
            throw .usage("\(operation.rawValue) needs a line --with (LINESTRING or MULTILINESTRING), got a \(geometry.typeName.lowercased())")
        }
        if operation.other == .onePathLine, let parts = geometry.polyline?.parts.count, parts != 1 {
            throw .usage("\(operation.rawValue) needs a line with one path --with (a LINESTRING), got \(parts) paths")
        }
        return geometry
    }
}

/// The options of the geodesic shapes, `op ellipse` and `op sector`.
struct ShapeOptions: OptionGroup {
    @Option("--semi-axis-1", as: .number(placeholder: "A"), help: "one semi-axis, in meters", modes: Operation.shapes,
            required: Operation.shapes)
    var semiAxis1: Double?

    @Option("--semi-axis-2", as: .number(placeholder: "B"), help: "the other semi-axis, in meters", modes: Operation.shapes,
            required: Operation.shapes)
    var semiAxis2: Double?

    @Option("--axis-direction", as: .number(placeholder: "D"), help: "the direction of the major axis, in degrees",
            modes: Operation.shapes)
    var axisDirection = 0.0

    @Option("--max-point-count", as: .wholeNumber(1...10_000_000), help: "the most vertices", modes: Operation.shapes)
    var maxPointCount = 10_000

    @Option("--geometry-type", as: .choice(ShapeType.self), help: "what to make", modes: Operation.shapes)
    var geometryType = ShapeType.polygon

    @Option("--sector-angle", as: .number(placeholder: "S"), help: "the angle the sector sweeps clockwise, in degrees",
            modes: .of(Operation.sector), required: .of(Operation.sector))
    var sectorAngle: Double?

    @Option("--start-direction", as: .number(placeholder: "T"), help: "where the sector starts, in degrees from the major axis",
            modes: .of(Operation.sector))
    var startDirection = 0.0
}
