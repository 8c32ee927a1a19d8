import Foundation
import Meridian
import MeridianIO

// The option groups several commands take, each declared once. A command stores a group as a plain property
// (`var output = OutputOptions(use: .operation)`), choosing the modes it applies to where that differs. A new shared
// option (`--threads N`, `--layer NAME`) is a new group here, or a new member of the group it belongs with, taken by
// the commands it applies to.

/// Options every command takes (the parser adds them; commands do not declare them).
struct GlobalOptions: OptionGroup {
    @Flag("--quiet", help: "no progress line (one is drawn on a terminal when a command runs longer than about a second, never when standard error is not a terminal)")
    var quiet: Bool
}

/// The input: a file or standard input, and the spatial reference of coordinates whose format does not say it.
struct InputOptions: OptionGroup {
    /// The input's path, or nil (or `-`) for standard input.
    @Argument var path: String?
    /// `--in-srs`: the spatial reference of CSV x,y columns and WKT input.
    @Option var spatialReference: SpatialReference?
    /// `--layer`: the layer (table) of a GeoPackage, a zipped shapefile or a PostGIS database to read.
    @Option var layer: String?

    /// The input of a command.
    /// - Parameters:
    ///   - srsNames: The spellings of the spatial reference option (`--in-srs`; `project` calls it `--from`).
    ///   - srsHelp: Its help: what it defaults to differs between commands.
    ///   - pathModes: The modes that read an input (all by default).
    ///   - srsModes: The modes that take the spatial reference (all by default).
    ///   - pathRequired: The modes in which INPUT must be given (standard input by default).
    ///   - srsRequired: The modes in which the spatial reference must be given.
    ///   - layerModes: The modes that take `--layer` (those that read INPUT by default).
    init(srsNames: [String] = ["--in-srs"],
         srsHelp: String = "the spatial reference of CSV x,y columns and WKT input (default WGS84)",
         pathModes: Modes = .all, srsModes: Modes = .all, pathRequired: Modes = .none, srsRequired: Modes = .none,
         layerModes: Modes? = nil) {
        let files = FeatureDataFormat.files.map { $0.declaration.inputName }.joined(separator: ", ")
        let databases = FeatureDataFormat.databases.map { $0.declaration.inputName }.joined(separator: ", or ")
        let help = "a path or - (standard input): GeoJSON (WGS84 longitude/latitude, RFC 7946), CSV with a header naming lon,lat (or longitude,latitude) or x,y columns and any others, WKT (one geometry per line), \(files) (their spatial reference and typed attributes read through GDAL), or \(databases); recognised by its content, not its name"
        _path = Argument("INPUT", as: .path("INPUT"), help: help + (pathRequired.isNone ? "; standard input when not given" : ""),
                         modes: pathModes, required: pathRequired)
        _spatialReference = Option(names: srsNames, as: .spatialReference, help: srsHelp, modes: srsModes,
                                   required: srsRequired)
        _layer = Option(names: ["--layer"], as: .text("NAME"), help: "the layer (table) to read from \(FeatureDataFormat.layeredSources) that has several (given before -o; after -o, --layer names the output's)", modes: layerModes ?? pathModes)
    }

}

/// Where the result goes: `-o PATH`, its format told by its name, or standard output.
struct OutputOptions: OptionGroup {
    /// Where it is written, which decides the formats accepted.
    let use: OutputFormat.Use

    /// `-o`'s value as given.
    @Option var path: String?
    /// `--output-layer`, or `--layer` after `-o`: the layer (table) written to a GeoPackage, FlatGeobuf or PostGIS.
    @Option var layer: String?

    /// The output of a command.
    /// - Parameters:
    ///   - use: The command (which formats it writes).
    ///   - help: What the formats hold for this command.
    ///   - modes: The modes that write a file.
    ///   - required: The modes that need `-o` (they write no standard output).
    init(use: OutputFormat.Use, help: String, modes: Modes = .all, required: Modes = .none) {
        self.use = use
        _path = Option("-o", "--output", as: .path("OUTPUT"), help: help, modes: modes, required: required)
        _layer = Option(names: ["--output-layer"], as: .text("NAME"), help: "the layer (table) written to a \(OutputFormat.extensionList(OutputFormat.layerNamingTables)) output (default: the file's name; a PostGIS output needs it); also spelled --layer after -o", modes: modes)
        _layer.declaration.spellingAfter = ("--layer", ["-o", "--output"])
    }

    /// Refuses, before any work, a path whose name says no format the command writes, and a layer name for an output
    /// that has no layers.
    func validate(mode: String?) throws(CommandError) {
        guard path != nil else {
            if layer != nil {
                throw .usage("--output-layer (or --layer after -o) names a layer of a \(OutputFormat.extensionList(OutputFormat.layerNamingTables)) output; give -o")
            }
            return
        }
        let file = try file(standardOutput: .geoJSON)
        if layer != nil, !file.format.isFeatureTable {
            throw .usage("\(file.format.name) has no layers: --output-layer (or --layer after -o) applies to \(OutputFormat.extensionList(OutputFormat.featureTables, conjunction: "and")) outputs")
        }
        if file.format.needsLayerName, layer == nil {
            throw .usage("a PostGIS output needs the table's name: -o PG:… --layer NAME")
        }
    }

    /// The output file.
    /// - Parameter standardOutput: The format written to standard output (nil: the command needs a file).
    /// - Throws: `CommandError.usage` when the path's name says no format the command writes.
    func file(standardOutput: OutputFormat?) throws(CommandError) -> OutputFile {
        var file = try OutputFile(path, use: use, standardOutput: standardOutput)
        file.layer = layer
        return file
    }
}

