import Foundation
import Meridian
import MeridianIO

/// `meridian kml`: create KML/KMZ from GeoJSON, CSV or WKT; describe a KML/KMZ file; convert between KML, KMZ
/// and GeoJSON.
public struct KMLCommand: Command {
    /// "kml".
    public static let name = "kml"
    /// One line for `meridian --help`.
    public static let summary = "create, describe and convert KML/KMZ files"
    /// What `--help` says before the options.
    public static let discussion = """
        create: placemarks from GeoJSON, CSV (lon,lat / x,y columns) or WKT (one geometry per line), projected
        to WGS84. Per-feature GeoJSON simplestyle properties (marker-color, stroke, stroke-width, stroke-opacity,
        fill, fill-opacity) override the style options; `name`/`description` properties name the placemarks and
        other properties become ExtendedData. The input is read and the document written a batch of features at
        a time: memory holds the input's bytes and one batch (WKT input is parsed whole first).

        info: counts of placemarks by geometry type, folders, styles, the bounding box and the reader's warnings.

        convert: KML ↔ KMZ (lossless), KML/KMZ → GeoJSON (effective styles as simplestyle properties),
        GeoJSON → KML/KMZ (simplestyle as styles). Formats are chosen by extension.
        """
    /// Examples for `--help`.
    public static let examples = [
        "meridian kml create cities.csv -o cities.kmz --icon https://maps.google.com/mapfiles/kml/paddle/red-circle.png",
        "meridian kml create parcels.geojson -o parcels.kml --fill-color '#ffff0099' --line-color '#00ff00'",
        "meridian kml info cities.kmz --json",
        "meridian kml convert doc.kmz doc.geojson",
    ]

    /// The subcommands.
    enum Subcommand: String, CommandMode {
        case create, info, convert

        var title: String { "kml \(rawValue)" }
        var summary: String {
            switch self {
            case .create: "styled KML or KMZ placemarks from GeoJSON, CSV or WKT"
            case .info: "what a KML or KMZ file holds"
            case .convert: "KML ↔ KMZ ↔ GeoJSON"
            }
        }
    }

    @Mode(argument: "SUBCOMMAND", help: "what to do (below)")
    var subcommand: Subcommand

    var input = InputOptions(
        srsNames: ["--in-srs", "--from"],
        srsHelp: "the spatial reference of CSV x,y and WKT coordinates (EPSG code, WKT, PROJ string)",
        pathModes: .of(Subcommand.create), srsModes: .of(Subcommand.create), pathRequired: .of(Subcommand.create),
        layerModes: .of(Subcommand.create, .convert))

    @Argument("FILE", as: .path("FILE"), help: "the KML or KMZ file to describe", modes: .of(Subcommand.info),
              required: .of(Subcommand.info))
    var file: String?

    @Argument("IN", as: .path("IN"), help: "the KML, KMZ or GeoJSON file to convert, or a \(MessageText.list(FeatureDataFormat.allCases.map { $0.declaration.listName }, conjunction: "or")) table (to KML or KMZ)", modes: .of(Subcommand.convert),
              required: .of(Subcommand.convert))
    var source: String?

    @Argument("OUT", as: .path("OUT"), help: "the converted file: .kml, .kmz, .geojson or .json",
              modes: .of(Subcommand.convert), required: .of(Subcommand.convert))
    var destination: String?

    var output = OutputOptions(use: .kmlCreate, help: ".kmz (zip, doc.kml first, local icons packed under files/) or .kml",
                               modes: .of(Subcommand.create), required: .of(Subcommand.create))

    /// The style and name of a created document.
    var style = KMLStyleOptions()

    @Flag("--overwrite", help: "replace the output if it exists", modes: .of(Subcommand.create, .convert))
    var overwrite: Bool

    @Flag("--json", help: "print JSON instead of text", modes: .of(Subcommand.info))
    var json: Bool

    @Flag("--stream", help: "count placemarks and the bounding box in bounded memory (multi-GB files)",
          modes: .of(Subcommand.info))
    var stream: Bool

    /// A command with every option at its default.
    public init() {}

