import CSQLite
import Foundation
import Storage
import Synchronization
import Telemetry

/// The embedded default: one SQLite file in WAL mode, one writer connection, a pool of
/// readers (GRDB's DatabasePool shape).
///
/// WAL lets readers work while the writer writes; a single writer connection serialises
/// writes in this process without SQLITE_BUSY, and `busy_timeout` covers other processes
/// (the `pacenote` command line run beside a server).
public final class SQLiteDatabase: Database, @unchecked Sendable {
    // @unchecked: `writer` is only touched while `writerLock` is held, and each reader
    // connection is lent to one thread at a time by `readerPool`.

    public struct Configuration: Sendable {
        public var path: String
        /// Reader connections; a read past this many at once waits for one to come back.
        public var readers: Int = 4
        public var busyTimeoutMillis: Int = 5_000
        /// `NORMAL` in WAL mode never corrupts and never loses a committed write when the
        /// process crashes; only a power loss may drop the commits since the WAL was last
        /// synced (`walSyncMillis`). `FULL` also survives power loss at the cost of an fsync
        /// per commit (https://sqlite.org/pragma.html#pragma_synchronous).
        public var synchronousFull: Bool = false
        /// Under `NORMAL`, how often the WAL is synced when commits came in since its last
        /// sync, off the request path (on the checkpointer's queue): a power loss loses at most
        /// the commits of about this long. 0: never but by checkpoints, which leaves the bound
        /// to the kernel's writeback (about 30 s on Linux).
        public var walSyncMillis: Int = 200
        /// The VFS connections open with; nil for Pacenote's batching VFS over SQLite's default
        /// (tests name one over a fault-injecting VFS).
        public var vfs: String? = nil
        /// Page cache per connection, in KiB. (Memory-mapped reads were tried instead and
        /// measured 8% slower on the benchmark's reads.)
        public var cacheKiB: Int = 32_768
        /// Temporary tables, indexes and sorts kept in memory (the server's default) or in
        /// temporary files. Bulk jobs that sort millions of rows choose files, so the sort
        /// does not count against the process's memory (https://sqlite.org/pragma.html#pragma_temp_store).
        public var temporaryStorageInMemory: Bool = true
        /// The background checkpointer starts once the WAL holds this many pages (40 MB).
        /// Rarely is cheaper, since a page written by many commits is copied back once
        /// (checkpointing every 100 ms halved the writes per second of likes and comments).
        public var checkpointPages = 10_000
        /// Past this many (200 MB: the checkpointer far behind a long read), the writer
        /// checkpoints after its commit, as SQLite's own autocheckpoint would; while a cycle of
        /// the background checkpointer is under way, only past twice this many.
        public var writerCheckpointPages = 50_000

        public init(path: String) { self.path = path }
    }

    public let dialect = SQLDialect.sqlite
    /// The database file, opened afresh by `ping`.
    private let path: String
    private let writer: SQLiteConnection
    /// Moves WAL pages back into the database file on its own queue, so that a commit never
    /// pays for a checkpoint (with fan-out writes touching many pages, checkpoints inside
    /// commits were a third of a like's time, fsync included). Touched only on `checkpointQueue`.
    private let checkpointer: SQLiteConnection
    private let checkpointQueue = DispatchQueue(label: "pacenote.sqlite.checkpoint", qos: .utility)
    private let checkpointTimer: any DispatchSourceTimer
    /// The WAL's size after the last commit, kept by the writer's WAL hook, or 0 once a
    /// checkpoint pass left it wholly copied, and the commits so far (internal for tests).
    let wal = WALCounters()
    /// The commit count when the WAL sync timer last synced; touched only on `checkpointQueue`.
    private var syncedCommits = 0
    private let checkpointPages: Int
    private let writerCheckpointPages: Int
    /// Starves no writer (`FairLock`): one that has waited 8 ms is next, whoever else asks.
    private let writerLock = FairLock()
    private let readerPool: ConnectionPool<SQLiteConnection>

