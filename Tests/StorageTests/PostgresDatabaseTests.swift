import Foundation
import TestSupport
import XCTest
@testable import PostgresStorage
@testable import Schema
@testable import Storage

/// The PostgreSQL driver against a real server: the cluster `scripts/postgres` starts (as
/// `scripts/test` does). Skipped when PACENOTE_TEST_POSTGRES_URL is not set, except in CI
/// (`CI=true`, as `.ci/run` sets), where a missing cluster fails instead of skipping silently.
final class PostgresDatabaseTests: XCTestCase {
    private func requireServer() throws {
        guard TemporaryPostgres.baseURL == nil else { return }
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw StorageError.connectionLost(TemporaryPostgres.skipReason) }
        throw XCTSkip(TemporaryPostgres.skipReason)
    }

    private func temporary(migrated: Bool = false, _ configure: (inout PostgresDatabase.Configuration) -> Void = { _ in }) throws -> TemporaryPostgres {
        try requireServer()
        return try TemporaryPostgres(migrated: migrated, configure: configure)
    }

    func testEveryValueTypeRoundTripsThroughBoundParameters() throws {
        let temp = try temporary()
        let db = temp.database
        XCTAssertEqual(db.dialect, .postgres)
        let bytes: [UInt8] = Array(0...255)
        // Quotes, a backslash and a placeholder-looking text: bound, never spliced.
        let text = "it's \\ $1 é🏁"
        try db.write { c in
            try c.execute("""
                CREATE TABLE v (n BIGINT, small INTEGER, d DOUBLE PRECISION, t TEXT, b BYTEA, flag BOOLEAN, amount NUMERIC)
                """)
            try c.execute("INSERT INTO v VALUES (\(Int64.max), \(7), \(1.5), \(text), \(bytes), \(true), \(12))")
            try c.execute("INSERT INTO v VALUES (\(Int64.min), \(-3), \(-0.25e300), \(""), \([UInt8]()), \(false), \(2.5))")
            try c.execute("INSERT INTO v VALUES (\(Int64?.none), \(Int?.none), \(Double?.none), \(String?.none), \([UInt8]?.none), \(Bool?.none), NULL)")
        }
        let rows = try db.read { c in try c.fetchAll("SELECT n, small, d, t, b, flag, amount FROM v ORDER BY n NULLS LAST") }
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows[0].columns, ["n", "small", "d", "t", "b", "flag", "amount"])
        XCTAssertEqual(rows[0].values, [.integer(Int64.min), .integer(-3), .real(-0.25e300), .text(""), .blob([]), .integer(0), .real(2.5)])
        XCTAssertEqual(rows[1].values, [.integer(Int64.max), .integer(7), .real(1.5), .text(text), .blob(bytes), .integer(1), .real(12)])
        XCTAssertEqual(rows[2].values, Array(repeating: DatabaseValue.null, count: 7))
        // Booleans decode as the Bool SQLite's 0/1 gives; a whole numeric as an integer.
        XCTAssertEqual(try rows[1].decode("flag", as: Bool.self), true)
        XCTAssertEqual(try rows[0].decode("flag", as: Bool.self), false)
        XCTAssertEqual(try rows[1].decode("amount", as: Int.self), 12)
        XCTAssertNil(try rows[2].decode("flag", as: Bool?.self))

        // The same values read in place.
        let read = try db.read { c in
            try c.fetchAll("SELECT n, t, b, flag, d FROM v WHERE n IS NOT NULL ORDER BY n") { reader in
                (try reader.next(as: Int64.self), try reader.next(as: String.self), try reader.next(as: [UInt8].self),
                 try reader.next(as: Bool.self), reader.nextIsNull, try reader.next(as: Double.self))
            }
        }
        XCTAssertEqual(read.map(\.0), [Int64.min, Int64.max])
        XCTAssertEqual(read.map(\.1), ["", text])
        XCTAssertEqual(read.map(\.2), [[], bytes])
        XCTAssertEqual(read.map(\.3), [false, true])
        XCTAssertEqual(read.map(\.4), [false, false])
        XCTAssertEqual(read.map(\.5), [-0.25e300, 1.5])
        XCTAssertThrowsError(try db.read { c in try c.fetchAll("SELECT t FROM v LIMIT 1") { reader in try reader.next(as: Int.self) } }) { error in
            guard case StorageError.decoding(let column, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(column, "t")
        }
    }

    func testBoolParametersFitBooleanColumnsAndExecuteCountsRows() throws {
        let temp = try temporary()
        let changed = try temp.database.write { c in
            try c.execute("CREATE TABLE f (id BIGINT, hidden BOOLEAN NOT NULL)")
            try c.execute("INSERT INTO f VALUES (1, \(false)), (2, \(true)), (3, \(false))")
            return try c.execute("UPDATE f SET hidden = \(true) WHERE hidden = \(false)")
        }
        XCTAssertEqual(changed, 2)
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM f WHERE hidden", as: Int.self) }, 3)
    }

    func testTextWithNULIsRefusedNotCutShort() throws {
        let temp = try temporary()
        XCTAssertThrowsError(try temp.database.write { c in
            try c.execute("CREATE TABLE s (t TEXT)")
            try c.execute("INSERT INTO s VALUES (\("a\u{0}b"))")
        }) { error in
            guard case StorageError.unstorableText = error else { return XCTFail("\(error)") }
        }
    }

    func testStatementsArePreparedOncePerSession() throws {
        let temp = try temporary { $0.readers = 1 }
        let query: SQL = "SELECT \(41) + 1 AS answer"
        let answers = try (0..<3).map { _ in try temp.database.read { try $0.fetchValue(query, as: Int.self) } }
        XCTAssertEqual(answers, [42, 42, 42])
        let prepared = try temp.database.read { c in
            try c.fetchValue("SELECT count(*) FROM pg_prepared_statements WHERE statement = \(query.render(for: .postgres).text)", as: Int.self)
        }
        XCTAssertEqual(prepared, 1)
        XCTAssertEqual(query.render(for: .postgres).text, "SELECT $1 + 1 AS answer")
    }

    func testConstraintErrorsKeepTheirNamesAndNoValues() throws {
        let temp = try temporary()
        let db = temp.database
        try db.write { c in
            try c.executeScript("""
                CREATE TABLE parent (id TEXT PRIMARY KEY, email_key TEXT NOT NULL UNIQUE, n BIGINT CHECK (n >= 0));
                CREATE TABLE child (parent_id TEXT REFERENCES parent (id));
                INSERT INTO parent VALUES ('p1', 'secret@example.com', 1);
                """)
        }
        func failure(_ sql: SQL) -> StorageError? {
            do {
                try db.write { try $0.execute(sql) }
                return nil
            } catch {
                return error as? StorageError
            }
        }
        let duplicate = failure("INSERT INTO parent VALUES ('p2', \("secret@example.com"), 1)")
        XCTAssertEqual(duplicate?.isUniqueViolation(on: "email_key"), true, "\(String(describing: duplicate))")
        XCTAssertEqual(duplicate?.isUniqueViolation(on: "username_key"), false)
        XCTAssertFalse(String(describing: duplicate).contains("secret@example.com"), "the value stays out of the error")
        guard case .uniqueViolation(let name)? = duplicate else { return XCTFail("\(String(describing: duplicate))") }
        XCTAssertEqual(name, "parent.parent_email_key_key (email_key)")

        guard case .uniqueViolation(let primary)? = failure("INSERT INTO parent VALUES ('p1', 'x', 1)") else { return XCTFail() }
        XCTAssertEqual(primary, "parent.parent_pkey (id)")
        guard case .foreignKeyViolation(let foreign)? = failure("INSERT INTO child VALUES ('nobody')") else { return XCTFail() }
        XCTAssertEqual(foreign, "child_parent_id_fkey")
        guard case .checkViolation(let check)? = failure("INSERT INTO parent VALUES ('p3', 'y', -1)") else { return XCTFail() }
        XCTAssertEqual(check, "parent_n_check")
        guard case .notNullViolation(let column)? = failure("INSERT INTO parent (id) VALUES ('p4')") else { return XCTFail() }
        XCTAssertEqual(column, "parent.email_key")
        guard case .driver(let syntax as PostgresError)? = failure("SELEC 1") else { return XCTFail() }
        XCTAssertEqual(syntax.sqlstate, "42601")
        XCTAssertEqual(syntax.function, "PQprepare")

        // A failed write rolled back: only the first row is there, and the session is usable.
        XCTAssertEqual(try db.read { try $0.fetchValue("SELECT count(*) FROM parent", as: Int.self) }, 1)
    }

    func testTheSchemaAppliesToAnEmptyDatabaseAndNamesItsUniqueViolations() throws {
        let temp = try temporary()
        let migrator = Migrator(migrations: Schema.postgres)
        XCTAssertEqual(try migrator.migrate(temp.database, now: 1_700_000_000_000), Schema.postgres.map(\.name))
        XCTAssertEqual(try migrator.migrate(temp.database, now: 1_700_000_000_001), [], "a second run applies nothing")
        XCTAssertEqual(try migrator.applied(in: temp.database), Schema.postgres.map(\.name))
        let appliedAt = try temp.database.read { try $0.fetchValue("SELECT max(applied_at) FROM schema_migrations", as: Int64.self) }
        XCTAssertEqual(appliedAt, 1_700_000_000_000, "milliseconds fit (BIGINT)")

        func insertUser(_ id: String, username: String, email: String) throws {
            try temp.database.write { c in
                try c.execute("""
                    INSERT INTO users (id, username, username_key, email, email_key, display_name, password_hash, created_at, updated_at)
                    VALUES (\(id), \(username), \(username.lowercased()), \(email), \(email.lowercased()), \("Zoë Crème"), 'x', 0, 0)
                    """)
            }
        }
        try insertUser("u1", username: "Alice", email: "a@example.com")
        XCTAssertThrowsError(try insertUser("u2", username: "alice", email: "b@example.com")) { error in
            XCTAssertTrue((error as? StorageError)?.isUniqueViolation(on: "username_key") == true, "\(error)")
            XCTAssertFalse((error as? StorageError)?.isUniqueViolation(on: "email_key") == true)
        }
        XCTAssertThrowsError(try insertUser("u3", username: "carol", email: "A@example.com")) { error in
            XCTAssertTrue((error as? StorageError)?.isUniqueViolation(on: "email_key") == true, "\(error)")
        }
        // The search document folds accents (unaccent), kept by the trigger.
        let found = try temp.database.read { c in
            try c.fetchValue("""
                SELECT u.id FROM users_search s JOIN users u ON u.seq = s.seq
                WHERE s.document @@ to_tsquery('simple', unaccent(\("creme")))
                """, as: String.self)
        }
        XCTAssertEqual(found, "u1")
        // Booleans with their defaults read as Bool.
        let notify = try temp.database.read { try $0.fetchOne("SELECT notify_new_videos, notify_following_activity FROM users WHERE id = 'u1'") }
        XCTAssertEqual(try notify?.decode(at: 0, as: Bool.self), true)
        XCTAssertEqual(try notify?.decode(at: 1, as: Bool.self), false)
    }

    /// Write skew: each transaction counts the rows, then inserts one numbered by the count.
    /// Both count before either inserts; under SERIALIZABLE one of them fails with 40001, and
    /// `write` runs it again, so the numbers come out distinct, as with SQLite's single writer.
    func testSerializationFailuresAreRetried() throws {
        let temp = try temporary()
        try temp.database.write { try $0.execute("CREATE TABLE tickets (n BIGINT NOT NULL)") }
        let error = racingWriters(temp.database)
        XCTAssertNil(error, "\(String(describing: error))")
        let numbers = try temp.database.read { c in try c.fetchAll("SELECT n FROM tickets ORDER BY n").map { try $0.decode(at: 0, as: Int.self) } }
        XCTAssertEqual(numbers, [0, 1])
        XCTAssertGreaterThanOrEqual(temp.database.conflictRetries, 1)
    }

    /// Without retries left, the conflict is the server's state (503 `unavailable`, as a SQLite
    /// write past its busy timeout), not an internal error.
    func testWithoutRetriesTheSerializationFailureIsBusy() throws {
        let temp = try temporary { $0.writeAttempts = 1 }
        try temp.database.write { try $0.execute("CREATE TABLE tickets (n BIGINT NOT NULL)") }
        let error = racingWriters(temp.database)
        guard case StorageError.busy? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(temp.database.conflictRetries, 0)
    }

    /// A statement that fails aborts a PostgreSQL transaction, whatever the body does with the
    /// error: COMMIT then rolls back (it answers the tag ROLLBACK, not an error). A body that
    /// swallowed the failure (`try?`) and returned must not be told its write committed.
    func testAWriteWhoseBodySwallowedAFailureThrowsAndCommitsNothing() throws {
        let temp = try temporary()
        _ = try temp.database.write { try $0.execute("CREATE TABLE kept (n BIGINT NOT NULL)") }
        XCTAssertThrowsError(try temp.database.write { c in
            try c.execute("INSERT INTO kept VALUES (1)")
            _ = try? c.execute("SELECT 1 / 0")
        }) { error in
            guard case StorageError.transactionAborted(let cause?) = error, case .driver(let driver as PostgresError) = cause else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(driver.sqlstate, "22012", "the cause is the failure the body swallowed")
        }
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM kept", as: Int.self) }, 0)
        XCTAssertEqual(temp.database.conflictRetries, 0, "an aborted transaction whose cause is not a conflict is not run again")
    }

    /// A serialization failure the body swallowed is still a conflict: the write runs again,
    /// from the start, as if the body had let it through, and what the second run wrote commits.
    func testASwallowedSerializationFailureIsRetried() throws {
        let temp = try temporary()
        _ = try temp.database.write { try $0.execute("CREATE TABLE kept (n BIGINT NOT NULL)") }
        var attempts = 0
        try temp.database.write { c in
            attempts += 1
            try c.execute("INSERT INTO kept VALUES (\(attempts))")
            if attempts == 1 { _ = try? c.executeScript(Self.serializationFailure) }
        }
        XCTAssertEqual(attempts, 2)
        let rows = try temp.database.read { c in try c.fetchAll("SELECT n FROM kept").map { try $0.decode(at: 0, as: Int.self) } }
        XCTAssertEqual(rows, [2], "only the second run committed")
        XCTAssertEqual(temp.database.conflictRetries, 1)
    }

    /// After a swallowed serialization failure the next statement fails with 25P02 ("current
    /// transaction is aborted"); the write answers the cause, a conflict, and runs again.
    func testAStatementAfterASwallowedConflictRetriesTheWrite() throws {
        let temp = try temporary()
        _ = try temp.database.write { try $0.execute("CREATE TABLE kept (n BIGINT NOT NULL)") }
        var attempts = 0
        try temp.database.write { c in
            attempts += 1
            if attempts == 1 { _ = try? c.executeScript(Self.serializationFailure) }
            try c.execute("INSERT INTO kept VALUES (\(attempts))")
        }
        XCTAssertEqual(attempts, 2)
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM kept", as: Int.self) }, 1)
    }

    /// A body that swallowed a serialization failure and then threw an error of its own (a
    /// lookup under `try?` that answered "not found") decided on a read that failed: the
    /// transaction is aborted by a conflict, so the write runs again rather than answer the
    /// body's error.
    func testAnErrorOfTheBodyAfterASwallowedConflictRetriesTheWrite() throws {
        struct NotFound: Error {}
        let temp = try temporary()
        _ = try temp.database.write { try $0.execute("CREATE TABLE kept (n BIGINT NOT NULL)") }
        var attempts = 0
        try temp.database.write { c in
            attempts += 1
            if attempts == 1, (try? c.executeScript(Self.serializationFailure)) == nil { throw NotFound() }
            try c.execute("INSERT INTO kept VALUES (\(attempts))")
        }
        XCTAssertEqual(attempts, 2)
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM kept", as: Int.self) }, 1)
        // A body's own error in a transaction that no failure aborted is answered unchanged.
        XCTAssertThrowsError(try temp.database.write { _ in throw NotFound() }) { error in XCTAssertTrue(error is NotFound, "\(error)") }
    }

    /// A real serialization failure (40001) from the server, without racing another writer for it.
    private static let serializationFailure = SQL(unsafeSQL: """
        DO $$ BEGIN RAISE EXCEPTION 'could not serialize access' USING ERRCODE = 'serialization_failure'; END $$
        """)

    /// Two threads whose first attempts both read before either writes (each waits, at most
    /// 10 s, for the other's read); answers the first error thrown, if any.
    private func racingWriters(_ database: PostgresDatabase) -> (any Error)? {
        let bothRead = DispatchGroup()
        bothRead.enter()
        bothRead.enter()
        let errors = ErrorBox()
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread {
                defer { done.leave() }
                var attempt = 0
                do {
                    try database.write { c in
                        attempt += 1
                        let count = try c.fetchValue("SELECT count(*) FROM tickets", as: Int.self) ?? -1
                        if attempt == 1 {
                            bothRead.leave()
                            _ = bothRead.wait(timeout: .now() + 10)
                        }
                        try c.execute("INSERT INTO tickets VALUES (\(count))")
                    }
                } catch {
                    errors.set(error)
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        return errors.first
    }

    func testAStatementPastTheTimeoutIsCancelledAsBusy() throws {
        let temp = try temporary { $0.statementTimeoutMillis = 200; $0.readers = 1 }
        XCTAssertThrowsError(try temp.database.read { try $0.execute("SELECT pg_sleep(10)") }) { error in
            guard case StorageError.busy = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT 1", as: Int.self) }, 1, "the session is still usable")
    }

    func testAnExhaustedPoolAnswersBusyAfterItsWait() throws {
        let temp = try temporary { $0.readers = 1; $0.acquireTimeoutMillis = 200 }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            _ = try? temp.database.read { _ in
                holding.signal()
                _ = release.wait(timeout: .now() + 10)
            }
            finished.signal()
        }.start()
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(temp.database.readerUsage.inUse, 1)
        XCTAssertEqual(temp.database.readerUsage.total, 1)
        XCTAssertThrowsError(try temp.database.read { try $0.fetchValue("SELECT 1", as: Int.self) }) { error in
            guard case StorageError.busy = error else { return XCTFail("\(error)") }
        }
        release.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT 1", as: Int.self) }, 1)
        XCTAssertEqual(temp.database.readerUsage.inUse, 0)
    }

    func testASessionKilledByTheServerIsReplaced() throws {
        let temp = try temporary { $0.readers = 1; $0.writers = 1 }
        let before = try temp.database.read { try $0.fetchValue("SELECT pg_backend_pid()", as: Int.self) }
        let writerBefore = try temp.database.write { try $0.fetchValue("SELECT pg_backend_pid()", as: Int.self) }
        // What a server restart or an operator's pg_terminate_backend does to pooled sessions.
        let killer = try TemporaryPostgres()
        let terminated = try killer.database.write { c in
            try c.fetchValue("SELECT count(*) FROM pg_stat_activity WHERE pid IN (\(before), \(writerBefore)) AND pg_terminate_backend(pid)", as: Int.self)
        }
        XCTAssertEqual(terminated, 2)
        let after = try temp.database.read { try $0.fetchValue("SELECT pg_backend_pid()", as: Int.self) }
        XCTAssertNotNil(after)
        XCTAssertNotEqual(after, before)
        try temp.database.write { try $0.execute("CREATE TABLE survived (n BIGINT)") }
        XCTAssertTrue(temp.database.ping())
    }

    func testReconnectsAfterTheServerRestarts() throws {
        let temp = try temporary { $0.readers = 2; $0.writers = 2 }
        guard let restart = ProcessInfo.processInfo.environment["PACENOTE_TEST_POSTGRES_RESTART"], !restart.isEmpty else {
            let reason = "PACENOTE_TEST_POSTGRES_RESTART is not set (scripts/postgres sets it)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw StorageError.connectionLost(reason) }
            throw XCTSkip(reason)
        }
        try temp.database.write { c in
            try c.execute("CREATE TABLE kept (n BIGINT)")
            try c.execute("INSERT INTO kept VALUES (\(1))")
        }
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM kept", as: Int.self) }, 1)

        XCTAssertEqual(try Self.runShell(restart + " >/dev/null 2>&1"), 0, "pg_ctl restart")

        // Every pooled session died with the old server; the next calls open new ones.
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM kept", as: Int.self) }, 1)
        try temp.database.write { try $0.execute("INSERT INTO kept VALUES (\(2))") }
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT sum(n) FROM kept", as: Int.self) }, 3)
        XCTAssertTrue(temp.database.ping())
    }

    /// Runs a shell command and answers its exit status. posix_spawn and waitpid rather than
    /// Foundation's Process, whose waitUntilExit waits on a descriptor the restarted server
    /// inherits, and so never returned.
    private static func runShell(_ command: String) throws -> Int32 {
        var pid: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, arguments, environ)
        guard spawned == 0 else { throw StorageError.connectionLost("posix_spawn failed: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    func testAWrongURLFailsAtOpen() throws {
        try requireServer()
        var configuration = PostgresDatabase.Configuration(url: "postgresql://postgres@127.0.0.1:1/none?connect_timeout=2")
        configuration.readers = 1
        XCTAssertThrowsError(try PostgresDatabase(configuration: configuration)) { error in
            guard case StorageError.connectionLost = error else { return XCTFail("\(error)") }
        }
    }

    func testClosedDatabaseRefusesCalls() throws {
        let temp = try temporary()
        temp.database.close()
        XCTAssertThrowsError(try temp.database.read { try $0.fetchValue("SELECT 1", as: Int.self) })
        XCTAssertFalse(temp.database.ping())
    }
}

/// The first error of several threads.
private final class ErrorBox: @unchecked Sendable {
    // @unchecked: `error` is only touched under `lock`.
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) {
        lock.lock()
        if self.error == nil { self.error = error }
        lock.unlock()
    }

    var first: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return error
    }
}
