import Foundation
import PostgresStorage
import SQLiteStorage
import Storage
import TestSupport

/// Reads a running server's database through the `Database` seam, whichever it is: its
/// `pacenote.sqlite` (in WAL mode, so a second reader sees the last commit without blocking
/// the server) or its PostgreSQL schema. Every query runs in a read transaction, which refuses
/// writes on both (SQLite's readers are `query_only`, PostgreSQL's transactions READ ONLY).
/// Values are bound through `SQL` interpolation. Not shared between threads.
final class ServerDatabase {
    private let database: any Database

    init(_ database: any Database) {
        self.database = database
    }

    func close() { database.close() }

    /// The first column of the first row as an integer; throws when there is no row or it is NULL.
    func int(_ sql: SQL) throws -> Int {
        guard let value = try optionalInt(sql) else { throw ServerDatabaseError(description: "\(sql) returned no row or NULL") }
        return value
    }

    /// Like `int`, but nil when there is no row or the value is NULL.
    func optionalInt(_ sql: SQL) throws -> Int? {
        try database.read { c in try c.fetchOne(sql).flatMap { row in try row.decode(at: 0, as: Int?.self) } }
    }

    /// The first column of every row as text (NULL as "").
    func strings(_ sql: SQL) throws -> [String] {
        try rows(sql).map { $0.first ?? "" }
    }

    /// Every row, each column as text (NULL as "").
    func rows(_ sql: SQL) throws -> [[String]] {
        try database.read { c in
            try c.fetchAll(sql).map { row in
                row.values.map { value in
                    switch value {
                    case .null: return ""
                    case .integer(let integer): return String(integer)
                    case .real(let double): return String(double)
                    case .text(let text): return text
                    case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
                    }
                }
            }
        }
    }

    /// Changes the database under a stopped (or not yet started) server: a fixture the API
    /// cannot make, such as a password hash of a given cost.
    func write(_ sql: SQL) throws {
        try database.write { c in _ = try c.execute(sql) }
    }
}

struct ServerDatabaseError: Error, CustomStringConvertible {
    let description: String
}

extension TestServer {
    /// Runs `body` with a fresh connection to this server's database (closed afterwards).
    func withDatabase<R>(_ body: (ServerDatabase) throws -> R) throws -> R {
        let database = ServerDatabase(try openDatabase())
        defer { database.close() }
        return try body(database)
    }

    /// This server's database, opened through Storage as `pacenote` opens it.
    private func openDatabase() throws -> any Database {
        if let databaseURL {
            var configuration = PostgresDatabase.Configuration(url: databaseURL)
            configuration.readers = 1
            configuration.writers = 1
            return try PostgresDatabase(configuration: configuration)
        }
        var configuration = SQLiteDatabase.Configuration(path: sqlitePath)
        configuration.readers = 1
        return try SQLiteDatabase(configuration: configuration)
    }
}
