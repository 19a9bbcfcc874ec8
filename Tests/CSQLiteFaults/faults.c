// The fault-injecting VFS of CSQLiteFaults.h. A test-only pass-through over SQLite's default
// VFS; everything it keeps is global (tests run one at a time) and behind one mutex.
//
// The power-loss model, after SQLite's test6.c: a write reaches the disk only once its file is
// synced; until then each 512-byte sector it touched may or may not be there after the power
// comes back, independently of the others (so a page can be torn between sectors). The
// tracking keeps, per file, what each sector held at the file's last sync, captured the first
// time the sector is written after it. What the files hold when tracking starts counts as
// synced.

#include "CSQLiteFaults.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SECTOR = 512 };

typedef struct Sector {
    sqlite3_int64 index;
    int length;                          // bytes the file held in it at the last sync
    unsigned char bytes[SECTOR];
} Sector;

// What one file (by path) held at its last sync, where it changed since.
typedef struct Tracked {
    char *path;
    sqlite3_int64 syncedSize;
    Sector *sectors;
    size_t count, capacity;
    // Open addressing over sector indexes, -1 empty: which sectors are captured.
    sqlite3_int64 *slots;
    size_t slotCapacity;
} Tracked;

typedef struct FaultFile {
    sqlite3_file base;                   // must be first
    sqlite3_file *real;                  // the default VFS's file, right after this struct
    int kind;                            // PN_FAULT_DATABASE, _WAL or _OTHER
    const char *path;                    // SQLite keeps it alive while the file is open
} FaultFile;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *realVFS;

static struct {
    int operations, files, skip, rc, persistent, armed;
    long counts[3][3];                   // [operation bit][file bit]
    long syncs[3];
    long injected;
    int crashed;
    int tracking;
    Tracked *tracked;
    size_t trackedCount;
} state;

static int bitIndex(int bit) { return bit == 1 ? 0 : bit == 2 ? 1 : 2; }

// Counts the operation and answers the injected error, or SQLITE_OK to go ahead. Under `lock`.
static int injected(int operation, int kind) {
    state.counts[bitIndex(operation)][bitIndex(kind)]++;
    if (!state.armed || !(state.operations & operation) || !(state.files & kind)) return SQLITE_OK;
    if (state.skip > 0) {
        state.skip--;
        return SQLITE_OK;
    }
    if (!state.persistent) state.armed = 0;
    state.injected++;
    return state.rc;
}

// MARK: tracking

static Tracked *trackedFile(const char *path) {
    for (size_t i = 0; i < state.trackedCount; i++) {
        if (strcmp(state.tracked[i].path, path) == 0) return &state.tracked[i];
    }
    return NULL;
}

static Tracked *tracking(FaultFile *file) {
    if (!state.tracking || file->path == NULL || file->kind == PN_FAULT_OTHER) return NULL;
    Tracked *found = trackedFile(file->path);
    if (found) return found;
    Tracked *grown = realloc(state.tracked, (state.trackedCount + 1) * sizeof *grown);
    if (grown == NULL) return NULL;
    state.tracked = grown;
    Tracked *t = &state.tracked[state.trackedCount++];
    memset(t, 0, sizeof *t);
    t->path = strdup(file->path);
    sqlite3_int64 size = 0;
    file->real->pMethods->xFileSize(file->real, &size);
    t->syncedSize = size;
    return t;
}

static int isCaptured(Tracked *t, sqlite3_int64 index) {
    if (t->slotCapacity == 0) return 0;
    for (size_t i = (size_t)index % t->slotCapacity;; i = (i + 1) % t->slotCapacity) {
        if (t->slots[i] == index) return 1;
        if (t->slots[i] == -1) return 0;
    }
}

