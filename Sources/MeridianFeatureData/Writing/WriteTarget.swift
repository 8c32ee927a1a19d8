import CGDAL
import Foundation
import MeridianCore

/// Where a writer's dataset lives until it is committed: for a file, a scratch folder beside the target, renamed into
/// place at the end (the target is untouched until then and nothing is left when writing fails); for PostGIS, one
/// transaction, committed at the end or rolled back.
enum WriteTarget {
    /// A file format: the target and the scratch folder the dataset is written in under the target's name.
    case file(target: URL, scratch: URL)
    /// A database: the connection.
    case database(PostGISConnection)

    /// The path GDAL creates the dataset at; for a database, the string GDAL opens (empty for one libpq cannot read,
    /// which the writer refuses before opening).
    var gdalName: String {
        switch self {
        case .file(let target, let scratch): scratch.appendingPathComponent(target.lastPathComponent).path
        case .database(let connection): connection.openString ?? ""
        }
    }

    /// Prepares a file target: refuses an existing target when overwriting is not allowed and a folder that cannot be
    /// written, then creates the scratch folder.
    static func file(_ url: URL, format: FeatureDataFormat, overwrite: Bool) throws(FeatureDataError) -> WriteTarget {
        let fail = { (reason: String) in FeatureDataError.cannotWrite(destination: url.path, table: nil, reason: reason) }
        if !overwrite, FileManager.default.fileExists(atPath: url.path) {
            throw fail("it already exists (overwriting was not requested)")
        }
        if format == .shapefile, AtomicFile.isSpecialFile(url.path) {
            throw fail("a shapefile is several files (.shp, .shx, .dbf, .prj, .cpg); name a file in a folder")
        }
        if !AtomicFile.isSpecialFile(url.path) {
            do throws(FileWriteError) { try AtomicFile.checkWritable(url) } catch { throw fail(error.description) }
        }
        let folder = AtomicFile.isSpecialFile(url.path)
            ? FileManager.default.temporaryDirectory : url.deletingLastPathComponent()
        let scratch = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).meridian")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
        } catch {
            throw fail(AtomicFile.reason(for: error))
        }
        return .file(target: url, scratch: scratch)
    }

    /// Moves the finished files into place: a GeoPackage or FlatGeobuf by one atomic rename (through `AtomicFile`,
    /// which also handles links and `/dev/stdout`); a shapefile's sidecars first and its `.shp` last, removing any
    /// stale index or sidecar of an older shapefile of that name.
    func commit(format: FeatureDataFormat) throws {
        guard case .file(let target, let scratch) = self else { return }
        let fm = FileManager.default
        let written = scratch.appendingPathComponent(target.lastPathComponent)
        guard format == .shapefile else {
            try AtomicFile.write(to: target) { temporary in try fm.moveItem(at: written, to: temporary) }
            return
        }
        let files = try fm.contentsOfDirectory(atPath: scratch.path)
        let folder = target.deletingLastPathComponent()
        let base = target.deletingPathExtension().lastPathComponent
        for ext in ["prj", "cpg", "qix", "sbn", "sbx", "PRJ", "CPG", "QIX", "SBN", "SBX"]
        where !files.contains("\(base).\(ext)") {
            try? fm.removeItem(at: folder.appendingPathComponent("\(base).\(ext)"))
        }
        let shp = target.lastPathComponent
        for file in files.filter({ $0 != shp }) + files.filter({ $0 == shp }) {
            if rename(scratch.appendingPathComponent(file).path, folder.appendingPathComponent(file).path) != 0 {
                throw FileWriteError.failed(path: folder.appendingPathComponent(file).path,
                                            reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Removes the scratch folder and whatever is in it.
    func discard() {
        if case .file(_, let scratch) = self { try? FileManager.default.removeItem(at: scratch) }
    }
}
