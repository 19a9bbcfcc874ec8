import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import Storage

/// Several servers starting at once on one PostgreSQL schema: each change is applied once, by
/// whichever takes the migrations' lock first, and every server starts.
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
}
