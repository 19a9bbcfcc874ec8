import XCTest
@testable import Storage

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
        let rows = try temp.database.write { c in
            try c.execute("CREATE TABLE items (name TEXT, n INTEGER) STRICT")
            try c.execute("INSERT INTO items VALUES ('a', 1), ('b', 2)")
            return try c.fetchAll("SELECT p.n * 10, \(pair.columns) FROM items p ORDER BY p.n")
        }
        let read = try rows.map { row in
            var reader = RowReader(row)
            let position: Int = try reader.next()
            return (position, try pair.read(&reader))
        }
        XCTAssertEqual(read.map(\.0), [10, 20])
        XCTAssertEqual(read.map(\.1.0), ["a", "b"])
        XCTAssertEqual(read.map(\.1.1), [1, 2])
    }
}
