import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// What GDAL opens without a word although it cannot read it whole — a shapefile without its `.dbf`, an unreadable
/// `.prj`, a FlatGeobuf cut inside its header — and zip archives of shapefiles (in a folder, with names that climb
/// out of the archive): each is read whole or refused in one line naming the file and what is wrong.
@Suite struct SidecarAndArchiveTests {
    /// A folder with the sample shapefile `p.shp` (and `.shx`, `.dbf`, `.prj`, `.cpg`).
    static func shapefile() throws -> URL {
        let dir = TestSupport.temporaryDirectory()
        try TestSupport.write(TestSupport.sampleFeatures(count: 3), to: dir.appendingPathComponent("p.shp").path)
        return dir
    }

    /// The description of the error opening `path`'s only table ends in, or `nil`.
    static func failure(_ path: String) -> String? {
        do { _ = try FeatureDataSource(path: path).featureTable(named: nil) } catch { return error.description }
        return nil
    }

    /// Writes a zip archive with Python's zipfile: each entry's name in the archive (as given, not normalised) and
    /// the file it holds.
    static func zip(_ archive: URL, _ entries: [(name: String, file: URL)]) throws {
        let list = entries.map { "(\"\($0.name)\", \"\($0.file.path)\")" }.joined(separator: ", ")
        let script = "import zipfile, sys\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
            + "    for n, f in [\(list)]: z.writestr(zipfile.ZipInfo(n), open(f, 'rb').read())\n"
        let r = TestSupport.run("/usr/bin/python3", ["-c", script, archive.path])
        #expect(r.status == 0, "\(r.error)")
    }

    /// The sample shapefile's files as zip entries under `folder` ("" for the archive's root) named `base`.
    static func entries(of dir: URL, folder: String, base: String = "p") -> [(name: String, file: URL)] {
        ["shp", "shx", "dbf", "prj"].map { ext in
            (folder + base + "." + ext, dir.appendingPathComponent("p.\(ext)"))
        }
    }

    @Test func aShapefileWithoutItsDbfIsRefused() throws {
        let dir = try Self.shapefile()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("p.dbf"))
        let shp = dir.appendingPathComponent("p.shp").path
        #expect(Self.failure(shp) == "\(shp): cannot open: its attribute table p.dbf is missing (a shapefile needs the .shp, .shx and .dbf side by side)")
        let archive = dir.appendingPathComponent("p.zip")
        try Self.zip(archive, Self.entries(of: try Self.shapefile(), folder: "").filter { !$0.name.hasSuffix(".dbf") })
        #expect(Self.failure(archive.path) == "\(archive.path): cannot open: the zip archive's shapefile 'p.shp' has no attribute table (.dbf) beside it")
    }

    @Test func anUnreadablePrjIsSaidSo() throws {
        let dir = try Self.shapefile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shp = dir.appendingPathComponent("p.shp").path, prj = dir.appendingPathComponent("p.prj")
        try FileManager.default.removeItem(at: prj)
        try FileManager.default.createDirectory(at: prj, withIntermediateDirectories: false)
        #expect(Self.failure(shp) == "\(shp): cannot open: its spatial reference p.prj cannot be read: it is a folder")
        try FileManager.default.removeItem(at: prj)
        try FileManager.default.createSymbolicLink(atPath: prj.path, withDestinationPath: dir.appendingPathComponent("gone.prj").path)
        #expect(Self.failure(shp) == "\(shp): cannot open: its spatial reference p.prj cannot be read: No such file or directory")
        try FileManager.default.removeItem(at: prj)
        let table = try FeatureDataSource(path: shp).featureTable(named: nil)
        #expect(table.spatialReference == nil)  // no .prj at all: a table without a spatial reference
    }

    @Test(arguments: [8, 12, 100]) func aFlatGeobufCutInItsHeaderIsSaidSo(length: Int) throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = dir.appendingPathComponent("whole.fgb"), cut = dir.appendingPathComponent("cut.fgb")
        try TestSupport.write(TestSupport.sampleFeatures(count: 3), to: whole.path)
        try Data(try Data(contentsOf: whole).prefix(length)).write(to: cut)
        #expect(Self.failure(cut.path) == "\(cut.path): cannot open: its header cannot be read (the file is cut short or corrupt)")
    }

    @Test func zipEntriesOutsideTheArchiveAreRefusedByName() throws {
        let dir = try Self.shapefile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = dir.appendingPathComponent("climb.zip")
        try Self.zip(archive, Self.entries(of: dir, folder: "../"))
        #expect(FeatureDataFormat.recognize(source: archive.path) == .shapefile)
        #expect(Self.failure(archive.path) == "\(archive.path): cannot open: the zip archive's entry '../p.shp' is absolute or climbs out of the archive (..); such entries are not read")
        try Self.zip(archive, Self.entries(of: dir, folder: "") + [(name: "/etc/p.txt", file: dir.appendingPathComponent("p.prj"))])
        #expect(Self.failure(archive.path) == "\(archive.path): cannot open: the zip archive's entry '/etc/p.txt' is absolute or climbs out of the archive (..); such entries are not read")
    }

    @Test func aShapefileInAZipFolderIsRead() throws {
        let dir = try Self.shapefile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = dir.appendingPathComponent("folder.zip")
        try Self.zip(archive, Self.entries(of: dir, folder: "data/parcels/"))
        let (table, features) = try TestSupport.readAll(archive.path)
        #expect(table.tableName == "p")
        #expect(features == (try TestSupport.readAll(dir.appendingPathComponent("p.shp").path)).1)
        #expect(features.count == 3)
        // Two in one folder: layers of that folder, chosen by name.
        try Self.zip(archive, Self.entries(of: dir, folder: "data/") + Self.entries(of: dir, folder: "data/", base: "q"))
        let source = try FeatureDataSource(path: archive.path)
        #expect(source.tableNames.sorted() == ["p", "q"])
        #expect(Self.failure(archive.path) == "\(archive.path) has 2 layers: choose one with --layer (\(source.tableNames.map { "'\($0)'" }.joined(separator: ", ")))")
        // In two folders: refused, naming them.
        try Self.zip(archive, Self.entries(of: dir, folder: "a/") + Self.entries(of: dir, folder: "b/"))
        #expect(Self.failure(archive.path) == "\(archive.path): cannot open: the zip archive holds shapefiles in 2 folders ('a/p.shp', 'b/p.shp'); zip the folder to read on its own")
    }
}
