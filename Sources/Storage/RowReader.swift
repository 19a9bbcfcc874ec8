/// Reads a row's columns in order, one `next()` per column.
///
/// Lets decoders of joined rows compose without hard-coded positions: a video decoder reads
/// its columns, then the owner's decoder reads the next ones, and so on. Every query that
/// uses one selects the columns in the order its decoders read them.
///
/// A reader handed out by `DatabaseConnection.fetchAll(_:reading:)` reads the driver's
/// current row in place and is valid only inside that closure.
public struct RowReader {
    /// Where the values come from. An enum of the backends rather than a protocol: the
    /// SQLite case is the hot path (every page read goes through it, column by column), and a
    /// switch over three cases costs nothing next to an existential call per column. Each
    /// driver's case is read by functions in that driver's folder, so only those import the C
    /// library.
    @usableFromInline enum Source {
        case row(Row)
        /// A SQLite statement positioned on a row (SQLITE_ROW).
        case sqlite(OpaquePointer, count: Int)
        /// A PostgreSQL result (`PGresult *`) and the row being read.
        case postgres(OpaquePointer, row: Int32, count: Int)
    }

    @usableFromInline let source: Source
    /// The position of the next column to read.
    @usableFromInline var index: Int

    public init(_ row: Row, from index: Int = 0) {
        source = .row(row)
        self.index = index
    }

    init(sqlite statement: OpaquePointer, count: Int) {
        source = .sqlite(statement, count: count)
        index = 0
    }

    init(postgres result: OpaquePointer, row: Int32, count: Int) {
        source = .postgres(result, row: row, count: count)
        index = 0
    }

    /// Decodes the next column and moves past it. Throws `StorageError.decoding` when there is
    /// no next column or it holds another type: a schema bug, never a client's fault.
    @inlinable
    public mutating func next<T: DatabaseValueConvertible>(as type: T.Type = T.self) throws(StorageError) -> T {
        guard let value = value(at: index).flatMap(T.fromDatabaseValue) else {
            throw StorageError.decoding(column: columnName(index), expected: String(describing: T.self))
        }
        index += 1
        return value
    }

    /// Hands the next column's text to `body` as UTF-8 bytes, then moves past it: nil for
    /// NULL. From SQLite the bytes are read in place (valid only inside `body`) and no
    /// `String` is made, so a presenter copies long texts (titles, descriptions) straight
    /// into a response; other sources go through their decoded value. Throws
    /// `StorageError.decoding` for a column of another type. The bytes are whatever was
    /// stored, not checked as UTF-8: the caller decides what invalid bytes become.
    public mutating func nextText<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) throws -> R {
        let result: R
        switch text(at: index) {
        case .null:
            result = try body(nil)
        case .bytes(let bytes):
            result = try body(bytes)
        case .string(var string):
            result = try string.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case .notText:
            throw StorageError.decoding(column: columnName(index), expected: "text")
        }
        index += 1
        return result
    }

    /// A text column as a driver hands it over.
    enum Text {
        case null
        /// In place, valid until the row changes.
        case bytes(UnsafeRawBufferPointer)
        case string(String)
        case notText
    }

    private func text(at index: Int) -> Text {
        if case .sqlite(let statement, let count) = source, index < count {
            return SQLiteConnection.text(statement, Int32(index))
        }
        switch value(at: index) {
        case .null?: return .null
        case .text(let string)?: return .string(string)
        default: return .notText
        }
    }

    /// Moves past `count` columns without reading them.
    public mutating func skip(_ count: Int) {
        index += count
    }

    /// True when the next column is NULL (it is not consumed).
    public var nextIsNull: Bool {
        guard let value = value(at: index), case .null = value else { return false }
        return true
    }

    /// The value at `index`, nil past the last column.
    @usableFromInline func value(at index: Int) -> DatabaseValue? {
        switch source {
        case .row(let row):
            return row.values.indices.contains(index) ? row.values[index] : nil
        case .sqlite(let statement, let count):
            return index < count ? SQLiteConnection.value(statement, Int32(index)) : nil
        case .postgres(let result, let row, let count):
            return index < count ? PostgresConnection.value(result, row: row, column: Int32(index)) : nil
        }
    }

    @usableFromInline func columnName(_ index: Int) -> String {
        switch source {
        case .row(let row):
            return row.columns.indices.contains(index) ? row.columns[index] : "#\(index)"
        case .sqlite(let statement, let count):
            return index < count ? SQLiteConnection.columnName(statement, Int32(index)) ?? "#\(index)" : "#\(index)"
        case .postgres(let result, _, let count):
            return index < count ? PostgresConnection.columnName(result, Int32(index)) ?? "#\(index)" : "#\(index)"
        }
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
