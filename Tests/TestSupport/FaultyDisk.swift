import CSQLite
import CSQLiteFaults
import CSQLiteWAL
import Storage

/// A disk that fails on purpose, for the crash tests: SQLite files opened through
/// `FaultyDisk.vfs` (Pacenote's batching VFS over the fault-injecting one of CSQLiteFaults, as
/// the server's is over SQLite's default) can be made to fail a chosen write, sync or truncate,
/// to stop like a killed process, or to lose what was not synced, like a power cut.
///
/// Its state is the process's: one test at a time uses it, and `reset` starts each afresh.
public enum FaultyDisk {
    public struct Files: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let database = Files(rawValue: Int32(PN_FAULT_DATABASE))
        public static let wal = Files(rawValue: Int32(PN_FAULT_WAL))
        public static let any = Files(rawValue: Int32(PN_FAULT_ANY_FILE))
    }

    public struct Operations: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let write = Operations(rawValue: Int32(PN_FAULT_WRITE))
        public static let sync = Operations(rawValue: Int32(PN_FAULT_SYNC))
        public static let truncate = Operations(rawValue: Int32(PN_FAULT_TRUNCATE))
    }

    /// SQLITE_IOERR_WRITE, a macro Swift cannot import (EIO on a write).
    public static let ioErrorWrite: Int32 = SQLITE_IOERR | (3 << 8)

    /// The VFS to name in `SQLiteDatabase.Configuration.vfs`.
    public static let vfs: String = {
        let name = "pacenote-batched-over-faults"
        guard pn_fault_vfs_register() == SQLITE_OK, pn_wal_batching_vfs_register_over(name, PN_FAULT_VFS) == SQLITE_OK else {
            fatalError("the fault-injecting VFS could not be registered")
        }
        return name
    }()

    /// Nothing armed, not crashed, nothing tracked, counts at zero.
    public static func reset() {
        _ = vfs
        pn_fault_reset()
    }

    /// After `skip` more `operations` on `files` go through, the next one fails with `code`
    /// (and does nothing); `persistent`: every one after it too.
    public static func fail(_ operations: Operations, on files: Files, after skip: Int, code: Int32 = FaultyDisk.ioErrorWrite, persistent: Bool = false) {
        pn_fault_fail(operations.rawValue, files.rawValue, Int32(skip), code, persistent ? 1 : 0)
    }

    /// `operations` on `files` that reached the disk since the reset, failed ones included.
    public static func count(_ operations: Operations, on files: Files) -> Int { pn_fault_count(operations.rawValue, files.rawValue) }

    /// Failures injected since the reset.
    public static var injected: Int { pn_fault_injected() }

    /// Completed syncs of `files` since the reset.
    public static func syncs(of files: Files) -> Int { pn_fault_syncs(files.rawValue) }

    /// From now on keep what each file held at its last sync (what they hold now counts as
    /// synced), for `losePower`.
    public static func trackUnsynced() { pn_fault_track_unsynced() }

    /// The process is gone: every later write, sync, truncate and delete fails and does
    /// nothing, so closing the database leaves the files as the kernel had them.
    public static func crash() { pn_fault_crash() }

    /// The power goes out: after `crash` and with every connection closed, each sector written
    /// since its file's last sync is dropped with probability `dropPercent` (or kept, so pages
    /// tear). Answers the sectors dropped.
    @discardableResult
    public static func losePower(seed: UInt32, dropPercent: Int) throws -> Int {
        let dropped = pn_fault_lose_unsynced(seed, Int32(dropPercent))
        guard dropped >= 0 else { throw FaultyDiskError() }
        return dropped
    }

    public struct FaultyDiskError: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "a file could not be put back as of its last sync" }
    }
}
