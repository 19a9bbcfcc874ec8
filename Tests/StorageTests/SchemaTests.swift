import TestSupport
import XCTest
@testable import Schema
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

    /// 0009 upgrades a data directory in place: accounts with 1,000 followers or more become
    /// hot, and their videos leave their followers' home timelines (each owner keeps its own
    /// rows; an account below the threshold keeps its fan-out).
    func testHotAccountsUpgradeAnExistingDatabase() throws {
        let temp = try TemporaryDatabase()
        let migrations = Schema.migrations(for: temp.database.dialect)
        let before = Array(migrations.prefix { $0.name != "0009_hot_accounts" })
        XCTAssertEqual(before.count, 8)
        try Migrator(migrations: before).migrate(temp.database, now: 0)
        // PostgreSQL's seq columns are GENERATED ALWAYS: given values must say so.
        let given: SQL = temp.database.dialect == .postgres ? "OVERRIDING SYSTEM VALUE" : ""
        try temp.database.write { c in
            // u0 has 1,000 followers (u1...u1000), u1 has one (u2); each posted a video.
            try c.execute("""
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                INSERT INTO users (seq, id, username, username_key, email, email_key, display_name, password_hash,
                                   followers_count, created_at, updated_at) \(given)
                SELECT i + 1, 'u' || i, 'u' || i, 'u' || i, 'u' || i || '@example.com', 'u' || i || '@example.com', 'U', 'x',
                       CASE i WHEN 0 THEN 1000 WHEN 1 THEN 1 ELSE 0 END, 0, 0 FROM n
                """)
            try c.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) SELECT 'f' || i, 4, 'u' || i, 'u0', 1 FROM n
                """)
            try c.execute("INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) VALUES ('g', 4, 'u2', 'u1', 1)")
            try c.execute("INSERT INTO rallies (id, name, country, start_date, end_date, created_at, updated_at) VALUES ('r1', 'Rally', 'Monaco', 0, 0, 0, 0)")
            try c.execute("""
                INSERT INTO videos (seq, id, youtube_id, title, rally_id, day, owner_id, created_at, updated_at) \(given)
                VALUES (1, 'v0', 'aaaaaaaaaaa', 'Hot', 'r1', 1, 'u0', 10, 10), (2, 'v1', 'bbbbbbbbbbb', 'Not hot', 'r1', 1, 'u1', 11, 11)
                """)
            // The fan-out as 0008 left it: every owner's own row, and a row per follower.
            try c.execute("""
                INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq)
                SELECT seq, 10, 1, 1 FROM users WHERE seq <= 1001
                UNION ALL SELECT 2, 11, 2, 2 UNION ALL SELECT 3, 11, 2, 2
                """)
        }
        XCTAssertEqual(try Migrator(migrations: migrations).migrate(temp.database, now: 1), migrations.dropFirst(8).map(\.name))
        try temp.database.read { c in
            XCTAssertEqual(try c.fetchAll("SELECT user_id FROM feed_hot_accounts").map { try $0.decode(at: 0, as: String.self) }, ["u0"])
            let rows = try c.fetchAll("SELECT user_seq, video_seq FROM home_timeline ORDER BY user_seq, video_seq")
                .map { "\(try $0.decode(at: 0, as: Int.self)):\(try $0.decode(at: 1, as: Int.self))" }
            XCTAssertEqual(rows, ["1:1", "2:2", "3:2"], "the hot owner's own row and the other account's whole fan-out stay")
            let hotFollows = try c.fetchAll("SELECT owner_id, COUNT(*), MIN(user_seq), MAX(user_seq) FROM feed_hot_follows GROUP BY owner_id")
                .map { "\(try $0.decode(at: 0, as: String.self)) \(try $0.decode(at: 1, as: Int.self)) \(try $0.decode(at: 2, as: Int.self))-\(try $0.decode(at: 3, as: Int.self))" }
            XCTAssertEqual(hotFollows, ["u0 1000 2-1001"], "each follower of the hot account is listed (by seq)")
            let catalog: SQL = c.dialect == .postgres
                ? "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN ('home_timeline_owner', 'videos_owner_home')"
                : "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('home_timeline_owner', 'videos_owner_home')"
            XCTAssertEqual(try c.fetchAll(catalog).count, 2)
            if c.dialect == .sqlite { XCTAssertTrue(try c.fetchAll("PRAGMA foreign_key_check").isEmpty) }  // PostgreSQL checks its keys on every write
        }
        // The table still works as the old one did: its key refuses a duplicate.
        XCTAssertThrowsError(try temp.database.write { c in
            try c.execute("INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq) VALUES (1, 10, 1, 1)")
        })
    }

    /// 0016 upgrades a database in place: `videos_count` (users, rallies) counts the videos
    /// everyone can see, so hidden videos leave the counts that until then held them; a banned
    /// owner's videos stay out of them (ARCHITECTURE.md "Bans").
    func testVideosCountUpgradeLeavesHiddenVideosOut() throws {
        let temp = try TemporaryDatabase()
        let migrations = Schema.migrations(for: temp.database.dialect)
        let before = Array(migrations.prefix { $0.name != "0016_videos_count_visible" })
        XCTAssertEqual(before.count, 15)
        try Migrator(migrations: before).migrate(temp.database, now: 0)
        try temp.database.write { c in
            // The counts as 0015 kept them: every video of an owner who is not banned, hidden or not.
            try c.execute("""
                INSERT INTO users (id, username, username_key, email, email_key, display_name, password_hash, videos_count, banned_at, created_at, updated_at)
                VALUES ('u1', 'u1', 'u1', 'u1@example.com', 'u1@example.com', 'U', 'x', 3, NULL, 0, 0),
                       ('u2', 'u2', 'u2', 'u2@example.com', 'u2@example.com', 'U', 'x', 0, 5, 0, 0),
                       ('u3', 'u3', 'u3', 'u3@example.com', 'u3@example.com', 'U', 'x', 0, NULL, 0, 0)
                """)
            try c.execute("""
                INSERT INTO rallies (id, name, country, start_date, end_date, videos_count, created_at, updated_at)
                VALUES ('r1', 'Rally', 'Monaco', 0, 0, 2, 0, 0), ('r2', 'Rally', 'Sweden', 0, 0, 1, 0, 0)
                """)
            try c.execute("""
                INSERT INTO videos (id, youtube_id, title, rally_id, day, owner_id, hidden, created_at, updated_at)
                VALUES ('v1', 'aaaaaaaaaaa', 'Shown', 'r1', 1, 'u1', FALSE, 1, 1),
                       ('v2', 'bbbbbbbbbbb', 'Hidden', 'r1', 1, 'u1', TRUE, 2, 2),
                       ('v3', 'ccccccccccc', 'Shown', 'r2', 1, 'u1', FALSE, 3, 3),
                       ('v4', 'ddddddddddd', 'Banned owner', 'r1', 1, 'u2', FALSE, 4, 4),
                       ('v5', 'eeeeeeeeeee', 'Banned owner, hidden', 'r2', 1, 'u2', TRUE, 5, 5)
                """)
        }
        XCTAssertEqual(try Migrator(migrations: migrations).migrate(temp.database, now: 1), migrations.dropFirst(15).map(\.name))
        try temp.database.read { c in
            let users = try c.fetchAll("SELECT id, videos_count FROM users ORDER BY id")
                .map { "\(try $0.decode(at: 0, as: String.self)) \(try $0.decode(at: 1, as: Int.self))" }
            XCTAssertEqual(users, ["u1 2", "u2 0", "u3 0"], "u1's hidden video leaves its count; the banned u2 counts none")
            let rallies = try c.fetchAll("SELECT id, videos_count FROM rallies ORDER BY id")
                .map { "\(try $0.decode(at: 0, as: String.self)) \(try $0.decode(at: 1, as: Int.self))" }
            XCTAssertEqual(rallies, ["r1 1", "r2 1"], "only v1 and v3 count")
        }
    }
}
