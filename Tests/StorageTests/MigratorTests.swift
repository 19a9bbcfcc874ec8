import TestSupport
import XCTest
@testable import Storage

/// On the dialect `TestDatabase` chooses: the same migrations, in DDL both understand.
final class MigratorTests: XCTestCase {
    func testAppliesPendingMigrationsOnceInOrder() throws {
        let temp = try TemporaryDatabase()
        let first = Migrator(migrations: [
            Migration(name: "0002_b", sql: "CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a (id));"),
            Migration(name: "0001_a", sql: "CREATE TABLE a (id INTEGER PRIMARY KEY);"),
        ])
        XCTAssertEqual(try first.migrate(temp.database, now: 1), ["0001_a", "0002_b"])
        XCTAssertEqual(try first.migrate(temp.database, now: 2), [])

        let second = Migrator(migrations: first.migrations + [Migration(name: "0003_c", sql: "CREATE TABLE c (x INTEGER); CREATE INDEX c_x ON c (x);")])
        XCTAssertEqual(try second.migrate(temp.database, now: 3), ["0003_c"])
        XCTAssertEqual(try second.applied(in: temp.database), ["0001_a", "0002_b", "0003_c"])
    }

    func testAFailingMigrationLeavesNothingBehind() throws {
        let temp = try TemporaryDatabase()
        let migrator = Migrator(migrations: [
            Migration(name: "0001_ok", sql: "CREATE TABLE ok (id INTEGER);"),
            Migration(name: "0002_broken", sql: "CREATE TABLE half (id INTEGER); CREATE TABLE ok (id INTEGER);"),
        ])
        XCTAssertThrowsError(try migrator.migrate(temp.database, now: 1)) { error in
            guard case MigrationError.failed(let name, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "0002_broken")
        }
        XCTAssertEqual(try migrator.applied(in: temp.database), ["0001_ok"])
        let catalog: SQL = temp.dialect == .sqlite
            ? "SELECT name FROM sqlite_master WHERE name = 'half'"
            : "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'half'"
        let half = try temp.database.read { c in try c.fetchOne(catalog) }
        XCTAssertNil(half, "the broken migration's first statement was rolled back")
    }

    func testRefusesADatabaseMigratedByANewerBinary() throws {
        let temp = try TemporaryDatabase()
        try Migrator(migrations: [Migration(name: "0001_a", sql: "CREATE TABLE a (x INTEGER);"), Migration(name: "0002_future", sql: "CREATE TABLE f (x INTEGER);")])
            .migrate(temp.database, now: 1)
        XCTAssertThrowsError(try Migrator(migrations: [Migration(name: "0001_a", sql: "CREATE TABLE a (x INTEGER);")]).migrate(temp.database, now: 2)) { error in
            guard case MigrationError.unknownApplied(let names) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(names, ["0002_future"])
        }
    }
}
