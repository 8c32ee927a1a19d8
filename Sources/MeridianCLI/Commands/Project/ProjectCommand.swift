import Foundation
import Meridian
import MeridianIO

/// `meridian project`: coordinates from one spatial reference to another, reporting PROJ's operation and accuracy.
public struct ProjectCommand: Command {
    /// "project".
    public static let name = "project"
    /// One line for `meridian --help`.
    public static let summary = "project coordinates between spatial references"
    /// What `--help` says before the options.
    public static let discussion = """
        Projects every coordinate of INPUT into the --to spatial reference and prints on stderr which operation PROJ
        used and its accuracy (e.g. NAD27 to WGS 84 without the NADCON grid is a Helmert shift accurate to about 7 m).
        A vertex outside the horizon of the source or target spatial reference (its area of use widened by 5°, where
        PROJ's projection returns the point) is refused (as by buffer), and so is one outside the projection's own
        domain (projected back, it does not return where it started).

        CSV input is written as CSV, the coordinate columns replaced by x,y (projected target) or lon,lat (geographic
        target), the other columns kept; or as a feature table (\(OutputFormat.spellings(OutputFormat.featureTables).joined(separator: ", "))) of points whose attributes
        are the other columns, typed as buffer types them. GeoJSON and WKT input are written as .geojson (only for a
        WGS84 target) or .wkt (the default on standard output for any other target). They are read, projected and
        written a batch at a time (memory holds the input's bytes and one batch); a feature table, in or out, is
        projected whole.

        Where PROJ's operation is smooth (projections, Helmert datum shifts; not grid shifts), coordinates are
        interpolated from PROJ's own results tile by tile, within 1e-11 degrees or 1 micrometre of them; CSV
        coordinates are printed exactly as PROJ's results print (9 decimals of degrees, 4 of other units).

        With --list-transformations, lists the transformations PROJ knows from --from to --to instead, most suitable
        first: number, accuracy, whether it can run here or needs a grid that is not installed, area of use, PROJ
        pipeline.
        """
    /// Examples for `--help`.
    public static let examples = [
        "meridian project points.csv --to EPSG:32038 -o points_tx.csv",
        "meridian project --list-transformations --from EPSG:4267 --to EPSG:4326",
        "meridian project nad27.csv --from EPSG:4267 --to EPSG:4326 --transformation 2 -o wgs84.csv",
    ]

    /// What the command does: project the input, or list the transformations.
    enum Task: String, CommandMode {
        case project
        case list = "list-transformations"

        var title: String { self == .project ? "a projection" : "--list-transformations" }
    }

    @Mode(flag: "--list-transformations", selects: Task.list,
          help: "list the transformations PROJ knows from --from to --to instead of projecting")
    var task = Task.project

    var input = InputOptions(
        srsNames: ["--from"],
        srsHelp: "the source spatial reference: of CSV and WKT coordinates (default WGS84 for lon,lat columns; required for x,y and for --list-transformations)",
        pathModes: .of(Task.project), srsRequired: .of(Task.list))

    @Option("--to", as: .spatialReference, help: "the target spatial reference (EPSG:n, ESRI:n, WKT or a PROJ string)")
    var target: SpatialReference

    @Option("--transformation", as: .text("N|NAME", summary: "a number or a name from --list-transformations"),
            help: "run this datum transformation instead of the one PROJ would pick: its number or its exact name in the list --list-transformations prints for the same --from and --to",
            modes: .of(Task.project))
    var transformation: String?

    @Flag("--allow-outside-area", help: "project vertices outside the horizons anyway (each SRS's area of use widened by 5°, where PROJ's projection returns the point); never those outside the domain",
          modes: .of(Task.project))
    var allowOutsideArea: Bool

    @Flag("--json", help: "print the transformations as a JSON array", modes: .of(Task.list))
    var json: Bool

    var threads = ThreadOptions()

    var output = OutputOptions(
        use: .project,
        help: "CSV input: .csv or .txt (CSV); GeoJSON or WKT input: .geojson (WGS84 targets only) or .wkt; standard output by default",
        modes: .of(Task.project))

    /// A command with every option at its default.
    public init() {}

    /// Projects the input's coordinates and writes them to the output (stdout by default), or lists the
    /// transformations.
    /// - Throws: `CommandError.usage` for an output the input cannot be written as or an unknown transformation,
    ///   `.failure` for unreadable input, a vertex outside an area of use or the domain, a failed transformation or
    ///   an unwritable output.
    public func run(io: CommandIO) throws(CommandError) {
        switch task {
        case .list:
            guard let source = input.spatialReference else { throw .usage("--list-transformations needs --from SRS") }
            try TransformationList(from: source, to: target).print(json: json, io: io)
        case .project:
            try threads.run { () throws(CommandError) in
                try ProjectionRun(target: target, transformation: transformation, allowOutsideArea: allowOutsideArea)
                    .run(input: input, output: output, io: io)
            }
        }
    }
}
