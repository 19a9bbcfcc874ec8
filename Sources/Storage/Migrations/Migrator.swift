/// Applies pending migrations in name order, each in its own transaction, and records
/// them in `schema_migrations` (GRDB's DatabaseMigrator shape).
public struct Migrator: Sendable {
    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.name < $1.name }
    }

    /// The migrations this database has recorded, in order.
    public func applied(in database: any Database) throws -> [String] {
        try database.write { connection in
            try ensureTable(connection)
            return try connection.fetchAll("SELECT name FROM schema_migrations ORDER BY name")
                .map { try $0.decode("name", as: String.self) }
        }
    }

    /// Applies what is pending and answers the names applied now.
    @discardableResult
    public func migrate(_ database: any Database, now: Int64) throws -> [String] {
        let done = Set(try applied(in: database))
        let known = Set(migrations.map(\.name))
        let unknown = done.subtracting(known)
        if !unknown.isEmpty { throw MigrationError.unknownApplied(unknown.sorted()) }

        var appliedNow: [String] = []
        for migration in migrations where !done.contains(migration.name) {
            do {
                try database.write { connection in
                    try connection.executeScript(SQL(unsafeSQL: migration.sql))
                    try connection.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(now))")
                }
            } catch let error as StorageError {
                throw MigrationError.failed(name: migration.name, underlying: error)
            }
            appliedNow.append(migration.name)
        }
        return appliedNow
    }

    private func ensureTable(_ connection: any DatabaseConnection) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name TEXT PRIMARY KEY,
                applied_at INTEGER NOT NULL
            )
            """)
    }
}