/// How far to buffer (or search): one distance for every feature, or each feature's own from a property or column.
struct DistanceOptions: OptionGroup {
    /// `--distance`.
    @Option var fixed: Distance?

    /// `--distance-field`: the property or column holding each feature's distance.
    @Option("--distance-field", as: .text("NAME"), help: "take each feature's distance from this property or column")
    var field: String?

    /// `--unit`: the unit of the field's values; nil for the command's default unit.
    @Option var fieldUnit: LinearUnit?

    /// Whether one of `--distance` and `--distance-field` must be given (`near --nearest K` needs neither).
    let isRequired: Bool

    /// The distance options of a command.
    /// - Parameters:
    ///   - range: What `--distance` may be (any number for buffers, where a negative one shrinks polygons).
    ///   - isRequired: Whether one of `--distance` and `--distance-field` must be given.
    ///   - unitNames: The spellings of the field values' unit option.
    init(range: NumberRange = .any, isRequired: Bool = true, unitNames: [String] = ["--unit"]) {
        self.isRequired = isRequired
        _fixed = Option(names: ["--distance"], as: .distance(range), help: "one distance for every feature: a number with an optional unit (m, km, ft, us-ft, mi, us-mi, nmi); a bare number is in the --srs unit (planar) or meters (--geodesic)")
        _fieldUnit = Option(names: unitNames, as: .linearUnit, help: "the unit of --distance-field values (default: the --srs unit, or meters for --geodesic)")
    }

    var synopsis: String? {
        let choice = "--distance D | --distance-field NAME [\(_fieldUnit.declaration.name) U]"
        return isRequired ? "(\(choice))" : "[\(choice)]"
    }

    /// Checks that exactly one of `--distance` and `--distance-field` is given, and `--unit` only with
    /// `--distance-field`.
    func validate(mode: String?) throws(CommandError) {
        switch (fixed, field) {
        case (nil, nil): if isRequired { throw .usage("give --distance D or --distance-field NAME") }
        case (.some, .some): throw .usage("give either --distance or --distance-field, not both")
        default: break
        }
        if fieldUnit != nil && field == nil {
            throw .usage("\(_fieldUnit.declaration.given[0].spelling) applies to --distance-field values")
        }
    }

    /// Feature `i`'s distance from `--distance-field`, converted to `unit`; `nil` when `--distance` was given.
    /// - Parameters:
    ///   - input: The features; feature `i`'s property holds the distance (a number, or a string holding one).
    ///   - i: The feature's index in `input`; errors name it by `input.labels[i]`, e.g. "feature 3".
    ///   - unit: The unit wanted; field values are in `--unit`, or already in this unit without it.
    /// - Throws: `CommandError.failure` when the property is missing, not a number, or not finite.
    func fieldDistance(of input: FeatureInput, at i: Int, in unit: LinearUnit) throws(CommandError) -> Double? {
        guard let field else { return nil }
        let label = input.labels[i]
        guard let value = input.property(field, at: i) else { throw .failure("\(label) has no '\(field)' property") }
        let d: Double
        switch value {
        case .number(let n): d = n
        case .string(let s):
            guard let n = Double(s.trimmingCharacters(in: .whitespaces)), n.isFinite else {
                throw .failure("\(label): '\(field)' is '\(s)', not a number")
            }
            d = n
        default: throw .failure("\(label): '\(field)' is not a number")
        }
        return (fieldUnit ?? unit).convert(d, to: unit)
    }
}

/// `--max-vertices`: the work bound of a command that can multiply vertices (buffers, offsets, densify, generalize,
/// simplify, geodesic shapes). The command runs under a `WorkBudget` of this many vertices, which every such
/// engine operation asks before it works (refusing an estimate beyond it) and counts while it works.
struct WorkLimitOptions: OptionGroup {
    /// The most vertices the command's work may make in all.
    @Option var maximumVertices: Int

    /// The limit, applying in `modes`.
    /// - Parameter modes: The modes whose work it bounds (all by default).
    init(modes: Modes = .all) {
        _maximumVertices = Option(wrappedValue: defaultMaximumVertices, "--max-vertices", as: .wholeNumber(1...Int.max),
                                  help: "refuse work estimated at, or making, more than N vertices in all (5,000,000 is about 1 GB at the peak), checked before each operation and while it runs",
                                  modes: modes)
    }
}

/// The work bound of every command, and of those with `--max-vertices` when it is not given: 5 million vertices
/// (about 1 GB at the peak: the coordinates in GEOS, in Meridian and as text).
let defaultMaximumVertices = 5_000_000

/// `--threads N`: how many threads a command working on many features may use (`Parallelism.threadCount`: the
/// union's clusters, per-feature buffers and operations, projection, writing); every processor by default. The
/// output is byte-identical for every N: the work is cut into pieces fixed by the input and put back in order.
struct ThreadOptions: OptionGroup {
    /// `--threads`: nil for every processor.
    @Option("--threads", as: .wholeNumber(1...Parallelism.maximumThreads), help: "how many threads to use (default: every processor this process may run on); the output is the same for every N")
    var count: Int?

    /// Runs a command's work with its thread count (the process-wide default when `--threads` is not given).
    /// - Parameter body: The command's work.
    /// - Throws: What `body` throws.
    func run(_ body: () throws(CommandError) -> Void) throws(CommandError) {
        try Parallelism.withThreadCount(count ?? Parallelism.threadCount, body)
    }
}
