import Foundation
import Testing

@testable import MeridianCLI
@testable import MeridianIO
import Meridian

/// A command declared only for these tests: a flag-selected mode, an option group, options of every value kind.
struct SampleCommand: Command {
    static let name = "sample"
    static let summary = "a command for the parser's tests"
    static let discussion = "Tests the parser."
    static let examples = ["meridian sample in.csv --count 3"]

    enum Kind: String, CommandMode {
        case plain, fancy
        var title: String { "a \(rawValue) sample" }
    }

    @Mode(flag: "--fancy", selects: Kind.fancy, help: "the fancy mode")
    var kind = Kind.plain

    var input = InputOptions(srsNames: ["--in-srs", "--from"])

    @Option("--count", as: .wholeNumber(1...10), help: "how many")
    var count = 2

    @Option("--ratio", as: .number(.positive), help: "a ratio", modes: .of(Kind.fancy), required: .of(Kind.fancy))
    var ratio: Double?

    @Flag("--loud", "-l", help: "shout", modes: .of(Kind.plain))
    var loud: Bool

    @Option("--size", as: .distance(), help: "a size")
    var size: Distance?

    @Option("--shape", as: .choice(ShapeType.self), help: "a shape")
    var shape = ShapeType.polygon

    init() {}
    func run(io: CommandIO) throws(CommandError) {}
}

/// The declarative options (`Options/`): parsing, conversion with one message per kind, the combination checks
/// by mode, and the help and reference page made from the same declarations.
@Suite struct OptionModelTests {
    /// The sample command with `arguments` parsed into it, and its mode.
    static func parse(_ arguments: [String]) throws(CommandError) -> SampleCommand {
        let command = SampleCommand()
        _ = try CommandParser(command: "sample", declarations: Declaration.all(in: command)).parse(arguments)
        return command
    }

