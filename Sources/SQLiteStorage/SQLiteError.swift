import CSQLite
import Foundation
import Storage

/// SQLite's whole answer to a failed call: the extended result code, its message,
/// the C function that returned it, and the statement text (never its bound values).
public struct SQLiteError: DriverError {
    /// The extended result code (`sqlite3_extended_errcode`), e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE.
    public let code: Int32
    public let message: String
    public let function: String
    public let sql: String?

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { code & 0xff }

    public var description: String {
        var text = "SQLite error \(code) in \(function): \(message)"
        if let sql { text += " [\(sql)]" }
        return text
    }

    // Extended codes, spelled out because Swift does not import these C macros.
    static let busy: Int32 = 5
    static let locked: Int32 = 6
    static let constraint: Int32 = 19
    static let constraintCheck: Int32 = 19 | (1 << 8)
    static let constraintForeignKey: Int32 = 19 | (3 << 8)
    static let constraintNotNull: Int32 = 19 | (5 << 8)
    static let constraintPrimaryKey: Int32 = 19 | (6 << 8)
    static let constraintUnique: Int32 = 19 | (8 << 8)

    /// The portable error for this SQLite error.
    var storageError: StorageError {
        // SQLite's constraint messages read "UNIQUE constraint failed: users.username_key".
        let detail = message.split(separator: ":", maxSplits: 1).dropFirst().first
            .map { $0.trimmingCharacters(in: .whitespaces) }
        switch code {
        case Self.constraintUnique, Self.constraintPrimaryKey:
            return .uniqueViolation(constraint: detail ?? message)
        case Self.constraintForeignKey:
            return .foreignKeyViolation(constraint: detail)
        case Self.constraintCheck:
            return .checkViolation(constraint: detail)
        case Self.constraintNotNull:
            return .notNullViolation(column: detail)
        default:
            if primaryCode == Self.busy || primaryCode == Self.locked { return .busy }
            return .driver(self)
        }
    }
}
