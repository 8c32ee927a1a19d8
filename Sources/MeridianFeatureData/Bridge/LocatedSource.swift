import CGDAL
import Foundation
import MeridianCore

/// A feature source located and recognised before GDAL is asked to open it: its format (by content), the name GDAL
/// opens (a path, `/vsizip/{archive}` for a zipped shapefile, a `PG:` string) and the name messages show.
struct LocatedSource {
    /// The format, recognised from the content (or the `PG:` prefix).
    let format: FeatureDataFormat
    /// What GDAL opens.
    let gdalName: String
    /// How messages name the source: the path as given, or the connection string without its password.
    let displayName: String
    /// The connection, for a PostGIS source (its `scrub` cleans GDAL's messages of the password).
    let connection: PostGISConnection?
    /// Whether the source is a zip archive of shapefiles.
    let isZipped: Bool

    /// Locates a source: a `PG:` connection string, or a regular file recognised by its first bytes (a GeoPackage, a
    /// shapefile's `.shp`, a FlatGeobuf, or a zip archive holding a shapefile).
    /// - Parameters:
    ///   - path: A file path or a `PG:` string.
    ///   - limits: Bounds on a zip archive.
    /// - Throws: `FeatureDataError.cannotOpen` saying what is missing or what the file is instead, or that GDAL
    ///   cannot be loaded.
    static func locate(_ path: String, limits: FeatureDataLimits) throws(FeatureDataError) -> LocatedSource {
        do throws(GDALUnavailable) {
            try GDALRuntime.prepare()
        } catch {
            throw .cannotOpen(source: PostGISConnection(path)?.redacted ?? path, reason: error.description)
        }
        if let connection = PostGISConnection(path) {
            guard let open = connection.openString else {
                throw .connectionFailed(source: connection.redacted, reason: connection.refusal ?? "")
            }
            return LocatedSource(format: .postGIS, gdalName: open, displayName: connection.redacted,
                                  connection: connection, isZipped: false)
        }
        let fail = { (reason: String) in FeatureDataError.cannotOpen(source: path, reason: reason) }
        let file = try fileName(path)
        let header = try readHeader(path)
        if let format = FeatureDataFormat.recognize(header: header) {
            if format == .shapefile { try checkShapefileSiblings(path) }
            return LocatedSource(format: format, gdalName: file, displayName: path, connection: nil, isZipped: false)
        }
        if header.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            let folder = try checkZippedShapefile(file, shown: path, limits: limits)
            return LocatedSource(format: .shapefile, gdalName: "/vsizip/{\(file)}" + (folder.isEmpty ? "" : "/" + folder),
                                  displayName: path, connection: nil, isZipped: true)
        }
        if FeatureDataFormat.isPlainSQLite(header: header) {
            throw fail("an SQLite database without the GeoPackage application id (not a GeoPackage)")
        }
        let names = FeatureDataFormat.allCases.compactMap { $0.declaration.recognizedName } + ["zipped Shapefile"]
        throw fail("not a " + MessageText.list(names, conjunction: "or"))
    }

    /// The name GDAL is given for a file path: the path made absolute (the current folder before a relative one), so
    /// that GDAL opens exactly the file this module reads the first bytes of. GDAL reads some names as connection
    /// syntax rather than a file — a driver prefix such as `GPKG:other.gpkg:table`, `/vsi…/` virtual file systems —
    /// which would make it open another file than the one recognised; a driver prefix cannot begin an absolute path,
    /// and one under `/vsi…` is refused.
    /// - Parameter path: A file path as a user gave it.
    /// - Throws: `FeatureDataError.cannotOpen` for a `/vsi…` path or when the current folder cannot be found.
    static func fileName(_ path: String) throws(FeatureDataError) -> String {
        let fail = { (reason: String) in FeatureDataError.cannotOpen(source: path, reason: reason) }
        var absolute = path
        if !path.hasPrefix("/") {
            guard let folder = getcwd(nil, 0) else { throw fail("the current folder cannot be found: \(String(cString: strerror(errno)))") }
            defer { free(folder) }
            let current = String(cString: folder)
            absolute = (current.hasSuffix("/") ? current : current + "/") + path
        }
        guard !absolute.hasPrefix("/vsi") else {
            throw fail("GDAL's virtual file systems (/vsi…) are not read; name a local file")
        }
        return absolute
    }

    /// The first bytes of a regular file. Anything else (a FIFO, a pipe such as `/dev/fd/63`, a device) is refused
    /// from its `stat` before it is opened: opening a FIFO waits for its writer, and reading a pipe's first bytes
    /// would take them from the command that reads it next.
    static func readHeader(_ path: String) throws(FeatureDataError) -> [UInt8] {
        var before = stat()
        if stat(path, &before) == 0, before.st_mode & S_IFMT != S_IFREG {
            throw .cannotOpen(source: path, reason: "not a regular file (GDAL reads these formats from files only)")
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            // GDAL's DRIVER:file:table and file: syntax names another file; say so when the name as given is missing.
            if errno == ENOENT, let colon = path.firstIndex(of: ":"), !path[..<colon].contains("/") {
                throw .cannotOpen(source: path, reason: "\(reason) (GDAL's connection syntax, such as GPKG:file:table, "
                                  + "is not read: name the file itself, and choose its layer separately)")
            }
            throw .cannotOpen(source: path, reason: reason)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .cannotOpen(source: path, reason: "not a regular file (GDAL reads these formats from files only)")
        }
        var header = [UInt8](repeating: 0, count: FeatureDataFormat.headerLength)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { throw .cannotOpen(source: path, reason: String(cString: strerror(errno))) }
        return Array(header.prefix(n))
    }

    /// A shapefile is found by name: the `.shp` must be called so, and its `.shx` index and `.dbf` attribute table
    /// must be beside it, readable, and its `.prj` readable when there is one. GDAL would otherwise refuse with a
    /// message about its own configuration (no `.shx`), or open it without attributes (no `.dbf`) or without a
    /// spatial reference (an unreadable `.prj`) without a word.
    private static func checkShapefileSiblings(_ path: String) throws(FeatureDataError) {
        let url = URL(fileURLWithPath: path)
        guard url.pathExtension.lowercased() == "shp" else {
            throw .cannotOpen(source: path, reason: "a shapefile's main file must be named .shp (its .shx and .dbf are found by that name)")
        }
        let base = url.deletingPathExtension().path
        let name = url.deletingPathExtension().lastPathComponent
        let sidecars = [("shx", "its index", true), ("dbf", "its attribute table", true), ("prj", "its spatial reference", false)]
        for (ext, role, required) in sidecars {
            // GDAL tries the lower-case extension, then the upper-case one.
            guard let sidecar = [base + "." + ext, base + "." + ext.uppercased()].first(where: { lstatExists($0) }) else {
                if required {
                    throw .cannotOpen(source: path, reason: "\(role) \(name).\(ext) is missing (a shapefile needs the .shp, .shx and .dbf side by side)")
                }
                continue
            }
            if let problem = unreadable(sidecar) {
                throw .cannotOpen(source: path, reason: "\(role) \(URL(fileURLWithPath: sidecar).lastPathComponent) cannot be read: \(problem)")
            }
        }
    }

    /// Whether anything (a file, a folder, a broken link) is at `path`.
    private static func lstatExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Why the file at `path` cannot be read as a regular file, or `nil` when it can.
    private static func unreadable(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return String(cString: strerror(errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "it is a folder"
        default: return "it is not a regular file"
        }
    }

    /// The entry names (at most `maximumEntries` + 1) and the total declared uncompressed size of a zip archive,
    /// from its central directory as stored (`ZipDirectory`: names that climb out of the archive included), else as
    /// GDAL's `/vsizip/` lists it (a ZIP64 archive); without inflating anything; nothing for a file that is not a zip.
    static func zipListing(_ path: String, maximumEntries: Int) -> (names: [String], bytes: UInt64) {
        if let listing = ZipDirectory.entries(path, maximumEntries: maximumEntries) { return listing }
        guard !path.contains("{"), !path.contains("}") else { return ([], 0) }
        return GDALRuntime.capturing { _ in
            guard let directory = gdal.VSIOpenDir("/vsizip/{\(path)}", -1, nil) else { return ([], 0) }
            defer { gdal.VSICloseDir(directory) }
            var names: [String] = []
            var bytes: UInt64 = 0
            while let entry = gdal.VSIGetNextDirEntry(directory), names.count <= maximumEntries {
                names.append(String(cString: entry.pointee.pszName))
                if entry.pointee.bSizeKnown != 0 { bytes += UInt64(entry.pointee.nSize) }
            }
            return (names, bytes)
        }
    }

    /// Checks a zip archive of shapefiles and returns the folder inside it that holds them ("" for its root): every
    /// entry's name stays inside the archive, every `.shp` has its `.shx` and `.dbf` beside it, and all the
    /// shapefiles are in one folder (GDAL opens that folder; `--layer` chooses among several shapefiles there).
    /// - Parameters:
    ///   - path: The archive's absolute path (what GDAL opens).
    ///   - shown: The path as given, for messages.
    private static func checkZippedShapefile(_ path: String, shown: String, limits: FeatureDataLimits)
        throws(FeatureDataError) -> String
    {
        let fail = { (reason: String) in FeatureDataError.cannotOpen(source: shown, reason: reason) }
        guard !path.contains("{"), !path.contains("}") else {
            throw fail("a zip archive whose path contains '{' or '}' cannot be named to GDAL; rename it")
        }
        let listing = zipListing(path, maximumEntries: limits.maximumZipEntries)
        guard listing.names.count <= limits.maximumZipEntries else {
            throw fail("the zip archive has more than \(limits.maximumZipEntries) entries")
        }
        if let unsafe = listing.names.first(where: ZipDirectory.isUnsafe) {
            throw fail("the zip archive's entry '\(unsafe)' is absolute or climbs out of the archive (..); such entries are not read")
        }
        let shapefiles = listing.names.filter { $0.lowercased().hasSuffix(".shp") }
        guard !shapefiles.isEmpty else {
            throw fail("a zip archive without a shapefile (.shp) in it")
        }
        guard listing.bytes <= limits.maximumZipBytes else {
            throw fail("the zip archive's entries hold \(listing.bytes) bytes uncompressed, more than the limit of \(limits.maximumZipBytes)")
        }
        let lowercased = Set(listing.names.map { $0.lowercased() })
        for shp in shapefiles {
            let base = String(shp.dropLast(4))
            for (ext, role) in [("shx", "index"), ("dbf", "attribute table")] where !lowercased.contains((base + "." + ext).lowercased()) {
                throw fail("the zip archive's shapefile '\(shp)' has no \(role) (.\(ext)) beside it")
            }
        }
        func folder(_ name: String) -> String {
            name.lastIndex(of: "/").map { String(name[..<$0]) } ?? ""
        }
        let folders = Set(shapefiles.map(folder))
        guard folders.count == 1, let only = folders.first else {
            throw fail("the zip archive holds shapefiles in \(folders.count) folders (\(FeatureDataError.list(shapefiles))); zip the folder to read on its own")
        }
        return only
    }
}

