import CPROJ
import Foundation

/// What PROJ may read from the disk: regular files inside its own data directories, nothing else.
///
/// A spatial reference can name files: a grid (`+nadgrids=`, `+geoidgrids=`, WKT2's `PARAMETERFILE`, a
/// `+proj=hgridshift +grids=`) or an init file (`+init=file:id`). Such a definition often comes from a data file a user
/// opened (a shapefile's `.prj`, a GeoPackage's `gpkg_spatial_ref_sys`, a FlatGeobuf header), and left to itself PROJ
/// opens whatever path it names: `/etc/passwd`, a FIFO (blocking forever), `/dev/stdin`. Every PROJ context Meridian
/// makes reads files through this policy instead (`proj_context_set_fileapi`):
///
/// - a file is read only when its path, with `.` and `..` resolved from the text alone, lies inside one of PROJ's search directories
///   (``allowedDirectories``: PROJ's user data folder, `PROJ_DATA` or the installed `share/proj`), and only when it is
///   a regular file (checked on the opened descriptor, which is opened without blocking);
/// - a bare name (`us_noaa_conus.tif`) that none of those directories holds is not found, as on a machine without that
///   grid: PROJ's last resort of opening it from the working directory is not taken;
/// - any other path (absolute, `./`, `../`, `~/`, or a non-regular file in a data directory) is *refused*: nothing is
///   opened, and the refusal is recorded on the context so that the operation that asked fails with
///   ``EngineError/fileRefused(_:)`` instead of quietly running another operation;
/// - nothing is ever written, created, renamed or removed (PROJ's network cache is off: `proj_context_set_enable_network`).
///
/// PROJ's database (`proj.db`) is opened by SQLite through its own VFS, not through this interface; no definition can
/// name another database.
package enum PROJFilePolicy {
    /// The directories PROJ searches for its resource files, as PROJ reports them (`proj_info().searchpath`), with
    /// `.` and `..` resolved; read once.
    static let allowedDirectories: [String] = {
        guard let text = proj_info().searchpath else { return [] }
        return String(cString: text).split(separator: ":").compactMap { entry in
            let path = String(entry)
            guard path.hasPrefix("/") else { return nil }
            return lexicallyNormal(path)
        }
    }()

    /// An absolute path with empty and `.` components removed and each `..` taking away the component before it,
    /// from the text alone: no symbolic link is followed and nothing on the disk is looked at.
    /// - Parameter path: A path starting with `/`.
    static func lexicallyNormal(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// What the policy decides for a path PROJ asks to open.
    enum Decision: Equatable {
        /// Inside a data directory: open it (as a regular file only).
        case read(String)
        /// A bare name PROJ tries in the working directory as its last resort: treat as absent.
        case absent
        /// Anything else: refuse and record.
        case refuse
    }

    /// The decision for `path`, from its text alone (the file type is checked on the opened descriptor).
    /// - Parameter path: The name PROJ asks to open: a path it built from a search directory, or a name taken from
    ///   a definition.
    static func decision(for path: String) -> Decision {
        guard path.hasPrefix("/") else {
            // A name without a directory part, tried by PROJ in the working directory after the data directories.
            return path.contains("/") || path.hasPrefix("~") || path.isEmpty ? .refuse : .absent
        }
        let standard = lexicallyNormal(path)
        for directory in allowedDirectories where standard.hasPrefix(directory + "/") {
            return .read(standard)
        }
        return .refuse
    }

    /// Installs the policy's file functions on a context, with `owner` (an unretained `PROJContext`, or nil for a pooled context no one owns) told of each
    /// refusal.
    static func install(on handle: OpaquePointer, owner: UnsafeMutableRawPointer?) {
        var api = PROJ_FILE_API()
        api.version = 1
        api.open_cbk = { _, name, access, owner in
            guard let name else { return nil }
            let path = String(cString: name)
            let decision = PROJFilePolicy.decision(for: path)
            guard case .read(let standard) = decision, access == PROJ_OPEN_ACCESS_READ_ONLY else {
                if decision != .absent, let owner { PROJFilePolicy.refused(path, owner: owner) }
                return nil
            }
            // O_NONBLOCK: opening a FIFO does not wait for a writer; it is then refused as not a regular file.
            let fd = open(standard, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                if let owner { PROJFilePolicy.refused(path, owner: owner) }
                return nil
            }
            return OpaquePointer(bitPattern: Int(fd) + 1)
        }
        api.read_cbk = { _, file, buffer, size, _ in
            guard let buffer, let fd = PROJFilePolicy.descriptor(file) else { return 0 }
            var done = 0
            while done < size {
                let n = read(fd, buffer + done, size - done)
                if n > 0 { done += n } else if n < 0, errno == EINTR { continue } else { break }
            }
            return done
        }
        api.write_cbk = { _, _, _, _, _ in 0 }
        api.seek_cbk = { _, file, offset, whence, _ in
            guard let fd = PROJFilePolicy.descriptor(file) else { return 0 }
            return lseek(fd, off_t(offset), whence) >= 0 ? 1 : 0
        }
        api.tell_cbk = { _, file, _ in
            guard let fd = PROJFilePolicy.descriptor(file) else { return 0 }
            let at = lseek(fd, 0, SEEK_CUR)
            return at >= 0 ? UInt64(at) : 0
        }
        api.close_cbk = { _, file, _ in
            if let fd = PROJFilePolicy.descriptor(file) { close(fd) }
        }
        api.exists_cbk = { _, name, _ in
            guard let name, case .read(let standard) = PROJFilePolicy.decision(for: String(cString: name)) else { return 0 }
            var status = stat()
            return stat(standard, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? 1 : 0
        }
        api.mkdir_cbk = { _, _, _ in 0 }
        api.unlink_cbk = { _, _, _ in 0 }
        api.rename_cbk = { _, _, _, _ in 0 }
        proj_context_set_fileapi(handle, &api, owner)
    }

    /// Installs the policy on a PROJ context made outside this module (each one libgdal makes, see
    /// MeridianFeatureData's `GDALLibrary`): refusals there are not recorded (no operation of Meridian's asked), the
    /// files are simply not read; the spatial reference GDAL passes on is refused when Meridian makes it.
    /// - Parameter context: A `PJ_CONTEXT *` no one has used yet.
    package static func install(onForeignContext context: UnsafeMutableRawPointer) {
        install(on: OpaquePointer(context), owner: nil)
    }

    /// The descriptor a handle stands for (handles are the descriptor plus one, so that descriptor 0 is not null).
    private static func descriptor(_ file: OpaquePointer?) -> Int32? {
        guard let file else { return nil }
        return Int32(Int(bitPattern: UnsafeRawPointer(file)) - 1)
    }

    private static func refused(_ path: String, owner: UnsafeMutableRawPointer) {
        Unmanaged<PROJContext>.fromOpaque(owner).takeUnretainedValue().refusedFiles.append(path)
    }
}
