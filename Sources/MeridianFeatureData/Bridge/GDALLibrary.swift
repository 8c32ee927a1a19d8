import CGDAL
import MeridianEngine

/// libgdal, opened on the first GDAL use of the process rather than linked: a program that never reads or writes a
/// GDAL format (`meridian --version`, a CSV buffer) never maps it and the ~110 libraries it depends on, which cost
/// about 50 ms at every start of a linked program.
///
/// CGDAL's `meridian_gdal_load` opens the library (`MERIDIAN_GDAL_LIBRARY` if set, else the soname of the headers'
/// GDAL, `libgdal.so`, then other GDAL 3 sonames) and resolves every function Meridian calls into one table, all at
/// once; the functions are then called through ``gdal``.
enum GDALLibrary {
    /// The function table, or why libgdal could not be loaded: computed once, on first access (a lazily initialised
    /// static, which Swift makes thread-safe).
    static let loaded: Result<MeridianGDALFunctions, GDALUnavailable> = {
        // Every PROJ context libgdal makes reads files through Meridian's PROJ file policy, like Meridian's own: a
        // spatial reference in a data file (a .prj, a GeoPackage's gpkg_spatial_ref_sys) naming /etc/passwd or a FIFO
        // is parsed by GDAL before Meridian sees it.
        meridian_gdal_set_proj_context_hook { context in PROJFilePolicy.install(onForeignContext: context) }
        var message = [CChar](repeating: 0, count: 1024)
        guard let table = meridian_gdal_load(&message, message.count) else {
            let reason = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
                                as: UTF8.self)
            return .failure(GDALUnavailable(reason: reason))
        }
        return .success(table.pointee)
    }()
}

/// libgdal could not be loaded, or lacks a function Meridian calls.
struct GDALUnavailable: Error, Sendable, CustomStringConvertible {
    /// `dlerror`'s text: the library's name and why it could not be opened, or the function it lacks.
    let reason: String

    /// One line: "GDAL is not available (…)", for the `reason` of a `FeatureDataError`.
    var description: String { "GDAL is not available (\(reason))" }
}

/// GDAL's functions, called as `gdal.OGR_F_Create(…)`: loads libgdal on first access.
///
/// Every entry point of this module that leads to GDAL first calls `GDALRuntime.prepare()`, which throws when the
/// library cannot be loaded; reaching this table after such a failure is a programming error and stops the process.
let gdal: MeridianGDALFunctions = {
    switch GDALLibrary.loaded {
    case .success(let table): return table
    case .failure(let failure): preconditionFailure("GDAL used without GDALRuntime.prepare(): \(failure)")
    }
}()
