import Foundation
import Storage

/// A fresh, empty database of the dialect `TestDatabase` chooses, gone when released: a SQLite
/// file in a temporary folder, or a PostgreSQL schema of its own in the test cluster.
public final class TemporaryDatabase: Sendable {
    public let database: any Database
    /// The SQLite database, nil on PostgreSQL.
    public let sqlite: TemporarySQLite?
    /// The PostgreSQL schema, nil on SQLite.
    public let postgres: TemporaryPostgres?

    /// `migrated` applies the embedded schema of the dialect, as `pacenote serve` does.
    /// `readers` is the size of the reader pool on either.
    public init(migrated: Bool = false, readers: Int = 4) throws {
        switch TestDatabase.dialect {
        case .sqlite:
            let sqlite = try TemporarySQLite(migrated: migrated, readers: readers)
            self.sqlite = sqlite
            postgres = nil
            database = sqlite.database
        case .postgres:
            let postgres = try TemporaryPostgres(migrated: migrated) { $0.readers = readers }
            self.postgres = postgres
            sqlite = nil
            database = postgres.database
        }
    }

    public var dialect: SQLDialect { database.dialect }

    /// The number of rows in `table` (a name from the test itself, never from input).
    public func count(_ table: String) throws -> Int {
        try database.read { c in try c.fetchValue(SQL(unsafeSQL: "SELECT count(*) FROM \(table)"), as: Int.self) ?? -1 }
    }
}
