import CSQLite
import TestSupport
import XCTest
@testable import SQLiteStorage
@testable import Storage

/// The VFS that writes a transaction's WAL frames in one call (Sources/CSQLiteWAL) must leave
/// the files exactly as SQLite's own would: every commit readable at once by a connection that
/// does not use it, in every shape of write SQLite makes (small commits, commits larger than
/// the VFS's buffer, pages spilled to the WAL before the commit and written again in place,
/// rollbacks after a spill, the WAL started over after a checkpoint).
final class WALBatchingTests: XCTestCase {
    struct PlainError: Error, CustomStringConvertible { let description: String }

    /// A connection through SQLite's default VFS, as another process (or the sqlite3 shell)
    /// would open the file.
    private final class PlainConnection {
        private var handle: OpaquePointer?

        init(path: String) throws {
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
                defer { sqlite3_close_v2(handle) }
                throw PlainError(description: String(cString: sqlite3_errmsg(handle)))
            }
        }

        deinit { sqlite3_close_v2(handle) }

        /// The first column of every row, as text.
        func strings(_ sql: String) throws -> [String] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
                throw PlainError(description: String(cString: sqlite3_errmsg(handle)))
            }
            defer { sqlite3_finalize(statement) }
            var values: [String] = []
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { return values }
                guard rc == SQLITE_ROW else { throw PlainError(description: String(cString: sqlite3_errmsg(handle))) }
                values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
            }
        }
    }

    private func makeDatabase(_ configure: (inout SQLiteDatabase.Configuration) -> Void = { _ in }) throws -> TemporarySQLite {
        let temp = try TemporarySQLite(configure: configure)
        try temp.database.write { c in
            try c.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL, data BLOB NOT NULL)")
            try c.execute("CREATE INDEX items_label ON items (label)")
        }
        return temp
    }

    /// COUNT, SUM(length(data)) and the integrity check, as the plain connection reads them.
    private func plainView(_ temp: TemporarySQLite) throws -> [String] {
        let plain = try PlainConnection(path: temp.path)
        return try plain.strings("SELECT COUNT(*) || ' ' || COALESCE(SUM(length(data)), 0) FROM items")
            + plain.strings("PRAGMA integrity_check")
    }

    func testEveryCommitIsReadableAtOnceWithoutTheVFS() throws {
        let temp = try makeDatabase()
        let plain = try PlainConnection(path: temp.path)
        for i in 1...200 {
            try temp.database.write { c in
                try c.execute("INSERT INTO items (label, data) VALUES (\("item \(i)"), randomblob(\(100 * (i % 7))))")
            }
            XCTAssertEqual(try plain.strings("SELECT COUNT(*) FROM items"), ["\(i)"], "commit \(i) seen by another connection")
        }
        XCTAssertEqual(try plain.strings("PRAGMA integrity_check"), ["ok"])
    }

    func testACommitLargerThanTheBufferIsWholeAndInOrder() throws {
        let temp = try makeDatabase()
        // About 6 MB of pages in one transaction: about 50 times the VFS's 124 KiB buffer.
        try temp.database.write { c in
            for i in 0..<600 { try c.execute("INSERT INTO items (label, data) VALUES (\("big \(i)"), randomblob(10000))") }
        }
        XCTAssertEqual(try plainView(temp), ["600 6000000", "ok"])
    }

    func testPagesSpilledBeforeTheCommitAndWrittenAgainAreKeptRight() throws {
        let temp = try makeDatabase()
        try temp.database.write { c in
            // A cache of 20 pages: the transaction spills dirty pages into the WAL before it
            // commits, then changes them again, which SQLite writes over their earlier frames.
            try c.execute("PRAGMA cache_size = 20")
            for i in 0..<300 { try c.execute("INSERT INTO items (label, data) VALUES (\("spill \(i)"), randomblob(1000))") }
            for round in 0..<3 { try c.execute("UPDATE items SET label = label || \("-\(round)"), data = randomblob(1000 + \(round))") }
            try c.execute("PRAGMA cache_size = -32768")
        }
        XCTAssertEqual(try plainView(temp), ["300 300600", "ok"])
        let plain = try PlainConnection(path: temp.path)
        XCTAssertEqual(try plain.strings("SELECT label FROM items WHERE id = 300"), ["spill 299-0-1-2"])
    }

    func testARollbackAfterASpillLeavesTheLastCommit() throws {
        let temp = try makeDatabase()
        try temp.database.write { c in try c.execute("INSERT INTO items (label, data) VALUES ('kept', randomblob(10))") }
        struct Abandon: Error {}
        XCTAssertThrowsError(try temp.database.write { c in
            try c.execute("PRAGMA cache_size = 20")
            for i in 0..<300 { try c.execute("INSERT INTO items (label, data) VALUES (\("gone \(i)"), randomblob(1000))") }
            try c.execute("PRAGMA cache_size = -32768")
            throw Abandon()
        })
        try temp.database.write { c in try c.execute("INSERT INTO items (label, data) VALUES ('after', randomblob(20))") }
        XCTAssertEqual(try plainView(temp), ["2 30", "ok"])
    }

    func testTheWALStartsOverAndKeepsEveryCommit() throws {
        let temp = try makeDatabase { configuration in
            configuration.checkpointPages = 20   // the background checkpointer restarts the WAL often
        }
        for i in 0..<300 {
            try temp.database.write { c in try c.execute("INSERT INTO items (label, data) VALUES (\("w \(i)"), randomblob(3000))") }
            if i % 50 == 0 { usleep(150_000) }   // the scenario: bursts of writes with pauses between, in which the checkpointer runs
        }
        XCTAssertEqual(try plainView(temp), ["300 900000", "ok"])
        temp.database.close()
        let reopened = try SQLiteDatabase(configuration: .init(path: temp.path))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { c in try c.fetchValue("SELECT COUNT(*) FROM items", as: Int.self) }, 300)
    }
}
