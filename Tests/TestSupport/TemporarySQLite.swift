import Foundation
import SQLiteStorage
import Schema
import Storage

/// A fresh SQLite database in its own temporary folder, removed when released: for the tests
/// of the SQLite driver and of what only SQLite has (files, PRAGMAs, FTS5). Tests of the
/// domain take a `TemporaryDatabase`, which is this or PostgreSQL as `TestDatabase` says.
public final class TemporarySQLite: Sendable {
    public let directory: URL
    /// The database file.
    public let path: String
    public let database: SQLiteDatabase

    /// `migrated` applies the embedded schema (`Schema.sqlite`), as `pacenote serve` does;
    /// without it the database is empty, for tests of the driver or of their own tables.
    public init(
        migrated: Bool = false, readers: Int = 4, configure: (inout SQLiteDatabase.Configuration) -> Void = { _ in }
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("test.sqlite").path
        var configuration = SQLiteDatabase.Configuration(path: path)
        configuration.readers = readers
        configure(&configuration)
        database = try SQLiteDatabase(configuration: configuration)
        if migrated { try Migrator(migrations: Schema.sqlite).migrate(database, now: 0) }
    }

    deinit {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The number of rows in `table` (a name from the test itself, never from input).
    public func count(_ table: String) throws -> Int {
        try database.read { c in try c.fetchValue(SQL(unsafeSQL: "SELECT count(*) FROM \(table)"), as: Int.self) ?? -1 }
    }
}
