import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import PostgresStorage
@testable import SQLiteStorage
@testable import Storage

/// Several servers starting at once on one database: each change is applied once, by whichever
/// takes the migrations' lock first (PostgreSQL's advisory lock, SQLite's single writer), and
/// every server starts, however long the others keep it waiting.
final class ConcurrentMigrationTests: XCTestCase {
    func testServersStartingTogetherApplyEachMigrationOnce() throws {
        try TemporaryPostgres.requireCluster()
        let temp = try TemporaryPostgres()
        let servers = try (0..<4).map { _ in try PostgresDatabase(configuration: .init(url: temp.url)) }
        defer { servers.forEach { $0.close() } }
        // Slow changes, so that the other servers wait on the lock while the first one applies each.
        let migrator = Migrator(migrations: (1...3).map { n in
            Migration(name: "000\(n)_slow", sql: "SELECT pg_sleep(0.2); CREATE TABLE slow\(n) (id BIGINT PRIMARY KEY);")
        })
        let outcomes = Mutex([Result<[String], any Error>?](repeating: nil, count: servers.count))
        DispatchQueue.concurrentPerform(iterations: servers.count) { index in
            let result = Result { try migrator.migrate(servers[index], now: 1) }
            outcomes.withLock { $0[index] = result }
        }
        let applied = try outcomes.withLock { $0 }.map { try XCTUnwrap($0).get() }
        XCTAssertEqual(applied.flatMap { $0 }.sorted(), ["0001_slow", "0002_slow", "0003_slow"], "each change applied by one server: \(applied)")
        XCTAssertEqual(try migrator.applied(in: temp.database), ["0001_slow", "0002_slow", "0003_slow"])
    }

    /// A change slower than the sessions' `statement_timeout` (an index build on a large table)
    /// still applies: migrations run without it. Under it the server failed at every start.
    func testAMigrationSlowerThanTheStatementTimeoutApplies() throws {
        try TemporaryPostgres.requireCluster()
        let temp = try TemporaryPostgres { $0.statementTimeoutMillis = 200; $0.writers = 1 }
        let migrator = Migrator(migrations: [
            Migration(name: "0001_slow", sql: "CREATE TABLE slow (id BIGINT PRIMARY KEY); SELECT pg_sleep(0.5);"),
        ])
        XCTAssertEqual(try migrator.migrate(temp.database, now: 1), ["0001_slow"])
        XCTAssertEqual(try migrator.applied(in: temp.database), ["0001_slow"])
        // The timeout is lifted for the migration's transaction only: the session keeps it.
        XCTAssertThrowsError(try temp.database.write { try $0.execute("SELECT pg_sleep(0.5)") }) { error in
            guard case StorageError.busy = error else { return XCTFail("\(error)") }
        }
    }

    /// A server that waits on the migrations' lock for longer than its `statement_timeout`
    /// (another server is applying a slow change) starts once the lock is free.
    func testAServerWaitingOnTheMigrationLockPastTheStatementTimeoutStarts() throws {
        try TemporaryPostgres.requireCluster()
        let temp = try TemporaryPostgres()
        let waiting = try PostgresDatabase(configuration: {
            var configuration = PostgresDatabase.Configuration(url: temp.url)
            configuration.statementTimeoutMillis = 200
            return configuration
        }())
        defer { waiting.close() }
        let migrator = Migrator(migrations: [Migration(name: "0001_quick", sql: "CREATE TABLE quick (id BIGINT PRIMARY KEY);")])

        // Another server holds the lock for 0.5 s, as it would while applying a change.
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread {
            _ = try? temp.database.write { c in
                try c.execute("SELECT pg_advisory_xact_lock(\(Migrator.advisoryLock))")
                holding.signal()
                usleep(500_000)  // the scenario: the other server holds the lock for a while, so the migrator must wait for it
            }
            released.signal()
        }.start()
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try migrator.migrate(waiting, now: 1), ["0001_quick"])
        XCTAssertEqual(released.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try migrator.applied(in: temp.database), ["0001_quick"])
    }

    /// Two SQLite databases on one file (two processes: `serve` beside `import-parse`, or two
    /// servers on one data directory) migrating at once both succeed, each change applied once.
    /// Both read what is applied before either applies anything (the barrier makes the race
    /// certain); the second then ran again the change the first had just committed ("table
    /// already exists") until the migrator re-read its record inside the change's transaction.
    func testTwoSQLiteDatabasesOnOneFileMigratingTogetherBothSucceed() throws {
        let migrator = Migrator(migrations: (1...5).map { n in
            Migration(name: "000\(n)_t", sql: "CREATE TABLE t\(n) (id INTEGER PRIMARY KEY); CREATE INDEX t\(n)_id ON t\(n) (id);")
        })
        let temp = try TemporarySQLite()
        let other = try SQLiteDatabase(configuration: .init(path: temp.path))
        defer { other.close() }
        let barrier = Barrier(parties: 2)
        let databases = [temp.database, other].map { PausingAfterFirstWrite($0, barrier: barrier) }
        let outcomes = Mutex([Result<[String], any Error>?](repeating: nil, count: 2))
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = Result { try migrator.migrate(databases[index], now: 1) }
            outcomes.withLock { $0[index] = result }
        }
        XCTAssertTrue(barrier.allArrived, "both read the applied migrations before either applied one")
        let applied = try outcomes.withLock { $0 }.map { try XCTUnwrap($0).get() }
        XCTAssertEqual(applied.flatMap { $0 }.sorted(), migrator.migrations.map(\.name), "each change applied once: \(applied)")
        XCTAssertEqual(try migrator.applied(in: other), migrator.migrations.map(\.name))
    }
}

/// A database whose first `write` (the migrator's read of what is applied) waits, once it has
/// committed, until every party of `barrier` has done the same.
private final class PausingAfterFirstWrite: ForwardingDatabase, Sendable {
    let base: any Database
    private let barrier: Barrier
    private let paused = Mutex(false)

    init(_ base: any Database, barrier: Barrier) {
        self.base = base
        self.barrier = barrier
    }

    func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        let result = try base.write(isolation: isolation, body)
        let first = paused.withLock { paused in
            defer { paused = true }
            return !paused
        }
        if first { barrier.arriveAndWait(timeout: 10) }
        return result
    }
}

/// Lets `parties` threads go on only once all of them have arrived (or `timeout` has passed).
private final class Barrier: Sendable {
    private let parties: Int
    private let arrived = Mutex(0)
    private let open = DispatchSemaphore(value: 0)

    init(parties: Int) { self.parties = parties }

    var allArrived: Bool { arrived.withLock { $0 } == parties }

    func arriveAndWait(timeout seconds: Int) {
        let last = arrived.withLock { count in
            count += 1
            return count == parties
        }
        if last {
            for _ in 1..<parties { open.signal() }
        } else {
            _ = open.wait(timeout: .now() + .seconds(seconds))
        }
    }
}
