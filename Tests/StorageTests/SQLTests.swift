import XCTest
@testable import Storage

final class SQLTests: XCTestCase {
    func testInterpolatedValuesBecomeBindsInBothDialects() {
        let name = "Robert'); DROP TABLE users;--"
        let sql: SQL = "SELECT id FROM users WHERE username_key = \(name) AND role = \("admin")"
        let sqlite = sql.render(for: .sqlite)
        XCTAssertEqual(sqlite.text, "SELECT id FROM users WHERE username_key = ? AND role = ?")
        XCTAssertEqual(sqlite.binds, [.text(name), .text("admin")])
        XCTAssertEqual(sql.render(for: .postgres).text, "SELECT id FROM users WHERE username_key = $1 AND role = $2")
    }

    func testFragmentsKeepTheirBindsWhenJoined() {
        let filters: [SQL] = ["a = \(1)", "b = \(2)"]
        let sql: SQL = "SELECT * FROM t WHERE \(SQL.joined(filters, separator: " AND ")) LIMIT \(10)"
        let rendered = sql.render(for: .postgres)
        XCTAssertEqual(rendered.text, "SELECT * FROM t WHERE a = $1 AND b = $2 LIMIT $3")
        XCTAssertEqual(rendered.binds, [.integer(1), .integer(2), .integer(10)])
    }

    func testDescriptionNeverShowsBoundValues() {
        let secret = "hunter2-password"
        let sql: SQL = "UPDATE users SET password_hash = \(secret)"
        XCTAssertFalse(sql.description.contains(secret))
        XCTAssertFalse(String(describing: StorageError.uniqueViolation(constraint: "users.email_key")).contains(secret))
    }
}
