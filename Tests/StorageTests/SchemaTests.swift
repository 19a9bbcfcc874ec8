import TestSupport
import XCTest
@testable import Storage

final class SchemaTests: XCTestCase {
    /// Each embedded list must match its `migrations/<dialect>/` folder file for file, byte for byte.
    func testEmbeddedSchemaMatchesTheMigrationsFolder() throws {
        for (dialect, migrations) in [("sqlite", Schema.sqlite), ("postgres", Schema.postgres)] {
            let folder = Self.migrationsFolder.appendingPathComponent(dialect)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
            XCTAssertEqual(migrations.map { "\($0.name).sql" }, files, dialect)
            for migration in migrations {
                let text = try String(contentsOf: folder.appendingPathComponent("\(migration.name).sql"), encoding: .utf8)
                XCTAssertEqual(migration.sql, text, "\(dialect)/\(migration.name)")
            }
        }
    }

    /// Both dialects carry the same numbered changes under the same names, so a change added
    /// to one and not the other fails here (and `schema_migrations` reads the same on both).
    func testBothDialectsHaveTheSameMigrations() throws {
        XCTAssertEqual(Schema.sqlite.map(\.name), Schema.postgres.map(\.name))
        let sqlite = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsFolder.appendingPathComponent("sqlite").path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        let postgres = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsFolder.appendingPathComponent("postgres").path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        XCTAssertEqual(sqlite, postgres, "migrations/sqlite and migrations/postgres hold different changes")
        XCTAssertEqual(Schema.migrations(for: .sqlite).map(\.name), Schema.sqlite.map(\.name))
        XCTAssertEqual(Schema.migrations(for: .postgres).map(\.name), Schema.postgres.map(\.name))
    }

    private static let migrationsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("migrations")

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
