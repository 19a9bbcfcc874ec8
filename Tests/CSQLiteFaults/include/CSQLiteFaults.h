// A fault-injecting SQLite VFS for tests, in the manner of SQLite's own crash and I/O-error
// tests (test6.c, test_devsym.c): it passes through to SQLite's default VFS, fails a chosen
// write, sync or truncate, simulates a process crash, and simulates a power loss by dropping
// (or tearing) what was written since each file's last sync.
#ifndef PACENOTE_CSQLITEFAULTS_H
#define PACENOTE_CSQLITEFAULTS_H

#include <sqlite3.h>

#define PN_FAULT_VFS "pacenote-faults"

/// Which files an operation counts for.
enum { PN_FAULT_DATABASE = 1, PN_FAULT_WAL = 2, PN_FAULT_OTHER = 4, PN_FAULT_ANY_FILE = 7 };
/// Which operations.
enum { PN_FAULT_WRITE = 1, PN_FAULT_SYNC = 2, PN_FAULT_TRUNCATE = 4 };

/// Registers the VFS (not as the default). Idempotent.
int pn_fault_vfs_register(void);

/// Back to a plain pass-through: nothing armed, not crashed, nothing tracked, counts at zero.
void pn_fault_reset(void);

/// After `skip` more operations of `operations` on files of `files` have gone through, the
/// next one does nothing and answers `rc`; with `persistent`, so does every one after it.
void pn_fault_fail(int operations, int files, int skip, int rc, int persistent);

/// Operations of `operations` on files of `files` that reached the VFS since the reset,
/// failed ones included.
long pn_fault_count(int operations, int files);

/// Failures injected since the reset.
long pn_fault_injected(void);

/// Syncs of files of `files` that completed since the reset.
long pn_fault_syncs(int files);

/// From now on, keeps what each named database and WAL file held at its last sync, sector
/// by sector, for `pn_fault_lose_unsynced`. Syncs and writes of those files are serialised.
void pn_fault_track_unsynced(void);

/// The process is gone: from now on every write, sync, truncate and delete does nothing and
/// fails, so closing the connections leaves the files as they were (SQLite's checkpoint and
/// WAL deletion on close fail).
void pn_fault_crash(void);

/// The power goes out (call after `pn_fault_crash` and once every connection is closed):
/// each 512-byte sector written since its file's last sync goes back to what that sync left
/// with probability `dropPercent` (drawn from `seed`), or keeps what was written; a file
/// whose every sector past its synced size was dropped goes back to that size. Answers the
/// number of sectors dropped, or -1 when a file could not be restored.
long pn_fault_lose_unsynced(unsigned seed, int dropPercent);

#endif
