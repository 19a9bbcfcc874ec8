import TestSupport
import XCTest
@testable import Storage

final class SchemaTests: XCTestCase {
    /// The embedded list must match `migrations/sqlite/` file for file, byte for byte.
    func testEmbeddedSchemaMatchesTheMigrationsFolder() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations/sqlite")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        XCTAssertEqual(Schema.sqlite.map { "\($0.name).sql" }, files)
        for migration in Schema.sqlite {
            let text = try String(contentsOf: folder.appendingPathComponent("\(migration.name).sql"), encoding: .utf8)
            XCTAssertEqual(migration.sql, text, migration.name)
        }
    }

    func testTheSchemaAppliesToAnEmptyDatabase() throws {
        let temp = try TemporaryDatabase()
        let applied = try Migrator(migrations: Schema.sqlite).migrate(temp.database, now: 0)
        XCTAssertEqual(applied, Schema.sqlite.map(\.name))
        let check = try temp.database.read { c in try c.fetchAll("PRAGMA foreign_key_check") }
        XCTAssertTrue(check.isEmpty)
    }

    // Which indexes the stores' statements use is checked on the statements themselves, in
    // SocialAPITests/QueryPlanTests.swift (the stores live in SocialAPI).
}
