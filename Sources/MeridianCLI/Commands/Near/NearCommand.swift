import Foundation
import Meridian
import MeridianIO

/// `meridian near`: proximity analysis between two inputs — every pair of a LEFT and a RIGHT feature within a search
/// distance of each other (geopandas' `sjoin(predicate="dwithin")`, ArcGIS Pro's Generate Near Table), the K nearest
/// RIGHT features of each LEFT feature, how many RIGHT features each LEFT feature has in reach, or the features of one
/// side that have any.
///
/// Planar (the default) measures GEOS's exact distance between the geometries in one projected spatial reference:
/// the inputs' own when they share one, or `--srs`, into which both are projected. `--geodesic` measures on the
/// ellipsoid of the inputs' spatial reference. RIGHT is read whole and indexed (`SpatialIndex`,
/// `GeodeticSpatialIndex`); LEFT is read, searched and written a batch at a time (`NearJob`).
public struct NearCommand: Command {
    /// "near".
    public static let name = "near"
    /// One line for `meridian --help`.
    public static let summary = "proximity: the LEFT and RIGHT features within a distance of each other, or nearest (a near table)"
    /// What `--help` says before the options.
    public static let discussion = """
        Finds, for every feature of LEFT, the features of RIGHT within the search distance (--distance D for all, or
        --distance-field NAME: each LEFT feature's own, a number in --unit or the distance unit below), the boundary
        included, and writes one row per pair (--pairs, the default): LEFT's attributes, RIGHT's attributes (a name
        both have gets _left and _right), the distance and the rank of the RIGHT feature among the LEFT feature's
        matches (1 for the nearest; equal distances ranked by RIGHT's order), with LEFT's geometry. --nearest K keeps
        each LEFT feature's K nearest within the distance, or with no distance its K nearest at any distance.
        --count writes every LEFT feature once with a near_count column (0 included); --left-only and --right-only
        write the features of that side with at least one match, each once, with their own attributes and geometry.

        Planar (the default): distances are GEOS's exact distances between the geometries in a projected spatial
        reference, in its unit, in a column named after it (distance_m for meters, distance_us_ft for US survey
        feet, ...): the inputs' own when both are in the same projected one, or --srs, into which both are
        projected. Geodesic (--geodesic): distances on the ellipsoid of the inputs' spatial reference (Karney's
        geodesics), in meters (distance_m), across ±180° and around the poles, between points, lines and polygons
        (a point inside a polygon is 0 m from it); within 1 µm of the true geodesic distance (two points less than
        99.7 km apart measured from their chord, every pair near the search distance by Karney's inverse).

        RIGHT is read whole and indexed; LEFT is read, searched and written a batch of a few thousand features at a
        time, every few batches searched on --threads threads while the next are read (memory holds RIGHT, its index
        and at most twelve batches; the output is the same for every thread count). A feature without a geometry, an invalid polygon, a
        distance field that is missing, not a number or negative, LEFT and RIGHT in different spatial references
        without --srs, or a geographic one for a planar search: one line naming the file and the feature, and no
        output. An empty RIGHT gives no pairs (every near_count 0).
        """
    /// Examples for `--help`.
    public static let examples = [
        "meridian near turbines.gpkg dwellings.gpkg --distance 500m --count -o breaches.gpkg",
        "meridian near stores.csv customers.csv --srs EPSG:32038 --nearest 3 -o nearest.csv",
        "meridian near --geodesic ports.geojson ships.geojson --distance 20nmi -o pairs.geojson",
    ]

    /// The two ways of measuring, the command's modes.
    enum Kind: String, CommandMode {
        case planar, geodesic

        var title: String { self == .planar ? "a planar near" : "a --geodesic near" }
    }

    /// What the output holds.
    enum Shape: Equatable {
        /// One row per pair (`--pairs`, the default).
        case pairs
        /// Every LEFT feature with its `near_count` (`--count`).
        case count
        /// The LEFT features with at least one match (`--left-only`).
        case leftOnly
        /// The RIGHT features with at least one match (`--right-only`).
        case rightOnly
    }

    @Mode(flag: "--geodesic", selects: Kind.geodesic, help: "measure on the ellipsoid of the inputs' spatial reference, in meters")
    var kind = Kind.planar

    @Argument("LEFT", as: .path("LEFT"), help: "the features searched from, read a batch at a time: a path or - (standard input) in any format the other commands read (\((["GeoJSON", "CSV", "WKT"] + FeatureDataFormat.files.map { $0.declaration.listName } + ["PG:…"]).joined(separator: ", ")))")
    var left: String

