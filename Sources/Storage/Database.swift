import Telemetry

/// A connection lent for the duration of one `read` or `write` closure.
///
/// Not Sendable, and valid only inside the closure it was handed to: the pool takes it
/// back when the closure returns.
public protocol DatabaseConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs a statement that returns no rows; answers how many rows it changed.
    @discardableResult
    func execute(_ sql: SQL) throws(StorageError) -> Int
    /// Runs a query and decodes every row.
    func fetchAll(_ sql: SQL) throws(StorageError) -> [Row]
    /// Runs a query and reads each row with `read`, in place: no `Row` is built, which
    /// matters on hot paths (a page of 20 rows of 50 columns). The reader is valid only
    /// inside `read`.
    func fetchAll<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> [T]
    /// Runs a query and decodes its first row, if any.
    func fetchOne(_ sql: SQL) throws(StorageError) -> Row?
    /// Runs several trusted statements separated by semicolons (migrations).
    func executeScript(_ sql: SQL) throws(StorageError)
    /// Readies the current write transaction for `Migrator`: lifts the session's statement and
    /// lock timeouts for the rest of the transaction (a migration may run long, an index build
    /// on a large table, and a server may wait as long for another's), then takes the lock
    /// `key`, held until the transaction ends, that keeps servers from changing one schema at
    /// once. Done by the driver, not the migrator, because both are the driver's own: one whose
    /// write transactions already exclude every other writer of the database, in any process,
    /// and that has no statement timeout does nothing. The timeouts end with the transaction,
    /// committed or rolled back, so a pooled session keeps its own for everything after.
    func prepareForMigration(lock key: Int64) throws(StorageError)
}

extension DatabaseConnection {
    /// The row of a query that answers at most one (every row is read), read in place.
    public func fetchOne<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> T? {
        try fetchAll(sql, reading: read).first
    }

    /// The first column of the first row, decoded.
    public func fetchValue<T: DatabaseValueConvertible>(_ sql: SQL, as type: T.Type = T.self) throws(StorageError) -> T? {
        guard let row = try fetchOne(sql) else { return nil }
        return try row.decode(at: 0, as: T.self)
    }
}

/// The storage seam both drivers implement.
///
/// `read` hands out a connection inside one consistent snapshot; `write` runs the closure
/// in one transaction that commits when it returns and rolls back when it throws (the
/// error is rethrown unchanged). Calls block the calling thread, which is always a
/// server or worker thread, never Swift's cooperative pool. Don't nest calls on one
/// thread: a `write` inside a `write` would wait for itself.
public protocol Database: Sendable {
    var dialect: SQLDialect { get }
    func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T
    /// A write transaction with an isolation hint; `write(_:)` is `.serializable`.
    func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T
    /// Reader connections in use and in all, for the `/metrics` pool gauges.
    var readerUsage: (inUse: Int, total: Int) { get }
    /// True when the database answers a trivial query (health checks).
    func ping() -> Bool
    /// Adds the driver's own gauges and histograms to `/metrics` (none by default).
    func registerMetrics(in metrics: MetricsRegistry)
    /// Closes every connection; calls after this fail.
    func close()
}

extension Database {
    public func registerMetrics(in metrics: MetricsRegistry) {}

    /// A write transaction that behaves as if no other write ran beside it.
    public func write<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        try write(isolation: .serializable, body)
    }
}

/// How a write transaction sees writers running beside it. SQLite has one writer, so every
/// write is serializable there and the hint is ignored; PostgreSQL runs writes side by side.
public enum WriteIsolation: Sendable {
    /// As if the writes ran one after another (PostgreSQL SERIALIZABLE, retried on conflict):
    /// what every domain write needs, since its checks and its inserts must see one state.
    case serializable
    /// Each statement sees what was committed before it began (PostgreSQL READ COMMITTED);
    /// concurrent writers coordinate through row locks only. For the outbox's own bookkeeping
    /// (leasing jobs with `FOR UPDATE SKIP LOCKED`, recording a delivery under its lease),
    /// where workers on several servers must skip each other's rows rather than fail on the
    /// predicate locks of a serializable scan. Never for domain writes.
    case readCommitted
}
