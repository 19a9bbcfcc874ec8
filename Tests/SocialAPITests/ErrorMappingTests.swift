import Foundation
import HTTP
import SQLiteStorage
import Storage
import Synchronization
import Telemetry
import TestSupport
import XCTest
@testable import Community
@testable import Auth
@testable import SocialAPI

/// Every error reaches the client through the one mapper, wherever it is raised.
final class ErrorMappingTests: XCTestCase {
    /// A clock the test moves, so a session reaches the age at which it is extended.
    final class MovableClock: WallClock {
        let now = Mutex<Int64>(1_700_000_000_000)
        func nowMillis() -> Int64 { now.withLock { $0 } }
    }

    /// The session extension runs inside AuthMiddleware; a database locked by another process
    /// there must answer 503 `unavailable` with Retry-After, as it does in a handler, not 500.
    func testBusyDatabaseWhileExtendingASessionIs503() throws {
        // SQLite only: another process holding the one write lock of the file. PostgreSQL has no
        // such lock (its lock and statement timeouts map to the same `.busy`: PostgresDatabaseTests).
        guard TestDatabase.isSQLite else { throw XCTSkip("SQLite only (see the comment above); it ran on the SQLite pass") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-busy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Application.Configuration()
        configuration.dataDirectory = directory
        configuration.accounts.bcryptCost = 4
        configuration.accounts.sessionLifetimeMillis = 60_000
        configuration.busyTimeoutMillis = 50
        let clock = MovableClock()
        let application = try Application(configuration: configuration, logger: Logger(handler: NullLogHandler()), clock: clock)
        defer { application.close() }
        let responder = application.makeResponder()

        let signUp = responder.respond(to: Request(
            method: "POST", path: "/v1/users",
            body: Array(#"{"username":"busy_user","email":"busy@example.com","password":"password123"}"#.utf8)))
        XCTAssertEqual(signUp.status, 201)
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(signUp.body)) as? [String: Any])
        let token = try XCTUnwrap(body["sessionToken"] as? String)
        let me = Request(method: "GET", path: "/v1/users/me", headers: HTTPHeaders([("Authorization", "Bearer \(token)")]))

        // Past half the lifetime, the next request extends the session: a write.
        clock.now.withLock { $0 += 40_000 }
        // Another process holds the write lock meanwhile.
        let other = try SQLiteDatabase(configuration: .init(path: (directory as NSString).appendingPathComponent("pacenote.sqlite")))
        defer { other.close() }
        let locked = try other.write { connection -> Response in
            _ = try connection.execute(SQL(unsafeSQL: "UPDATE users SET display_name = display_name"))
            return responder.respond(to: me)
        }
        XCTAssertEqual(locked.status, 503)
        XCTAssertEqual(locked.header("Retry-After"), "1")
        let error = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(locked.body)) as? [String: Any])?["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "unavailable")

        // Once the lock is gone the same request succeeds: nothing was left half-done.
        XCTAssertEqual(responder.respond(to: me).status, 200)
    }

    /// A database server that went away is the server's state, not the client's fault: 503
    /// with Retry-After, as a busy one (PostgreSQL restarts and failovers).
    func testALostDatabaseConnectionIs503() throws {
        let mapped = try XCTUnwrap(APIErrors.map(StorageError.connectionLost("server closed the connection")))
        XCTAssertEqual(mapped.status, 503)
        XCTAssertEqual(mapped.code, "unavailable")
        XCTAssertEqual(mapped.headers.first { $0.0 == "Retry-After" }?.1, "1")
    }
}
