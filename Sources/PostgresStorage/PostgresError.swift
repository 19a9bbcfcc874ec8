import Foundation
import Storage

/// PostgreSQL's whole answer to a failed call: the SQLSTATE, the primary message, the
/// constraint, table and column it names, the libpq function that failed and the statement
/// text (never its bound values, and never the message's DETAIL, which quotes them).
public struct PostgresError: DriverError {
    /// The five-character SQLSTATE (`23505`); empty when libpq failed before the server
    /// answered (connection refused, socket closed).
    public let sqlstate: String
    public let message: String
    public let constraint: String?
    public let table: String?
    public let column: String?
    public let function: String
    public let sql: String?

    public init(sqlstate: String, message: String, constraint: String? = nil, table: String? = nil, column: String? = nil,
                function: String, sql: String? = nil) {
        self.sqlstate = sqlstate
        self.message = message
        self.constraint = constraint
        self.table = table
        self.column = column
        self.function = function
        self.sql = sql
    }

    public var description: String {
        var text = "PostgreSQL error \(sqlstate.isEmpty ? "(no SQLSTATE)" : sqlstate) in \(function): \(message)"
        if let constraint { text += " (constraint \(constraint))" }
        if let sql { text += " [\(sql)]" }
        return text
    }

    // SQLSTATEs the driver acts on (https://www.postgresql.org/docs/15/errcodes-appendix.html).
    static let uniqueViolation = "23505"
    static let foreignKeyViolation = "23503"
    static let checkViolation = "23514"
    static let notNullViolation = "23502"
    static let serializationFailure = "40001"
    static let deadlockDetected = "40P01"
    static let inFailedTransaction = "25P02"
    static let lockNotAvailable = "55P03"
    static let queryCanceled = "57014"
    static let adminShutdown = "57P01"
    static let crashShutdown = "57P02"
    static let cannotConnectNow = "57P03"

    /// A conflict with a concurrent transaction: running the whole transaction again is the
    /// documented answer (https://www.postgresql.org/docs/15/mvcc-serialization-failure-handling.html).
    public var isRetryableConflict: Bool {
        sqlstate == Self.serializationFailure || sqlstate == Self.deadlockDetected
    }

    /// `DriverError`'s name for the same (`StorageError.isTransactionConflict`).
    public var isTransactionConflict: Bool { isRetryableConflict }

    /// The server went away or refused the session: class 08 (connection exception), a
    /// shutdown or restart of the server, or libpq's own failure without a SQLSTATE.
    var isConnectionFailure: Bool {
        sqlstate.isEmpty || sqlstate.hasPrefix("08")
            || sqlstate == Self.adminShutdown || sqlstate == Self.crashShutdown || sqlstate == Self.cannotConnectNow
    }

    /// The portable error for this PostgreSQL error.
    ///
    /// A unique violation is named `table.constraint (columns)`: the constraint or index name
    /// as the schema spells it, then the key's columns, read from the DETAIL's `Key (a, b)=(…)`
    /// with the values dropped. `isUniqueViolation(on: "username_key")` matches the columns
    /// whatever the index is called, as it matches SQLite's `users.username_key`.
    func storageError(keyColumns: String?) -> StorageError {
        switch sqlstate {
        case Self.uniqueViolation:
            var name = [table, constraint].compactMap { $0 }.joined(separator: ".")
            if name.isEmpty { name = message }
            if let keyColumns { name += " (\(keyColumns))" }
            return .uniqueViolation(constraint: name)
        case Self.foreignKeyViolation:
            return .foreignKeyViolation(constraint: constraint)
        case Self.checkViolation:
            return .checkViolation(constraint: constraint)
        case Self.notNullViolation:
            return .notNullViolation(column: column.map { col in table.map { "\($0).\(col)" } ?? col })
        case Self.lockNotAvailable, Self.queryCanceled:
            // A lock wait or a statement past `statement_timeout`: the server's state, not the
            // client's fault, answered like SQLite's busy timeout (503, retry later).
            return .busy
        default:
            if isConnectionFailure { return .connectionLost(description) }
            return .driver(self)
        }
    }

    /// The column list of a unique violation's DETAIL, `Key (a, b)=(1, 2) already exists.`
    /// -> `a, b`. Read by shape, not by the English word, so a translated server message
    /// (lc_messages) still parses; the values after `)=(` are never kept.
    static func keyColumns(fromDetail detail: String) -> String? {
        guard let open = detail.firstIndex(of: "("), let close = detail.range(of: ")=(") , open < close.lowerBound else { return nil }
        let columns = detail[detail.index(after: open)..<close.lowerBound]
        return columns.isEmpty ? nil : String(columns)
    }
}
