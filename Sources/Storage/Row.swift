/// One result row: decoded values, safe to pass between threads.
public struct Row: Sendable {
    /// Column names, shared by every row of one result.
    public let columns: [String]
    public let values: [DatabaseValue]

    public init(columns: [String], values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    /// The raw value of a column, `.null` when there is no such column.
    public subscript(_ column: String) -> DatabaseValue {
        guard let index = columns.firstIndex(of: column) else { return .null }
        return values[index]
    }

    // Decoding is @inlinable so that callers in other modules get it specialised for the
    // concrete type: unspecialised generic calls showed up in profiles as metadata lookups.

    /// Decodes a column by name. Throws `StorageError.decoding` when the column is missing
    /// or holds another type: that is a schema bug, never a client's fault.
    @inlinable
    public func decode<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws(StorageError) -> T {
        guard let index = columns.firstIndex(of: column) else {
            throw StorageError.decoding(column: column, expected: String(describing: T.self))
        }
        return try decode(at: index)
    }

    /// Decodes a column by position, for hot paths.
    @inlinable
    public func decode<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws(StorageError) -> T {
        guard values.indices.contains(index), let value = T.fromDatabaseValue(values[index]) else {
            let name = columns.indices.contains(index) ? columns[index] : "#\(index)"
            throw StorageError.decoding(column: name, expected: String(describing: T.self))
        }
        return value
    }
}
