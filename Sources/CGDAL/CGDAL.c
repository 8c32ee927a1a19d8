// The loader of CGDAL.h: libgdal opened with dlopen, its functions resolved with dlsym into one table; libpq's
// connection-string parser resolved the same way from the libpq libgdal brought.
#define _GNU_SOURCE  // RTLD_DEEPBIND, RTLD_DEFAULT
#include "CGDAL.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <link.h>
#include <sys/mman.h>
#endif

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

// MARK: - PROJ contexts made by libgdal

/// PROJ's own `proj_context_create`, as libgdal would have called it.
static void *(*meridian_proj_context_create_original)(void);
/// Called with each PROJ context libgdal makes (set by `meridian_gdal_set_proj_context_hook`).
static void (*meridian_proj_context_hook)(void *context);

void meridian_gdal_set_proj_context_hook(void (*hook)(void *context)) { meridian_proj_context_hook = hook; }

/// What libgdal calls instead of `proj_context_create`: PROJ's, then the hook on the new context.
static void *meridian_proj_context_create(void) {
    void *context = meridian_proj_context_create_original();
    if (context && meridian_proj_context_hook) meridian_proj_context_hook(context);
    return context;
}

#if defined(__linux__)
/// The loaded object whose dynamic section is `dynamic`: its load address and program headers (dl_iterate_phdr).
struct meridian_object_search {
    const ElfW(Dyn) *dynamic;
    ElfW(Addr) base;
    const ElfW(Phdr) *headers;
    int count;
};

static int meridian_find_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct meridian_object_search *search = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *h = &info->dlpi_phdr[i];
        if (h->p_type == PT_DYNAMIC && (const ElfW(Dyn) *)(info->dlpi_addr + h->p_vaddr) == search->dynamic) {
            search->base = info->dlpi_addr;
            search->headers = info->dlpi_phdr;
            search->count = info->dlpi_phnum;
            return 1;
        }
    }
    return 0;
}

/// Points libgdal's import of `proj_context_create` (its GOT slots, JUMP_SLOT and GLOB_DAT relocations) at
/// `meridian_proj_context_create`: the ELF way of giving one library its own version of a function, without
/// touching anyone else's calls. The slots of a BIND_NOW library sit in its RELRO segment, made writable for the write
/// and read-only again after it.
/// - Returns: The number of slots changed (0: libgdal does not import the function); -1 when the library's
///   dynamic section or a page's protection could not be handled (`message` says which).
static int meridian_redirect_proj_context_create(void *library, char *message, size_t capacity) {
    struct link_map *map = NULL;
    if (dlinfo(library, RTLD_DI_LINKMAP, &map) != 0 || !map) {
        snprintf(message, capacity, "cannot inspect libgdal: %s", dlerror());
        return -1;
    }
    struct meridian_object_search object = {map->l_ld, 0, NULL, 0};
    if (!dl_iterate_phdr(meridian_find_object, &object)) {
        snprintf(message, capacity, "cannot find libgdal's program headers");
        return -1;
    }
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    const ElfW(Rela) *tables[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    // glibc relocates the address entries of a writable dynamic section; a read-only one keeps link-time values.
#define MERIDIAN_ADDRESS(value) ((value) < object.base ? (value) + object.base : (value))
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)MERIDIAN_ADDRESS(d->d_un.d_ptr); break;
        case DT_STRTAB: strings = (const char *)MERIDIAN_ADDRESS(d->d_un.d_ptr); break;
        case DT_JMPREL: tables[0] = (const ElfW(Rela) *)MERIDIAN_ADDRESS(d->d_un.d_ptr); break;
        case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
        case DT_RELA: tables[1] = (const ElfW(Rela) *)MERIDIAN_ADDRESS(d->d_un.d_ptr); break;
        case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
        default: break;
        }
    }
#undef MERIDIAN_ADDRESS
    if (!symbols || !strings) {
        snprintf(message, capacity, "libgdal has no dynamic symbol table");
        return -1;
    }
    ElfW(Addr) relroStart = 0, relroEnd = 0;
    for (int i = 0; i < object.count; i++) {
        if (object.headers[i].p_type == PT_GNU_RELRO) {
            relroStart = object.base + object.headers[i].p_vaddr;
            relroEnd = relroStart + object.headers[i].p_memsz;
        }
    }
    const long page = sysconf(_SC_PAGESIZE);
    int changed = 0;
    for (int t = 0; t < 2; t++) {
        if (!tables[t]) continue;
        for (size_t i = 0; i < sizes[t] / sizeof(ElfW(Rela)); i++) {
            const ElfW(Rela) *r = &tables[t][i];
#if defined(__x86_64__)
            const unsigned long type = ELF64_R_TYPE(r->r_info), symbol = ELF64_R_SYM(r->r_info);
            if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
#elif defined(__aarch64__)
            const unsigned long type = ELF64_R_TYPE(r->r_info), symbol = ELF64_R_SYM(r->r_info);
            if (type != R_AARCH64_JUMP_SLOT && type != R_AARCH64_GLOB_DAT) continue;
#else
#error "the redirection of libgdal's proj_context_create knows the relocations of x86_64 and aarch64 only"
#endif
            if (symbol == 0 || strcmp(strings + symbols[symbol].st_name, "proj_context_create") != 0) continue;
            void **slot = (void **)(object.base + r->r_offset);
            const ElfW(Addr) first = (ElfW(Addr))slot & ~(ElfW(Addr))(page - 1);
            const int inRelro = (ElfW(Addr))slot >= relroStart && (ElfW(Addr))slot < relroEnd;
            if (inRelro && mprotect((void *)first, (size_t)page, PROT_READ | PROT_WRITE) != 0) {
                snprintf(message, capacity, "cannot make libgdal's import of proj_context_create writable");
                return -1;
            }
            *slot = (void *)meridian_proj_context_create;
            if (inRelro) mprotect((void *)first, (size_t)page, PROT_READ);
            changed++;
        }
    }
    return changed;
}
#endif

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
#if defined(__linux__)
    // Every PROJ context libgdal makes goes through the hook (Meridian's PROJ file policy): a library whose import
    // cannot be redirected is not used, since GDAL's PROJ would then open any grid a data file names.
    meridian_proj_context_create_original = (void *(*)(void))dlsym(library, "proj_context_create");
    const int redirected = meridian_proj_context_create_original
        ? meridian_redirect_proj_context_create(library, message, capacity) : -1;
    if (redirected <= 0) {
        if (redirected == 0 || !meridian_proj_context_create_original) {
            snprintf(message, capacity, "%s does not call PROJ's proj_context_create through its imports, so the "
                     "files its PROJ reads cannot be limited", name);
        }
        dlclose(library);
        return 0;
    }
#endif
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
