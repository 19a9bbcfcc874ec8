import Dispatch
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What operators rely on from the command line (API.md "Command line"), each on a server of
/// its own: the environment, backup and restore, SIGTERM mid-request, and health.
final class OperatorTests: XCTestCase {
    private var servers: [TestServer] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = ResponseAudit.shared.drainViolations()
    }

    override func tearDown() {
        for violation in ResponseAudit.shared.drainViolations() { XCTFail(violation) }
        for server in servers { server.stop() }
        servers = []
        super.tearDown()
    }

    private func makeServer(_ arguments: [String] = [], environment: [String: String] = [:], defaultFlags: Bool = true) throws -> TestServer {
        let server = try TestServer(extraArguments: arguments, environment: environment, defaultFlags: defaultFlags)
        servers.append(server)
        return server
    }

    /// The bcrypt cost stored in the account's hash (`$2b$NN$...`).
    private func bcryptCost(of userID: String, in server: TestServer) throws -> String {
        let hash = try server.withDatabase { try $0.strings("SELECT password_hash FROM users WHERE id = \(userID)").first ?? "" }
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        return parts.count > 2 ? String(parts[2]) : "no cost in \(hash.prefix(7))"
    }

    func testPacenoteEnvironmentVariablesConfigureServe() throws {
        let home = try makeServer(defaultFlags: false)  // never started: lends its data directory and database
        // On PostgreSQL the database comes from PACENOTE_DATABASE_URL, API.md's name for it.
        let database = home.databaseURL.map { ["PACENOTE_DATABASE_URL": $0] } ?? [:]
        let configured = try makeServer(environment: [
            "PACENOTE_LISTEN": "127.0.0.1:0",
            "PACENOTE_DATA_DIR": home.dataDir.path,
            "PACENOTE_BCRYPT_COST": "5",
            "PACENOTE_PUBLIC_READ": "true",
        ].merging(database) { $1 }, defaultFlags: false)
        try configured.start()
        XCTAssertNotEqual(configured.port, 8080, "PACENOTE_LISTEN's port 0 was used, not the default 8080")
        if TestDatabase.isSQLite {
            XCTAssertTrue(FileManager.default.fileExists(atPath: home.sqlitePath), "the database is in PACENOTE_DATA_DIR")
        } else {
            XCTAssertFalse(FileManager.default.fileExists(atPath: home.sqlitePath), "PACENOTE_DATABASE_URL was used, not a file in PACENOTE_DATA_DIR")
        }
        let client = HTTPClient(port: configured.port)
        defer { client.close() }
        let account = try client.signup()
        XCTAssertEqual(try bcryptCost(of: account.id, in: home), "05", "PACENOTE_BCRYPT_COST sets the cost of new hashes")
        assertSuccess(try client.request("GET", "/v1/users/\(account.username)"), 200, "PACENOTE_PUBLIC_READ opens profiles to anonymous clients")
        assertError(try client.request("GET", "/v1/feed/home"), 401, "unauthorized", "but not feeds")
        XCTAssertEqual(configured.stop(), 0)

        // A flag on the command line wins over its variable.
        let flagged = try makeServer(["--bcrypt-cost", "4"], environment: ["PACENOTE_BCRYPT_COST": "6", "PACENOTE_PUBLIC_READ": "false"])
        try flagged.start()
        let second = HTTPClient(port: flagged.port)
        defer { second.close() }
        let other = try second.signup()
        XCTAssertEqual(try bcryptCost(of: other.id, in: flagged), "04", "--bcrypt-cost beats PACENOTE_BCRYPT_COST")
        assertError(try second.request("GET", "/v1/users/\(other.username)"), 401, "unauthorized", "PACENOTE_PUBLIC_READ=false keeps profiles closed")
    }

    func testBackupOfARunningServerServesTheDataOnAnotherServer() throws {
        // `pacenote backup` copies the SQLite file here; on PostgreSQL it runs pg_dump, whose
        // dump PostgresCommandTests restores with pg_restore.
        guard TestDatabase.isSQLite else { throw XCTSkip("SQLite only (see the comment above); it ran on the SQLite pass") }
        let original = try makeServer()
        try original.start()
        let client = HTTPClient(port: original.port)
        defer { client.close() }
        let username = "adm_" + Fake.username(length: 10)
        let password = Fake.password()
        XCTAssertEqual(original.runCLI(["user", "create", "--username", username, "--email", Fake.email(for: username),
                                        "--password", password, "--role", "admin", "--bcrypt-cost", "4"]).status, 0)
        let admin = try client.login(username, password)
        let owner = try client.signup()
        let rally = assertSuccess(try client.request("POST", "/v1/rallies", json: [
            "name": "Rally \(Fake.word())", "country": "Finland", "startDate": UTCDate.today(-1), "endDate": UTCDate.today(1),
        ], token: admin.token), 201)
        let video = assertSuccess(try client.request("POST", "/v1/videos", json: [
            "youtubeId": Fake.youtubeId(), "title": "Backed up \(Fake.word())", "rallyId": rally["id"] as? String ?? "", "day": 1,
        ], token: owner.token), 201)
        let videoId = video["id"] as? String ?? ""

        let restored = try makeServer()
        let file = restored.dataDir.appendingPathComponent("pacenote.sqlite").path
        let backup = original.runCLI(["backup", file])
        XCTAssertEqual(backup.status, 0, "pacenote backup while the server runs: \(backup.stderr)")
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "the original server kept serving")

        try restored.start()
        let reader = HTTPClient(port: restored.port)
        defer { reader.close() }
        let session = try reader.login(owner.username, owner.password)
        XCTAssertEqual(session.user["id"] as? String, owner.id, "the account came over")
        let read = assertSuccess(try reader.request("GET", "/v1/videos/\(videoId)", token: session.token), 200, "the video came over")
        XCTAssertEqual(read["title"] as? String, video["title"] as? String)
        XCTAssertEqual(child(read, "owner")?["id"] as? String, owner.id)
    }

    func testSIGTERMFinishesALoginInFlightAndExitsZero() throws {
        // At cost 13 a login takes a good part of a second, long enough to signal during it.
        let server = try makeServer(["--bcrypt-cost", "13"])
        try server.start()
        let client = HTTPClient(port: server.port, timeout: 60)
        defer { client.close() }
        let account = try client.signup()
        // The hashing pool counts a job until its closure returns, a moment after the client has
        // the answer: wait for the sign-up to leave it, or the count below could be the sign-up's
        // and the stop signal would precede the login.
        XCTAssertTrue(try waitUntil(timeout: 20, interval: 0.01) {
            try client.request("GET", "/metrics").text.contains("\npacenote_http_offload_outstanding 0")
        }, "the sign-up left the hashing pool")

        let body = try JSONSerialization.data(withJSONObject: ["login": account.username, "password": account.password])
        let request = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\r\n" + String(decoding: body, as: UTF8.self)
        // The sign-up's own hashing job may still be counted for a moment after its answer: wait
        // for the pool to be empty, so the "1" below can only be the login.
        XCTAssertTrue(try waitUntil(timeout: 20, interval: 0.01) {
            try client.request("GET", "/metrics").text.contains("\npacenote_http_offload_outstanding 0")
        }, "the sign-up's hashing is over")
        let answer = Locked<RawExchange?>(nil)
        let done = DispatchSemaphore(value: 0)
        let port = server.port
        Thread.detachNewThread {
            answer.withLock { $0 = try? RawExchange.exchange(Array(request.utf8), port: port, timeout: 60) }
            done.signal()
        }
        // The login is in flight once it holds a hashing thread.
        let inFlight = try waitUntil(timeout: 20, interval: 0.01) {
            try client.request("GET", "/metrics").text.contains("\npacenote_http_offload_outstanding 1")
        }
        XCTAssertTrue(inFlight, "the login reached the hashing pool")
        server.terminate()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the client got its answer")
        let exchange = answer.withLock { $0 }
        XCTAssertEqual(exchange?.status, 201, "the login in flight finished: \(String(describing: exchange))")
        let text = String(decoding: exchange?.received ?? [], as: UTF8.self)
        XCTAssertTrue(text.contains("\"sessionToken\""), "with its session token: \(text.prefix(300))")
        XCTAssertEqual(server.stop(timeout: 30), 0, "exit status 0 after SIGTERM")
    }

    func testHealthzIs503WhenTheDatabaseFileCannotBeRead() throws {
        // A database file that goes away is SQLite's case; PostgreSQL's lost server answers 503
        // through the driver's `connectionLost` (PostgresDatabaseTests restarts the cluster).
        guard TestDatabase.isSQLite else { throw XCTSkip("SQLite only (see the comment above); it ran on the SQLite pass") }
        let server = try makeServer()
        try server.start()
        let client = HTTPClient(port: server.port)
        defer { client.close() }
        XCTAssertEqual(assertSuccess(try client.request("GET", "/healthz"), 200)["status"] as? String, "ok")

        // The data directory goes away under the running server, as when its disk is unmounted:
        // the server's open files still read, but the database at its path cannot be.
        let moved = server.dataDir.path + ".moved"
        XCTAssertEqual(rename(server.dataDir.path, moved), 0)
        let result = try client.request("GET", "/healthz")
        XCTAssertEqual(rename(moved, server.dataDir.path), 0)
        XCTAssertEqual(result.status, 503, "the database cannot be read: \(result)")
        XCTAssertNotEqual(result.object?["status"] as? String, "ok", "\(result)")
        XCTAssertEqual(assertSuccess(try client.request("GET", "/healthz"), 200)["status"] as? String, "ok", "back in place: healthy again")
    }
}
