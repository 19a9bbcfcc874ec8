import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import Storage

/// Several servers starting at once on one PostgreSQL schema: each change is applied once, by
/// whichever takes the migrations' lock first, and every server starts, however long the
/// others keep it waiting.
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
                usleep(500_000)
            }
            released.signal()
        }.start()
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try migrator.migrate(waiting, now: 1), ["0001_quick"])
        XCTAssertEqual(released.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try migrator.applied(in: temp.database), ["0001_quick"])
    }
}
