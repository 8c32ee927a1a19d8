import CGDAL
import Foundation

/// GDAL's process-wide set-up, done once before the first GDAL call of this module, and the capture of GDAL's
/// messages.
///
/// GDAL never prints: a silent global error handler is installed, and each operation pushes a thread-local handler
/// that collects the messages into the error it throws. GDAL is bounded to what Meridian asks of it: no network for
/// PROJ, no SQLite functions that reach outside the file (`OGR_SQLITE_ALLOW_EXTERNAL_ACCESS=NO`) and no SpatiaLite
/// (`SPATIALITE_LOAD=NO`), no debug output, shapefiles held to their 2 GB limit, a `.shp` without its `.shx` refused
/// rather than repaired, and every open names the one driver it allows (`GDALDataset(opening:update:)`).
enum GDALRuntime {
    /// The configuration options set before drivers are registered. Set with `CPLSetConfigOption`, they override any
    /// environment variable of the same name.
    static let configuration: [(String, String)] = [
        ("CPL_DEBUG", "OFF"),
        ("OGR_SQLITE_ALLOW_EXTERNAL_ACCESS", "NO"),
        ("SHAPE_2GB_LIMIT", "YES"),
        ("SHAPE_RESTORE_SHX", "NO"),
        // Meridian's polygons say which ring is a shell and which a hole: GDAL orients each ring by that (linear)
        // rather than shapelib's rewind, which tests every ring against every other (quadratic: hours for a union
        // of 100,000 parts).
        ("SHAPE_REWIND_ON_WRITE", "NO"),
        ("GDAL_HTTP_MAX_RETRY", "0"),
        ("CPL_VSIL_CURL_ALLOWED_EXTENSIONS", ".meridian-never"),
        ("PG_LIST_ALL_TABLES", "NO"),
        // GeoPackages need none of SpatiaLite's SQL functions (GDAL's GeoPackage driver has its own, and plain
        // SQLite files are refused), and loading it into each connection opens PROJ's database and registers
        // hundreds of functions — some of which read and write files — for every file opened: ~4 ms a command.
        ("SPATIALITE_LOAD", "NO"),
    ]

    private static let ready: Void = {
        for (key, value) in configuration { gdal.CPLSetConfigOption(key, value) }
        _ = gdal.CPLSetErrorHandler(silentHandler)
        gdal.OSRSetPROJEnableNetwork(0)
        gdal.GDALAllRegister()
    }()

    /// Makes sure libgdal is loaded (``GDALLibrary``) and set up; cheap after the first call. Every entry point of
    /// this module that leads to GDAL calls it first, so that a missing or unusable libgdal is an error of that
    /// operation (and only of operations on GDAL formats).
    /// - Throws: `GDALUnavailable`, one line naming the library and saying why (`dlerror`'s text).
    static func prepare() throws(GDALUnavailable) {
        if case .failure(let failure) = GDALLibrary.loaded { throw failure }
        _ = ready
    }

    /// The global handler: drops every message (the thread-local handlers of `capturing` collect them).
    private static let silentHandler: CPLErrorHandler = { _, _, _ in }

    /// Runs `body` with GDAL's messages on this thread collected into `GDALMessages` instead of printed. Only called
    /// after `prepare()` has succeeded (by an entry point of the module).
    /// - Parameter body: The GDAL calls; it reads what GDAL said from the messages it is given.
    static func capturing<T, E: Error>(_ body: (GDALMessages) throws(E) -> T) throws(E) -> T {
        _ = ready
        let messages = GDALMessages()
        gdal.CPLErrorReset()
        gdal.CPLPushErrorHandlerEx(collectingHandler, Unmanaged.passUnretained(messages).toOpaque())
        defer {
            gdal.CPLPopErrorHandler()
            withExtendedLifetime(messages) {}
        }
        return try body(messages)
    }

    private static let collectingHandler: CPLErrorHandler = { level, _, message in
        guard let userData = gdal.CPLGetErrorHandlerUserData() else { return }
        let messages = Unmanaged<GDALMessages>.fromOpaque(userData).takeUnretainedValue()
        let text = message.map { String(cString: $0) } ?? "unknown GDAL error"
        if level.rawValue >= CE_Failure.rawValue {
            messages.failures.append(text)
        } else if level == CE_Warning {
            messages.warnings.append(text)
        }
    }
}

/// What GDAL said during one operation: its failures and warnings, at most 16 of each (the first ones, which name
/// the cause; later ones are usually consequences).
final class GDALMessages {
    /// Messages of level `CE_Failure` or worse.
    var failures: [String] = [] { didSet { if failures.count > 16 { failures.removeLast() } } }
    /// Messages of level `CE_Warning`.
    var warnings: [String] = [] { didSet { if warnings.count > 16 { warnings.removeLast() } } }

    /// The first failure, else the first warning, else `fallback`: the text a thrown error carries.
    func reason(_ fallback: String) -> String { failures.first ?? warnings.first ?? fallback }

    /// Forgets what was said (between features of one long operation).
    func clear() {
        failures.removeAll(keepingCapacity: true)
        warnings.removeAll(keepingCapacity: true)
    }
}