static void markCaptured(Tracked *t, sqlite3_int64 index) {
    if ((t->count + 1) * 2 > t->slotCapacity) {   // keep the table at most half full
        size_t capacity = t->slotCapacity ? t->slotCapacity * 2 : 1024;
        sqlite3_int64 *slots = malloc(capacity * sizeof *slots);
        if (slots == NULL) abort();
        for (size_t i = 0; i < capacity; i++) slots[i] = -1;
        for (size_t i = 0; i < t->count; i++) {
            size_t j = (size_t)t->sectors[i].index % capacity;
            while (slots[j] != -1) j = (j + 1) % capacity;
            slots[j] = t->sectors[i].index;
        }
        free(t->slots);
        t->slots = slots;
        t->slotCapacity = capacity;
    }
    size_t j = (size_t)index % t->slotCapacity;
    while (t->slots[j] != -1) j = (j + 1) % t->slotCapacity;
    t->slots[j] = index;
}

// Keeps what the sectors of [offset, offset + amount) hold now, for those not kept since the
// last sync.
static void capture(Tracked *t, FaultFile *file, sqlite3_int64 offset, sqlite3_int64 amount) {
    if (amount <= 0) return;
    sqlite3_int64 size = 0;
    file->real->pMethods->xFileSize(file->real, &size);
    for (sqlite3_int64 index = offset / SECTOR; index <= (offset + amount - 1) / SECTOR; index++) {
        if (isCaptured(t, index)) continue;
        if (t->count == t->capacity) {
            size_t capacity = t->capacity ? t->capacity * 2 : 256;
            Sector *sectors = realloc(t->sectors, capacity * sizeof *sectors);
            if (sectors == NULL) abort();
            t->sectors = sectors;
            t->capacity = capacity;
        }
        Sector *s = &t->sectors[t->count];
        s->index = index;
        sqlite3_int64 held = size - index * SECTOR;
        s->length = held <= 0 ? 0 : held >= SECTOR ? SECTOR : (int)held;
        memset(s->bytes, 0, SECTOR);
        if (s->length > 0) file->real->pMethods->xRead(file->real, s->bytes, s->length, index * SECTOR);
        markCaptured(t, index);
        t->count++;
    }
}

static void forgetCaptured(Tracked *t, sqlite3_int64 size) {
    t->count = 0;
    if (t->slots) for (size_t i = 0; i < t->slotCapacity; i++) t->slots[i] = -1;
    t->syncedSize = size;
}

// MARK: io methods

static int xClose(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xClose(file->real);
}

