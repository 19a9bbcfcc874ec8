import XCTest

/// The read-only database helper the counter tests rely on (SQLite file or PostgreSQL schema), against tables that exist today.
final class DatabaseReaderTests: ServerTestCase {
    func testReadsCommittedRowsOfARunningServer() throws {
        let before = try server.withDatabase { try $0.int("SELECT COUNT(*) FROM users") }
        let account = try client.signup()
        _ = try client.signup()
        try server.withDatabase { db in
            XCTAssertEqual(try db.int("SELECT COUNT(*) FROM users"), before + 2, "a second reader sees the server's commits")
            XCTAssertEqual(try db.int("SELECT followers_count FROM users WHERE id = \(account.id)"), 0)
            XCTAssertEqual(try db.strings("SELECT username FROM users WHERE id = \(account.id)"), [account.username])
            XCTAssertNil(try db.optionalInt("SELECT seq FROM users WHERE id = \("no-such-id")"))
            XCTAssertEqual(try db.rows("SELECT role, \(7) FROM users WHERE id = \(account.id)"), [["user", "7"]])
        }
        XCTAssertEqual(try StoredCounters.stored(server, "users", "videos_count", id: account.id), 0)
        XCTAssertThrowsError(try server.withDatabase { try $0.int("DELETE FROM users") }, "the connection is read-only")
        XCTAssertEqual(try server.withDatabase { try $0.int("SELECT COUNT(*) FROM users") }, before + 2)
    }

    func testStaffAccountsComeFromTheCommandLine() throws {
        let account = try admin()
        XCTAssertEqual(account.user["role"] as? String, "admin")
        XCTAssertEqual(try admin().token, account.token, "made once per server")
        XCTAssertEqual(try moderator().user["role"] as? String, "moderator")
        XCTAssertEqual(assertSuccess(try client.me(account.token), 200)["role"] as? String, "admin")
    }
}
