import Foundation
import Storage

/// A fresh database of the dialect given, migrated with the embedded schema, removed when
/// released: for tests that run their body on SQLite and on PostgreSQL in one pass (`dialects`),
/// to compare the two, whatever `TestDatabase` says.
public final class DialectDatabase: Sendable {
    /// SQLite always; PostgreSQL too when the cluster of `scripts/postgres` is there, and always
    /// in CI (`CI=true`), where a missing cluster then fails the PostgreSQL runs instead of
    /// leaving them out.
    public static var dialects: [SQLDialect] {
        TemporaryPostgres.baseURL != nil || ProcessInfo.processInfo.environment["CI"] == "true" ? [.sqlite, .postgres] : [.sqlite]
    }

    public let dialect: SQLDialect
    public let database: any Database
    /// The temporary database that owns the files or the schema.
    private let owner: any Sendable

    public init(_ dialect: SQLDialect) throws {
        self.dialect = dialect
        switch dialect {
        case .sqlite:
            let temporary = try TemporarySQLite(migrated: true)
            (database, owner) = (temporary.database, temporary)
        case .postgres:
            let temporary = try TemporaryPostgres(migrated: true)
            (database, owner) = (temporary.database, temporary)
        }
    }

    /// The first column of the first row of `sql`, as an integer (-1 for none or NULL).
    public func count(_ sql: SQL) throws -> Int {
        try database.read { connection in try connection.fetchValue(sql, as: Int.self) ?? -1 }
    }
}
