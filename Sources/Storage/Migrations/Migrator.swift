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
            try connection.prepareForMigration(lock: Self.advisoryLock)
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
                    // Several servers may start at once on one database (or `serve` beside
                    // `import-parse`): the first to get here applies the change, the others find
                    // it recorded. What `applied` answered may be stale by now, so the record is
                    // read again inside the change's own transaction, after the wait: writers
                    // wait on the migrations' lock (held until the transaction ends), or the
                    // driver's write transaction already made this the only writer of the
                    // database, in any process, so the read is exact there.
                    try connection.prepareForMigration(lock: Self.advisoryLock)
                    let recorded = try connection.fetchValue("SELECT count(*) FROM schema_migrations WHERE name = \(migration.name)", as: Int.self)
                    if recorded != 0 { return false }
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

    /// The key of the lock migrations take (`DatabaseConnection.prepareForMigration`), where
    /// the driver has such locks ("pacenote" in ASCII).
    static let advisoryLock: Int64 = 0x7061_6365_6E6F_7465

    private func ensureTable(_ connection: any DatabaseConnection) throws {
        // Milliseconds need 64 bits, which one dialect's INTEGER is not. Two servers creating
        // the table at once could collide in the catalog: the caller took the migrations' lock.
        try connection.execute(SQL(unsafeSQL: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name TEXT PRIMARY KEY,
                applied_at \(connection.dialect.int64ColumnType) NOT NULL
            )
            """))
    }
}
