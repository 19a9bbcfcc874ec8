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

    // A driver finds its prepared statement by shape instead of by rendered text (SQL.Shape):
    // statements that differ only in bound values must share it, anything else must not.

    func testStatementsDifferingOnlyInValuesHaveOneShape() {
        func statement(_ id: String, _ limit: Int) -> SQL { "SELECT * FROM t WHERE id = \(id) LIMIT \(limit)" }
        let first = statement("a", 1), second = statement("b'; --", 20)
        XCTAssertEqual(first.shape.hash, second.shape.hash)
        XCTAssertTrue(second.matches(first.shapeParts))
        XCTAssertEqual(first.render(for: .sqlite).text, second.render(for: .sqlite).text)
    }

    func testMatchingHandsOverTheValuesInOrderWithTheirPositions() {
        // A driver binds while it matches: nested statements' values come in render order.
        let columns: SQL = "a, \(7) AS seven"
        func statement(_ id: String) -> SQL { "SELECT \(columns) FROM t WHERE id = \(id) AND n < \(3.5) LIMIT \(20)" }
        var handed: [(Int32, DatabaseValue)] = []
        XCTAssertTrue(statement("b").matches(statement("a").shapeParts) { handed.append(($0, $1)) })
        XCTAssertEqual(handed.map(\.0), [1, 2, 3, 4])
        XCTAssertEqual(handed.map(\.1), statement("b").render(for: .sqlite).binds)
    }

    func testTrustedTextIsPartOfTheShape() {
        func statement(_ column: String) -> SQL { "SELECT \(unsafe: column) FROM t" }
        XCTAssertFalse(statement("a").matches(statement("b").shapeParts))
        XCTAssertFalse(statement("ab").matches(statement("a").shapeParts))
        XCTAssertTrue(statement("a").matches(statement("a").shapeParts))
        // A bind where text was, or text where a literal was, is another shape too.
        let bound: SQL = "SELECT \("a") FROM t"
        XCTAssertFalse(bound.matches(statement("a").shapeParts))
        XCTAssertFalse(SQL(unsafeSQL: "SELECT 1").matches(("SELECT 1" as SQL).shapeParts))
    }

    func testNestedStatementsRenderAndBindAsIfWrittenInline() {
        let filter: SQL = "a = \(1) AND b = \(2)"
        let columns: SQL = "x, y"
        let nested: SQL = "SELECT \(columns) FROM t WHERE \(filter) AND c = \(3)"
        let rendered = nested.render(for: .postgres)
        XCTAssertEqual(rendered.text, "SELECT x, y FROM t WHERE a = $1 AND b = $2 AND c = $3")
        XCTAssertEqual(rendered.binds, [.integer(1), .integer(2), .integer(3)])
        // The same parts with other values: one shape; another nested part: another shape.
        let again: SQL = "SELECT \(columns) FROM t WHERE \("a = \(7) AND b = \(8)" as SQL) AND c = \(9)"
        XCTAssertTrue(again.matches(nested.shapeParts))
        let other: SQL = "SELECT \(columns) FROM t WHERE \("a = \(7) OR b = \(8)" as SQL) AND c = \(9)"
        XCTAssertFalse(other.matches(nested.shapeParts))
        XCTAssertEqual(nested.shapeParts.count, 9)  // "SELECT ", "x, y", " FROM t WHERE ", "a = ", ?, " AND b = ", ?, " AND c = ", ?
    }

    func testOneCharacterLiteralsWork() {
        let close: SQL = ")"
        let sql: SQL = "SELECT (1\(close)"
        XCTAssertEqual(sql.render(for: .sqlite).text, "SELECT (1)")
    }
}

