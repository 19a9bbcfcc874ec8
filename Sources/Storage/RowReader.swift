/// Reads a row's columns in order, one `next()` per column.
///
/// Lets decoders of joined rows compose without hard-coded positions: a video decoder reads
/// its columns, then the owner's decoder reads the next ones, and so on. Every query that
/// uses one selects the columns in the order its decoders read them.
public struct RowReader {
    public let row: Row
    /// The position of the next column to read.
    @usableFromInline var index: Int

    public init(_ row: Row, from index: Int = 0) {
        self.row = row
        self.index = index
    }

    /// Decodes the next column and moves past it. Throws `StorageError.decoding` when there is
    /// no next column or it holds another type: a schema bug, never a client's fault.
    @inlinable
    public mutating func next<T: DatabaseValueConvertible>(as type: T.Type = T.self) throws(StorageError) -> T {
        let value: T = try row.decode(at: index)
        index += 1
        return value
    }

    /// True when the next column is NULL (it is not consumed).
    public var nextIsNull: Bool {
        guard row.values.indices.contains(index), case .null = row.values[index] else { return false }
        return true
    }
}

/// What a query selects beside its own clauses, and how each row becomes an `Item`: the
/// columns, the joins they need, and the reader. Lets one statement load a row with
/// everything presented about it (a video with its owner, say) instead of one query per part.
public struct Selection<Item>: Sendable {
    /// The select list, in the order `read` reads it.
    public let columns: SQL
    /// Joins the columns need (may be empty); they name their tables with their own aliases.
    public let joins: SQL
    public let read: @Sendable (inout RowReader) throws -> Item

    public init(columns: SQL, joins: SQL = "", read: @escaping @Sendable (inout RowReader) throws -> Item) {
        self.columns = columns
        self.joins = joins
        self.read = read
    }
}
