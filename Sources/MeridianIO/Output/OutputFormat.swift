import Meridian

/// The formats the commands write, beside `InputFormat` for what they read: what each can do, in one place. A
/// command never compares extension strings; it asks its `OutputFile` for the format and the format for what it can
/// do. The format is told by the output's name (`-o buffers.wkt`); standard output (`-o -` or no `-o`) gets the
/// command's default (GeoJSON for buffers, WKT for `op`).
///
/// To add a format of Meridian's own: a case, its row in each property below, and where it is written
/// (`FeatureStreamWriter` for a per-feature format, `BufferOutput.write` for a whole picture or document). A feature
/// table of GDAL/OGR is `table` of its `FeatureDataFormat`, whose declaration gives its extension, name and whether
/// it needs a layer name: a format added there is written by `FeatureTableOutput` with nothing to add here.
public enum OutputFormat: CaseIterable, Hashable, Sendable {
    /// A GeoJSON FeatureCollection (RFC 7946: WGS84 longitude/latitude).
    case geoJSON
    /// A GeoJSON text sequence (RFC 8142): one feature per record.
    case geoJSONSequence
    /// One WKT geometry per line, in the spatial reference the work was done in.
    case wkt
    /// The input's CSV columns and a `wkt` column (buffer), or the input's CSV with its coordinates replaced (project).
    case csv
    /// Text of the one kind a command writes: `project` writes CSV input back as CSV under this name too.
    case text
    /// A picture of the buffers, their inputs and the area of use.
    case svg
    /// A KML document.
    case kml
    /// A zipped KML document with its icons.
    case kmz
    /// A feature table written through GDAL/OGR (a GeoPackage, a shapefile, a FlatGeobuf, a PostGIS table named by a
    /// `PG:` connection string and `--layer`, …), in the spatial reference the work was done in, with typed attributes.
    case table(FeatureDataFormat)

    /// Every format: Meridian's own, then the feature tables in the order `FeatureDataFormat` declares them.
    public static let allCases: [OutputFormat] = [.geoJSON, .geoJSONSequence, .wkt, .csv, .text, .svg, .kml, .kmz]
        + featureTables

    /// Where a format may be written: each command, or each mode of one, accepts its own formats.
    public enum Use: Sendable {
        /// `buffer`, planar or geodesic.
        case buffer
        /// `op`.
        case operation
        /// `project` (which of these fits the input is checked once the input is read).
        case project
        /// `kml create`.
        case kmlCreate
        /// `kml convert`.
        case kmlConvert
        /// `near`.
        case near

        /// The command as messages name it.
        public var title: String {
            switch self {
            case .buffer: "buffer"
            case .operation: "op"
            case .project: "project"
            case .kmlCreate: "kml create"
            case .kmlConvert: "kml convert"
            case .near: "near"
            }
        }
    }

    /// The file name extensions, lower case, the first as help names the format.
    public var extensions: [String] {
        switch self {
        case .geoJSON: ["geojson", "json"]
        case .geoJSONSequence: ["geojsons"]
        case .wkt: ["wkt"]
        case .csv: ["csv"]
        case .text: ["txt"]
        case .svg: ["svg"]
        case .kml: ["kml"]
        case .kmz: ["kmz"]
        case .table(let format): format.fileExtension.map { [$0] } ?? []
        }
    }

    /// How messages name the format.
    public var name: String {
        switch self {
        case .geoJSON: "GeoJSON"
        case .geoJSONSequence: "a GeoJSON text sequence"
        case .wkt: "WKT"
        case .csv: "CSV"
        case .text: "text"
        case .svg: "SVG"
        case .kml: "KML"
        case .kmz: "KMZ"
        case .table(let format): format.declaration.outputName
        }
    }

    /// The formats `use` accepts, in the order help lists them.
    public static func accepted(by use: Use) -> [OutputFormat] {
        switch use {
        case .buffer: [.geoJSON, .geoJSONSequence, .wkt, .csv, .svg, .kml, .kmz] + featureTables
        case .operation: [.wkt, .geoJSON] + featureTables
        case .project: [.geoJSON, .wkt, .csv, .text] + featureTables
        case .kmlCreate: [.kmz, .kml]
        case .kmlConvert: [.kml, .kmz, .geoJSON]
        case .near: [.csv, .geoJSON, .geoJSONSequence] + featureTables
        }
    }

    /// The formats written through GDAL/OGR as feature tables (`FeatureTableOutput`).
    public static let featureTables: [OutputFormat] = FeatureDataFormat.allCases.map { .table($0) }

