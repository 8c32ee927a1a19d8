import Foundation
import Meridian

/// `meridian kml`: create KML/KMZ from GeoJSON, CSV or WKT; describe a KML/KMZ file; convert between KML, KMZ
/// and GeoJSON.
public enum KMLCommand: Command {
    /// The subcommand name.
    public static let name = "kml"
    /// One line for `meridian --help`.
    public static let summary = "create, describe and convert KML/KMZ files"
    /// The `--help` text.
    public static let help = """
        Usage:
          meridian kml create INPUT -o OUT.kmz|OUT.kml [options]
          meridian kml info FILE [--json | --stream]
          meridian kml convert IN OUT [--overwrite]

        create: placemarks from GeoJSON, CSV (lon,lat / x,y columns) or WKT (one geometry per line), projected
        to WGS84. Per-feature GeoJSON simplestyle properties (marker-color, stroke, stroke-width, stroke-opacity,
        fill, fill-opacity) override the options below; `name`/`description` properties name the placemarks and
        other properties become ExtendedData.
          -o, --output PATH     .kmz (zip, doc.kml first, local icons packed under files/) or .kml
          --name NAME           the document's name (default: the input's file name)
          --in-srs SRS          spatial reference of CSV x,y / WKT coordinates (EPSG code, WKT, PROJ string)
          --icon URL|PATH       point icon; a local file is packed into the KMZ
          --icon-scale S        icon size factor
          --line-color C        line color, #RRGGBB or #RRGGBBAA
          --line-width W        line width in pixels
          --fill-color C        polygon fill, #RRGGBB or #RRGGBBAA
          --no-fill             do not fill polygons
          --no-outline          do not outline polygons
          --overwrite           replace OUT if it exists

        info: counts of placemarks by geometry type, folders, styles, the bounding box and the reader's warnings.
          --json                print JSON instead of text
          --stream              count placemarks and the bounding box in bounded memory (multi-GB files)

        convert: KML ↔ KMZ (lossless), KML/KMZ → GeoJSON (effective styles as simplestyle properties),
        GeoJSON → KML/KMZ (simplestyle as styles). Formats are chosen by extension.

        Examples:
          meridian kml create cities.csv -o cities.kmz --icon https://maps.google.com/mapfiles/kml/paddle/red-circle.png
          meridian kml create parcels.geojson -o parcels.kml --fill-color '#ffff0099' --line-color '#00ff00'
          meridian kml info cities.kmz --json
          meridian kml convert doc.kmz doc.geojson
        """

    /// Every option of every subcommand, taken before the subcommand is known.
    struct Options {
        var output: String?
        var name: String?
        var srs: SpatialReference?
        var icon: String?
        var iconScale: Double?
        var lineColor: KMLColor?
        var lineWidth: Double?
        var fillColor: KMLColor?
        var noFill = false
        var noOutline = false
        var overwrite = false
        var json = false
        var stream = false
        /// The create-only options given, for a usage error elsewhere.
        var createOnly: [String] = []
    }

