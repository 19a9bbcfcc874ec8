/// Reads a row's columns in order, one `next()` per column.
///
/// Lets decoders of joined rows compose without hard-coded positions: a video decoder reads
/// its columns, then the owner's decoder reads the next ones, and so on. Every query that
/// uses one selects the columns in the order its decoders read them.
///
/// A reader handed out by `DatabaseConnection.fetchAll(_:reading:)` reads the driver's
/// current row in place and is valid only inside that closure.
public struct RowReader {
    /// Where the values come from: a decoded row, or a driver's current row read in place
    /// through its `RowCursor`. An enum of two cases rather than a protocol: the driver's case
    /// is the hot path (every page read goes through it, column by column), and a switch over
    /// two cases plus a call through the driver's function costs nothing next to an existential
    /// call per column. Only the driver's functions touch its C library.
    @usableFromInline enum Source {
        case row(Row)
        case cursor(RowCursor)
    }

    @usableFromInline let source: Source
    /// The position of the next column to read.
    @usableFromInline var index: Int

    public init(_ row: Row, from index: Int = 0) {
        source = .row(row)
        self.index = index
    }

    /// A reader of the row `cursor` is on, from its first column: what a driver hands to
    /// `fetchAll(_:reading:)`'s closure.
    public init(_ cursor: RowCursor) {
        source = .cursor(cursor)
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
    /// NULL. From a driver that hands text over in place (`RowCursor.Functions.text`) the
    /// bytes are valid only inside `body` and no `String` is made, so a presenter copies long
    /// texts (titles, descriptions) straight into a response; other sources go through their
    /// decoded value. Throws `StorageError.decoding` for a column of another type. The bytes
    /// are whatever was stored, not checked as UTF-8: the caller decides what invalid bytes
    /// become.
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
    public enum Text {
        case null
        /// In place, valid until the row changes.
        case bytes(UnsafeRawBufferPointer)
        case string(String)
        case notText
    }

    private func text(at index: Int) -> Text {
        if case .cursor(let cursor) = source, index < cursor.count {
            return cursor.functions.text(cursor.handle, cursor.row, Int32(index))
        }
        return value(at: index).map(RowCursor.Functions.text(from:)) ?? .notText
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
        case .cursor(let cursor):
            return index < cursor.count ? cursor.functions.value(cursor.handle, cursor.row, Int32(index)) : nil
        }
    }

    @usableFromInline func columnName(_ index: Int) -> String {
        switch source {
        case .row(let row):
            return row.columns.indices.contains(index) ? row.columns[index] : "#\(index)"
        case .cursor(let cursor):
            return index < cursor.count ? cursor.functions.columnName(cursor.handle, Int32(index)) ?? "#\(index)" : "#\(index)"
        }
    }
}

/// A driver's current row, read in place: the driver's result handle (a prepared statement
/// positioned on a row, a result set), the row within it, the column count, and the driver's
/// functions that read a column of it.
///
/// The seam between `RowReader` and the drivers, which keeps the root free of any driver: a
/// driver makes one `Functions` value (a static constant, functions that capture nothing)
/// and a cursor per row, so reading a column costs one switch and one call through a
/// function value: no existential, no allocation.
public struct RowCursor {
    /// How a driver reads a column of a row of its results. Each function gets the cursor's
    /// handle, row and a 0-based column below the cursor's count.
    public struct Functions: Sendable {
        /// The column's value.
        public let value: @Sendable (_ handle: OpaquePointer, _ row: Int32, _ column: Int32) -> DatabaseValue
        /// The column's text: in place (`.bytes`, valid until the row changes) when the driver
        /// can, else `.string`; `.null` for NULL and `.notText` for a value of another type.
        public let text: @Sendable (_ handle: OpaquePointer, _ row: Int32, _ column: Int32) -> RowReader.Text
        /// The column's name (for decoding errors).
        public let columnName: @Sendable (_ handle: OpaquePointer, _ column: Int32) -> String?

        public init(
            value: @escaping @Sendable (_ handle: OpaquePointer, _ row: Int32, _ column: Int32) -> DatabaseValue,
            text: @escaping @Sendable (_ handle: OpaquePointer, _ row: Int32, _ column: Int32) -> RowReader.Text,
            columnName: @escaping @Sendable (_ handle: OpaquePointer, _ column: Int32) -> String?
        ) {
            self.value = value
            self.text = text
            self.columnName = columnName
        }

        /// `text` for a driver that holds no text in place: the column's value, as text.
        public static func text(from value: DatabaseValue) -> RowReader.Text {
            switch value {
            case .null: return .null
            case .text(let string): return .string(string)
            default: return .notText
            }
        }
    }

    @usableFromInline let handle: OpaquePointer
    @usableFromInline let row: Int32
    @usableFromInline let count: Int
    @usableFromInline let functions: Functions

    public init(handle: OpaquePointer, row: Int32 = 0, count: Int, functions: Functions) {
        self.handle = handle
        self.row = row
        self.count = count
        self.functions = functions
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
