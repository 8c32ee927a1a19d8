import Foundation
import Meridian
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// Every table format `FeatureDataFormat` declares, through the command line and nothing else: written by a command
/// under its extension, recognised by its content alone, read back by a command with the same geometry. A format
/// added by its declaration is tested here with no test to add.
@Suite struct DeclaredFeatureTableFormatTests {
    /// Three named points as GeoJSON (WGS84 longitude/latitude).
    static let points = #"{"type":"FeatureCollection","features":["#
        + [("Dallas", -96.8, 32.75), ("Fort Worth", -97.33, 32.75), ("Arlington", -97.1, 32.7)].map { name, lon, lat in
            #"{"type":"Feature","properties":{"name":"\#(name)"},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
        }.joined(separator: ",") + "]}"

    /// The file formats: every declared format recognised by its content (PostGIS, named by a `PG:` connection
    /// string, is not a file; its round trip is in Tests/python/test_feature_data_interop.py).
    static let fileFormats = FeatureDataFormat.allCases.filter { $0.fileExtension != nil }

    @Test func everyDeclaredFormatIsAnOutputAndAnInput() {
        #expect(Set(OutputFormat.featureTables) == Set(FeatureDataFormat.allCases.map { OutputFormat.table($0) }))
        for format in FeatureDataFormat.allCases {
            #expect(OutputFormat.allCases.contains(.table(format)), "\(format)")
            #expect(FeatureInput.Format(format).isFeatureTable && FeatureInput.Format(format).name == format.rawValue)
            guard let ext = format.fileExtension else {
                #expect(format.declaration.needsLayerName, "\(format): named otherwise than by a file, so by --layer")
                continue
            }
            #expect(OutputFormat(path: "out." + ext.uppercased()) == .table(format), "\(format)")
            #expect(FeatureDataFormat.forOutput("dir/out." + ext) == format, "\(format)")
        }
        #expect(!Self.fileFormats.isEmpty)
    }

    /// The help and the messages that list the table formats make their lists from the declarations: every
    /// declared format is named in each (that no source lists them by hand is checked with the repository's other
    /// source rules, Tests/python/test_repository.py).
    @Test func everyDeclaredFormatIsNamedWhereTheFormatsAreListed() throws {
        let reference = runCommand(["--reference"]).stdout
        for format in FeatureDataFormat.allCases {
            let d = format.declaration
            #expect(reference.contains(d.inputName), "\(format): the input help")
            #expect(reference.contains(d.listName), "\(format): kml convert's and near's input help")
            for spelling in OutputFormat.spellings([.table(format)]) {
                #expect(reference.contains(spelling), "\(format): the output help")
            }
            if let layered = d.layeredSourceName { #expect(FeatureDataFormat.layeredSources.contains(layered)) }
        }
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("points.csv")
        try "x,y\n1,2\n".write(to: csv, atomically: true, encoding: .utf8)
        let converted = runCommand(["kml", "convert", csv.path, dir.appendingPathComponent("out.kml").path])
        for format in FeatureDataFormat.files {
            #expect(converted.stderr.contains(format.declaration.outputName), "\(format): kml convert's refusal")
        }
    }

    @Test(arguments: fileFormats) func writtenRecognisedAndReadBack(_ format: FeatureDataFormat) throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let directFile = dir.appendingPathComponent("direct.wkt")
        let direct = runCommand(["project", "--to", "EPSG:32038", "-o", directFile.path], stdin: Self.points)
        let expected = try String(contentsOf: directFile, encoding: .utf8)
        #expect(direct.status == 0 && expected.split(separator: "\n").count == 3, "\(direct.stderr)")
        // Written by a command under its extension; recognised by its bytes alone (InputFormat.sniff sees no name).
        let table = dir.appendingPathComponent("points." + (format.fileExtension ?? ""))
        let written = runCommand(["project", "--to", "EPSG:32038", "-o", table.path], stdin: Self.points)
        #expect(written.status == 0, "\(format): \(written.stderr)")
        let bytes = try Data(contentsOf: table)
        #expect(InputFormat.sniff(bytes) == .featureTable(format), "\(format) not recognised by its content")
        #expect(FeatureDataFormat.recognize(header: bytes.prefix(FeatureDataFormat.headerLength)) == format)
        #expect(FeatureDataFormat.recognize(source: table.path) == format)
        // Read back by a command: the same WKT as the points projected straight to WKT.
        let back = dir.appendingPathComponent("back.wkt")
        let read = runCommand(["project", table.path, "--to", "EPSG:32038", "-o", back.path])
        #expect(read.status == 0, "\(format): \(read.stderr)")
        #expect((try? String(contentsOf: back, encoding: .utf8)) == expected, "\(format)")
    }
}
