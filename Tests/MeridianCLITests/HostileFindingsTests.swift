import Foundation
import Testing
import Meridian

/// The defects hostile testing found (issue 25), each through the command a user runs.
@Suite struct HostileFindingsTests {
    /// `kml convert` of a KML someone was sent: its icon hrefs name files outside its folder; the KMZ must hold none
    /// of them, each stays a link and one warning line names it (item 2).
    @Test func kmlConvertPacksNoFileFromOutsideTheDocumentsFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret.png"), doc = folder.appendingPathComponent("doc")
        let secretBytes = Data("SECRET-\(UUID().uuidString)".utf8)
        try secretBytes.write(to: secret)
        try FileManager.default.createDirectory(at: doc, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: doc.appendingPathComponent("pin.png"))
        let hrefs = [secret.path, secret.absoluteString, "../secret.png", "/proc/self/environ", "pin.png"]
        let styles = hrefs.enumerated().map { "<Style id=\"s\($0)\"><IconStyle><Icon><href>\($1)</href></Icon></IconStyle></Style>" }
        let kml = doc.appendingPathComponent("sent.kml")
        try Data(("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\(styles.joined())<Placemark>"
            + "<Point><coordinates>1,2</coordinates></Point></Placemark></Document></kml>").utf8).write(to: kml)
        let out = folder.appendingPathComponent("out.kmz")
        let r = runCommand(["kml", "convert", kml.path, out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: icon ") }
        #expect(warnings.count == 4, "\(r.stderr)")
        let back = try KMLDataset(url: out)
        #expect(back.resources == ["files/pin.png": Data([1, 2, 3])])
        #expect(back.resources.values.reduce(back.kmlData, +).range(of: secretBytes) == nil)

        // The KMZ converted again (its doc.kml names the same paths): nothing comes from the disk.
        let again = folder.appendingPathComponent("again.kmz")
        let r2 = runCommand(["kml", "convert", out.path, again.path])
        #expect(r2.status == 0 && r2.stderr.components(separatedBy: "warning: icon ").count == 5, "\(r2.stderr)")
        #expect(try KMLDataset(url: again).resources == back.resources)
    }

    /// `--icon` naming a device says what it is, not that it does not exist; nothing is written (item 9).
    @Test func anIconThatIsNotAFileSaysWhatItIs() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.kmz").path
        let r = runCommand(["kml", "create", "-", "-o", out, "--icon", "/dev/zero"], stdin: "lon,lat\n1,2\n")
        #expect(r.status == 1)
        #expect(r.stderr == "meridian kml: the icon file /dev/zero cannot be packed: it is not a regular file (a character device)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