static int xRead(sqlite3_file *f, void *data, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int xWrite(sqlite3_file *f, const void *data, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    pthread_mutex_lock(&lock);
    int rc = state.crashed ? SQLITE_IOERR_WRITE : injected(PN_FAULT_WRITE, file->kind);
    if (rc == SQLITE_OK) {
        // Tracked files write under the lock, so that a sector's capture and its write are one.
        int serialised = state.tracking;
        Tracked *t = tracking(file);
        if (t) capture(t, file, offset, amount);
        if (!serialised) pthread_mutex_unlock(&lock);
        rc = file->real->pMethods->xWrite(file->real, data, amount, offset);
        if (!serialised) return rc;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int xTruncate(sqlite3_file *f, sqlite3_int64 size) {
    FaultFile *file = (FaultFile *)f;
    pthread_mutex_lock(&lock);
    int rc = state.crashed ? SQLITE_IOERR_TRUNCATE : injected(PN_FAULT_TRUNCATE, file->kind);
    if (rc == SQLITE_OK) {
        Tracked *t = tracking(file);
        if (t) {
            sqlite3_int64 current = 0;
            file->real->pMethods->xFileSize(file->real, &current);
            capture(t, file, size, current - size);
        }
        rc = file->real->pMethods->xTruncate(file->real, size);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int xSync(sqlite3_file *f, int flags) {
    FaultFile *file = (FaultFile *)f;
    pthread_mutex_lock(&lock);
    int rc = state.crashed ? SQLITE_IOERR_FSYNC : injected(PN_FAULT_SYNC, file->kind);
    if (rc == SQLITE_OK) {
        // Tracked files sync under the lock: a write that lands while the sync runs might
        // not be covered by it, so none may.
        int serialised = state.tracking;
        Tracked *t = tracking(file);
        if (!serialised) pthread_mutex_unlock(&lock);
        rc = file->real->pMethods->xSync(file->real, flags);
        if (!serialised) pthread_mutex_lock(&lock);
        if (rc == SQLITE_OK) {
            state.syncs[bitIndex(file->kind)]++;
            if (t) {
                sqlite3_int64 size = 0;
                file->real->pMethods->xFileSize(file->real, &size);
                forgetCaptured(t, size);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int xFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int xLock(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xLock(file->real, level);
}

static int xUnlock(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int xCheckReservedLock(sqlite3_file *f, int *result) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int xFileControl(sqlite3_file *f, int op, void *argument) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int xSectorSize(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int xDeviceCharacteristics(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int xShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **pointer) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, pointer);
}

static int xShmLock(sqlite3_file *f, int offset, int count, int flags) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void xShmBarrier(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    file->real->pMethods->xShmBarrier(file->real);
}

static int xShmUnmap(sqlite3_file *f, int deleteFlag) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int xFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **pointer) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int xUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *pointer) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

static const sqlite3_io_methods faultMethods = {
    3, xClose, xRead, xWrite, xTruncate, xSync, xFileSize, xLock, xUnlock, xCheckReservedLock,
    xFileControl, xSectorSize, xDeviceCharacteristics, xShmMap, xShmLock, xShmBarrier, xShmUnmap,
    xFetch, xUnfetch,
};
static sqlite3_io_methods faultMethodsByVersion[4];

// MARK: vfs

static int xOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)f;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)&file[1];
    int rc = realVFS->xOpen(realVFS, name, file->real, flags, outFlags);
    if (file->real->pMethods == NULL) return rc;
    int version = file->real->pMethods->iVersion;
    if (version < 1 || version > 3) version = 1;
    file->base.pMethods = &faultMethodsByVersion[version];
    file->kind = (flags & SQLITE_OPEN_MAIN_DB) ? PN_FAULT_DATABASE : (flags & SQLITE_OPEN_WAL) ? PN_FAULT_WAL : PN_FAULT_OTHER;
    file->path = name;
    return rc;
}

static int xDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    (void)vfs;
    pthread_mutex_lock(&lock);
    int crashed = state.crashed;
    pthread_mutex_unlock(&lock);
    if (crashed) return SQLITE_IOERR_DELETE;
    return realVFS->xDelete(realVFS, name, syncDir);
}

static int xAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return realVFS->xAccess(realVFS, name, flags, result);
}

static int xFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, out);
}

static void *xDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return realVFS->xDlOpen(realVFS, name); }
static void xDlError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; realVFS->xDlError(realVFS, size, out); }
static void (*xDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVFS->xDlSym(realVFS, handle, symbol);
}
static void xDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; realVFS->xDlClose(realVFS, handle); }
static int xRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xRandomness(realVFS, size, out); }
static int xSleep(sqlite3_vfs *vfs, int micros) { (void)vfs; return realVFS->xSleep(realVFS, micros); }
static int xCurrentTime(sqlite3_vfs *vfs, double *now) { (void)vfs; return realVFS->xCurrentTime(realVFS, now); }
static int xGetLastError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xGetLastError(realVFS, size, out); }
static int xCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return realVFS->xCurrentTimeInt64(realVFS, now);
}

static sqlite3_vfs faultVFS = {
    2, 0, 0, NULL, PN_FAULT_VFS, NULL,
    xOpen, xDelete, xAccess, xFullPathname, xDlOpen, xDlError, xDlSym, xDlClose,
    xRandomness, xSleep, xCurrentTime, xGetLastError, xCurrentTimeInt64,
    NULL, NULL, NULL,
};

