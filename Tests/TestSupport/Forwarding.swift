import Storage
import Telemetry

/// A database that hands everything to `base` but what its conformer implements itself: the
/// seam of the tests that watch or change what writes do (a conformer implements `write`).
public protocol ForwardingDatabase: Database {
    var base: any Database { get }
}

extension ForwardingDatabase {
    public var dialect: SQLDialect { base.dialect }
    public var readerUsage: (inUse: Int, total: Int) { base.readerUsage }
    public func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T { try base.read(body) }
    public func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        try base.write(isolation: isolation, body)
    }
    public func ping() -> Bool { base.ping() }
    public func registerMetrics(in metrics: MetricsRegistry) { base.registerMetrics(in: metrics) }
    public func close() { base.close() }
}

/// The same for a connection: a conformer implements the statements it watches.
public protocol ForwardingConnection: DatabaseConnection {
    var base: any DatabaseConnection { get }
}

extension ForwardingConnection {
    public var dialect: SQLDialect { base.dialect }
    public func execute(_ sql: SQL) throws(StorageError) -> Int { try base.execute(sql) }
    public func fetchAll(_ sql: SQL) throws(StorageError) -> [Row] { try base.fetchAll(sql) }
    public func fetchAll<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> [T] { try base.fetchAll(sql, reading: read) }
    public func fetchOne(_ sql: SQL) throws(StorageError) -> Row? { try base.fetchOne(sql) }
    public func executeScript(_ sql: SQL) throws(StorageError) { try base.executeScript(sql) }
    public func prepareForMigration(lock key: Int64) throws(StorageError) { try base.prepareForMigration(lock: key) }
}
