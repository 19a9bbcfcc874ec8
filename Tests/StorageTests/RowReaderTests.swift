import TestSupport
import XCTest
@testable import Storage

/// Rows read in place, on the dialect `TestDatabase` chooses.
final class RowReaderTests: XCTestCase {
    func testReadsColumnsInOrderAndSeesNulls() throws {
        let row = Row(columns: ["a", "b", "c", "d"], values: [.text("x"), .integer(7), .null, .integer(1)])
        var reader = RowReader(row)
        XCTAssertEqual(try reader.next(as: String.self), "x")
        XCTAssertEqual(try reader.next(as: Int.self), 7)
        XCTAssertTrue(reader.nextIsNull)
        XCTAssertNil(try reader.next(as: String?.self))
        XCTAssertFalse(reader.nextIsNull)
        XCTAssertEqual(try reader.next(as: Bool.self), true)
        XCTAssertFalse(reader.nextIsNull, "past the end is not NULL")
        XCTAssertThrowsError(try reader.next(as: Int.self)) { error in
            guard case StorageError.decoding(let column, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(column, "#4")
        }
    }

    func testWrongTypeNamesTheColumn() {
        var reader = RowReader(Row(columns: ["title"], values: [.integer(1)]))
        XCTAssertThrowsError(try reader.next(as: String.self)) { error in
            guard case StorageError.decoding(let column, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(column, "title")
        }
    }

    func testSelectionsComposeInOneStatement() throws {
        let temp = try TemporaryDatabase()
        let pair = Selection(columns: "p.name, p.n") { reader in (try reader.next(as: String.self), try reader.next(as: Int.self)) }
        let read = try temp.database.write { c in
            try c.execute("CREATE TABLE items (name TEXT, n INTEGER, note TEXT)")
            try c.execute("INSERT INTO items VALUES ('a', 1, NULL), ('b', 2, 'é🏁')")
            // In place, no Row: the position first, then the selection, then a nullable column.
            return try c.fetchAll("SELECT p.n * 10, \(pair.columns), p.note FROM items p ORDER BY p.n") { reader in
                let position: Int = try reader.next()
                let item = try pair.read(&reader)
                let wasNull = reader.nextIsNull
                return (position, item, wasNull, try reader.next(as: String?.self), reader.nextIsNull)
            }
        }
        XCTAssertEqual(read.map(\.0), [10, 20])
        XCTAssertEqual(read.map(\.1.0), ["a", "b"])
        XCTAssertEqual(read.map(\.1.1), [1, 2])
        XCTAssertEqual(read.map(\.2), [true, false])
        XCTAssertEqual(read.map(\.3), [nil, "é🏁"])
        XCTAssertEqual(read.map(\.4), [false, false], "past the last column is not NULL")
    }

    func testInPlaceErrorsNameTheColumn() throws {
        let temp = try TemporaryDatabase()
        XCTAssertThrowsError(try temp.database.read { c in
            try c.fetchAll("SELECT 1 AS one") { reader in
                _ = try reader.next(as: Int.self)
                return try reader.next(as: Int.self)
            }
        }) { error in
            guard case StorageError.decoding(let column, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(column, "#1")
        }
        XCTAssertThrowsError(try temp.database.read { c in
            try c.fetchOne("SELECT 1 AS one") { reader in try reader.next(as: String.self) }
        }) { error in
            guard case StorageError.decoding(let column, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(column, "one")
        }
        XCTAssertNil(try temp.database.read { c in try c.fetchOne("SELECT 1 WHERE 1 = 0") { reader in try reader.next(as: Int.self) } })
    }
}
