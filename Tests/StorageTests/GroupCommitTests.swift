import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import Storage

/// Concurrent writes share commits (`GroupCommit`) and keep the guarantees of one
/// transaction each: acknowledged means committed, a failing write fails alone, a failing
/// commit fails every write it carried.
final class GroupCommitTests: XCTestCase {
    struct Refused: Error {}

    private func makeItems(_ database: SQLiteDatabase) throws {
        try database.write { c in
            try c.executeScript("""
                CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL);
                CREATE TABLE parents (id INTEGER PRIMARY KEY);
                CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
                """)
        }
    }

    private func ids(_ database: SQLiteDatabase) throws -> [String] {
        try database.read { c in try c.fetchAll("SELECT id FROM items ORDER BY id").map { try $0.decode("id", as: String.self) } }
    }

    /// Holds the writer inside a write until `release` is signalled, with `others` writes
    /// queued behind it, so that those join one batch. Returns each write's outcome.
    private func batch(
        _ database: SQLiteDatabase, first: @escaping @Sendable (any DatabaseConnection) throws -> Void,
        others: [@Sendable (any DatabaseConnection) throws -> Void]
    ) throws -> [Bool] {
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[Int: Bool]>([:])
        let group = DispatchGroup()
        let run: @Sendable (Int, @escaping @Sendable (any DatabaseConnection) throws -> Void) -> Void = { index, body in
            group.enter()
            Thread.detachNewThread {
                let ok = (try? database.write { c in try body(c) }) != nil
                outcomes.withLock { $0[index] = ok }
                group.leave()
            }
        }
        run(0) { c in
            try first(c)
            holding.signal()
            release.wait()
        }
        holding.wait()
        for (offset, body) in others.enumerated() { run(offset + 1, body) }
        let deadline = Date().addingTimeInterval(10)
        while database.groupCommit.waitingCount < others.count && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(database.groupCommit.waitingCount, others.count, "every other write queued behind the first")
        release.signal()
        group.wait()
        return outcomes.withLock { dict in (0...others.count).map { dict[$0] ?? false } }
    }

    func testQueuedWritesCommitTogetherAndAFailingOneRollsBackAlone() throws {
        let temp = try TemporaryDatabase()
        try makeItems(temp.database)
        let commitsBefore = temp.database.groupCommit.commitCount
        let outcomes = try batch(temp.database, first: { c in try c.execute("INSERT INTO items VALUES ('a', 1)") }, others: [
            { c in try c.execute("INSERT INTO items VALUES ('b', 1)") },
            { c in
                try c.execute("INSERT INTO items VALUES ('c', 1)")
                throw Refused()
            },
            { c in try c.execute("INSERT INTO items VALUES ('a', 2)") },  // duplicate key: refused by SQLite
            { c in try c.execute("INSERT INTO items VALUES ('d', 1)") },
        ])
        XCTAssertEqual(outcomes, [true, true, false, false, true])
        XCTAssertEqual(try ids(temp.database), ["a", "b", "d"])
        XCTAssertEqual(temp.database.groupCommit.commitCount - commitsBefore, 1, "five writes, one commit")
    }

    func testAFailedCommitFailsEveryWriteOfItsBatchAndTheWriterRecovers() throws {
        let temp = try TemporaryDatabase()
        try makeItems(temp.database)
        // The deferred foreign key is only checked at COMMIT, so the shared commit fails.
        let outcomes = try batch(temp.database, first: { c in try c.execute("INSERT INTO items VALUES ('a', 1)") }, others: [
            { c in try c.execute("INSERT INTO children VALUES (1, 42)") },
            { c in try c.execute("INSERT INTO items VALUES ('b', 1)") },
        ])
        XCTAssertEqual(outcomes, [false, false, false], "nothing of a failed commit is acknowledged")
        XCTAssertEqual(try ids(temp.database), [])
        try temp.database.write { c in try c.execute("INSERT INTO items VALUES ('c', 1)") }
        XCTAssertEqual(try ids(temp.database), ["c"])
    }

    func testManyConcurrentWritersAreExactAndSeeTheirWriteOnReturn() throws {
        let temp = try TemporaryDatabase(readers: 4)
        try makeItems(temp.database)
        let commitsBefore = temp.database.groupCommit.commitCount
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            do {
                try temp.database.write { c in
                    try c.execute("INSERT INTO items VALUES (\(String(format: "%04d", i)), \(i))")
                    usleep(100)  // a write's own work, long enough for others to queue
                }
                // Returned means committed: another connection sees it at once.
                let seen = try temp.database.read { c in
                    try c.fetchValue("SELECT COUNT(*) FROM items WHERE n = \(i)", as: Int.self)
                }
                if seen != 1 { failures.withLock { $0.append("write \(i) not visible after it returned") } }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(try ids(temp.database).count, 400)
        let commits = temp.database.groupCommit.commitCount - commitsBefore
        XCTAssertLessThan(commits, 400, "concurrent writes shared commits")
    }
}