int pn_fault_vfs_register(void) {
    pthread_mutex_lock(&lock);
    int rc = SQLITE_OK;
    if (realVFS == NULL) {
        realVFS = sqlite3_vfs_find(NULL);
        if (realVFS == NULL || realVFS->iVersion < 2) {
            realVFS = NULL;
            rc = SQLITE_ERROR;
        } else {
            for (int version = 1; version <= 3; version++) {
                faultMethodsByVersion[version] = faultMethods;
                faultMethodsByVersion[version].iVersion = version;
            }
            faultVFS.szOsFile = (int)sizeof(FaultFile) + realVFS->szOsFile;
            faultVFS.mxPathname = realVFS->mxPathname;
            rc = sqlite3_vfs_register(&faultVFS, 0);
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

// MARK: control

void pn_fault_reset(void) {
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < state.trackedCount; i++) {
        free(state.tracked[i].path);
        free(state.tracked[i].sectors);
        free(state.tracked[i].slots);
    }
    free(state.tracked);
    memset(&state, 0, sizeof state);
    pthread_mutex_unlock(&lock);
}

void pn_fault_fail(int operations, int files, int skip, int rc, int persistent) {
    pthread_mutex_lock(&lock);
    state.operations = operations;
    state.files = files;
    state.skip = skip;
    state.rc = rc;
    state.persistent = persistent;
    state.armed = 1;
    pthread_mutex_unlock(&lock);
}

long pn_fault_count(int operations, int files) {
    pthread_mutex_lock(&lock);
    long total = 0;
    for (int o = 0; o < 3; o++) {
        for (int k = 0; k < 3; k++) {
            if ((operations & (1 << o)) && (files & (1 << k))) total += state.counts[o][k];
        }
    }
    pthread_mutex_unlock(&lock);
    return total;
}

long pn_fault_injected(void) {
    pthread_mutex_lock(&lock);
    long n = state.injected;
    pthread_mutex_unlock(&lock);
    return n;
}

long pn_fault_syncs(int files) {
    pthread_mutex_lock(&lock);
    long total = 0;
    for (int k = 0; k < 3; k++) if (files & (1 << k)) total += state.syncs[k];
    pthread_mutex_unlock(&lock);
    return total;
}

void pn_fault_track_unsynced(void) {
    pthread_mutex_lock(&lock);
    state.tracking = 1;
    pthread_mutex_unlock(&lock);
}

void pn_fault_crash(void) {
    pthread_mutex_lock(&lock);
    state.crashed = 1;
    pthread_mutex_unlock(&lock);
}

long pn_fault_lose_unsynced(unsigned seed, int dropPercent) {
    pthread_mutex_lock(&lock);
    long dropped = 0;
    for (size_t i = 0; i < state.trackedCount && dropped >= 0; i++) {
        Tracked *t = &state.tracked[i];
        int fd = open(t->path, O_RDWR);
        if (fd < 0) {
            if (t->count > 0) dropped = -1;
            continue;
        }
        off_t size = lseek(fd, 0, SEEK_END);
        int everyTailSectorDropped = 1;
        static const unsigned char zeros[SECTOR];
        for (size_t j = 0; j < t->count; j++) {
            Sector *s = &t->sectors[j];
            int beyondSynced = s->index * SECTOR >= t->syncedSize;
            if ((int)(rand_r(&seed) % 100) >= dropPercent) {
                if (beyondSynced) everyTailSectorDropped = 0;
                continue;
            }
            off_t at = (off_t)s->index * SECTOR;
            if (at >= size) continue;
            size_t span = (size_t)(size - at < SECTOR ? size - at : SECTOR);
            // What the sector held at the sync, and zeros where the file did not reach then.
            if (pwrite(fd, s->bytes, (size_t)s->length, at) != s->length) dropped = -1;
            if (span > (size_t)s->length && pwrite(fd, zeros, span - (size_t)s->length, at + s->length) < 0) dropped = -1;
            if (dropped >= 0) dropped++;
        }
        if (everyTailSectorDropped && size > t->syncedSize && ftruncate(fd, (off_t)t->syncedSize) != 0) dropped = -1;
        close(fd);
    }
    pthread_mutex_unlock(&lock);
    return dropped;
}
