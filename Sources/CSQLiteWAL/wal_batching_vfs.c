// A pass-through VFS over another (SQLite's default, "unix", in the server) that gathers the
// frames one connection appends to its WAL into a buffer and writes them with one pwrite.
//
// Why: SQLite writes each WAL frame as two writes (its 24-byte header, then the page), so a
// like, which changes about 20 pages, made about 40 pwrite calls at commit; the kernel's
// per-call work (page-cache lookup, ext4's write_begin/end on the page the frame straddles)
// was 17% of the like route's CPU (BENCHMARKS.md). One write of the same bytes costs a
// quarter of that (measured: 20 frames, 37 us as 40 calls, 8 us as one).
//
// What it keeps: every error reaches SQLite from the call SQLite made, as without the VFS.
// - Only appends are gathered: writes at or past the end of what this WAL generation holds
//   (`end`), each the next contiguous byte of the pending range. A write over bytes the
//   generation already holds (SQLite rewriting a spilled page's frame in place, or
//   walRewriteChecksums rewriting frame headers after the last frame of a commit) flushes
//   what is pending and then goes straight through, so its error is its own call's. The
//   generation starts over with the WAL header's write at offset 0.
// - What is pending reaches the file, in order, before the write that completes a commit frame
//   (a frame header whose "database size after commit" field is non-zero, per the WAL file
//   format) returns, so a failed append fails that write and with it the commit; and before
//   any other operation on the WAL file (read, sync, size, truncate, file control, close).
// - A shared-memory lock or barrier on the database file finds nothing pending after a commit.
//   What it can find is the tail of a spill that was rolled back (frames past the last commit,
//   which no reader will ever read); it writes that, and if the write fails, the WAL file
//   fails every call from then on (a sticky error): no later call may succeed over a file whose
//   content is not what SQLite wrote, and no single later call may take the blame and clear it.
// Nothing is written later than SQLite would have written it as far as any reader (in this
// process or another) can observe: readers find frames through the wal-index, which names a
// commit only after its frames are on the file. Durability is unchanged: the buffer is
// flushed before every sync. Tests/StorageTests/WALBatchingTests and CrashTests inject a
// failure into every write of a spilling commit and check that none is acknowledged and lost.
//
// Threading: a connection's files are used by one thread at a time (SQLITE_OPEN_NOMUTEX with
// Pacenote's pool), and the buffer belongs to the connection's WAL file: no locks here.

#include "CSQLiteWAL.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct BatchedFile BatchedFile;
struct BatchedFile {
    sqlite3_file base;          // must be first: SQLite sees this
    sqlite3_file *real;         // the default VFS's file, allocated right after this struct
    int isWAL;
    // WAL files: the pending range [start, start + used).
    unsigned char *buffer;
    int used;
    int capacity;
    sqlite3_int64 start;
    sqlite3_int64 end;          // the end of what this WAL generation holds, pending included
    int commitHeaderSeen;       // the last write was a commit frame's header (its page is next)
    int stickyError;            // a backstop flush that failed: every later call fails with it
    BatchedFile *database;      // WAL files: the connection's database file
    // Database files: the WAL file this connection appends to, if open.
    BatchedFile *wal;
};

// The unix VFS writes at most 0x1ffff bytes per call (os_unix.c, seekAndWriteFd) and reports
// a longer write as SQLITE_FULL, so a flush stays under 128 KiB: 31 pages, or 30 frames (a
// like commits about 20).
enum { FRAME_HEADER_SIZE = 24, BUFFER_CAPACITY = 31 * 4096 };

// The VFS this one passes through to, per registered instance (its pAppData).
#define REAL_VFS(vfs) ((sqlite3_vfs *)(vfs)->pAppData)

static int flush(BatchedFile *file) {
    if (file->used == 0) return SQLITE_OK;
    const sqlite3_io_methods *methods = file->real->pMethods;
    int rc = methods->xWrite(file->real, file->buffer, file->used, file->start);
    file->used = 0;
    return rc;
}

// Flushes before an operation that must see the file as SQLite wrote it.
static int settle(BatchedFile *file) {
    if (!file->isWAL) return SQLITE_OK;
    if (file->stickyError != SQLITE_OK) return file->stickyError;
    return flush(file);
}

// The backstop where SQLite cannot take an error (barrier, shm lock). After a commit nothing is
// pending (its commit frame flushed it); what can be is the tail of a rolled-back spill. A
// failure to write it poisons the WAL file (see the top of this file), and is logged.
static void settleQuietly(BatchedFile *database) {
    BatchedFile *wal = database->wal;
    if (wal == NULL || wal->used == 0 || wal->stickyError != SQLITE_OK) return;
    int rc = flush(wal);
    if (rc != SQLITE_OK) {
        wal->stickyError = rc;
        sqlite3_log(rc, "pacenote WAL batching: a backstop write failed; the WAL file fails every call from now on");
    }
}

