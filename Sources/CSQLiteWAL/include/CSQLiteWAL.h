// A pass-through SQLite VFS that gathers a transaction's WAL frames into one write.
// Why, and what it keeps: wal_batching_vfs.c and docs/ARCHITECTURE.md ("Storage").
#ifndef PACENOTE_CSQLITEWAL_H
#define PACENOTE_CSQLITEWAL_H

#include <sqlite3.h>

/// The name connections pass to `sqlite3_open_v2` to use the VFS.
#define PN_WAL_BATCHING_VFS "pacenote-batched-wal"

/// Registers the VFS over the default one (not as the default). Idempotent; returns
/// SQLITE_OK, or an error when there is no default VFS to wrap or registration failed.
int pn_wal_batching_vfs_register(void);

/// Registers an instance of the VFS named `name` over the VFS named `baseName` (NULL: the
/// default), not as the default: tests put a fault-injecting VFS underneath. Idempotent per name.
int pn_wal_batching_vfs_register_over(const char *name, const char *baseName);

#endif
