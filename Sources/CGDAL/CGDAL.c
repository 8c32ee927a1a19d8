// The loader of CGDAL.h: libgdal opened with dlopen, its functions resolved with dlsym into one table; libpq's
// connection-string parser resolved the same way from the libpq libgdal brought.
#define _GNU_SOURCE  // RTLD_DEEPBIND, RTLD_DEFAULT
#include "CGDAL.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// The table filled by `meridian_gdal_load`; read-only once it has been returned.
static MeridianGDALFunctions table;

/// The flags libgdal is opened with: lazily bound (as a linked libgdal was), its symbols kept local, and, on glibc,
/// RTLD_DEEPBIND: libgdal and the ~110 libraries it brings look their symbols up in their own group first. Without
/// it, each of their ~60,000 symbol relocations is first looked for in all the ~65 libraries `meridian` links (the
/// global scope comes first for a dlopened library), which costs more than the linked build did: +57 M instructions
/// (~15 ms) for a 10k-point GeoPackage buffer, against -36 M with it (callgrind; a linked libgdal came fourth in the
/// global scope). Not taken when a library is preloaded (LD_PRELOAD, /etc/ld.so.preload: an allocator such as
/// jemalloc would then serve the process but not libgdal's group) or a sanitizer runtime is present (they refuse it).
static int meridian_gdal_open_flags(void) {
    int flags = RTLD_LAZY | RTLD_LOCAL;
#if defined(RTLD_DEEPBIND)
    const char *preload = getenv("LD_PRELOAD");
    int preloaded = (preload && *preload) || access("/etc/ld.so.preload", F_OK) == 0;
    int sanitized = dlsym(RTLD_DEFAULT, "__sanitizer_print_stack_trace") != NULL;
    if (!preloaded && !sanitized) flags |= RTLD_DEEPBIND;
#endif
    return flags;
}

/// Opens `name` and fills `table` from it.
/// - Returns: 1 when every function was found; else 0, with dlerror's text in `message` and the library closed.
static int meridian_gdal_try(const char *name, char *message, size_t capacity, int *found) {
    void *library = dlopen(name, meridian_gdal_open_flags());
    if (!library) {
        const char *reason = dlerror();
        snprintf(message, capacity, "%s", reason ? reason : name);
        *found = 0;
        return 0;
    }
    *found = 1;
#define MERIDIAN_GDAL_RESOLVE(name)                                                                                  \
    {                                                                                                                \
        void *symbol = dlsym(library, #name);                                                                        \
        if (!symbol) {                                                                                               \
            const char *reason = dlerror();                                                                          \
            snprintf(message, capacity, "%s", reason ? reason : #name);                                              \
            dlclose(library);                                                                                        \
            return 0;                                                                                                \
        }                                                                                                            \
        table.name = (__typeof__(table.name))symbol;                                                                 \
    }
    MERIDIAN_GDAL_FUNCTIONS(MERIDIAN_GDAL_RESOLVE)
#undef MERIDIAN_GDAL_RESOLVE
    return 1;
}

const MeridianGDALFunctions *meridian_gdal_load(char *message, size_t capacity) {
    const char *chosen = getenv("MERIDIAN_GDAL_LIBRARY");
    if (chosen && *chosen) {
        int found;
        return meridian_gdal_try(chosen, message, capacity, &found) ? &table : NULL;
    }
    // The soname of the headers' GDAL first (GDAL 3.x is libgdal.so.(26 + minor) since 3.0), then the development
    // link, then the other GDAL 3 sonames, newest first.
    char candidates[16][40];
    int count = 0;
#if defined(__APPLE__)
    snprintf(candidates[count++], sizeof candidates[0], "libgdal.%d.dylib", 26 + GDAL_VERSION_MINOR);
    snprintf(candidates[count++], sizeof candidates[0], "libgdal.dylib");
#else
#if GDAL_VERSION_MAJOR == 3
    snprintf(candidates[count++], sizeof candidates[0], "libgdal.so.%d", 26 + GDAL_VERSION_MINOR);
#endif
    snprintf(candidates[count++], sizeof candidates[0], "libgdal.so");
    for (int soname = 37; soname >= 26 && count < 16; soname--) {
        if (GDAL_VERSION_MAJOR == 3 && soname == 26 + GDAL_VERSION_MINOR) continue;
        snprintf(candidates[count++], sizeof candidates[0], "libgdal.so.%d", soname);
    }
#endif
    // The message kept: the first library found that lacked a function, else why the first name could not be opened.
    char first[512] = "";
    int firstFound = 0;
    for (int i = 0; i < count; i++) {
        char reason[512];
        int found;
        if (meridian_gdal_try(candidates[i], reason, sizeof reason, &found)) return &table;
        if (i == 0 || (found && !firstFound)) {
            snprintf(first, sizeof first, "%s", reason);
            firstFound = found;
        }
    }
    snprintf(message, capacity, "%s (tried %s to %s)", first, candidates[0], candidates[count - 1]);
    return NULL;
}

/// The table filled by `meridian_pq_load`; read-only once it has been returned.
static MeridianPQFunctions pqTable;

const MeridianPQFunctions *meridian_pq_load(char *message, size_t capacity) {
#if defined(__APPLE__)
    const char *names[] = {"libpq.5.dylib", "libpq.dylib"};
#else
    const char *names[] = {"libpq.so.5", "libpq.so"};
#endif
    void *library = NULL;
    // GDAL's own libpq first (already mapped: RTLD_NOLOAD finds it by soname and loads nothing), else one by name.
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
        library = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
        library = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
    }
    if (!library) {
        const char *reason = dlerror();
        snprintf(message, capacity, "%s", reason ? reason : names[0]);
        return NULL;
    }
#define MERIDIAN_PQ_RESOLVE(name)                                                                                    \
    {                                                                                                                \
        void *symbol = dlsym(library, #name);                                                                        \
        if (!symbol) {                                                                                               \
            const char *reason = dlerror();                                                                          \
            snprintf(message, capacity, "%s", reason ? reason : #name);                                              \
            return NULL;                                                                                             \
        }                                                                                                            \
        pqTable.name = (__typeof__(pqTable.name))symbol;                                                             \
    }
    MERIDIAN_PQ_RESOLVE(PQconninfoParse)
    MERIDIAN_PQ_RESOLVE(PQconninfoFree)
    MERIDIAN_PQ_RESOLVE(PQfreemem)
#undef MERIDIAN_PQ_RESOLVE
    return &pqTable;
}