// Per the WAL format, bytes 4-7 of a frame header hold the database size after a commit,
// zero for every other frame.
static int isCommitFrameHeader(const void *data, int amount) {
    if (amount != FRAME_HEADER_SIZE) return 0;
    const unsigned char *bytes = data;
    return (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
}

// Writes through to the file, after what is pending (which must reach it first).
static int writeThrough(BatchedFile *file, const void *data, int amount, sqlite3_int64 offset) {
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xWrite(file->real, data, amount, offset);
}

static int walWrite(BatchedFile *file, const void *data, int amount, sqlite3_int64 offset) {
    if (file->stickyError != SQLITE_OK) return file->stickyError;
    int completesCommit = file->commitHeaderSeen;   // this is the commit frame's page
    if (offset == 0) file->end = 0;                 // the WAL header: a new generation
    int overwrites = offset < file->end;
    if (offset + amount > file->end) file->end = offset + amount;
    // Only an appended commit frame header has its page next; a rewritten one (the last write
    // of walRewriteChecksums) has nothing after it.
    file->commitHeaderSeen = !overwrites && isCommitFrameHeader(data, amount);
    // Bytes this generation holds already: straight through, so the error is this call's.
    if (overwrites) return writeThrough(file, data, amount, offset);
    if (file->used > 0 && (offset != file->start + file->used || file->used + amount > file->capacity)) {
        int rc = flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    if (file->buffer == NULL) {
        file->buffer = malloc(BUFFER_CAPACITY);
        file->capacity = file->buffer ? BUFFER_CAPACITY : 0;
    }
    if (amount > file->capacity) {   // too large to gather (or no buffer): written as it comes
        return writeThrough(file, data, amount, offset);
    }
    if (file->used == 0) file->start = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    return completesCommit ? flush(file) : SQLITE_OK;
}

// MARK: io methods

static int xClose(sqlite3_file *f) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (file->isWAL && file->database && file->database->wal == file) file->database->wal = NULL;
    if (!file->isWAL && file->wal) file->wal->database = NULL;
    free(file->buffer);
    file->buffer = NULL;
    int closed = file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
    return rc != SQLITE_OK ? rc : closed;
}

static int xRead(sqlite3_file *f, void *data, int amount, sqlite3_int64 offset) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int xWrite(sqlite3_file *f, const void *data, int amount, sqlite3_int64 offset) {
    BatchedFile *file = (BatchedFile *)f;
    if (file->isWAL) return walWrite(file, data, amount, offset);
    return file->real->pMethods->xWrite(file->real, data, amount, offset);
}

static int xTruncate(sqlite3_file *f, sqlite3_int64 size) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (rc != SQLITE_OK) return rc;
    if (file->end > size) file->end = size;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int xSync(sqlite3_file *f, int flags) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xSync(file->real, flags);
}

static int xFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int xLock(sqlite3_file *f, int level) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xLock(file->real, level);
}

static int xUnlock(sqlite3_file *f, int level) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int xCheckReservedLock(sqlite3_file *f, int *result) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int xFileControl(sqlite3_file *f, int op, void *argument) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int xSectorSize(sqlite3_file *f) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int xDeviceCharacteristics(sqlite3_file *f) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int xShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **pointer) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, pointer);
}

static int xShmLock(sqlite3_file *f, int offset, int count, int flags) {
    BatchedFile *file = (BatchedFile *)f;
    settleQuietly(file);
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void xShmBarrier(sqlite3_file *f) {
    BatchedFile *file = (BatchedFile *)f;
    settleQuietly(file);
    file->real->pMethods->xShmBarrier(file->real);
}

static int xShmUnmap(sqlite3_file *f, int deleteFlag) {
    BatchedFile *file = (BatchedFile *)f;
    settleQuietly(file);
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int xFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **pointer) {
    BatchedFile *file = (BatchedFile *)f;
    int rc = settle(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int xUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *pointer) {
    BatchedFile *file = (BatchedFile *)f;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

// Version 3 methods; each file gets a copy whose version is the real file's (SQLite calls
// the shared-memory and fetch methods only when the version says they exist).
static const sqlite3_io_methods batchedMethods = {
    3, xClose, xRead, xWrite, xTruncate, xSync, xFileSize, xLock, xUnlock, xCheckReservedLock,
    xFileControl, xSectorSize, xDeviceCharacteristics, xShmMap, xShmLock, xShmBarrier, xShmUnmap,
    xFetch, xUnfetch,
};
static sqlite3_io_methods batchedMethodsByVersion[4];

// MARK: vfs

static int xOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    sqlite3_vfs *realVFS = REAL_VFS(vfs);
    BatchedFile *file = (BatchedFile *)f;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)&file[1];
    int rc = realVFS->xOpen(realVFS, name, file->real, flags, outFlags);
    if (file->real->pMethods == NULL) return rc;   // nothing to close: leave pMethods NULL
    int version = file->real->pMethods->iVersion;
    if (version < 1 || version > 3) version = 1;
    file->base.pMethods = &batchedMethodsByVersion[version];
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_WAL) && name != NULL) {
        file->isWAL = 1;
        // The connection's database file, which this VFS opened too (the WAL is always
        // opened through the database's own VFS).
        BatchedFile *database = (BatchedFile *)sqlite3_database_file_object(name);
        if (database && database->base.pMethods && database->base.pMethods->xClose == xClose) {
            file->database = database;
            database->wal = file;
        }
    }
    return rc;
}

