// Typed wrappers for SQLite's variadic functions, which Swift cannot call (SWIFT-LINUX-NOTES.md).
#ifndef PACENOTE_SQLITE_SHIMS_H
#define PACENOTE_SQLITE_SHIMS_H

#include <sqlite3.h>

// sqlite3_config is variadic, which Swift does not import; this wraps the one option we set.
// SQLITE_CONFIG_MEMSTATUS off: SQLite then keeps no global memory statistics, which it
// otherwise updates under one process-wide mutex on every allocation (the lock and unlock
// were 3% of a read's CPU). Only valid before the library initializes (sqlite3_open does).
static inline int pacenote_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