    public init(configuration: Configuration) throws(StorageError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        path = configuration.path
        writer = try SQLiteConnection(path: configuration.path, flags: flags, vfs: configuration.vfs)
        try writer.execute(SQL(unsafeSQL: "PRAGMA busy_timeout = \(configuration.busyTimeoutMillis)"))
        try Self.enterWAL(writer, waitingAtMost: configuration.busyTimeoutMillis)
        try writer.execute(SQL(unsafeSQL: "PRAGMA synchronous = \(configuration.synchronousFull ? "FULL" : "NORMAL")"))
        try writer.execute("PRAGMA foreign_keys = ON")
        try writer.execute(SQL(unsafeSQL: "PRAGMA temp_store = \(configuration.temporaryStorageInMemory ? "MEMORY" : "FILE")"))
        try writer.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(configuration.cacheKiB)"))
        writer.trackWAL(in: wal)
        checkpointPages = configuration.checkpointPages
        writerCheckpointPages = configuration.writerCheckpointPages
        checkpointer = try SQLiteConnection(path: configuration.path, flags: SQLITE_OPEN_READWRITE, vfs: configuration.vfs)
        try checkpointer.execute(SQL(unsafeSQL: "PRAGMA busy_timeout = \(configuration.busyTimeoutMillis)"))
        // A connection opens the WAL at its first read; until then a checkpoint on it is a
        // silent no-op (this one was, until this line: commits paid for every checkpoint).
        _ = try checkpointer.fetchOne("SELECT 1 FROM sqlite_schema LIMIT 1")

        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, configuration.readers) {
            let reader = try SQLiteConnection(path: configuration.path, flags: SQLITE_OPEN_READWRITE, vfs: configuration.vfs)
            try reader.execute(SQL(unsafeSQL: "PRAGMA busy_timeout = \(configuration.busyTimeoutMillis)"))
            try reader.execute("PRAGMA foreign_keys = ON")
            // Readers never write: a bug that tries fails loudly instead of racing the writer.
            try reader.execute("PRAGMA query_only = ON")
            try reader.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(configuration.cacheKiB)"))
            readers.append(reader)
        }
        readerPool = ConnectionPool(readers)

