import CSQLite
import Foundation
import TestSupport
import XCTest
@testable import Storage

/// Crash tests in the manner of SQLite's own (ioerr.test, crash.test): the database's files go
/// through a disk that fails on purpose (`FaultyDisk`, under the same batching VFS the server
/// uses), and after each failure, process crash or power loss the files are reopened through
/// SQLite's plain VFS, as a restarted server would find them.
final class CrashTests: XCTestCase {
    override func setUp() {
        FaultyDisk.reset()
    }

    override func tearDown() {
        FaultyDisk.reset()
    }

    private func makeDatabase(synchronousFull: Bool = false) throws -> TemporarySQLite {
        let temp = try TemporarySQLite { configuration in
            configuration.vfs = FaultyDisk.vfs
            configuration.synchronousFull = synchronousFull
        }
        try temp.database.write { c in
            try c.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL, data BLOB NOT NULL)")
            try c.execute("CREATE INDEX items_label ON items (label)")
        }
        for i in 0..<3 {
            try temp.database.write { c in try c.execute("INSERT INTO items (label, data) VALUES (\("before \(i)"), randomblob(100))") }
        }
        return temp
    }

    /// A transaction larger than the writer's page cache that changes spilled pages again, as
    /// imports, migrations on a large database, timeline rebuilds and purges do: SQLite writes
    /// frames before the commit, writes over them, and after the commit frame rewrites the
    /// checksums of the frame headers from the first one written over.
    private func spillingTransaction(_ c: any DatabaseConnection) throws {
        try c.execute("PRAGMA cache_size = 20")
        defer { _ = try? c.execute("PRAGMA cache_size = -32768") }
        for i in 0..<300 { try c.execute("INSERT INTO items (label, data) VALUES (\("spill \(i)"), randomblob(1000))") }
        for round in 0..<2 { try c.execute("UPDATE items SET label = label || \("-\(round)") WHERE label LIKE 'spill%'") }
    }

    /// The process dies: the files stay as the kernel has them, the database closes without
    /// writing anything more, and they are read again through SQLite's plain VFS.
    private func crashAndReopen(_ temp: TemporarySQLite, losingPower seed: UInt32? = nil) throws -> (rows: Int, integrity: [String]) {
        FaultyDisk.crash()
        temp.database.close()
        if let seed { try FaultyDisk.losePower(seed: seed, dropPercent: 50) }
        FaultyDisk.reset()
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(temp.path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw FaultyDisk.FaultyDiskError()
        }
        func strings(_ sql: String) -> [String] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return [String(cString: sqlite3_errmsg(handle))] }
            defer { sqlite3_finalize(statement) }
            var values: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
            }
            return values
        }
        return (Int(strings("SELECT count(*) FROM items").first ?? "") ?? -1, strings("PRAGMA integrity_check"))
    }

    /// Every write of the spilling commit, failed in turn (the last 40, where the commit frame
    /// and the checksum rewrite are, and a spread of the rest): whenever a write failed, the
    /// COMMIT failed, and after a crash the database holds exactly what was acknowledged.
    func testEveryFailedWriteOfASpillingCommitFailsItsCommit() throws {
        let clean = try makeDatabase()
        let before = FaultyDisk.count(.write, on: .wal)
        try clean.database.write(spillingTransaction)
        let writes = FaultyDisk.count(.write, on: .wal) - before
        XCTAssertEqual(try crashAndReopen(clean).rows, 303)
        XCTAssertGreaterThan(writes, 40, "the transaction spilled")

        let spread = stride(from: 0, to: writes - 40, by: max(1, (writes - 40) / 20))
        for failing in Array(spread) + Array((writes - 40)..<writes) {
            let temp = try makeDatabase()
            FaultyDisk.fail(.write, on: .wal, after: failing)
            let committed = (try? temp.database.write(spillingTransaction)) != nil
            let failed = FaultyDisk.injected == 1
            XCTAssertTrue(failed, "write \(failing) of \(writes) was failed")
            XCTAssertFalse(committed, "the COMMIT whose write \(failing) of \(writes) failed was acknowledged")
            let after = try crashAndReopen(temp)
            XCTAssertEqual(after.rows, committed ? 303 : 3, "rows after the crash, write \(failing) of \(writes) failed")
            XCTAssertEqual(after.integrity, ["ok"], "write \(failing) of \(writes) failed")
        }
    }

    /// Under `FULL`, a commit whose sync fails is not acknowledged, and the database is whole
    /// after a power loss. (Its frames may still be on the disk and be recovered, as after any
    /// failed fsync: what was not acknowledged may or may not be there, never half.)
    func testAFailedSyncUnderFullFailsItsCommit() throws {
        let temp = try makeDatabase(synchronousFull: true)
        FaultyDisk.trackUnsynced()
        FaultyDisk.fail(.sync, on: .wal, after: 0, code: SQLITE_IOERR | (4 << 8))   // SQLITE_IOERR_FSYNC
        XCTAssertThrowsError(try temp.database.write { c in
            try c.execute("INSERT INTO items (label, data) VALUES ('unsynced', randomblob(10))")
        })
        XCTAssertEqual(FaultyDisk.injected, 1)
        let after = try crashAndReopen(temp, losingPower: 7)
        XCTAssertTrue([3, 4].contains(after.rows), "\(after.rows) rows")
        XCTAssertEqual(after.integrity, ["ok"])
    }

    /// A write that fails while a spill is rolled back (SQLite writes the gathered tail of the
    /// spill then, from a read or, failing that, a shared-memory lock, where it takes no error
    /// and the WAL file then fails every later call): whatever later commits were acknowledged
    /// are there after a crash, and the file is whole.
    func testAFailedWriteDuringARolledBackSpillLosesNothingAcknowledged() throws {
        let temp = try makeDatabase()
        struct Abandon: Error {}
        XCTAssertThrowsError(try temp.database.write { c in
            // Appends alone (each row on new pages), so the last spill's frames are still
            // gathered when the rollback begins.
            try c.execute("PRAGMA cache_size = 20")
            defer { _ = try? c.execute("PRAGMA cache_size = -32768") }
            for i in 0..<300 { try c.execute("INSERT INTO items (label, data) VALUES (\("spill \(i)"), randomblob(1000))") }
            FaultyDisk.fail(.write, on: .wal, after: 0)   // the next write only
            throw Abandon()
        })
        XCTAssertEqual(FaultyDisk.injected, 1, "the rollback wrote the spill's gathered tail")
        var acknowledged = 0
        for _ in 0..<3 {
            if (try? temp.database.write({ c in try c.execute("INSERT INTO items (label, data) VALUES ('later', randomblob(10))") })) != nil {
                acknowledged += 1
            }
        }
        let after = try crashAndReopen(temp)
        XCTAssertEqual(after.integrity, ["ok"])
        XCTAssertEqual(after.rows, 3 + acknowledged)
    }
}
