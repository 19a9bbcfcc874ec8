import Foundation
import Storage

/// Which database the storage-touching tests run on: SQLite by default, PostgreSQL when
/// `PACENOTE_TEST_DATABASE=postgres` (the second pass of `scripts/test`, beside the cluster
/// `scripts/postgres` starts and names in `PACENOTE_TEST_POSTGRES_URL`).
///
/// Domain tests take their database from here (`TemporaryDatabase`, and the end-to-end
/// servers), so one suite covers both dialects. A test about SQLite only (its files and their
/// modes, `backup`, WAL, PRAGMAs, FTS5) starts with `guard TestDatabase.isSQLite else { return }`
/// and a comment saying why: on the PostgreSQL pass it has nothing to check, and it already
/// ran on the SQLite pass.
public enum TestDatabase {
    public static let dialect: SQLDialect = {
        switch ProcessInfo.processInfo.environment["PACENOTE_TEST_DATABASE"]?.lowercased() {
        case "postgres", "postgresql": return .postgres
        default: return .sqlite
        }
    }()

    public static var isSQLite: Bool { dialect == .sqlite }
    public static var isPostgres: Bool { dialect == .postgres }
}

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
