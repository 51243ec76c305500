/* libarchive, loaded when it is first needed.
 *
 * Linked the usual way, libarchive.so.13 and the libraries it depends on (libxml2, ICU's
 * libicuuc and its 30 MB of data, nettle, liblzma, liblz4, libbz2, libacl) are mapped and
 * relocated at every start of `deck`: about 3 ms of each command, though only archive,
 * export and import read or write archives. Here every libarchive function the Archive
 * module calls is defined under its own name and prototype (<archive.h> checks both) as a
 * trampoline into the library, which one dlopen loads on the first archive_*_new call.
 *
 * The trampolines are hidden: the executable exports its symbols, and libarchive's calls to
 * its own functions must not land here. Only the four constructors can fail (returning NULL,
 * with the reason in carchive_load_failure()); every other function takes an object that one
 * of them made, so the library is loaded by then. They still check, and return libarchive's
 * ARCHIVE_FATAL, NULL or 0 rather than call through a missing pointer. */
#include "CArchive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* X(return type, name, parameters, arguments, value when libarchive is missing);
 * V(name, parameters, arguments) for the functions that return nothing. */
#define CARCHIVE_FUNCTIONS(X, V) \
    X(struct archive *, archive_read_new, (void), (), NULL) \
    X(struct archive *, archive_write_new, (void), (), NULL) \
    X(struct archive *, archive_write_disk_new, (void), (), NULL) \
    X(struct archive_entry *, archive_entry_new, (void), (), NULL) \
    X(int, archive_errno, (struct archive *a), (a), 0) \
    X(const char *, archive_error_string, (struct archive *a), (a), NULL) \
    X(la_int64_t, archive_filter_bytes, (struct archive *a, int n), (a, n), 0) \
    X(int, archive_read_support_filter_bzip2, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_filter_compress, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_filter_gzip, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_filter_lz4, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_filter_lzma, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_filter_xz, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_filter_zstd, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_format_7zip, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_format_cpio, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_format_tar, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_support_format_zip, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_read_set_format_option, \
      (struct archive *a, const char *m, const char *o, const char *v), (a, m, o, v), ARCHIVE_FATAL) \
    X(int, archive_read_open_fd, (struct archive *a, int fd, size_t block), (a, fd, block), ARCHIVE_FATAL) \
    X(int, archive_read_open_filename, (struct archive *a, const char *name, size_t block), \
      (a, name, block), ARCHIVE_FATAL) \
    X(int, archive_read_open_memory, (struct archive *a, const void *buffer, size_t size), \
      (a, buffer, size), ARCHIVE_FATAL) \
    X(int, archive_read_next_header, (struct archive *a, struct archive_entry **entry), (a, entry), \
      ARCHIVE_FATAL) \
    X(int, archive_read_data_block, \
      (struct archive *a, const void **buffer, size_t *size, la_int64_t *offset), \
      (a, buffer, size, offset), ARCHIVE_FATAL) \
    X(int, archive_read_free, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_add_filter_gzip, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_add_filter_xz, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_add_filter_zstd, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_set_format_pax_restricted, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_set_format_zip, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_zip_set_compression_deflate, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_zip_set_compression_store, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_set_format_option, \
      (struct archive *a, const char *m, const char *o, const char *v), (a, m, o, v), ARCHIVE_FATAL) \
    X(int, archive_write_set_filter_option, \
      (struct archive *a, const char *m, const char *o, const char *v), (a, m, o, v), ARCHIVE_FATAL) \
    X(int, archive_write_set_bytes_per_block, (struct archive *a, int bytes), (a, bytes), ARCHIVE_FATAL) \
    X(int, archive_write_set_bytes_in_last_block, (struct archive *a, int bytes), (a, bytes), ARCHIVE_FATAL) \
    X(int, archive_write_open_fd, (struct archive *a, int fd), (a, fd), ARCHIVE_FATAL) \
    X(int, archive_write_header, (struct archive *a, struct archive_entry *entry), (a, entry), ARCHIVE_FATAL) \
    X(la_ssize_t, archive_write_data, (struct archive *a, const void *buffer, size_t size), \
      (a, buffer, size), -1) \
    X(la_ssize_t, archive_write_data_block, \
      (struct archive *a, const void *buffer, size_t size, la_int64_t offset), (a, buffer, size, offset), -1) \
    X(int, archive_write_finish_entry, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_disk_set_options, (struct archive *a, int flags), (a, flags), ARCHIVE_FATAL) \
    X(int, archive_write_fail, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_close, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(int, archive_write_free, (struct archive *a), (a), ARCHIVE_FATAL) \
    X(struct archive_entry *, archive_entry_clear, (struct archive_entry *e), (e), NULL) \
    V(archive_entry_free, (struct archive_entry *e), (e)) \
    X(__LA_MODE_T, archive_entry_filetype, (struct archive_entry *e), (e), 0) \
    X(__LA_MODE_T, archive_entry_perm, (struct archive_entry *e), (e), 0) \
    X(const char *, archive_entry_pathname, (struct archive_entry *e), (e), NULL) \
    X(const char *, archive_entry_pathname_utf8, (struct archive_entry *e), (e), NULL) \
    X(const char *, archive_entry_hardlink, (struct archive_entry *e), (e), NULL) \
    X(const char *, archive_entry_hardlink_utf8, (struct archive_entry *e), (e), NULL) \
    X(const char *, archive_entry_symlink, (struct archive_entry *e), (e), NULL) \
    X(const char *, archive_entry_symlink_utf8, (struct archive_entry *e), (e), NULL) \
    X(time_t, archive_entry_mtime, (struct archive_entry *e), (e), 0) \
    X(int, archive_entry_mtime_is_set, (struct archive_entry *e), (e), 0) \
    X(la_int64_t, archive_entry_size, (struct archive_entry *e), (e), 0) \
    X(int, archive_entry_size_is_set, (struct archive_entry *e), (e), 0) \
    V(archive_entry_set_filetype, (struct archive_entry *e, unsigned int type), (e, type)) \
    V(archive_entry_set_perm, (struct archive_entry *e, __LA_MODE_T perm), (e, perm)) \
    V(archive_entry_set_uid, (struct archive_entry *e, la_int64_t uid), (e, uid)) \
    V(archive_entry_set_gid, (struct archive_entry *e, la_int64_t gid), (e, gid)) \
    V(archive_entry_set_size, (struct archive_entry *e, la_int64_t size), (e, size)) \
    V(archive_entry_set_mtime, (struct archive_entry *e, time_t seconds, long nanoseconds), \
      (e, seconds, nanoseconds)) \
    V(archive_entry_set_pathname_utf8, (struct archive_entry *e, const char *name), (e, name))

/* The soname of libarchive 3, the major version <archive.h> describes. */
#define CARCHIVE_LIBRARY "libarchive.so.13"

#define CARCHIVE_POINTER(type, name, params, args, missing) type (*name) params;
#define CARCHIVE_VOID_POINTER(name, params, args) void (*name) params;
static struct {
    CARCHIVE_FUNCTIONS(CARCHIVE_POINTER, CARCHIVE_VOID_POINTER)
} library;

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static int library_loaded;
static char library_failure[512];

static void load_library(void) {
    void *handle = dlopen(CARCHIVE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(library_failure, sizeof library_failure, "%s", reason ? reason : "cannot load " CARCHIVE_LIBRARY);
        return;
    }
    /* Every function is resolved now, so a libarchive without one fails here, at the first
     * constructor, never halfway through an archive. */
#define CARCHIVE_RESOLVE(name) \
    do { \
        void *symbol = dlsym(handle, #name); \
        if (symbol == NULL) { \
            snprintf(library_failure, sizeof library_failure, "%s has no %s", CARCHIVE_LIBRARY, #name); \
            dlclose(handle); \
            return; \
        } \
        memcpy(&library.name, &symbol, sizeof symbol); \
    } while (0);
#define CARCHIVE_RESOLVE_VALUE(type, name, params, args, missing) CARCHIVE_RESOLVE(name)
#define CARCHIVE_RESOLVE_VOID(name, params, args) CARCHIVE_RESOLVE(name)
    CARCHIVE_FUNCTIONS(CARCHIVE_RESOLVE_VALUE, CARCHIVE_RESOLVE_VOID)
    library_loaded = 1;
}

/* Whether libarchive is loaded, loading it on the first call (pthread_once orders the
 * table's writes before any caller's reads). */
static int library_ready(void) {
    pthread_once(&library_once, load_library);
    return library_loaded;
}

const char *carchive_load_failure(void) {
    return library_ready() ? NULL : library_failure;
}

#define CARCHIVE_TRAMPOLINE(type, name, params, args, missing) \
    __attribute__((visibility("hidden"))) type name params { \
        if (!library_ready()) return missing; \
        return library.name args; \
    }
#define CARCHIVE_VOID_TRAMPOLINE(name, params, args) \
    __attribute__((visibility("hidden"))) void name params { \
        if (library_ready()) library.name args; \
    }
CARCHIVE_FUNCTIONS(CARCHIVE_TRAMPOLINE, CARCHIVE_VOID_TRAMPOLINE)
