// GDAL/OGR's C API (GDAL 3.6+), loaded at run time rather than linked: the headers give the types, enums and
// constants (datasets and drivers: gdal.h; vector layers, features and geometries: ogr_api.h; spatial reference
// systems: ogr_srs_api.h; configuration and error handling: cpl_conv.h, cpl_error.h, cpl_string.h; the virtual file
// system: cpl_vsi.h; the Arrow C stream interface of layers: ogr_recordbatch.h), and the functions Meridian calls are
// reached through one table of function pointers (`MeridianGDALFunctions`) that `meridian_gdal_load` fills from
// libgdal with dlopen/dlsym on first use. A program that never reads or writes a GDAL format never maps libgdal and
// the ~110 libraries it pulls in (about 50 ms at every start). libpq's connection-string parser is reached the same
// way, from the libpq libgdal loaded (`meridian_pq_load`).
//
// The headers are found without a -I flag (which SwiftPM would only take from pkg-config, together with `-lgdal`):
// Debian installs them in /usr/include/gdal (package libgdal-dev), found here as <gdal/…>, and their own includes of
// each other are quoted, so they find one another in that folder; other layouts (Homebrew's gdal) put them directly
// on the include path.
#ifndef MERIDIAN_CGDAL_H
#define MERIDIAN_CGDAL_H

#include <stddef.h>

#if __has_include(<gdal/gdal.h>)
#include <gdal/gdal.h>
#include <gdal/ogr_api.h>
#include <gdal/ogr_srs_api.h>
#include <gdal/cpl_conv.h>
#include <gdal/cpl_error.h>
#include <gdal/cpl_string.h>
#include <gdal/cpl_vsi.h>
#include <gdal/ogr_recordbatch.h>
#elif __has_include(<gdal.h>)
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <ogr_recordbatch.h>
#else
#error "GDAL's headers are missing: apt-get install libgdal-dev (scripts/install-deps.sh does), or brew install gdal"
#endif

// libpq's client header (PostgreSQL's libpq-dev; Homebrew's libpq puts it on the include path): the connection-option
// type its parser returns. libpq itself is the one libgdal loaded for its PostGIS driver (see `meridian_pq_load`).
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#elif __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#error "libpq's headers are missing: apt-get install libpq-dev (scripts/install-deps.sh does), or brew install libpq"
#endif

// Every GDAL function Meridian calls, by name; X(name) is applied to each. Adding a call to a new GDAL function in
// Swift means adding its name here (the Swift call `gdal.NAME(...)` does not compile until then). The types come from
// GDAL's own declarations above, never written here.
#define MERIDIAN_GDAL_FUNCTIONS(X) \
    X(CPLErrorReset) \
    X(CPLGetErrorHandlerUserData) \
    X(CPLGetThreadLocalConfigOption) \
    X(CPLPopErrorHandler) \
    X(CPLPushErrorHandlerEx) \
    X(CPLSetConfigOption) \
    X(CPLSetErrorHandler) \
    X(CPLSetThreadLocalConfigOption) \
    X(GDALAllRegister) \
    X(GDALClose) \
    X(GDALCreate) \
    X(GDALDatasetCommitTransaction) \
    X(GDALDatasetCreateLayer) \
    X(GDALDatasetDeleteLayer) \
    X(GDALDatasetExecuteSQL) \
    X(GDALDatasetGetLayer) \
    X(GDALDatasetGetLayerByName) \
    X(GDALDatasetGetLayerCount) \
    X(GDALDatasetReleaseResultSet) \
    X(GDALDatasetRollbackTransaction) \
    X(GDALDatasetStartTransaction) \
    X(GDALGetDriverByName) \
    X(GDALOpenEx) \
    X(OGR_FD_GetFieldCount) \
    X(OGR_FD_GetFieldDefn) \
    X(OGR_F_Create) \
    X(OGR_F_Destroy) \
    X(OGR_F_GetFID) \
    X(OGR_F_GetFieldAsBinary) \
    X(OGR_F_GetFieldAsDateTimeEx) \
    X(OGR_F_GetFieldAsDouble) \
    X(OGR_F_GetFieldAsDoubleList) \
    X(OGR_F_GetFieldAsInteger) \
    X(OGR_F_GetFieldAsInteger64) \
    X(OGR_F_GetFieldAsInteger64List) \
    X(OGR_F_GetFieldAsIntegerList) \
    X(OGR_F_GetFieldAsString) \
    X(OGR_F_GetFieldAsStringList) \
    X(OGR_F_GetGeometryRef) \
    X(OGR_F_IsFieldSetAndNotNull) \
    X(OGR_F_SetFieldBinary) \
    X(OGR_F_SetFieldDateTimeEx) \
    X(OGR_F_SetFieldDouble) \
    X(OGR_F_SetFieldInteger) \
    X(OGR_F_SetFieldInteger64) \
    X(OGR_F_SetFieldNull) \
    X(OGR_F_SetFieldString) \
    X(OGR_F_SetGeometryDirectly) \
    X(OGR_Fld_Create) \
    X(OGR_Fld_Destroy) \
    X(OGR_Fld_GetNameRef) \
    X(OGR_Fld_GetSubType) \
    X(OGR_Fld_GetType) \
    X(OGR_Fld_GetWidth) \
    X(OGR_Fld_SetPrecision) \
    X(OGR_Fld_SetSubType) \
    X(OGR_Fld_SetWidth) \
    X(OGR_GT_Flatten) \
    X(OGR_GT_HasZ) \
    X(OGR_GT_SetZ) \
    X(OGR_G_AddGeometryDirectly) \
    X(OGR_G_CreateFromWkbEx) \
    X(OGR_G_CreateGeometry) \
    X(OGR_G_DestroyGeometry) \
    X(OGR_G_ExportToIsoWkb) \
    X(OGR_G_GetGeometryName) \
    X(OGR_G_GetGeometryType) \
    X(OGR_G_GetLinearGeometry) \
    X(OGR_G_GetX) \
    X(OGR_G_GetY) \
    X(OGR_G_GetZ) \
    X(OGR_G_HasCurveGeometry) \
    X(OGR_G_Is3D) \
    X(OGR_G_IsEmpty) \
    X(OGR_G_IsMeasured) \
    X(OGR_G_SetMeasured) \
    X(OGR_G_SetPoint) \
    X(OGR_G_SetPoint_2D) \
    X(OGR_G_SetPoints) \
    X(OGR_G_WkbSizeEx) \
    X(OGR_L_CreateFeature) \
    X(OGR_L_CreateField) \
    X(OGR_L_GetArrowStream) \
    X(OGR_L_GetFIDColumn) \
    X(OGR_L_GetFeatureCount) \
    X(OGR_L_GetGeomType) \
    X(OGR_L_GetGeometryColumn) \
    X(OGR_L_GetLayerDefn) \
    X(OGR_L_GetName) \
    X(OGR_L_GetNextFeature) \
    X(OGR_L_GetSpatialRef) \
    X(OGR_L_ResetReading) \
    X(OGR_L_SetIgnoredFields) \
    X(OGR_L_SyncToDisk) \
    X(OGR_L_TestCapability) \
    X(OSRExportToWktEx) \
    X(OSRFindMatches) \
    X(OSRFreeSRSArray) \
    X(OSRGetAuthorityCode) \
    X(OSRGetAuthorityName) \
    X(OSRImportFromEPSG) \
    X(OSRImportFromProj4) \
    X(OSRImportFromWkt) \
    X(OSRNewSpatialReference) \
    X(OSRRelease) \
    X(OSRSetAxisMappingStrategy) \
    X(OSRSetFromUserInput) \
    X(OSRSetPROJEnableNetwork) \
    X(VSICloseDir) \
    X(VSIFree) \
    X(VSIGetNextDirEntry) \
    X(VSIOpenDir)