/// One open GDAL dataset: the owner of its handle, closed when the last table or cursor using it goes. Layer handles
/// belong to it and are used only while it lives; none leaves this module.
final class GDALDataset {
    /// GDAL's handle.
    let handle: UnsafeMutableRawPointer
    /// Whether `deinit` closes the handle (a writer takes it over with `release()`).
    private var owns = true
    /// The source it was opened from.
    let location: LocatedSource

    /// Opens a located source with exactly its format's driver.
    /// - Parameters:
    ///   - location: The source.
    ///   - update: Whether to open it for writing (PostGIS destinations).
    /// - Throws: `FeatureDataError.cannotOpen`, or `.connectionFailed` for a database that cannot be reached.
    init(opening location: LocatedSource, update: Bool = false) throws(FeatureDataError) {
        do throws(GDALUnavailable) {
            try GDALRuntime.prepare()
        } catch {
            throw .cannotOpen(source: location.displayName, reason: error.description)
        }
        self.location = location
        let flags = UInt32(GDAL_OF_VECTOR) | UInt32(update ? GDAL_OF_UPDATE : GDAL_OF_READONLY)
            | UInt32(GDAL_OF_VERBOSE_ERROR)
        let options = GDALDataset.openOptions(location.format, update: update)
        let opened: (UnsafeMutableRawPointer?, String) = GDALRuntime.capturing { messages in
            let handle = withCStringList([location.format.driverName]) { drivers in
                withCStringList(options) { options in
                    gdal.GDALOpenEx(location.gdalName, flags, drivers.constant, options.constant, nil)
                }
            }
            return (handle, messages.reason("GDAL could not open it as a \(location.format)"))
        }
        guard let handle = opened.0 else {
            let reason = GDALDataset.oneLine(location.connection?.scrub(opened.1) ?? opened.1)
            if location.format == .postGIS { throw .connectionFailed(source: location.displayName, reason: reason) }
            throw .cannotOpen(source: location.displayName, reason: reason)
        }
        self.handle = handle
    }

