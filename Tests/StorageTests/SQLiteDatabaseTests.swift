import Telemetry
import TestSupport
import XCTest
@testable import SQLiteStorage
@testable import Storage

final class SQLiteDatabaseTests: XCTestCase {
    private func makeTable(_ db: any Database) throws {
        try db.write { c in
            try c.execute("CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0), label TEXT, data BLOB, score REAL) STRICT")
        }
    }

    func testValuesRoundTripExactly() throws {
        let temp = try TemporarySQLite()
        try makeTable(temp.database)
        let hostile = "quote ' \" back \\ nul \u{0} emoji 🏁 " + String(repeating: "é", count: 10_000)
        try temp.database.write { c in
            try c.execute("INSERT INTO items (id, n, label, data, score) VALUES (\("a"), \(Int64.max), \(hostile), \([UInt8]([0, 1, 255])), \(2.5))")
            try c.execute("INSERT INTO items (id, n, label) VALUES (\("b"), \(0), \(String?.none))")
        }
        let rows = try temp.database.read { c in try c.fetchAll("SELECT * FROM items ORDER BY id") }
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(try rows[0].decode("label", as: String.self), hostile)
        XCTAssertEqual(try rows[0].decode("n", as: Int64.self), Int64.max)
        XCTAssertEqual(try rows[0].decode("data", as: [UInt8].self), [0, 1, 255])
        XCTAssertEqual(try rows[0].decode("score", as: Double.self), 2.5)
        XCTAssertNil(try rows[1].decode("label", as: String?.self))
        XCTAssertThrowsError(try rows[1].decode("label", as: String.self))
        XCTAssertThrowsError(try rows[1].decode("missing", as: String.self))
    }

    func testStatementsOfOneShapeAreRunWithTheirOwnValuesAndText() throws {
        // The connection finds prepared statements by shape: each run must still see its own
        // bound values, and statements that differ in trusted text must not share one.
        let temp = try TemporarySQLite()
        let answers = try temp.database.read { c in
            try [1, 2, 3].map { n in try c.fetchValue("SELECT \(n) * 10", as: Int.self) }
                + ["1", "2"].map { text in try c.fetchValue("SELECT \(unsafe: text) * 10", as: Int.self) }
        }
        XCTAssertEqual(answers, [10, 20, 30, 10, 20])
    }

    func testConstraintViolationsKeepTheirKind() throws {
        let temp = try TemporarySQLite()
        try makeTable(temp.database)
        try temp.database.write { c in try c.execute("INSERT INTO items (id, n) VALUES ('a', 1)") }

        XCTAssertThrowsError(try temp.database.write { c in try c.execute("INSERT INTO items (id, n) VALUES ('a', 2)") }) { error in
            guard case StorageError.uniqueViolation(let constraint) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(constraint, "items.id")
            XCTAssertTrue((error as? StorageError)?.isUniqueViolation(on: "id") ?? false)
        }
        XCTAssertThrowsError(try temp.database.write { c in try c.execute("INSERT INTO items (id, n) VALUES ('b', -1)") }) { error in
            guard case StorageError.checkViolation = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try temp.database.write { c in try c.execute("INSERT INTO items (id) VALUES ('c')") }) { error in
            guard case StorageError.notNullViolation = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try temp.database.write { c in try c.execute("SELEKT 1") }) { error in
            guard case StorageError.driver(let driver as SQLiteError) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(driver.function, "sqlite3_prepare_v3")
            XCTAssertEqual(driver.primaryCode, 1)
        }
    }

    func testForeignKeysAreEnforced() throws {
        let temp = try TemporarySQLite()
        try temp.database.write { c in
            try c.executeScript("CREATE TABLE parent (id TEXT PRIMARY KEY); CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent (id))")
        }
        XCTAssertThrowsError(try temp.database.write { c in try c.execute("INSERT INTO child VALUES ('c', 'nobody')") }) { error in
            guard case StorageError.foreignKeyViolation = error else { return XCTFail("\(error)") }
        }
    }