    /// Whether this is a feature table written through GDAL/OGR (`FeatureTableOutput`): typed attributes, a spatial
    /// reference, a layer name.
    public var isFeatureTable: Bool {
        if case .table = self { return true }
        return false
    }

    /// Whether features are written one at a time as they are made, so memory does not grow with the input.
    public var isStreamable: Bool {
        switch self {
        case .geoJSON, .geoJSONSequence, .wkt, .csv, .table: true
        case .text, .svg, .kml, .kmz: false
        }
    }

    /// Whether coordinates are written in the spatial reference the work was done in (a planar buffer's `--srs`,
    /// `op`'s input, `project`'s `--to`); otherwise they are WGS84 longitude/latitude whatever the work was done in
    /// (GeoJSON by RFC 7946, KML by its standard), projected on the way out.
    public var writesInWorkingSpatialReference: Bool {
        switch self {
        case .wkt, .csv, .text, .svg, .table: true
        case .geoJSON, .geoJSONSequence, .kml, .kmz: false
        }
    }

    /// Whether each output row keeps its input row's CSV columns (so CSV input is read with its rows' text).
    public var keepsInputColumns: Bool {
        switch self {
        case .csv: true
        case .geoJSON, .geoJSONSequence, .wkt, .text, .svg, .kml, .kmz, .table: false
        }
    }

    /// Whether a feature's geometry is written as WKT text in a `wkt` column, the last, beside its attribute columns
    /// (`near`'s and `buffer`'s CSV), rather than as the format's own geometry.
    public var writesGeometryAsWKTColumn: Bool {
        switch self {
        case .csv: true
        case .geoJSON, .geoJSONSequence, .wkt, .text, .svg, .kml, .kmz, .table: false
        }
    }

    /// Whether `project` writes CSV input into this format as CSV rows, each with its coordinates replaced (and
    /// only CSV input: it holds rows, not features).
    public var writesCSVRows: Bool {
        switch self {
        case .csv, .text: true
        case .geoJSON, .geoJSONSequence, .wkt, .svg, .kml, .kmz, .table: false
        }
    }

    /// Whether the output's path cannot name its table, so the layer must be named (`--layer`): a PostGIS
    /// connection string names a database, not a table; a file's name gives its layer's.
    public var needsLayerName: Bool {
        switch self {
        case .table(let format): format.declaration.needsLayerName
        case .geoJSON, .geoJSONSequence, .wkt, .csv, .text, .svg, .kml, .kmz: false
        }
    }

    /// Whether this is a KML document, plain or zipped with its icons.
    public var isKML: Bool {
        switch self {
        case .kml, .kmz: true
        case .geoJSON, .geoJSONSequence, .wkt, .csv, .text, .svg, .table: false
        }
    }

    /// Whether a union (one dissolved polygon, `buffer --union`) can be written.
    public var allowsUnion: Bool {
        switch self {
        case .geoJSON, .wkt, .svg, .kml, .kmz, .table: true
        case .geoJSONSequence, .csv, .text: false
        }
    }

    /// Whether a large union of buffers around points is written a batch of parts at a time
    /// (`BufferOutput.streamUnion`), rather than made whole first.
    public var streamsUnion: Bool { self == .geoJSON || self == .wkt }

    /// The format a path's name says (a `PG:` connection string: PostGIS), or nil when it says none or an unknown one.
    public init?(path: String) {
        if PostGISConnection.isConnectionString(path) { self = .table(.postGIS); return }
        guard let ext = Self.fileExtension(path),
              let format = Self.allCases.first(where: { $0.extensions.contains(ext) })
        else { return nil }
        self = format
    }

    /// The lower-cased extension of the path's last component, or nil when it has none (`out`, `.wkt`, `out.`).
    public static func fileExtension(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex
        else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    /// ".geojson, .json, .wkt or PG:…": the extensions of some formats (and PostGIS's prefix), as messages list them.
    public static func extensionList(_ formats: [OutputFormat], conjunction: String = "or") -> String {
        MessageText.list(spellings(formats), conjunction: conjunction)
    }

    /// [".geojson", ".json", ".wkt", "PG:…"]: how output paths spell some formats (PostGIS by its prefix).
    public static func spellings(_ formats: [OutputFormat]) -> [String] {
        formats.flatMap { $0.extensions }.map { "." + $0 } + (formats.contains(.table(.postGIS)) ? ["PG:…"] : [])
    }

    /// The table formats whose output keeps the layer name it is given (`--output-layer`).
    public static var layerNamingTables: [OutputFormat] {
        FeatureDataFormat.allCases.filter { $0.declaration.keepsLayerName }.map { .table($0) }
    }
}