    /// The usage error `arguments` give.
    static func usage(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            guard case .usage(let message) = error else { return "not a usage error: \(error)" }
            return message
        }
    }

    @Test func defaultsWhenNothingIsGiven() throws {
        let c = try Self.parse([])
        #expect(c.kind == .plain && c.count == 2 && !c.loud && c.ratio == nil && c.size == nil && c.shape == .polygon)
        #expect(c.input.path == nil && c.input.spatialReference == nil)
    }

    @Test func valuesInEverySpelling() throws {
        let c = try Self.parse(["in.csv", "--count", "3", "-l", "--size=2km", "--from", "EPSG:32038", "--shape", "multipoint"])
        #expect(c.input.path == "in.csv")
        #expect(c.count == 3 && c.loud && c.shape == .multipoint)
        #expect(c.size?.value == 2 && c.size?.unit == .kilometers)
        #expect(c.input.spatialReference?.wkid == 32038)
        // The last value given wins; `--` ends the options; `-` and negative numbers are positionals.
        #expect(try Self.parse(["--count", "3", "--count", "4"]).count == 4)
        #expect(try Self.parse(["--", "--count"]).input.path == "--count")
        #expect(try Self.parse(["-5"]).input.path == "-5")
        #expect(try Self.parse(["-"]).input.path == "-")
    }

    @Test func oneNumberParser() throws {
        // Whole numbers are read as numbers first: 3, 3.0 and 3e0 alike; outside the range or not whole, refused.
        for text in ["3", "3.0", "3e0", "+3", "0x3"] { #expect(try Self.parse(["--count", text]).count == 3, "\(text)") }
        for text in ["0", "11", "2.5", "nan", "inf", "1e300", "three", " 3"] {
            #expect(Self.usage(["--count", text]) == "--count expects a whole number from 1 to 10, got '\(text)'")
        }
        #expect(NumberText.whole("9223372036854775807", in: 1...Int.max) == nil)  // 2^63 as a Double
        #expect(NumberText.whole("4611686018427387904", in: 1...Int.max) == 1 << 62)
        #expect(Self.usage(["--fancy", "--ratio", "0"]) == "--ratio expects a positive number, got '0'")
        #expect(Self.usage(["--fancy", "--ratio", "-inf"]) == "--ratio expects a positive number, got '-inf'")
        #expect(Self.usage(["--size", "3 parsecs"]) == "--size: unknown unit 'parsecs' in '3 parsecs' (use m, km, ft, us-ft, mi, us-mi or nmi)")
        #expect(Self.usage(["--shape", "circle"]) == "--shape expects polygon, polyline or multipoint, got 'circle'")
    }

    @Test func wordsThatAreNotOptions() {
        #expect(Self.usage(["--frob"]) == "unknown option --frob")
        #expect(Self.usage(["--loud=yes"]) == "unknown option --loud=yes")
        #expect(Self.usage(["--count"]) == "--count needs a value")
        #expect(Self.usage(["--count", "--"]) == "--count needs a value")
        #expect(Self.usage(["--count", ""]) == "--count needs a value, not an empty one")
        #expect(Self.usage(["--count="]) == "--count needs a value, not an empty one")
        #expect(Self.usage(["a.csv", "b.csv"]) == "unexpected argument 'b.csv'")
    }

    @Test func optionsAreCheckedAgainstTheMode() throws {
        let fancy = try Self.parse(["--fancy", "--ratio", "2"])
        #expect(fancy.kind == .fancy && fancy.ratio == 2)
        #expect(Self.usage(["--fancy"]) == "a fancy sample needs --ratio X: a ratio")
        #expect(Self.usage(["--ratio", "2"]) == "--ratio does not apply to a plain sample (it applies to a fancy sample)")
        // Named as given, with the mode checked before the value is converted.
        #expect(Self.usage(["--fancy", "--ratio", "2", "-l"]) == "-l does not apply to a fancy sample (it applies to a plain sample)")
        #expect(Self.usage(["--ratio", "x"]) == "--ratio does not apply to a plain sample (it applies to a fancy sample)")
    }

    @Test func aModeNamedByTheFirstWord() {
        #expect(runCommand(["op"]).stderr.hasPrefix("meridian op: missing OPERATION: one of convex-hull, boundary,"))
        #expect(runCommand(["op", "frob"]).stderr.hasPrefix("meridian op: unknown operation 'frob': use convex-hull,"))
        let info = runCommand(["kml", "info", "x.kml", "--from", "EPSG:4326"])
        #expect(info.status == 2)
        #expect(info.stderr == "meridian kml: --from does not apply to kml info (it applies to kml create)\n")
        // The words after the mode go to the arguments of that mode.
        #expect(runCommand(["kml", "convert", "a.kml"]).stderr.hasPrefix("meridian kml: kml convert needs OUT"))
        #expect(runCommand(["kml", "info", "a.kml", "b.kml"]).stderr == "meridian kml: unexpected argument 'b.kml'\n")
    }

    @Test func helpAndReferenceShowEveryDeclaration() {
        let reference = ReferencePage.markdown(MeridianCommandLine.commands)
        let overview = HelpText.overview(MeridianCommandLine.commands)
        for command in MeridianCommandLine.commands + [SampleCommand.self] {
            let help = HelpText.help(for: command)
            #expect(help.hasPrefix("Usage: meridian \(command.name)"), "\(command.name)")
            #expect(overview.contains("  \(command.name)  ") || command == SampleCommand.self)
            let section = ReferencePage.section(command).joined(separator: "\n")
            #expect(section.hasPrefix("### meridian \(command.name)\n"))
            for d in Declaration.all(in: command.init()) + Declaration.all(in: GlobalOptions()) {
                for name in d.names { #expect(help.contains(name), "\(command.name) --help lacks \(name)") }
                #expect(help.contains(d.help.split(separator: " ").prefix(4).joined(separator: " ")), "\(command.name): \(d.name)")
                #expect(section.contains("`\(ReferencePage.code(CommandLayout(command).left(d)))`"), "\(command.name): \(d.name)")
            }
            for line in help.split(separator: "\n") where line.hasPrefix("  -") {
                #expect(line.count <= HelpText.width, "\(command.name): \(line)")
            }
        }
        #expect(reference.hasPrefix("# Command reference\n"))
        for command in MeridianCommandLine.commands { #expect(reference.contains("\n### meridian \(command.name)\n")) }
        let printed = runCommand(["--reference"])
        #expect(printed.status == 0 && printed.stdout == reference + "\n")
    }

    @Test func usageLinesComeFromTheModes() {
        let buffer = CommandLayout(BufferCommand.self).usageLines
        #expect(buffer == ["meridian buffer [INPUT] --srs SRS (--distance D | --distance-field NAME [--unit U]) [options]",
                           "meridian buffer --geodesic [INPUT] (--distance D | --distance-field NAME [--unit U]) [options]"])
        let sample = HelpText.help(for: SampleCommand.self)
        #expect(sample.contains("  --ratio X             a ratio [fancy]"))
        #expect(sample.contains("  --count N             how many (default 2)"))
        let op = CommandLayout(OperationCommand.self).modeLines
        #expect(op.first { $0.synopsis.hasPrefix("densify") }?.synopsis == "densify --max-segment-length L")
        #expect(op.first { $0.synopsis.hasPrefix("relate") }?.synopsis == "relate --with WKT --pattern DE9IM")
    }
}

