import CSQLite
import Foundation

/// Why the test could not read the server's database file.
struct SQLiteReaderError: Error, CustomStringConvertible {
    let description: String
}

/// A read-only connection to a running server's `pacenote.sqlite`, to check stored counters
/// against the rows they count. The server runs SQLite in WAL mode, so a second reader sees the
/// last committed state without blocking it. One query at a time; not shared between threads.
final class SQLiteReader {
    private var db: OpaquePointer?
    let path: String

    init(path: String) throws {
        self.path = path
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(rc)"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteReaderError(description: "cannot open \(path) read-only: \(message)")
        }
        sqlite3_busy_timeout(handle, 5_000)
        db = handle
    }

    deinit { close() }

    fileprivate var handle: OpaquePointer? { db }

    func close() {
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// The first column of the first row of `sql` as an integer (`?` placeholders bound to
    /// `arguments`, in order). Throws when the query fails or returns no row or NULL.
    func int(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws -> Int {
        guard let value = try optionalInt(sql, arguments) else {
            throw SQLiteReaderError(description: "\(sql) \(arguments) returned no row or NULL")
        }
        return value
    }

    /// Like `int`, but nil when there is no row or the value is NULL.
    func optionalInt(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws -> Int? {
        guard let db else { throw SQLiteReaderError(description: "the reader is closed") }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteReaderError(description: "prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        for (index, argument) in arguments.enumerated() {
            argument.bind(to: statement, at: Int32(index + 1))
        }
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            if sqlite3_column_type(statement, 0) == SQLITE_NULL { return nil }
            return Int(sqlite3_column_int64(statement, 0))
        case SQLITE_DONE:
            return nil
        default:
            throw SQLiteReaderError(description: "step \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}

extension SQLiteReader {
    /// The first column of every row of `sql` as text (NULL as "").
    func strings(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws -> [String] {
        try rows(sql, arguments).map { $0.first ?? "" }
    }

    /// Every row of `sql`, each column as text (NULL as "").
    func rows(_ sql: String, _ arguments: [any SQLiteArgument] = []) throws -> [[String]] {
        guard let db = handle else { throw SQLiteReaderError(description: "the reader is closed") }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteReaderError(description: "prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        for (index, argument) in arguments.enumerated() {
            argument.bind(to: statement, at: Int32(index + 1))
        }
        var rows: [[String]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else {
                throw SQLiteReaderError(description: "step \(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
            var row: [String] = []
            for column in 0..<sqlite3_column_count(statement) {
                row.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
            }
            rows.append(row)
        }
    }
}

/// A value bound to a `?` of a `SQLiteReader` query.
protocol SQLiteArgument: CustomStringConvertible {
    func bind(to statement: OpaquePointer, at index: Int32)
}

/// SQLite copies the bytes before `sqlite3_bind_text` returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension String: SQLiteArgument {
    func bind(to statement: OpaquePointer, at index: Int32) {
        sqlite3_bind_text(statement, index, self, -1, sqliteTransient)
    }
}

extension Int: SQLiteArgument {
    func bind(to statement: OpaquePointer, at index: Int32) {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension TestServer {
    /// `<dataDir>/pacenote.sqlite`, the default SQLite database of `serve --data-dir`.
    var databasePath: String { dataDir.appendingPathComponent("pacenote.sqlite").path }

    /// Runs `body` with a fresh read-only connection to this server's database (closed afterwards).
    func withDatabase<R>(_ body: (SQLiteReader) throws -> R) throws -> R {
        let reader = try SQLiteReader(path: databasePath)
        defer { reader.close() }
        return try body(reader)
    }
}
