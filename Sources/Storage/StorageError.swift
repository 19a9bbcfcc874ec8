import Telemetry

/// A database failure in terms domain code can act on, whatever the backend.
///
/// Drivers translate their own errors (SQLite extended result codes, PostgreSQL SQLSTATEs)
/// into these cases and keep the original in `.driver` or alongside, so nothing is lost.
/// No case carries bound values: descriptions are safe to log.
public enum StorageError: Error, Sendable, SafelyDescribedError {
    /// A UNIQUE or PRIMARY KEY constraint refused the write. `constraint` names it:
    /// SQLite reports the columns (`users.username_key`), PostgreSQL the constraint name
    /// (`users_username_key_key`); both contain the column names, which is what callers match.
    case uniqueViolation(constraint: String)
    case foreignKeyViolation(constraint: String?)
    case checkViolation(constraint: String?)
    case notNullViolation(column: String?)
    /// The database stayed locked past the busy timeout.
    case busy
    case connectionLost(String)
    /// A stored value did not have the expected type (a schema bug).
    case decoding(column: String, expected: String)
    /// Anything else the driver reported, kept whole.
    case driver(any DriverError)

    public var description: String {
        switch self {
        case .uniqueViolation(let c): return "unique constraint violated: \(c)"
        case .foreignKeyViolation(let c): return "foreign key violated: \(c ?? "?")"
        case .checkViolation(let c): return "check constraint violated: \(c ?? "?")"
        case .notNullViolation(let c): return "not-null constraint violated: \(c ?? "?")"
        case .busy: return "database busy"
        case .connectionLost(let why): return "database connection lost: \(why)"
        case .decoding(let column, let expected): return "column \(column) is not \(expected)"
        case .driver(let error): return error.description
        }
    }

    /// A failure of the transaction as a whole rather than of one statement: a conflict with a
    /// concurrent transaction (PostgreSQL 40001, 40P01) or a lost session. Rolling back to a
    /// savepoint cannot contain it; the whole transaction must run again, which `write` does.
    public var endsTransaction: Bool {
        switch self {
        case .connectionLost: true
        case .driver(let driver as PostgresError): driver.isRetryableConflict
        default: false
        }
    }

    /// True for a UNIQUE violation whose constraint mentions `column`.
    public func isUniqueViolation(on column: String) -> Bool {
        if case .uniqueViolation(let constraint) = self { return constraint.contains(column) }
        return false
    }
}

/// A driver's own error, with the library's full answer (code, message, failing function).
public protocol DriverError: Error, Sendable, CustomStringConvertible {}