        // One timer for both jobs of the checkpointer's queue: every 200 ms, or as often as
        // the WAL is to be synced if that is more often.
        let walSync = configuration.synchronousFull ? 0 : max(0, configuration.walSyncMillis)
        let tick = walSync > 0 ? min(200, walSync) : 200
        checkpointTimer = DispatchSource.makeTimerSource(queue: checkpointQueue)
        checkpointTimer.schedule(deadline: .now() + .milliseconds(tick), repeating: .milliseconds(tick), leeway: .milliseconds(tick / 4))
        checkpointTimer.setEventHandler { [weak self] in
            guard let self else { return }
            if wal.frames.load(ordering: .relaxed) >= checkpointPages { checkpoint() }
            if walSync > 0 { syncWALIfCommitted() }
        }
        checkpointTimer.resume()
    }

    /// Syncs the WAL when commits came in since the last time, so that under `NORMAL` a power
    /// loss drops at most the last `walSyncMillis` of commits instead of whatever the kernel
    /// had not written back (up to 30 s). It runs beside the writer, on the checkpointer's
    /// own handle of the WAL (an fsync covers the file, whoever wrote it); a commit's own
    /// fsync under `FULL` is what this saves. A failed sync is retried at the next tick.
    private func syncWALIfCommitted() {
        // Read before the sync: a commit counted after this read may not be covered.
        let commits = wal.commits.load(ordering: .relaxed)
        guard commits != syncedCommits, (try? checkpointer.syncWAL()) != nil else { return }
        syncedCommits = commits
    }

    /// Switches a new file to WAL mode (a no-op on one already in it). Several processes opening
    /// one new file at once (two servers, or `serve` beside `migrate`) race for the switch, and
    /// the losers get SQLITE_BUSY at once: the busy handler does not cover it. So the loser waits
    /// and asks again, within the busy timeout, as any other lock wait does.
    private static func enterWAL(_ connection: SQLiteConnection, waitingAtMost millis: Int) throws(StorageError) {
        let deadline = ContinuousClock.now + .milliseconds(millis)
        while true {
            do {
                // journal_mode answers with a row, so it goes through fetchOne.
                _ = try connection.fetchOne("PRAGMA journal_mode = WAL")
                return
            } catch .busy where ContinuousClock.now < deadline {
                usleep(10_000)
            }
        }
    }

    /// Copies the WAL back into the database file so that the next write transaction can
    /// start the WAL over. A failed pass is retried at the next tick; `writerCheckpointPages`
    /// is the backstop.
    ///
    /// Two passes. The first runs beside the writer and does nearly all the copying and
    /// syncing. Under sustained writes it never ends with the WAL fully copied (commits land
    /// while it works), so the WAL would never restart and would grow until a commit paid
    /// for a checkpoint of the whole file: 250 to 600 ms stalls, seen as the p99 of likes.
    /// The second pass holds the writer lock, copies the frames committed meanwhile and
    /// leaves the WAL fully copied, so the next transaction rewinds it.
    ///
    /// The second pass runs only once the WAL holds three times `checkpointPages`: it holds
    /// up every writer, while the WAL restarts by itself whenever a first pass catches up, as
    /// it does once a burst ends. What the writers wait for is what the locked pass finds left
    /// to do, so the checkpointer first does the rest beside them: it syncs the database file
    /// (the first pass copied pages into it but syncs it only when it reaches the WAL's end,
    /// which under writes it never does), copies what came in meanwhile, and syncs again. The
    /// locked pass then copies and syncs only the last milliseconds of commits. In a like
    /// burst on small it held the writers 28 to 70 ms without this, 5 to 12 ms with it: a like
    /// appends about 20 frames, so the WAL grows by some 300 MB a second, and `fdatasync` of
    /// 32 MB of dirty pages takes 20 ms on this machine.
    ///
    /// A cycle also stops at its first pass when that pass found the WAL small (it was
    /// started over since the last commit) or left it wholly copied. Going by `wal.frames`
    /// alone, which reads the WAL's size after the last commit, the timer's next tick after
    /// a locked pass ran a second cycle at once, with a second locked pass (20 to 30 ms of
    /// every writer waiting, once a second in a comment burst), and once writes stopped, a
    /// locked pass at every tick with nothing to copy.
    private func checkpoint() {
        checkpointing.store(true, ordering: .relaxed)
        defer { checkpointing.store(false, ordering: .relaxed) }
        guard let first = try? checkpointer.checkpointPassive(),
              !resetIfWhollyCopied(by: first), first.walFrames >= checkpointPages * 3 else { return }
        try? checkpointer.syncFiles()
        try? checkpointer.checkpointPassive()
        try? checkpointer.syncFiles()
        writerLock.withLock {
            let started = ContinuousClock.now
            if let last = try? checkpointer.checkpointPassive() { resetIfWhollyCopied(by: last) }
            observeHold(\.checkpointer, since: started)
        }
    }

    /// Whether `pass` left the WAL wholly copied, so that the next write transaction starts
    /// it over; if so, `wal.frames` reads 0 from now on (until that commit). A pass copies the
    /// frames the WAL held when it began; `wal.frames` is the WAL's size after the last commit,
    /// so it still equals what the pass found only if no commit came after the pass began.
    @discardableResult
    private func resetIfWhollyCopied(by pass: SQLiteConnection.CheckpointPass) -> Bool {
        pass.copiedAll && wal.frames.compareExchange(expected: pass.walFrames, desired: 0, ordering: .relaxed).exchanged
    }

    /// How long checkpoints held every writer, by who ran them; nil until `registerMetrics`.
    private struct CheckpointHolds {
        var checkpointer: Histogram
        var commit: Histogram
    }
    private let checkpointHolds = Mutex<CheckpointHolds?>(nil)

    private func observeHold(_ by: KeyPath<CheckpointHolds, Histogram>, since started: ContinuousClock.Instant) {
        checkpointHolds.withLock { $0?[keyPath: by] }?.observe(ContinuousClock.now - started)
    }

    /// The WAL's size, and the checkpoints that held up the writers: the p99 of writes in a
    /// burst is mostly these holds (BENCHMARKS.md).
    public func registerMetrics(in metrics: MetricsRegistry) {
        let wal = self.wal
        metrics.gauge("pacenote_sqlite_wal_pages", help: "Pages in the SQLite WAL after the last commit; 0 once a checkpoint copied them all back.") {
            Double(wal.frames.load(ordering: .relaxed))
        }
        let help = "Time every writer waited while a checkpoint held the SQLite writer, by who ran it: the background checkpointer or a commit past the WAL's backstop."
        let holds = CheckpointHolds(
            checkpointer: metrics.histogram("pacenote_sqlite_checkpoint_hold_seconds", help: help, labels: [("by", "checkpointer")]),
            commit: metrics.histogram("pacenote_sqlite_checkpoint_hold_seconds", help: help, labels: [("by", "commit")]))
        checkpointHolds.withLock { $0 = holds }
    }

    /// Whether the checkpointer is in a cycle; one that goes past its first pass ends with
    /// its locked pass.
    private let checkpointing = Atomic(false)

    /// Whether this commit checkpoints under the writer lock: the WAL is past the backstop and
    /// no cycle of the checkpointer is under way (one that is will restart the WAL with its
    /// locked pass), or past twice the backstop whatever happens. A commit's checkpoint syncs
    /// the WAL and the database file while every writer waits: on a like burst the writer
    /// was in disk waits and the CPU idle for 31 to 44% of such 32 to 83 ms holds (`perf sched`).
    private var backstopDue: Bool {
        let frames = wal.frames.load(ordering: .relaxed)
        return frames >= writerCheckpointPages * 2 || (frames >= writerCheckpointPages && !checkpointing.load(ordering: .relaxed))
    }

    // Built once: a statement made from a literal allocates its fragment list every time.
    private static let begin: SQL = "BEGIN"
    private static let commit: SQL = "COMMIT"

    public func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        try readerPool.withConnection { connection in
            // One deferred transaction, so that several statements see one snapshot.
            try connection.execute(Self.begin)
            do {
                let result = try body(connection)
                try connection.execute(Self.commit)
                return result
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// One writer: every write is serializable, so `isolation` changes nothing here.
    public func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        try writerLock.withLock {
            // IMMEDIATE takes the write lock up front, so another process makes us wait
            // (busy_timeout) at BEGIN rather than fail half-way through.
            try writer.execute("BEGIN IMMEDIATE")
            do {
                let result = try body(writer)
                try writer.execute("COMMIT")
                if backstopDue {
                    let started = ContinuousClock.now
                    try? writer.checkpointPassive()
                    observeHold(\.commit, since: started)
                }
                return result
            } catch {
                _ = try? writer.execute("ROLLBACK")
                throw error
            }
        }
    }

    public var readerUsage: (inUse: Int, total: Int) {
        (readerPool.size - readerPool.idleCount, readerPool.size)
    }

    public func ping() -> Bool {
        // A pooled connection keeps reading its open file (and its page cache) after the file at
        // `path` was deleted or replaced, and `SELECT 1` reads no file at all; so the probe opens
        // the path afresh, as a restart would, and reads the schema page from it.
        guard let probe = try? SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY) else { return false }
        defer { probe.close() }
        _ = try? probe.execute("PRAGMA busy_timeout = 1000")
        return (try? probe.fetchValue("SELECT count(*) FROM sqlite_schema", as: Int.self)) != nil
    }

    public func close() {
        checkpointTimer.cancel()
        checkpointQueue.sync { checkpointer.close() }
        writerLock.withLock { writer.close() }
        readerPool.closeAll { $0.close() }
    }

    /// Writes a consistent copy of the live database to `path` with SQLite's online backup
    /// API (https://sqlite.org/backup.html); writers wait only for each step's page copy.
    /// `path` must not exist: it is created with mode 0600 (`PrivateFiles`).
    public func backup(to path: String) throws(StorageError) {
        // The copy holds what the database holds: created here, 0600 and exclusively (an
        // existing file is never overwritten), before SQLite opens it.
        do {
            try PrivateFiles.create(file: path, exclusive: true)
        } catch {
            throw .driver(error)
        }
        let target = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { target.close() }
        try readerPool.withConnection { (source: SQLiteConnection) throws(StorageError) in
            try source.backup(into: target)
        }
    }
}
