import Foundation
import PostgresStorage
import SQLiteStorage
import Storage
import TestSupport
import XCTest

/// `pacenote import-parse` and `pacenote backup` against the PostgreSQL cluster of
/// `scripts/postgres` (PACENOTE_TEST_POSTGRES_URL): the real binary, its output, and what it
/// left in the database, read through the `Database` seam.
///
/// Without the cluster these tests have nothing to run against: outside CI they return at once
/// (`scripts/test` always starts one); in CI (CI=true) a missing cluster fails them.
final class PostgresCommandTests: XCTestCase {
    private var binary = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        binary = try TestServer.locateBinary()
    }

    /// The cluster's URL; nil outside CI when there is none (the test then returns).
    private func clusterURL() throws -> String? {
        if let url = TemporaryPostgres.baseURL { return url }
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw StorageError.connectionLost(TemporaryPostgres.skipReason) }
        return nil
    }

    private func run(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
        TestServer.run(binary: binary, arguments: arguments, timeout: 120, environment: environment)
    }

    private static func describe(_ run: (status: Int32, stdout: String, stderr: String)) -> String {
        "exit \(run.status)\n--- stdout ---\n\(run.stdout.suffix(3000))\n--- stderr ---\n\(run.stderr.suffix(3000))"
    }

    // MARK: import-parse

    /// What the import says, without its timings: the summary's lines and every skip and note line.
    private static func report(_ run: (status: Int32, stdout: String, stderr: String)) -> [String] {
        let summary = run.stdout.split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("import-parse finished in") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("phases:") }
        let entries = run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("skip ") || $0.hasPrefix("note ") }
        return ["exit \(run.status)"] + summary + entries
    }

    /// The rows an import leaves, by ids (seqs are each database's own), sorted.
    private static func contents(_ database: any Database) throws -> [String] {
        let queries: [(String, SQL)] = [
            ("user", "SELECT id, username, email, display_name, password_hash, followers_count, following_count, videos_count, created_at FROM users"),
            ("rally", "SELECT id, name, start_date, end_date, videos_count FROM rallies"),
            ("video", "SELECT id, youtube_id, title, rally_id, day, owner_id, likes_count, comments_count, flags_count, created_at FROM videos"),
            ("activity", "SELECT id, type, from_user_id, to_user_id, video_id, content, created_at FROM activities"),
            ("home", """
                SELECT r.id, h.created_at, v.id, o.id FROM home_timeline h
                JOIN users r ON r.seq = h.user_seq JOIN videos v ON v.seq = h.video_seq JOIN users o ON o.seq = h.owner_seq
                """),
            ("following", """
                SELECT r.id, t.created_at, a.id, o.id FROM following_timeline t
                JOIN users r ON r.seq = t.user_seq JOIN activities a ON a.seq = t.activity_seq JOIN users o ON o.seq = t.actor_seq
                """),
        ]
        return try database.read { connection in
            try queries.flatMap { name, query in
                try connection.fetchAll(query).map { row in name + " " + row.values.map(String.init(describing:)).joined(separator: " | ") }
            }.sorted()
        }
    }

    /// The fixture export (with its deliberate defects) imported twice into SQLite and twice
    /// into PostgreSQL: the same exit statuses, the same report lines, the same rows.
    func testTheImportReportsAndWritesTheSameOnSQLiteAndPostgreSQL() throws {
        guard try clusterURL() != nil else { return }
        let fixture = ImportTests.fixtureDirectory.path
        guard FileManager.default.fileExists(atPath: fixture + "/_User.json") else {
            throw FixtureMissing(path: fixture)
        }
        // The SQLite side is a data directory of its own, whatever database TestDatabase chooses.
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-import-sqlite-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: sqlite) }
        let postgres = try TemporaryPostgres()

        let sqliteRuns = [run(["import-parse", fixture, "--data-dir", sqlite.path]), run(["import-parse", fixture, "--data-dir", sqlite.path])]
        // The second PostgreSQL run names the database through PACENOTE_DATABASE_URL, as API.md allows.
        let postgresRuns = [run(["import-parse", fixture, "--database", postgres.url]),
                            run(["import-parse", fixture], environment: ["PACENOTE_DATABASE_URL": postgres.url])]
        for (index, (onSQLite, onPostgres)) in zip(sqliteRuns, postgresRuns).enumerated() {
            XCTAssertEqual(onSQLite.status, 0, Self.describe(onSQLite))
            XCTAssertEqual(Self.report(onPostgres), Self.report(onSQLite), "run \(index + 1): \(Self.describe(onPostgres))")
        }
        XCTAssertTrue(postgresRuns[0].stderr.contains("skip Video DupVideo01: duplicate video"), Self.describe(postgresRuns[0]))
        XCTAssertTrue(postgresRuns[1].stdout.contains("200 already present"), Self.describe(postgresRuns[1]))

        let sqliteDatabase = try SQLiteDatabase(configuration: .init(path: sqlite.appendingPathComponent("pacenote.sqlite").path))
        defer { sqliteDatabase.close() }
        let want = try Self.contents(sqliteDatabase)
        XCTAssertTrue(want.contains { $0.hasPrefix("following ") } && want.contains { $0.hasPrefix("home ") })
        XCTAssertEqual(try Self.contents(postgres.database), want)
    }

    /// A database the import cannot reach, or a URL that names none, stops it at once with a clear message.
    func testAnUnreachableOrMalformedDatabaseIsAClearError() throws {
        let refused = run(["import-parse", ImportTests.fixtureDirectory.path, "--database", "postgresql://postgres:sekret@127.0.0.1:1/nothing"])
        XCTAssertEqual(refused.status, 1, Self.describe(refused))
        XCTAssertTrue(refused.stderr.contains("database connection lost") && refused.stderr.contains("127.0.0.1"), Self.describe(refused))
        XCTAssertFalse(refused.stderr.contains("sekret"), "the password is never printed")
        let wrongScheme = run(["import-parse", ImportTests.fixtureDirectory.path, "--database", "mysql://localhost/x"])
        XCTAssertEqual(wrongScheme.status, 2, Self.describe(wrongScheme))
    }

    // MARK: backup

    /// A database of its own in the cluster (`pg_dump` dumps a whole database, and the restore
    /// needs an empty one), dropped at the end of the test.
    private final class ScratchDatabase {
        let url: String
        private let maintenance: [String]
        private let name: String

        init(base: String) throws {
            let info = try PostgresConnectionInfo(parsing: base)
            let option = { (keyword: String) in info.options.first { $0.keyword == keyword }?.value ?? "" }
            name = "pacenote_scratch_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            maintenance = ["-h", option("host"), "-p", option("port"), "-U", option("user")]
            url = "postgresql://\(option("user"))@\(option("host")):\(option("port"))/\(name)"
            let created = Self.tool("createdb", maintenance + [name])
            guard created.status == 0 else { throw StorageError.connectionLost("createdb \(name): \(created.stderr)") }
        }

        deinit { _ = Self.tool("dropdb", maintenance + ["--if-exists", name]) }

        /// A client program of the cluster's version (scripts/postgres runs PostgreSQL 15).
        static func tool(_ name: String, _ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
            TestServer.run(binary: "\(PostgresCommandTests.clientDirectory)/\(name)", arguments: arguments, timeout: 120)
        }
    }

    static let clientDirectory = "/usr/lib/postgresql/15/bin"

    /// `pacenote backup` on PostgreSQL runs pg_dump: the file is new, 0600, in pg_dump's custom
    /// format, and pg_restore brings every row back into an empty database.
    func testBackupDumpsWithPgDumpAndTheDumpRestores() throws {
        guard let base = try clusterURL() else { return }
        let source = try ScratchDatabase(base: base)
        let imported = run(["import-parse", ImportTests.fixtureDirectory.path, "--database", source.url])
        XCTAssertEqual(imported.status, 0, Self.describe(imported))

        let target = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-backup-\(UUID().uuidString.prefix(8)).dump").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        let path = "\(Self.clientDirectory):" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let backup = run(["backup", target, "--database", source.url], environment: ["PATH": path])
        XCTAssertEqual(backup.status, 0, Self.describe(backup))
        XCTAssertEqual(backup.stdout.trimmingCharacters(in: .whitespacesAndNewlines), target)
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the dump holds password hashes: 0600")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)).prefix(5), Data("PGDMP".utf8), "pg_dump's custom format")

        let again = run(["backup", target, "--database", source.url], environment: ["PATH": path])
        XCTAssertEqual(again.status, 2, "an existing file is never overwritten: \(Self.describe(again))")

        let restored = try ScratchDatabase(base: base)
        let restore = ScratchDatabase.tool("pg_restore", ["--exit-on-error", "--no-owner", "--dbname", restored.url, target])
        XCTAssertEqual(restore.status, 0, Self.describe(restore))
        var configuration = PostgresDatabase.Configuration(url: restored.url)
        configuration.readers = 1
        configuration.writers = 1
        let database = try PostgresDatabase(configuration: configuration)
        defer { database.close() }
        let user = try database.read { connection in
            try connection.fetchOne("SELECT username, created_at FROM users WHERE id = \("4qY6Nb3wWD")")
        }
        XCTAssertEqual(try user?.decode(at: 0, as: String.self), "stephane_kubica")
        XCTAssertEqual(try user?.decode(at: 1, as: Int64.self), 1_372_840_542_288)
        var sourceConfiguration = PostgresDatabase.Configuration(url: source.url)
        sourceConfiguration.readers = 1
        sourceConfiguration.writers = 1
        let original = try PostgresDatabase(configuration: sourceConfiguration)
        defer { original.close() }
        XCTAssertEqual(try Self.contents(database), try Self.contents(original), "every row came back")
    }

    /// Without pg_dump on PATH, backup says to use pg_dump and how, prints no password, and
    /// leaves no file.
    func testBackupWithoutPgDumpSaysHowToDumpByHand() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-backup-\(UUID().uuidString.prefix(8)).dump").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-empty-path-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = run(["backup", target, "--database", "postgresql://postgres:sekret@127.0.0.1:5432/pacenote"], environment: ["PATH": empty.path])
        XCTAssertEqual(result.status, 1, Self.describe(result))
        XCTAssertTrue(result.stderr.contains("pg_dump, which is not on PATH"), Self.describe(result))
        XCTAssertTrue(result.stderr.contains("pg_dump --format=custom --file=FILE"), Self.describe(result))
        XCTAssertTrue(result.stderr.contains("dbname='pacenote'"), Self.describe(result))
        XCTAssertFalse(result.stderr.contains("sekret") || result.stdout.contains("sekret"), "the password is never printed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "no file is left behind")
    }
}