    func testWriteRollsBackWhenTheClosureThrows() throws {
        struct Refused: Error {}
        let temp = try TemporarySQLite()
        try makeTable(temp.database)
        XCTAssertThrowsError(try temp.database.write { c in
            try c.execute("INSERT INTO items (id, n) VALUES ('a', 1)")
            throw Refused()
        }) { XCTAssertTrue($0 is Refused) }
        let count = try temp.database.read { c in try c.fetchValue("SELECT COUNT(*) FROM items", as: Int.self) }
        XCTAssertEqual(count, 0)
        // The writer is usable again after the rollback.
        try temp.database.write { c in try c.execute("INSERT INTO items (id, n) VALUES ('a', 1)") }
    }

    func testReadersRefuseToWrite() throws {
        let temp = try TemporarySQLite()
        try makeTable(temp.database)
        XCTAssertThrowsError(try temp.database.read { c in try c.execute("INSERT INTO items (id, n) VALUES ('a', 1)") })
    }

    func testParallelWritesAndReadsStayExact() throws {
        let temp = try TemporarySQLite(readers: 2)
        try temp.database.write { c in
            try c.executeScript("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0)")
        }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            do {
                if i % 2 == 0 {
                    try temp.database.write { c in try c.execute("UPDATE counter SET n = n + 1 WHERE id = 1") }
                } else {
                    _ = try temp.database.read { c in try c.fetchValue("SELECT n FROM counter", as: Int.self) }
                }
            } catch {
                failures.add("\(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(try temp.database.read { c in try c.fetchValue("SELECT n FROM counter", as: Int.self) }, 100)
    }

    func testCommittedWritesSurviveReopening() throws {
        let temp = try TemporarySQLite()
        try makeTable(temp.database)
        try temp.database.write { c in try c.execute("INSERT INTO items (id, n) VALUES ('kept', 7)") }
        temp.database.close()
        let reopened = try SQLiteDatabase(configuration: .init(path: temp.directory.appendingPathComponent("test.sqlite").path))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { c in try c.fetchValue("SELECT n FROM items WHERE id = 'kept'", as: Int.self) }, 7)
    }

    func testOnlineBackupIsAConsistentCopy() throws {
        let temp = try TemporarySQLite()
        try makeTable(temp.database)
        try temp.database.write { c in
            for i in 0..<500 { try c.execute("INSERT INTO items (id, n) VALUES (\("i\(i)"), \(i))") }
        }
        let copyPath = temp.directory.appendingPathComponent("backup.sqlite").path
        try temp.database.backup(to: copyPath)
        let copy = try SQLiteDatabase(configuration: .init(path: copyPath))
        defer { copy.close() }
        XCTAssertEqual(try copy.read { c in try c.fetchValue("SELECT SUM(n) FROM items", as: Int.self) }, (0..<500).reduce(0, +))
    }

    func testPing() throws {
        let temp = try TemporarySQLite()
        XCTAssertTrue(temp.database.ping())
    }

    func testTheBackgroundCheckpointerStartsTheWALOverUnderSustainedWrites() throws {
        let temp = try TemporarySQLite { configuration in
            configuration.checkpointPages = 50
            configuration.writerCheckpointPages = 1_000_000   // the writer never checkpoints itself here
        }
        try temp.database.write { c in try c.execute("CREATE TABLE blobs (x BLOB NOT NULL)") }
        // 300 commits of two pages or more each, over about a second: without the checkpointer
        // (or if the WAL never restarted) the WAL would only grow, to over 600 pages.
        var previous = 0, restarts = 0
        for _ in 0..<300 {
            try temp.database.write { c in try c.execute("INSERT INTO blobs (x) VALUES (zeroblob(5000))") }
            // The size after this commit; 0 if the checkpointer has just copied it all back.
            let pages = temp.database.wal.frames.load(ordering: .relaxed)
            if pages > 0 {
                if pages < previous { restarts += 1 }
                previous = pages
            }
            usleep(3_000)  // the scenario: writes sustained over about a second, leaving the checkpointer time between commits
        }
        XCTAssertGreaterThan(restarts, 0, "the WAL was copied back and started over while writes went on")
        XCTAssertEqual(try temp.database.read { c in try c.fetchValue("SELECT COUNT(*) FROM blobs", as: Int.self) }, 300, "nothing lost")
    }

    func testACopiedBackWALIsNotLockedAgainWhileNothingIsWritten() throws {
        let temp = try TemporarySQLite { configuration in
            configuration.checkpointPages = 10
            configuration.writerCheckpointPages = 1_000_000
        }
        let metrics = MetricsRegistry()
        temp.database.registerMetrics(in: metrics)
        try temp.database.write { c in
            try c.execute("CREATE TABLE blobs (x BLOB NOT NULL)")
            // One commit of some 80 pages, past the locked pass's threshold of 30.
            for _ in 0..<40 { try c.execute("INSERT INTO blobs (x) VALUES (zeroblob(5000))") }
        }
        // The checkpointer ticks every 200 ms. The first tick after the commit copies the whole
        // WAL back (no commit lands meanwhile). The WAL's size after the last commit used to go
        // on reading 80 pages, and to start a cycle with a locked pass at every tick.
        XCTAssertTrue(waitUntil { temp.database.wal.frames.load(ordering: .relaxed) == 0 }, "the WAL is known to be copied back")
        usleep(1_000_000)  // five more checkpointer ticks, in which nothing must happen: no event to wait for
        XCTAssertEqual(Self.holds(by: "checkpointer", in: metrics), 0, "no writer was held up for a WAL already copied back")
        XCTAssertTrue(metrics.renderPrometheus().contains("pacenote_sqlite_wal_pages 0\n"), "the WAL's gauge says it is copied back")
        try temp.database.write { c in try c.execute("INSERT INTO blobs (x) VALUES (zeroblob(5000))") }
        XCTAssertLessThan(temp.database.wal.frames.load(ordering: .relaxed), 10, "the next commit started the WAL over")
    }

    func testTheWriterCheckpointsPastTheBackstopWhenNoCheckpointerCycleRuns() throws {
        let temp = try TemporarySQLite { configuration in
            configuration.checkpointPages = 1_000_000   // the background checkpointer never starts a cycle
            configuration.writerCheckpointPages = 50
        }
        let metrics = MetricsRegistry()
        temp.database.registerMetrics(in: metrics)
        try temp.database.write { c in try c.execute("CREATE TABLE blobs (x BLOB NOT NULL)") }
        var largest = 0
        for _ in 0..<200 {
            try temp.database.write { c in try c.execute("INSERT INTO blobs (x) VALUES (zeroblob(5000))") }
            largest = max(largest, temp.database.wal.frames.load(ordering: .relaxed))
        }
        // 200 commits of two pages or more: over 400 pages if the writer never checkpointed.
        XCTAssertLessThan(largest, 100, "the commit past the backstop copied the WAL back, and the next one started it over")
        XCTAssertGreaterThanOrEqual(Self.holds(by: "commit", in: metrics) ?? 0, 4, "each commit's checkpoint is counted as a hold of the writer")
        XCTAssertEqual(try temp.database.read { c in try c.fetchValue("SELECT COUNT(*) FROM blobs", as: Int.self) }, 200, "nothing lost")
    }
}

extension SQLiteDatabaseTests {
    /// How many checkpoints held the writer, by `by`, as `/metrics` shows them.
    static func holds(by: String, in metrics: MetricsRegistry) -> Int? {
        let prefix = "pacenote_sqlite_checkpoint_hold_seconds_count{by=\"\(by)\"} "
        return metrics.renderPrometheus().split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }
}

/// Collects failures from concurrent closures.
final class Failures: @unchecked Sendable {
    // @unchecked: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
