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
                // READ COMMITTED: the re-read below must see a record committed while this
                // transaction waited for the lock. In a serializable transaction the snapshot is
                // taken by its first statement, the lock's, before the wait: a server that waited
                // found nothing recorded and ran the change again ("relation already exists").
                let ran = try database.write(isolation: .readCommitted) { connection in
                    // Several servers may start at once on one PostgreSQL: the first to take this
                    // lock (held until its transaction ends) applies the change, the others find
                    // it recorded. SQLite's single writer serialises this already.
                    if connection.dialect == .postgres {
                        try connection.execute("SELECT pg_advisory_xact_lock(\(Self.advisoryLock))")
                        let recorded = try connection.fetchValue("SELECT count(*) FROM schema_migrations WHERE name = \(migration.name)", as: Int.self)
                        if recorded != 0 { return false }
                    }
                    try connection.executeScript(SQL(unsafeSQL: migration.sql))
                    try connection.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(now))")
                    return true
                }
                if !ran { continue }
            } catch let error as StorageError {
                throw MigrationError.failed(name: migration.name, underlying: error)
            }
            appliedNow.append(migration.name)
        }
        return appliedNow
    }

    /// The key of the advisory lock migrations take on PostgreSQL ("pacenote" in ASCII).
    static let advisoryLock: Int64 = 0x7061_6365_6E6F_7465

    private func ensureTable(_ connection: any DatabaseConnection) throws {
        // Milliseconds overflow PostgreSQL's 32-bit INTEGER; SQLite's INTEGER is 64-bit already.
        let timeType = connection.dialect == .postgres ? "BIGINT" : "INTEGER"
        // Two servers creating the table at once would collide in PostgreSQL's catalog.
        if connection.dialect == .postgres { try connection.execute("SELECT pg_advisory_xact_lock(\(Self.advisoryLock))") }
        try connection.execute(SQL(unsafeSQL: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name TEXT PRIMARY KEY,
                applied_at \(timeType) NOT NULL
            )
            """))
    }
}