static int xDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    return REAL_VFS(vfs)->xDelete(REAL_VFS(vfs), name, syncDir);
}

static int xAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    return REAL_VFS(vfs)->xAccess(REAL_VFS(vfs), name, flags, result);
}

static int xFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    return REAL_VFS(vfs)->xFullPathname(REAL_VFS(vfs), name, size, out);
}

static void *xDlOpen(sqlite3_vfs *vfs, const char *name) { return REAL_VFS(vfs)->xDlOpen(REAL_VFS(vfs), name); }
static void xDlError(sqlite3_vfs *vfs, int size, char *out) { REAL_VFS(vfs)->xDlError(REAL_VFS(vfs), size, out); }
static void (*xDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    return REAL_VFS(vfs)->xDlSym(REAL_VFS(vfs), handle, symbol);
}
static void xDlClose(sqlite3_vfs *vfs, void *handle) { REAL_VFS(vfs)->xDlClose(REAL_VFS(vfs), handle); }
static int xRandomness(sqlite3_vfs *vfs, int size, char *out) { return REAL_VFS(vfs)->xRandomness(REAL_VFS(vfs), size, out); }
static int xSleep(sqlite3_vfs *vfs, int micros) { return REAL_VFS(vfs)->xSleep(REAL_VFS(vfs), micros); }
static int xCurrentTime(sqlite3_vfs *vfs, double *now) { return REAL_VFS(vfs)->xCurrentTime(REAL_VFS(vfs), now); }
static int xGetLastError(sqlite3_vfs *vfs, int size, char *out) { return REAL_VFS(vfs)->xGetLastError(REAL_VFS(vfs), size, out); }
static int xCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    return REAL_VFS(vfs)->xCurrentTimeInt64(REAL_VFS(vfs), now);
}

static void makeMethodsByVersion(void) {
    for (int version = 1; version <= 3; version++) {
        batchedMethodsByVersion[version] = batchedMethods;
        batchedMethodsByVersion[version].iVersion = version;
    }
}

static pthread_once_t methodsMade = PTHREAD_ONCE_INIT;
static pthread_mutex_t registering = PTHREAD_MUTEX_INITIALIZER;

static int registerOver(const char *name, const char *baseName) {
    if (sqlite3_vfs_find(name) != NULL) return SQLITE_OK;
    sqlite3_vfs *base = sqlite3_vfs_find(baseName);
    if (base == NULL) return SQLITE_ERROR;
    if (base->iVersion < 2 || base->xCurrentTimeInt64 == NULL) return SQLITE_ERROR;
    pthread_once(&methodsMade, makeMethodsByVersion);
    sqlite3_vfs *vfs = calloc(1, sizeof *vfs + strlen(name) + 1);
    if (vfs == NULL) return SQLITE_NOMEM;
    char *copiedName = (char *)&vfs[1];
    memcpy(copiedName, name, strlen(name) + 1);
    *vfs = (sqlite3_vfs){
        2, (int)sizeof(BatchedFile) + base->szOsFile, base->mxPathname, NULL, copiedName, base,
        xOpen, xDelete, xAccess, xFullPathname, xDlOpen, xDlError, xDlSym, xDlClose,
        xRandomness, xSleep, xCurrentTime, xGetLastError, xCurrentTimeInt64,
        NULL, NULL, NULL,
    };
    int rc = sqlite3_vfs_register(vfs, 0);
    if (rc != SQLITE_OK) free(vfs);
    return rc;
}

// One instance per name, each over its own base VFS (the server's is over the default; tests
// put a fault-injecting VFS underneath). Instances are never unregistered.
int pn_wal_batching_vfs_register_over(const char *name, const char *baseName) {
    if (name == NULL) return SQLITE_MISUSE;
    pthread_mutex_lock(&registering);
    int rc = registerOver(name, baseName);
    pthread_mutex_unlock(&registering);
    return rc;
}

int pn_wal_batching_vfs_register(void) {
    return pn_wal_batching_vfs_register_over(PN_WAL_BATCHING_VFS, NULL);
}
