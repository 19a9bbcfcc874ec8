/// One forward-only schema change, identified by its file name (`0001_accounts`).
public struct Migration: Sendable, Equatable {
    public let name: String
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// A schema problem that stops the server from starting.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The database records migrations this binary does not know: it was migrated by a
    /// newer Pacenote, and running an older one against it could corrupt data.
    case unknownApplied([String])
    case failed(name: String, underlying: StorageError)

    public var description: String {
        switch self {
        case .unknownApplied(let names):
            return "database has migrations this binary does not know (\(names.joined(separator: ", "))); run a newer pacenote"
        case .failed(let name, let underlying):
            return "migration \(name) failed: \(underlying)"
        }
    }
}