    @Argument("RIGHT", as: .path("RIGHT"), help: "the features searched for, read whole and indexed: a path or - in the same formats (an empty one gives no pairs)")
    var right: String

    @Option("--in-srs", as: .spatialReference, help: "the spatial reference of CSV x,y columns and WKT input, LEFT's and RIGHT's (default: --srs)")
    var inputSpatialReference: SpatialReference?

    @Option("--left-layer", as: .text("NAME"), help: "the layer (table) of LEFT when it is \(FeatureDataFormat.layeredSources) with several")
    var leftLayer: String?

    @Option("--right-layer", as: .text("NAME"), help: "the layer (table) of RIGHT, likewise")
    var rightLayer: String?

    @Option("--srs", as: .spatialReference, help: "project both inputs into this projected spatial reference and measure there, in its unit (default: the inputs' own, which must then be one projected spatial reference)",
            modes: .of(Kind.planar))
    var srs: SpatialReference?

    @Flag("--allow-outside-area", help: "measure features outside the --srs horizon (refused by default: its area of use widened by 5°)",
          modes: .of(Kind.planar))
    var allowOutsideArea: Bool

    var distance = DistanceOptions(range: .nonNegative, isRequired: false, unitNames: ["--unit", "--distance-unit"])

    @Option("--nearest", as: .wholeNumber(1...1_000_000, placeholder: "K"), help: "keep each LEFT feature's K nearest RIGHT features (within the distance if one is given; at any distance otherwise)")
    var nearest: Int?

    @Flag("--pairs", help: "one row per pair: LEFT's attributes, RIGHT's, the distance and the rank (the default)")
    var pairs: Bool

    @Flag("--count", help: "every LEFT feature once, with near_count: how many RIGHT features are in reach (0 included)")
    var count: Bool

    @Flag("--left-only", help: "the LEFT features with at least one RIGHT feature in reach, each once")
    var leftOnly: Bool

    @Flag("--right-only", help: "the RIGHT features in reach of at least one LEFT feature, each once, with RIGHT's geometry")
    var rightOnly: Bool

    var threads = ThreadOptions()

    var output = OutputOptions(use: .near, help: ".csv (the columns and a wkt column with the geometry in the spatial reference measured in; the standard output default), .geojson or .geojsons (WGS84), or \(OutputFormat.extensionList(OutputFormat.featureTables)) (in the spatial reference measured in, with typed attributes)")

    /// A command with every option at its default.
    public init() {}

    /// What the output holds, from `--pairs`, `--count`, `--left-only` and `--right-only`.
    var shape: Shape {
        if count { return .count }
        if leftOnly { return .leftOnly }
        if rightOnly { return .rightOnly }
        return .pairs
    }

    /// Refuses a search without a distance or `--nearest`, two output shapes at once, a geographic `--srs`, both
    /// inputs on standard input, and an output name that says no format `near` writes.
    public mutating func validate() throws(CommandError) {
        if distance.fixed == nil, distance.field == nil, nearest == nil {
            throw .usage("give --distance D, --distance-field NAME or --nearest K")
        }
        let shapes = [(pairs, "--pairs"), (count, "--count"), (leftOnly, "--left-only"), (rightOnly, "--right-only")]
            .filter { $0.0 }.map { $0.1 }
        if shapes.count > 1 { throw .usage("give one of \(HelpText.list(shapes, conjunction: "and")), not several") }
        if let srs, !srs.isProjected || srs.unit == nil {
            throw .usage("--srs \(srs.definition) is \(srs.kind.rawValue); a planar near needs a projected spatial reference (its unit would be degrees). Use a projected one, e.g. a UTM zone, or --geodesic for distances on the ellipsoid")
        }
        if left == "-", right == "-" { throw .usage("LEFT and RIGHT cannot both be standard input") }
        _ = try output.file(standardOutput: .csv)
    }

    /// Reads RIGHT and indexes it, then searches from LEFT a batch at a time and writes the rows.
    /// - Throws: `CommandError.failure` naming the file and the feature for bad input, or for an unwritable output.
    public func run(io: CommandIO) throws(CommandError) {
        let file = try output.file(standardOutput: .csv)
        let progress = io.progress(Self.name)
        defer { progress?.finish() }
        try threads.run { () throws(CommandError) in
            try NearJob(command: self, io: io, progress: progress).run(into: file)
        }
    }
}