/// The GDAL functions Meridian calls, one field per name of `MERIDIAN_GDAL_FUNCTIONS`, each typed as a pointer to
/// GDAL's own declaration of that function; every field is set (non-null) in a table `meridian_gdal_load` returns.
typedef struct MeridianGDALFunctions {
#define MERIDIAN_GDAL_FIELD(name) __typeof__(&name) _Nonnull name;
    MERIDIAN_GDAL_FUNCTIONS(MERIDIAN_GDAL_FIELD)
#undef MERIDIAN_GDAL_FIELD
} MeridianGDALFunctions;

/// Opens libgdal and resolves every function of `MeridianGDALFunctions`. Called once per process (Swift's
/// `GDALLibrary.loaded`, a lazily initialised static, is the only caller); not for concurrent calls.
///
/// The library tried first is the one named by the environment variable `MERIDIAN_GDAL_LIBRARY` if it is set (then
/// no other); else, in order, the soname of the GDAL whose headers this was compiled with (libgdal.so.32 for GDAL
/// 3.6), `libgdal.so` (installed with the headers, libgdal-dev), and the sonames of GDAL 3.0 to 3.11 from the newest.
/// It is opened lazily bound (as a linked libgdal was), RTLD_LOCAL, and with RTLD_DEEPBIND where that is safe (see
/// `meridian_gdal_open_flags` in CGDAL.c).
/// - Parameters:
///   - message: Receives, on failure, one line naming the library and saying why (dlerror's text).
///   - capacity: The size of `message` in bytes.
/// - Returns: The table, or NULL when no library could be opened or one lacked a function.
///
/// On Linux, libgdal's import of PROJ's `proj_context_create` is redirected (its GOT slots) to a function that calls
/// PROJ's and then the hook of `meridian_gdal_set_proj_context_hook` on the new context, so that every PROJ context
/// GDAL makes (one per thread) reads files through Meridian's PROJ file policy; a library whose import cannot be
/// redirected is refused.
const MeridianGDALFunctions *_Nullable meridian_gdal_load(char *_Nonnull message, size_t capacity);

/// Sets the function called with each PROJ context (a `PJ_CONTEXT *`) libgdal creates, before libgdal uses it. Set it
/// before the first GDAL call that uses PROJ; not for concurrent calls.
/// - Parameter hook: The function, or NULL for none.
void meridian_gdal_set_proj_context_hook(void (*_Nullable hook)(void *_Nonnull context));

/// The libpq functions Meridian calls: its own parser of connection strings, so that a `PG:` string is read exactly
/// as GDAL's PostGIS driver will have libpq read it (which values are passwords, whether a connect timeout is set).
typedef struct MeridianPQFunctions {
    __typeof__(&PQconninfoParse) _Nonnull PQconninfoParse;
    __typeof__(&PQconninfoFree) _Nonnull PQconninfoFree;
    __typeof__(&PQfreemem) _Nonnull PQfreemem;
} MeridianPQFunctions;

/// Resolves `MeridianPQFunctions` from libpq: the libpq libgdal has already mapped (looked up by its soname without
/// loading anything), else one opened by its soname. Call after `meridian_gdal_load` succeeded, so that the libpq found
/// is GDAL's own; not for concurrent calls (Swift's `LibPQ.loaded`, a lazily initialised static, is the only caller).
/// - Parameters:
///   - message: Receives, on failure, one line saying why (dlerror's text).
///   - capacity: The size of `message` in bytes.
/// - Returns: The table, or NULL when no libpq could be found or one lacked a function.
const MeridianPQFunctions *_Nullable meridian_pq_load(char *_Nonnull message, size_t capacity);

#endif