    /// Parses every option, then runs `create`, `info` or `convert`.
    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        var o = Options()
        o.output = try arguments.option("--output", "-o")
        o.name = try arguments.option("--name")
        o.srs = try arguments.option("--in-srs", "--from").map { t throws(CommandError) in try parseSpatialReference(t) }
        o.icon = try arguments.option("--icon")
        o.iconScale = try arguments.number("--icon-scale")
        o.lineColor = try color(try arguments.option("--line-color"), option: "--line-color")
        o.lineWidth = try arguments.number("--line-width")
        o.fillColor = try color(try arguments.option("--fill-color"), option: "--fill-color")
        o.noFill = arguments.flag("--no-fill")
        o.noOutline = arguments.flag("--no-outline")
        o.overwrite = arguments.flag("--overwrite")
        o.json = arguments.flag("--json")
        o.stream = arguments.flag("--stream")
        let given: [(String, Bool)] = [("-o", o.output != nil), ("--name", o.name != nil), ("--in-srs", o.srs != nil),
                                       ("--icon", o.icon != nil), ("--icon-scale", o.iconScale != nil),
                                       ("--line-color", o.lineColor != nil), ("--line-width", o.lineWidth != nil),
                                       ("--fill-color", o.fillColor != nil), ("--no-fill", o.noFill),
                                       ("--no-outline", o.noOutline)]
        o.createOnly = given.filter(\.1).map(\.0)
        let positionals = try arguments.finish(maximumPositionals: 3)
        switch positionals.first {
        case "create":
            if o.json || o.stream { throw .usage("--json and --stream apply to kml info only") }
            let progress = io.progress("kml create")
            defer { progress?.finish() }
            try create(Array(positionals.dropFirst()), o, io: io, progress: progress)
        case "info":
            if let bad = (o.createOnly + (o.overwrite ? ["--overwrite"] : [])).first { throw .usage("\(bad) does not apply to kml info") }
            try info(Array(positionals.dropFirst()), json: o.json, stream: o.stream, io: io)
        case "convert":
            if let bad = (o.createOnly + (o.json ? ["--json"] : []) + (o.stream ? ["--stream"] : [])).first {
                throw .usage("\(bad) does not apply to kml convert")
            }
            let progress = io.progress("kml convert")
            defer { progress?.finish() }
            try convert(Array(positionals.dropFirst()), overwrite: o.overwrite, io: io, progress: progress)
        case nil: throw .usage("kml needs a subcommand: create, info or convert (see meridian kml --help)")
        case let other?: throw .usage("unknown kml subcommand '\(other)' (create, info or convert)")
        }
    }

    // MARK: create

    static func color(_ text: String?, option: String) throws(CommandError) -> KMLColor? {
        guard let text else { return nil }
        guard let c = KMLColor(hex: text) else { throw .usage("\(option) expects #RRGGBB or #RRGGBBAA, got '\(text)'") }
        return c
    }

    static func create(_ positionals: [String], _ o: Options, io: CommandIO, progress: ProgressLine? = nil)
        throws(CommandError)
    {
        guard let output = o.output else { throw .usage("kml create needs -o OUT.kmz or OUT.kml") }
        guard positionals.count == 1 else {
            throw .usage(positionals.isEmpty ? "kml create needs an INPUT (a file or - for stdin)" : "kml create takes one INPUT")
        }
        let (name, icon, iconScale, lineColor, lineWidth, fillColor) = (o.name, o.icon, o.iconScale, o.lineColor, o.lineWidth, o.fillColor)
        let (noFill, noOutline, overwrite) = (o.noFill, o.noOutline, o.overwrite)
        if let s = iconScale, s <= 0 { throw .usage("--icon-scale must be positive") }
        if let w = lineWidth, w < 0 { throw .usage("--line-width must not be negative") }
        try checkOutput(output)

        let input = try FeatureInput.read(positionals[0], inputSpatialReference: o.srs, defaultXYSpatialReference: nil,
                                          io: io, progress: progress)
        let inputName = positionals[0] == "-" ? "stdin" : URL(fileURLWithPath: positionals[0]).deletingPathExtension().lastPathComponent
        var document = KMLDocument(name: name ?? inputName)
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
        let hasSharedStyle = style != KMLStyle(id: "meridian-default")
        if hasSharedStyle { document.addStyle(style) }
        progress?.begin("converting", unit: "features", total: input.features.count)
        for (i, feature) in input.features.enumerated() {
            if i & 1023 == 0 { progress?.update(i) }
            do {
                var p = try KMLFeatureConversion.placemark(from: feature)
                if p.name == nil { p.name = "Feature \(i + 1)" }
                if hasSharedStyle { p.styleUrl = "#meridian-default" }
                document.addChildNode(p)
            } catch {
                throw .failure("\(input.labels[i]): \(error.description)")
            }
        }
        progress?.begin("writing")
        try save(KMLDataset(rootNode: document), to: output, overwrite: overwrite, io: io, progress: progress)
        progress?.finish()
        io.note("wrote \(input.features.count) placemark(s) to \(output)")
    }

    static func checkOutput(_ path: String) throws(CommandError) {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard ext == "kml" || ext == "kmz" else { throw .usage("the output must end in .kmz or .kml, got '\(path)'") }
    }

    /// Saves a dataset, then (the progress line finished) prints a warning for each icon kept as a link.
    static func save(_ dataset: KMLDataset, to path: String, overwrite: Bool, io: CommandIO, progress: ProgressLine?)
        throws(CommandError)
    {
        do {
            let warnings = try dataset.save(to: URL(fileURLWithPath: path), overwrite: overwrite)
            progress?.finish()
            for warning in warnings { io.note("warning: \(warning)") }
        } catch .fileExists(let p) {
            throw .failure("\(p) already exists (add --overwrite to replace it)")
        } catch {
            throw .failure(error.description)
        }
    }

    static func read(_ path: String, io: CommandIO) throws(CommandError) -> KMLDataset {
        try requireKML(path, io: io)
        do { return try KMLDataset(url: URL(fileURLWithPath: path)) } catch { throw failure(path, error) }
    }

    /// Refuses a file whose content is not KML or KMZ, naming what it is instead (whatever its name says).
    static func requireKML(_ path: String, io: CommandIO) throws(CommandError) {
        let format = InputFormat.sniff(try io.head(path, count: InputFormat.headLength))
        guard format.isKML else { throw .failure("\(path): not KML or KMZ: found \(format.name)") }
    }

    /// A read failure naming the file once (archive and I/O errors already start with it).
    static func failure(_ path: String, _ error: KMLError) -> CommandError {
        .failure(error.description.hasPrefix(path) ? error.description : "\(path): \(error.description)")
    }

    // MARK: info

    /// What `kml info` reports.
    struct Summary {
        var placemarks = 0
        var geometryTypes: [String: Int] = [:]
        var folders = 0
        var sharedStyles = 0
        var inlineStyles = 0
        var otherFeatures: [String: Int] = [:]
        var envelope: Envelope?

        init() {}

        init(_ d: KMLDataset) {
            let doc = d.document
            folders = doc.folderCount
            sharedStyles = doc.allStyleSelectors.count
            var coordinates: [Coordinate] = []
            func visit<C: KMLContainer>(_ c: C) {
                for f in c.features {
                    switch f {
                    case .placemark(let p):
                        placemarks += 1
                        if p.style != nil || p.styleMap != nil { inlineStyles += 1 }
                        if let g = p.geometry {
                            geometryTypes[g.typeName, default: 0] += 1
                            coordinates += g.coordinates
                        } else {
                            geometryTypes["none", default: 0] += 1
                        }
                    case .folder(let f): visit(f)
                    case .document(let d): visit(d)
                    case .unmodeled(let e): otherFeatures[e.qualifiedName, default: 0] += 1
                    }
                }
            }
            visit(doc)
            envelope = Envelope(around: coordinates, spatialReference: .wgs84)
        }
    }

    /// Placemark counts and bounding box from the streaming reader (bounded memory; folders not counted).
    static func streamSummary(_ path: String) throws(CommandError) -> Summary {
        var s = Summary()
        var xMin = Double.infinity, yMin = Double.infinity, xMax = -Double.infinity, yMax = -Double.infinity
        do {
            try KMLDataset.forEachPlacemark(in: URL(fileURLWithPath: path)) { r in
                s.placemarks += 1
                if r.placemark.style != nil || r.placemark.styleMap != nil { s.inlineStyles += 1 }
                if let g = r.placemark.geometry {
                    s.geometryTypes[g.typeName, default: 0] += 1
                    for c in g.coordinates {
                        xMin = min(xMin, c.x); yMin = min(yMin, c.y); xMax = max(xMax, c.x); yMax = max(yMax, c.y)
                    }
                } else {
                    s.geometryTypes["none", default: 0] += 1
                }
                return true
            }
        } catch let e as KMLError {
            throw failure(path, e)
        } catch {
            throw .failure("\(path): \(error)")
        }
        if xMin <= xMax { s.envelope = Envelope(xMin: xMin, yMin: yMin, xMax: xMax, yMax: yMax, spatialReference: .wgs84) }
        return s
    }

    static func info(_ positionals: [String], json: Bool, stream: Bool, io: CommandIO) throws(CommandError) {
        guard positionals.count == 1 else { throw .usage("kml info needs one FILE (.kml or .kmz)") }
        if stream {
            try requireKML(positionals[0], io: io)
            let s = try streamSummary(positionals[0])
            var lines = ["\(positionals[0]) (streamed): placemarks: \(s.placemarks)"]
            for (t, n) in s.geometryTypes.sorted(by: { $0.key < $1.key }) { lines.append("  \(t): \(n)") }
            if let e = s.envelope { lines.append("bbox (lon/lat): \(e.xMin), \(e.yMin), \(e.xMax), \(e.yMax)") }
            io.print(lines.joined(separator: "\n"))
            return
        }
        let dataset = try read(positionals[0], io: io)
        let s = Summary(dataset)
        if json {
            var object: [String: JSONValue] = [
                "file": .string(positionals[0]),
                "name": dataset.document.name.map { .string($0) } ?? .null,
                "placemarks": .number(Double(s.placemarks)),
                "geometryTypes": .object(s.geometryTypes.mapValues { .number(Double($0)) }),
                "folders": .number(Double(s.folders)),
                "sharedStyles": .number(Double(s.sharedStyles)),
                "inlineStyles": .number(Double(s.inlineStyles)),
                "otherFeatures": .object(s.otherFeatures.mapValues { .number(Double($0)) }),
                "resources": .array(dataset.resources.keys.sorted().map { .string($0) }),
                "warnings": .array(dataset.warnings.map { .string($0) }),
            ]
            if let e = s.envelope {
                object["bbox"] = .array([e.xMin, e.yMin, e.xMax, e.yMax].map { .number($0) })
            } else {
                object["bbox"] = .null
            }
            io.output(JSONValue.object(object).encoded(pretty: true) + Data("\n".utf8))
            return
        }
        var lines = ["\(positionals[0]): \(dataset.document.name ?? "(unnamed document)")",
                     "placemarks: \(s.placemarks)"]
        for (t, n) in s.geometryTypes.sorted(by: { $0.key < $1.key }) { lines.append("  \(t): \(n)") }
        lines.append("folders: \(s.folders)")
        lines.append("styles: \(s.sharedStyles) shared, \(s.inlineStyles) placemark(s) with inline styles")
        for (t, n) in s.otherFeatures.sorted(by: { $0.key < $1.key }) { lines.append("other features: \(t): \(n)") }
        if !dataset.resources.isEmpty { lines.append("archive files: \(dataset.resources.count)") }
        if let e = s.envelope {
            lines.append("bbox (lon/lat): \(e.xMin), \(e.yMin), \(e.xMax), \(e.yMax)")
        } else {
            lines.append("bbox: none")
        }
        lines.append("warnings: \(dataset.warnings.count)")
        for w in dataset.warnings { lines.append("  \(w)") }
        io.print(lines.joined(separator: "\n"))
    }

    // MARK: convert

    static func convert(_ positionals: [String], overwrite: Bool, io: CommandIO, progress: ProgressLine? = nil)
        throws(CommandError)
    {
        guard positionals.count == 2 else { throw .usage("kml convert needs IN and OUT") }
        let (inPath, outPath) = (positionals[0], positionals[1])
        let outExt = URL(fileURLWithPath: outPath).pathExtension.lowercased()
        let kmlExtensions: Set<String> = ["kml", "kmz"], jsonExtensions: Set<String> = ["geojson", "json"]
        guard kmlExtensions.union(jsonExtensions).contains(outExt) else {
            throw .usage("OUT must be .kml, .kmz, .geojson or .json, got '\(outPath)'")
        }
        let inFormat = InputFormat.sniff(try io.head(inPath, count: InputFormat.headLength))
        guard inFormat.isKML || inFormat == .geoJSON else {
            throw .failure("\(inPath): not KML, KMZ or GeoJSON: found \(inFormat.name)")
        }
        if inFormat.isKML {
            progress?.begin("reading")
            let dataset = try read(inPath, io: io)
            if kmlExtensions.contains(outExt) {
                progress?.begin("writing")
                try save(dataset, to: outPath, overwrite: overwrite, io: io, progress: progress)
                progress?.finish()
                io.note("wrote \(outPath)")
                return
            }
            let resolver = dataset.styleResolver
            var features: [Feature] = []
            var dropped = 0
            dataset.document.forEachPlacemark { p in
                let f = KMLFeatureConversion.feature(from: p, effectiveStyle: resolver.effectiveStyle(for: p))
                if f.geometry == nil, p.geometry != nil { dropped += 1 }
                features.append(f)
            }
            progress?.finish()  // before any message
            if dropped > 0 { io.note("\(dropped) placemark geometr\(dropped == 1 ? "y" : "ies") (mixed MultiGeometry, gx:Track, Model) have no GeoJSON equivalent here and were written as null") }
            if !overwrite && FileManager.default.fileExists(atPath: outPath) {
                throw .failure("\(outPath) already exists (add --overwrite to replace it)")
            }
            try OutputFile(outPath).stream(io: io) { out throws(CommandError) in
                GeoJSON.beginFeatureCollection(to: &out)
                for (i, f) in features.enumerated() { GeoJSON.appendFeature(f, first: i == 0, to: &out) }
                GeoJSON.endFeatureCollection(to: &out)
                out.append(UInt8(ascii: "\n"))
            }
            io.note("wrote \(features.count) feature(s) to \(outPath)")
        } else {
            guard kmlExtensions.contains(outExt) else { throw .usage("GeoJSON → GeoJSON is not a KML conversion") }
            let input = try FeatureInput.read(inPath, inputSpatialReference: nil, defaultXYSpatialReference: nil, io: io,
                                              progress: progress)
            progress?.begin("converting", unit: "features", total: input.features.count)
            var document = KMLDocument(name: URL(fileURLWithPath: inPath).deletingPathExtension().lastPathComponent)
            for (i, f) in input.features.enumerated() {
                do { document.addChildNode(try KMLFeatureConversion.placemark(from: f)) } catch {
                    throw .failure("\(input.labels[i]): \(error.description)")
                }
            }
            progress?.begin("writing")
            try save(KMLDataset(rootNode: document), to: outPath, overwrite: overwrite, io: io, progress: progress)
            progress?.finish()
            io.note("wrote \(input.features.count) placemark(s) to \(outPath)")
        }
    }
}
