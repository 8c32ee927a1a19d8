import Foundation
import Meridian
import MeridianIO

/// `meridian buffer`: buffers around features, planar in a projected spatial reference (`--srs`), like the seed
/// sample, or geodesic on the ellipsoid (`--geodesic`).
///
/// The two are the command's modes (`Kind`), declared as such: `--srs`, `--segments` and
/// `--allow-outside-area` apply only to planar buffers and `--max-deviation` only to geodesic ones, so giving one in
/// the other mode is a usage error rather than silently ignored. `--geodesic` stays the flag users type to choose
/// the geodesic mode. A geodesic buffer has no area of use (it is right anywhere), so `--allow-outside-area` has
/// nothing to allow there.
public struct BufferCommand: Command {
    /// "buffer".
    public static let name = "buffer"
    /// One line for `meridian --help`.
    public static let summary = "buffer points, lines and polygons (planar in a projected SRS, or --geodesic)"
    /// What `--help` says before the options.
    public static let discussion = """
        Planar: buffers every feature of INPUT in the projected spatial reference --srs (in its unit), one buffer per
        feature or, with --union, one dissolved polygon. Without --union each output feature keeps its input
        feature's properties, and GeoJSON, .geojsons, .wkt and .csv are written as they are computed, a few thousand
        features at a time (memory holds the input's bytes and one batch, not every feature). With --union a large
        input is unioned and written a batch of separate clusters at a time. GeoJSON vertices go to WGS84 through
        interpolants checked against PROJ, within 1e-11 degrees (about 1 micrometre) of PROJ's own results, wherever
        PROJ's operation is smooth (projections and Helmert datum shifts: EPSG:32038, EPSG:5070, UTM, ...; grid
        shifts run in PROJ). --threads N shares the reading of CSV points, the union, the buffers, the projection
        and the writing between N threads; the output is the same for every N.

        Geodesic (--geodesic): every output vertex at the requested distance on the ellipsoid of the input's datum
        (within 1 mm), every edge (straight in longitude/latitude) within --max-deviation of the true curve. Works
        anywhere: buffers crossing ±180° are split there (RFC 7946), buffers containing a pole contain it. There is
        no --srs and no area of use; the output is in WGS84 longitude/latitude. Distances are > 0 for points and
        lines, non-zero for polygons (negative shrinks), |D| at least 1 µm and at most 19,984 km for points and
        9,000 km for lines and polygons.
        """
    /// Examples for `--help`.
    public static let examples = [
        "meridian buffer cities.csv --srs EPSG:32038 --distance 10mi -o buffers.geojson",
        "meridian buffer --geodesic ports.geojson --distance 200nmi --union -o zones.geojson",
    ]

    /// The two kinds of buffer, the command's modes.
    enum Kind: String, CommandMode {
        case planar, geodesic

        var title: String { self == .planar ? "a planar buffer" : "a --geodesic buffer" }
    }

    @Mode(flag: "--geodesic", selects: Kind.geodesic, help: "buffer on the ellipsoid instead of in a projected spatial reference")
    var kind = Kind.planar

    var input = InputOptions(srsHelp: "the spatial reference of CSV x,y columns and WKT input (default: --srs for x,y columns and WKT in a planar buffer, WGS84 otherwise)")

    @Option("--srs", as: .spatialReference, help: "where the buffer is computed, e.g. EPSG:32038 (must be projected)",
            modes: .of(Kind.planar), required: .of(Kind.planar))
    var srs: SpatialReference?

    var distance = DistanceOptions()

    @Flag("--union", help: "dissolve all buffers into one (multi-part) polygon (geodesic: also across ±180° and the poles)")
    var union: Bool

    @Option("--segments", as: .wholeNumber(1...1000), help: "chords per quarter circle (16: 64-gon circles, chord error 1 - cos(pi/64) = 0.12% of the radius)",
            modes: .of(Kind.planar))
    var segments = 16

    var workLimit = WorkLimitOptions()

    @Flag("--allow-outside-area", help: "buffer features outside the --srs horizon (refused by default: its area of use widened by 5°, where PROJ's projection returns each point)",
          modes: .of(Kind.planar))
    var allowOutsideArea: Bool

    @Option("--max-deviation", as: .distance(.positive), help: "the largest distance between the true buffer boundary and the polygon's edges (default 0.2% of each distance; a bare number is in meters)",
            modes: .of(Kind.geodesic))
    var maxDeviation: Distance?

    var threads = ThreadOptions()
    /// Ways into the command for `meridian internal` (none for the command itself; not an option).
    var hooks = BufferHooks()

    var output = OutputOptions(use: .buffer, help: ".geojson or .json (WGS84; the standard output default), .geojsons (a GeoJSON text sequence, one feature per record), .wkt (in --srs, WGS84 for --geodesic; one geometry per line), .csv (the input's columns and a wkt column, in the .wkt spatial reference), .svg (a picture, with the area of use as a red dashed outline), .kml or .kmz (styled like the sample)")

    /// A command with every option at its default.
    public init() {}

    /// `--max-vertices`: the bound of the buffers' work.
    public var maximumVertices: Int { workLimit.maximumVertices }

    /// Refuses a geographic `--srs` and an output that cannot hold a union.
    public mutating func validate() throws(CommandError) {
        if let srs, !srs.isProjected || srs.unit == nil {
            throw .usage("--srs \(srs.definition) is \(srs.kind.rawValue); a planar buffer needs a projected spatial reference (its unit would be degrees). Use a projected one, e.g. a UTM zone, or --geodesic for a buffer on the ellipsoid")
        }
        let file = try output.file(standardOutput: .geoJSON)
        if union, !file.format.allowsUnion {
            let formats = OutputFormat.accepted(by: .buffer).filter { $0.allowsUnion }
            throw .usage("--union writes one polygon: use \(OutputFormat.extensionList(formats)), not .\(file.format.extensions[0])")
        }
    }

    /// Buffers the input and writes the output file or GeoJSON to standard output.
    /// - Throws: `CommandError.failure` for unreadable input, a feature that cannot be buffered or an unwritable
    ///   output.
    public func run(io: CommandIO) throws(CommandError) {
        let file = try output.file(standardOutput: .geoJSON)
        try threads.run { () throws(CommandError) in
            guard kind == .planar else {
                try GeodesicBuffers(command: self, output: file).run(io: io)
                return
            }
            guard let srs, let unit = srs.unit else { throw .usage("a planar buffer needs --srs SRS") }
            var parameters = BufferParameters.default
            parameters.segmentsPerQuarterCircle = segments
            let job = PlanarBufferJob(sr: srs, srUnit: unit, distance: distance, parameters: parameters,
                                      allowOutside: allowOutsideArea)
            try PlanarBuffers(job: job, input: input, union: union, output: file, hooks: hooks).run(io: io)
        }
    }
}
