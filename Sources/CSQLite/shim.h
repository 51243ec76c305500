#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC, for buffers that outlive the statement step.
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

/// sqlite3_db_config is variadic; one non-variadic shim per shape we use.
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}
/// The progress handler's callback type, named so Swift can pass a C function.
typedef int (*csqlite_progress_callback)(void *);

/// sqlite3_config is variadic too. Memory statistics cost a global mutex on every
/// allocation, which serialises threads; nothing here reads them, so they are turned off.
/// Must run before SQLite initialises; afterwards it returns SQLITE_MISUSE and changes nothing.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
/// Where SQLite creates its temporary files (statement journals, sorter spills, TEMP tables:
/// the `etilqs_*` files it unlinks right after creating them), instead of SQLITE_TMPDIR or
/// TMPDIR. `path` is copied (sqlite3_temp_directory must be memory from sqlite3_malloc); NULL
/// restores the default. Only safe while no connection is open on another thread.
static inline int csqlite_set_temp_directory(const char *path) {
    char *copy = 0;
    if (path) {
        copy = sqlite3_mprintf("%s", path);
        if (!copy) return SQLITE_NOMEM;
    }
    char *old = sqlite3_temp_directory;
    sqlite3_temp_directory = copy;
    sqlite3_free(old);
    return SQLITE_OK;
}
#endif