    deinit {
        guard owns else { return }
        let handle = self.handle
        GDALRuntime.capturing { _ in gdal.GDALClose(handle) }
    }

    /// Hands the handle over to the caller, who closes it.
    func release() -> UnsafeMutableRawPointer {
        owns = false
        return handle
    }

    /// Open options per driver, as the format declares them (`FeatureDataFormat.declaration`): a GeoPackage lists
    /// only the tables of its `gpkg_contents`, and a read-only one runs its SQLite connection with `trusted_schema`
    /// off (no SQL functions from views or triggers of the file); a FlatGeobuf verifies its buffers; a database lists
    /// only tables with geometry.
    private static func openOptions(_ format: FeatureDataFormat, update: Bool) -> [String] {
        let declaration = format.declaration
        return declaration.openOptions + (update ? [] : declaration.readOnlyOpenOptions)
    }

    /// The names of the dataset's layers, at most `limit` + 1 of them (one more tells the caller there are too many).
    func layerNames(limit: Int) -> [String] {
        let count = min(Int(gdal.GDALDatasetGetLayerCount(handle)), limit + 1)
        return (0..<count).compactMap { i in
            gdal.GDALDatasetGetLayer(handle, Int32(i)).flatMap { gdal.OGR_L_GetName($0) }.map { String(cString: $0) }
        }
    }

    /// The layer of exactly that name among the listed ones (a name is never handed to a driver that would look it
    /// up with SQL).
    func layer(named name: String, among names: [String]) -> OGRLayerH? {
        guard let index = names.firstIndex(of: name) else { return nil }
        return gdal.GDALDatasetGetLayer(handle, Int32(index))
    }

    /// A message of several lines (libpq's are) as one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
