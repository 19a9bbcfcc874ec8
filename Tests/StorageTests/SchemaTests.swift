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

    /// The lists that must cost the same at any size read through an index, not a scan
    /// (statements shaped as the stores write them; `type` is a literal, as there).
    func testListsOfActivitiesReadThroughTheirIndexes() throws {
        let temp = try TemporaryDatabase()
        try Migrator(migrations: Schema.sqlite).migrate(temp.database, now: 0)
        func plan(_ sql: String) throws -> String {
            try temp.database.read { c in
                try c.fetchAll(SQL(unsafeSQL: "EXPLAIN QUERY PLAN " + sql)).map { try $0.decode("detail", as: String.self) }
            }.joined(separator: "; ")
        }
        let followers = try plan("""
            SELECT a.id FROM activities a WHERE a.to_user_id = 'u' AND a.type = 4 AND (a.created_at, a.id) < (1, 'x')
            ORDER BY a.created_at DESC, a.id DESC LIMIT 20
            """)
        XCTAssertTrue(followers.contains("activities_followers"), followers)
        XCTAssertFalse(followers.contains("TEMP B-TREE"), followers)
        let news = try plan("""
            SELECT a.id FROM activities a WHERE a.to_user_id = 'u' AND a.from_user_id <> 'u' AND a.type <> 3
            ORDER BY a.created_at DESC, a.id DESC LIMIT 20
            """)
        XCTAssertTrue(news.contains("activities_to_recent"), news)
        XCTAssertFalse(news.contains("TEMP B-TREE"), news)
        let fanOut = try plan("SELECT 1 FROM activities WHERE type = 4 AND to_user_id = 'u' AND seq > 5 LIMIT 1")
        XCTAssertTrue(fanOut.contains("activities_followers"), fanOut)
    }
}