    /// Refuses, before any work, outputs whose name says no format the subcommand writes.
    public mutating func validate() throws(CommandError) {
        switch subcommand {
        case .create: _ = try output.file(standardOutput: nil)
        case .convert: _ = try OutputFile(destination, use: .kmlConvert, standardOutput: nil)
        case .info:
            if json && stream { throw .usage("--json does not apply to --stream (the streamed summary is text)") }
        }
    }

    /// Runs `create`, `info` or `convert`.
    /// - Throws: `CommandError.failure` for unreadable input or an unwritable output.
    public func run(io: CommandIO) throws(CommandError) {
        switch subcommand {
        case .create:
            let progress = io.progress("kml create")
            defer { progress?.finish() }
            try KMLCreate(command: self).run(io: io, progress: progress)
        case .info:
            try KMLInfo(path: file ?? "-", json: json, stream: stream).run(io: io)
        case .convert:
            let progress = io.progress("kml convert")
            defer { progress?.finish() }
            try KMLConvert(source: source ?? "-", layer: input.layer,
                           destination: try OutputFile(destination, use: .kmlConvert, standardOutput: nil),
                           overwrite: overwrite).run(io: io, progress: progress)
        }
    }
}

/// The style options of `kml create`, the document's shared style.
struct KMLStyleOptions: OptionGroup {
    @Option("--name", as: .text("NAME"), help: "the document's name (default: the input's file name)",
            modes: .of(KMLCommand.Subcommand.create))
    var documentName: String?

    @Option("--icon", as: .text("URL|PATH", summary: "a URL or a file path"), help: "point icon; a local file is packed into the KMZ",
            modes: .of(KMLCommand.Subcommand.create))
    var icon: String?

    @Option("--icon-scale", as: .number(.positive, placeholder: "S"), help: "icon size factor",
            modes: .of(KMLCommand.Subcommand.create))
    var iconScale: Double?

    @Option("--line-color", as: .kmlColor, help: "line color", modes: .of(KMLCommand.Subcommand.create))
    var lineColor: KMLColor?

    @Option("--line-width", as: .number(.nonNegative, placeholder: "W"), help: "line width in pixels",
            modes: .of(KMLCommand.Subcommand.create))
    var lineWidth: Double?

    @Option("--fill-color", as: .kmlColor, help: "polygon fill", modes: .of(KMLCommand.Subcommand.create))
    var fillColor: KMLColor?

    @Flag("--no-fill", help: "do not fill polygons", modes: .of(KMLCommand.Subcommand.create))
    var noFill: Bool

    @Flag("--no-outline", help: "do not outline polygons", modes: .of(KMLCommand.Subcommand.create))
    var noOutline: Bool

    /// The shared style these options ask for (id "meridian-default"), or nil when they ask for none.
    /// - Throws: `CommandError.usage` for an `--icon` that looks like a URL but is not one.
    func sharedStyle() throws(CommandError) -> KMLStyle? {
        var style = KMLStyle(id: "meridian-default")
        if icon != nil || iconScale != nil {
            var url: URL?
            if let i = icon, i.contains("://") {
                guard let u = URL(string: i) else { throw .usage("--icon expects a URL or a file path, got '\(i)'") }
                url = u
            } else if let i = icon {
                url = URL(fileURLWithPath: i).standardizedFileURL  // relative to the working directory
            }
            style.iconStyle = KMLIconStyle(icon: url.map(KMLIcon.init(url:)), scale: iconScale)
        }
        if lineColor != nil || lineWidth != nil { style.lineStyle = KMLLineStyle(color: lineColor, width: lineWidth) }
        if fillColor != nil || noFill || noOutline {
            style.polygonStyle = KMLPolygonStyle(fillColor: fillColor, isFilled: noFill ? false : nil, isOutlined: noOutline ? false : nil)
        }
        return style == KMLStyle(id: "meridian-default") ? nil : style
    }
}

extension ValueKind where Value == KMLColor {
    /// A color, `#RRGGBB` or `#RRGGBBAA`.
    static var kmlColor: ValueKind {
        ValueKind(placeholder: "C", summary: "a color, #RRGGBB or #RRGGBBAA", show: { _ in "" }) { text, option throws(CommandError) in
            guard let color = KMLColor(hex: text) else { throw .usage("\(option) expects #RRGGBB or #RRGGBBAA, got '\(text)'") }
            return color
        }
    }
}
