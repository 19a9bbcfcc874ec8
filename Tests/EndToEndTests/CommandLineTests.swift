import Foundation
import Storage
import TestSupport
import XCTest

/// The `pacenote` commands operators and scripts use, against a data directory of their own.
final class CommandLineTests: CommandTestCase {
    private func describe(_ run: (status: Int32, stdout: String, stderr: String)) -> String {
        "exit \(run.status)\n--- stdout ---\n\(run.stdout)\n--- stderr ---\n\(run.stderr)"
    }

    func testMigrateThenCreateAdminThenChangeRole() throws {
        let migrate = server.runCLI(["migrate"])
        XCTAssertEqual(migrate.status, 0, "pacenote migrate: \(describe(migrate))")
        let again = server.runCLI(["migrate"])
        XCTAssertEqual(again.status, 0, "migrate is idempotent: \(describe(again))")
        // Only the database: the cursor secret is the server's, made by the first `serve`.
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.dataDir.appendingPathComponent("cursor.key").path),
                       "migrate writes no cursor.key")

        let username = "Chief_" + Fake.username(length: 10)
        let email = Fake.email(for: username)
        let password = Fake.password()
        let create = server.runCLI(["user", "create", "--username", username, "--email", email, "--password", password, "--role", "admin"])
        XCTAssertEqual(create.status, 0, "user create: \(describe(create))")
        let printedId = create.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(printedId.isEmpty, "user create prints the new id: \(describe(create))")
        XCTAssertFalse(printedId.contains("\n") || printedId.contains(" "), "stdout is only the id, for `ID=$(pacenote user create …)`: \(describe(create))")
        XCTAssertFalse(create.stdout.contains(password) || create.stderr.contains(password), "the password is not echoed")

        try server.start()
        let client = HTTPClient(port: server.port)
        let session = try client.login(username.lowercased(), password)
        XCTAssertEqual(session.user["role"] as? String, "admin", "the created user has the role given")
        XCTAssertEqual(session.user["id"] as? String, printedId, "the id printed is the account's id")
        XCTAssertEqual(session.user["username"] as? String, username)

        let role = server.runCLI(["user", "role", username, "moderator"])
        XCTAssertEqual(role.status, 0, "user role: \(describe(role))")
        let viewer = try client.signup()
        let seen = assertSuccess(try client.request("GET", "/v1/users/\(username)", token: viewer.token), 200)
        XCTAssertEqual(seen["role"] as? String, "moderator", "the new role shows at once")
        XCTAssertEqual(assertSuccess(try client.me(session.token), 200)["role"] as? String, "moderator",
                       "role changes take effect at once for open sessions")

        let duplicate = server.runCLI(["user", "create", "--username", username.uppercased(), "--email", "other.\(email)", "--password", Fake.password()])
        XCTAssertNotEqual(duplicate.status, 0, "a duplicate username is refused: \(describe(duplicate))")
        XCTAssertFalse(duplicate.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "with a message on stderr")
        let duplicateEmail = server.runCLI(["user", "create", "--username", Fake.username(), "--email", email.uppercased(), "--password", Fake.password()])
        XCTAssertNotEqual(duplicateEmail.status, 0, "a duplicate email is refused: \(describe(duplicateEmail))")

        client.close()
        XCTAssertEqual(server.stop(), 0, "SIGTERM: exit status 0")
    }

    func testUserCreateValidatesLikeSignup() throws {
        XCTAssertEqual(server.runCLI(["migrate"]).status, 0)
        let tooShort = server.runCLI(["user", "create", "--username", Fake.username(), "--email", Fake.email(for: Fake.username()), "--password", "short"])
        XCTAssertNotEqual(tooShort.status, 0, "a 5-byte password is refused: \(describe(tooShort))")
        XCTAssertFalse(tooShort.stderr.isEmpty, "with a message on stderr")
        let badName = server.runCLI(["user", "create", "--username", "bad name", "--email", Fake.email(for: Fake.username()), "--password", Fake.password()])
        XCTAssertNotEqual(badName.status, 0, "an invalid username is refused: \(describe(badName))")
        let badRole = server.runCLI(["user", "create", "--username", Fake.username(), "--email", Fake.email(for: Fake.username()), "--password", Fake.password(), "--role", "emperor"])
        XCTAssertNotEqual(badRole.status, 0, "an unknown role is refused: \(describe(badRole))")
    }

    func testUserRoleRefusesUnknownUserAndRole() throws {
        XCTAssertEqual(server.runCLI(["migrate"]).status, 0)
        let username = Fake.username()
        let create = server.runCLI(["user", "create", "--username", username, "--email", Fake.email(for: username), "--password", Fake.password()])
        XCTAssertEqual(create.status, 0, describe(create))
        let unknownUser = server.runCLI(["user", "role", Fake.username(), "admin"])
        XCTAssertNotEqual(unknownUser.status, 0, "user role for nobody: \(describe(unknownUser))")
        XCTAssertFalse(unknownUser.stderr.isEmpty)
        let unknownRole = server.runCLI(["user", "role", username, "emperor"])
        XCTAssertNotEqual(unknownRole.status, 0, "an unknown role: \(describe(unknownRole))")
    }

    func testServeAppliesMigrationsItself() throws {
        try server.start()
        let client = HTTPClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
        _ = try client.signup()
        client.close()
        XCTAssertEqual(server.stop(), 0)
    }

    /// Several `pacenote migrate` on one fresh data directory at once (as `serve` beside
    /// `import-parse`, or servers started together): all exit 0 and the schema is applied once.
    /// Each round is a new directory. Before the migrator re-read its record inside each change's
    /// transaction, the race (two processes both reading what is applied before either applies
    /// it: "table already exists") failed about one round in ten of six processes on SQLite, so
    /// 40 rounds (7 s on an idle machine) rarely miss it. PostgreSQL's advisory lock has
    /// StorageTests of its own, hence only two rounds there.
    ///
    /// The SQLite file is made first, empty and in WAL mode, as the first process would leave
    /// it: processes opening a file that is not yet WAL at once can fail at their
    /// `PRAGMA journal_mode = WAL`, which SQLite answers SQLITE_BUSY at once, without waiting
    /// (two readers both asking to write; 5 rounds in 300 of six `sqlite3` shells). That is the
    /// opening of the file, not the migrations this tests.
    func testMigratesStartedTogetherOnAFreshDataDirectoryAllSucceed() throws {
        let rounds = TestDatabase.isPostgres ? 2 : 40
        let processes = 6
        for round in 1...rounds {
            // Nothing there yet: the processes also race to create the file and switch it to
            // WAL mode (SQLiteDatabase.enterWAL).
            let fresh = try TestServer()
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            let runs = Locked([Int: (status: Int32, stdout: String, stderr: String)]())
            for index in 0..<processes {
                done.enter()
                Thread.detachNewThread {
                    start.wait()
                    let run = fresh.runCLI(["migrate"])
                    runs.withLock { $0[index] = run }
                    done.leave()
                }
            }
            for _ in 0..<processes { start.signal() }
            done.wait()
            for (index, run) in runs.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(run.status, 0, "round \(round), process \(index): \(describe(run))")
            }
            let again = fresh.runCLI(["migrate"])
            XCTAssertEqual(again.status, 0, "round \(round), one more migrate: \(describe(again))")
        }
    }
}