/// `OutputFormat` and `OutputFile`: the format an output's name says, and the refusal of one that says none
/// (`-o o` and `-o .wkt` once wrote GeoJSON).
@Suite struct OutputFormatTests {
    @Test func theNameSaysTheFormat() {
        #expect(OutputFormat(path: "out.geojson") == .geoJSON)
        #expect(OutputFormat(path: "OUT.JSON") == .geoJSON)
        #expect(OutputFormat(path: "dir.d/x.WKT") == .wkt)
        #expect(OutputFormat(path: "a.b/c.geojsons") == .geoJSONSequence)
        for path in ["o", ".wkt", "dir/.wkt", "o.", "dir.wkt/o", "o.xyz", "/dev/full"] {
            #expect(OutputFormat(path: path) == nil, "\(path)")
        }
        #expect(OutputFormat.fileExtension("dir.wkt/o") == nil)
        #expect(OutputFormat.fileExtension("o.xyz") == "xyz")
    }

    @Test func anOutputWhoseNameSaysNoFormatIsRefused() throws {
        func refusal(_ path: String?, _ use: OutputFormat.Use, standardOutput: OutputFormat? = .geoJSON) -> String? {
            do {
                _ = try OutputFile(path, use: use, standardOutput: standardOutput)
                return nil
            } catch {
                return error.description
            }
        }
        let formats = ".wkt, .geojson, .json, .gpkg, .shp, .fgb or PG:…"  // op writes feature tables too
        #expect(refusal("o", .operation) == "cannot tell the output format of 'o' from its name: end it in \(formats)")
        #expect(refusal(".wkt", .operation) == "cannot tell the output format of '.wkt' from its name: end it in \(formats)")
        #expect(refusal("o.xyz", .operation) == "unknown output format '.xyz' of 'o.xyz' (use \(formats))")
        #expect(refusal("o.svg", .operation) == "op does not write SVG ('o.svg'); use \(formats)")
        // A PostGIS output where the command writes none: named without its password.
        #expect(refusal("PG:dbname=x password=secret", .kmlCreate, standardOutput: nil)
                == "kml create does not write a PostGIS table ('PG:dbname=x password=***'); use .kmz or .kml")
        #expect(refusal("-", .kmlCreate, standardOutput: nil) == "kml create writes a file, not standard output: name one ending in .kmz or .kml")
        #expect(refusal("o.txt", .project) == nil)
        let stdout = try OutputFile("-", use: .buffer, standardOutput: .geoJSON)
        #expect(stdout.path == nil && stdout.format == .geoJSON)
        #expect(try OutputFile(nil, use: .operation, standardOutput: .wkt).format == .wkt)
    }

    /// What the commands ask a format instead of comparing it with one: where its coordinates are, whether it keeps
    /// the input's CSV columns, whether its layer must be named, whether it is KML.
    @Test func capabilitiesSayWhatEachFormatDoes() {
        let working = OutputFormat.allCases.filter { $0.writesInWorkingSpatialReference }
        #expect(working == [.wkt, .csv, .text, .svg, .table(.geoPackage), .table(.shapefile), .table(.flatGeobuf), .table(.postGIS)])
        #expect(OutputFormat.allCases.filter { $0.keepsInputColumns } == [.csv])
        #expect(OutputFormat.allCases.filter { $0.needsLayerName } == [.table(.postGIS)])
        #expect(OutputFormat.allCases.filter { $0.isKML } == [.kml, .kmz])
        #expect(OutputFormat.allCases.filter { $0.writesGeometryAsWKTColumn } == [.csv])
        #expect(OutputFormat.allCases.filter { $0.writesCSVRows } == [.csv, .text])
    }

    /// `FeatureStreamWriter` over features as they are (`op`, `project`): WKT in the features' own spatial
    /// reference, GeoJSON and its text sequence projected to WGS84 with the properties, a feature without a geometry
    /// a null geometry in GeoJSON and nothing in WKT; CSV, which needs the input's rows, is refused.
    @Test func theStreamWriterWritesFeaturesAsTheFormatSays() throws {
        let mercator = try SpatialReference(wkid: 3857)
        let features = [
            Feature(geometry: .point(Point(x: 111_319.490_793_273_57, y: 0, spatialReference: mercator)),
                    properties: ["name": .string("a")]),
            Feature(geometry: nil, properties: ["n": .number(2)]),
        ]
        func written(_ format: OutputFormat) throws(CommandError) -> String {
            var out = ByteBuffer()
            try FeatureStreamWriter.write(features, as: format, to: &out)
            return out.string
        }
        #expect(try written(.wkt) == "POINT (111319.49079327357 0)\n")
        let geoJSON = try written(.geoJSON), sequence = try written(.geoJSONSequence)
        // 111,319.49 m east of Web Mercator's origin: 1°E on the equator (PROJ's latitude there is within 1e-12).
        func isOneDegreeEast(_ g: Geometry?) -> Bool {
            guard let p = g?.point else { return false }
            return abs(p.x - 1) < 1e-12 && abs(p.y) < 1e-12
        }
        #expect(geoJSON.hasPrefix(#"{"features":[{"geometry":{"coordinates":["#))
        #expect(geoJSON.hasSuffix(#"{"geometry":null,"properties":{"n":2},"type":"Feature"}],"type":"FeatureCollection"}"# + "\n"))
        let collection = try GeoJSON.decodeFeatures(Data(geoJSON.utf8))
        #expect(collection.count == 2 && isOneDegreeEast(collection[0].geometry) && collection[1].geometry == nil)
        #expect(collection.map { $0.properties } == features.map { $0.properties })
        let records = sequence.split(separator: "\u{1E}", omittingEmptySubsequences: false)
        #expect(records.count == 3 && records[0].isEmpty && records.dropFirst().allSatisfy { $0.hasSuffix("}\n") })
        let decoded = try records.dropFirst().flatMap { try GeoJSON.decodeFeatures(Data($0.utf8)) }
        #expect(decoded.count == 2 && isOneDegreeEast(decoded[0].geometry) && decoded[1].geometry == nil)
        #expect(decoded.map { $0.properties } == features.map { $0.properties })
        #expect(throws: CommandError.self) { try written(.csv) }
        do { _ = try written(.csv) } catch { #expect(error.description == "CSV is not written a feature at a time") }
    }

    @Test func everyCommandRefusesSuchANameAndWritesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = "lon,lat\n-97,32.5\n"
        for name in ["o", ".wkt", "o.xyz"] {
            let path = folder.appendingPathComponent(name).path
            for args in [["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "-o", path],
                         ["buffer", "--geodesic", "--distance", "1mi", "-o", path],
                         ["op", "convex-hull", "-o", path], ["project", "--to", "EPSG:32038", "-o", path],
                         ["kml", "create", "-", "-o", path], ["kml", "convert", "-", path]] {
                let r = runCommand(args, stdin: csv)
                #expect(r.status == 2, "\(args): \(r.stderr)")
                #expect(r.stderr.contains("'\(path)'"), "\(args): \(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // Standard output keeps its defaults: GeoJSON for buffer, WKT for op.
        #expect(runCommand(["buffer", "--srs", "EPSG:32038", "--distance", "1mi", "-o", "-"], stdin: csv).stdout.hasPrefix("{"))
        #expect(runCommand(["op", "convex-hull"], stdin: "POINT (1 2)\n").stdout == "POINT (1 2)\n")
    }
}
