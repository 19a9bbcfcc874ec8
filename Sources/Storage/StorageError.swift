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
    /// A bound text the database cannot hold: PostgreSQL's text has no NUL character (SQLite's
    /// does). Only input carries one, since the program writes none, so it is the client's
    /// fault; no stored value can equal it either.
    case unstorableText
    /// Anything else the driver reported, kept whole.
    case driver(any DriverError)
    /// A transaction that a failed statement had aborted, though the closure went on
    /// as if it had not (it caught the error, say with `try?`): COMMIT rolled everything back.
    /// `cause` is that failure (nil if the session did not see it). A bug in the closure, and
    /// never run again: the closure chose to go past a failure, and a second run would do the
    /// same. A conflict or a busy server swallowed this way is answered as itself instead (by
    /// the driver), so that the write is run again or answers 503, as it would have had the
    /// closure let the error through. Only a driver whose failed statement aborts the whole
    /// transaction answers this; where a failed statement undoes only itself, it never happens.
    indirect case transactionAborted(cause: StorageError?)

    public var description: String {
        switch self {
        case .uniqueViolation(let c): return "unique constraint violated: \(c)"
        case .foreignKeyViolation(let c): return "foreign key violated: \(c ?? "?")"
        case .checkViolation(let c): return "check constraint violated: \(c ?? "?")"
        case .notNullViolation(let c): return "not-null constraint violated: \(c ?? "?")"
        case .busy: return "database busy"
        case .connectionLost(let why): return "database connection lost: \(why)"
        case .decoding(let column, let expected): return "column \(column) is not \(expected)"
        case .unstorableText: return "a text value holds a NUL character, which the database cannot store"
        case .driver(let error): return error.description
        case .transactionAborted(let cause):
            return "transaction aborted by a failure it went on past, nothing committed: \(cause?.description ?? "cause unknown")"
        }
    }

    /// True for a conflict with a concurrent transaction (a serialization failure or a
    /// deadlock), which only running the whole transaction again resolves: `write` does, so
    /// code that catches errors inside a transaction (a savepoint) must let this one through.
    /// The driver's error says (`DriverError.isTransactionConflict`); never true for a driver
    /// whose single writer has no such conflicts.
    public var isTransactionConflict: Bool {
        if case .driver(let driver) = self { return driver.isTransactionConflict }
        return false
    }

    /// True for a UNIQUE violation whose constraint mentions `column`.
    public func isUniqueViolation(on column: String) -> Bool {
        if case .uniqueViolation(let constraint) = self { return constraint.contains(column) }
        return false
    }
}

/// A driver's own error, with the library's full answer (code, message, failing function).
public protocol DriverError: Error, Sendable, CustomStringConvertible {
    /// True for a conflict with a concurrent transaction that only running the whole
    /// transaction again resolves (`StorageError.isTransactionConflict`). False by default.
    var isTransactionConflict: Bool { get }
}

extension DriverError {
    public var isTransactionConflict: Bool { false }
}
