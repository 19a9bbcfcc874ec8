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
        let temp = try TemporarySQLite()
        let applied = try Migrator(migrations: Schema.sqlite).migrate(temp.database, now: 0)
        XCTAssertEqual(applied, Schema.sqlite.map(\.name))
        let check = try temp.database.read { c in try c.fetchAll("PRAGMA foreign_key_check") }
        XCTAssertTrue(check.isEmpty)
    }

    // Which indexes the stores' statements use is checked on the statements themselves, in
    // SocialAPITests/QueryPlanTests.swift (the stores live in SocialAPI).

    /// 0005 upgrades a data directory in place: rows indexed before it are found by the new
    /// indexes, by 2-letter prefixes (the new prefix index) too, and the triggers keep working.
    func testSearchPrefixIndexesUpgradeAnExistingDatabase() throws {
        let temp = try TemporarySQLite()
        let before = Array(Schema.sqlite.prefix { $0.name != "0005_search_prefix_indexes" })
        XCTAssertEqual(before.count, 4)
        try Migrator(migrations: before).migrate(temp.database, now: 0)
        try temp.database.write { c in
            try c.execute("""
                INSERT INTO users (id, username, username_key, email, email_key, display_name, password_hash, created_at, updated_at)
                VALUES ('u1', 'Ogier', 'ogier', 'o@example.com', 'o@example.com', 'Sébastien Ogier', 'x', 0, 0)
                """)
            try c.execute("INSERT INTO rallies (id, name, country, start_date, end_date, created_at, updated_at) VALUES ('r1', 'Rally', 'Monaco', 0, 0, 0, 0)")
            try c.execute("""
                INSERT INTO videos (id, youtube_id, title, rally_id, day, owner_id, created_at, updated_at)
                VALUES ('v1', 'aaaaaaaaaaa', 'Montée de Sisteron', 'r1', 1, 'u1', 0, 0)
                """)
        }
        XCTAssertEqual(try Migrator(migrations: Schema.sqlite).migrate(temp.database, now: 1), Schema.sqlite.dropFirst(4).map(\.name))
        func count(_ table: String, _ match: String) throws -> Int {
            try temp.database.read { c in
                try c.fetchValue("SELECT count(*) FROM \(unsafe: table) WHERE \(unsafe: table) MATCH \(match)", as: Int.self) ?? -1
            }
        }
        XCTAssertEqual(try count("users_search", "\"se\"*"), 1, "a row indexed before the migration, by a 2-letter prefix")
        XCTAssertEqual(try count("videos_search", "\"mon\"*"), 1)
        XCTAssertEqual(try count("videos_search", "\"montee\""), 1, "accents still folded")
        let option = try temp.database.read { c in
            try c.fetchValue("SELECT sql FROM sqlite_master WHERE name = 'videos_search'", as: String.self) ?? ""
        }
        XCTAssertTrue(option.contains("prefix = '2 3'"), option)
        try temp.database.write { c in try c.execute("UPDATE videos SET title = 'Col de Turini' WHERE id = 'v1'") }
        XCTAssertEqual(try count("videos_search", "\"tu\"*"), 1, "the triggers maintain the new table")
        XCTAssertEqual(try count("videos_search", "\"mon\"*"), 0)
    }
}
