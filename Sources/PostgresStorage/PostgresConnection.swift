import CPostgres
import Foundation
import Storage

/// One libpq session (`PGconn *`) with its prepared-statement cache, opened lazily and opened
/// again after the server dropped it.
///
/// Not Sendable: the pool lends it to one thread at a time, for one closure, which is what
/// libpq asks (a `PGconn` must not be used by two threads at once). The object stays in its
/// pool slot for the life of the database; the session inside it is what gets replaced: a
/// failure that leaves libpq's status CONNECTION_BAD discards the session (and its prepared
/// statements, which lived in it), and the next `open()` makes a new one.
final class PostgresConnection: DatabaseConnection {
    struct Settings: Sendable {
        var url: String
        var connectTimeoutSeconds: Int
        /// Applied with `SET statement_timeout` to every new session; 0 means none.
        var statementTimeoutMillis: Int
    }

    let dialect = SQLDialect.postgres
    private let settings: Settings
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text (the rendered `$n` form): their server-side names.
    private var statements: [String: String] = [:]
    /// Names are unique for the life of the object, so a statement prepared by a session that
    /// was dropped can never collide with one of its successor.
    private var nextStatement = 0
    private var closed = false
    /// The failure that aborted the transaction `begin` opened, if a statement of it failed:
    /// the last error a statement raised, the 25P02 ("current transaction is aborted") of the
    /// statements run after it aside. PostgreSQL ignores every statement after a failure until
    /// the transaction ends, and COMMIT then rolls back, so this is what went wrong even when
    /// the caller's code caught the error. A ROLLBACK TO SAVEPOINT recovers the transaction;
    /// a failure after it replaces this one.
    private(set) var transactionFailure: StorageError?

    init(settings: Settings) {
        self.settings = settings
    }

    deinit { close() }

    /// Ends the session for good: later calls fail with `connectionLost`.
    func close() {
        discard()
        closed = true
    }

    /// Drops the session, if any; the next statement opens a new one.
    func discard() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// True while a session is open and libpq has not seen it fail.
    var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Opens a session unless one is open and healthy.
    func open() throws(StorageError) {
        if isOpen { return }
        guard !closed else { throw StorageError.connectionLost("database closed") }
        discard()
        // connect_timeout comes first so that a value in the URL, expanded from `dbname`, wins.
        let keywords = ["connect_timeout", "client_encoding", "dbname"]
        let values = [String(settings.connectTimeoutSeconds), "UTF8", settings.url]
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else { throw StorageError.connectionLost("libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = PQerrorMessage(connection).map { String(cString: $0) } ?? "connection failed"
            PQfinish(connection)
            throw StorageError.connectionLost(message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // Notices ("relation already exists, skipping") would go to stderr by default, outside
        // the JSON log; nothing in them needs an operator.
        PQsetNoticeProcessor(connection, silenceNotices, nil)
        handle = connection
        if settings.statementTimeoutMillis > 0 {
            try simple("SET statement_timeout = \(settings.statementTimeoutMillis)")
        }
    }

    // MARK: DatabaseConnection

    @discardableResult
    func execute(_ sql: SQL) throws(StorageError) -> Int {
        let result = try run(sql)
        defer { PQclear(result) }
        guard let tuples = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    func fetchAll(_ sql: SQL) throws(StorageError) -> [Row] {
        let result = try run(sql)
        defer { PQclear(result) }
        let columnCount = PQnfields(result)
        let columns = (0..<columnCount).map { Self.columnName(result, $0) ?? "" }
        return (0..<PQntuples(result)).map { row in
            Row(columns: columns, values: (0..<columnCount).map { Self.value(result, row: row, column: $0) })
        }
    }

    func fetchAll<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> [T] {
        let result = try run(sql)
        defer { PQclear(result) }
        let count = Int(PQnfields(result))
        let rows = PQntuples(result)
        var items: [T] = []
        items.reserveCapacity(Int(rows))
        for row in 0..<rows {
            var reader = RowReader(RowCursor(handle: result, row: row, count: count, functions: Self.rowFunctions))
            items.append(try read(&reader))
        }
        return items
    }

    func fetchOne(_ sql: SQL) throws(StorageError) -> Row? {
        try fetchAll(sql).first
    }

    func executeScript(_ sql: SQL) throws(StorageError) {
        let (text, binds) = sql.render(for: .postgres)
        precondition(binds.isEmpty, "scripts take no bound values")
        try simple(text)
    }

    /// Lifts `statement_timeout` and `lock_timeout` with `SET LOCAL` (the session's own timeout,
    /// 30 s in `PostgresDatabase.Configuration`, failed every start of a server that waited on
    /// another's migration), then takes the transaction-level advisory lock `key`: servers
    /// starting together wait on it, and creating `schema_migrations` twice at once would
    /// collide in the catalog.
    func prepareForMigration(lock key: Int64) throws(StorageError) {
        try executeScript("SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0")
        try execute("SELECT pg_advisory_xact_lock(\(key))")
    }

    // MARK: Statements

    /// Runs trusted text through the simple query protocol: several statements at once, no
    /// parameters, nothing prepared (scripts, transaction control, session settings). Answers
    /// the command tag of the last statement (`PQcmdStatus`): `COMMIT`, or `ROLLBACK` for the
    /// COMMIT of an aborted transaction, which the server does not report as an error.
    @discardableResult
    func simple(_ text: String) throws(StorageError) -> String {
        try open()
        let result = PQexec(handle, text)
        defer { PQclear(result) }
        try check(result, "PQexec", sql: text)
        return PQcmdStatus(result).map { String(cString: $0) } ?? ""
    }

    /// True while the open transaction is aborted (a statement of it failed and no savepoint
    /// was rolled back to since): libpq's own account of the session, `PQTRANS_INERROR`.
    var isInFailedTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_INERROR
    }

    /// Opens a transaction with `text` (`BEGIN ...`), forgetting the failure of the last one.
    func begin(_ text: String) throws(StorageError) {
        transactionFailure = nil
        try simple(text)
    }

    /// Prepares (once per session) and runs a statement; the caller clears the result.
    private func run(_ sql: SQL) throws(StorageError) -> OpaquePointer {
        let (text, binds) = sql.render(for: .postgres)
        try open()
        let name = try prepared(text, parameterCount: binds.count)
        let parameters = try PostgresParameters(binds)
        let result = parameters.withPointers { values, lengths, formats in
            // Results in text format: every type has one, and it is what `value` decodes.
            PQexecPrepared(handle, name, Int32(binds.count), values, lengths, formats, 0)
        }
        do {
            try check(result, "PQexecPrepared", sql: text)
        } catch {
            PQclear(result)
            // A plan cached before a schema change may no longer fit (0A000, "cached plan must
            // not change result type"): forget it, so the next run prepares it afresh.
            if case .driver(let driver as PostgresError) = error, driver.sqlstate == "0A000" { statements[text] = nil }
            throw error
        }
        guard let result else { throw StorageError.connectionLost("libpq returned no result") }
        return result
    }

    private func prepared(_ text: String, parameterCount: Int) throws(StorageError) -> String {
        if let name = statements[text] { return name }
        nextStatement += 1
        let name = "pacenote_\(nextStatement)"
        // No parameter types: the server infers each from its context, and text-format values
        // convert to whatever it inferred (`1` into a boolean, a bigint or a double).
        let result = PQprepare(handle, name, text, Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result, "PQprepare", sql: text)
        statements[text] = name
        return name
    }

    /// Throws the error a failed result carries; a session that libpq now reports as broken is
    /// discarded first, so the next borrower of this connection gets a new one.
    private func check(_ result: OpaquePointer?, _ function: String, sql: String) throws(StorageError) {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return }
        }
        let error = makeError(result, function, sql: sql)
        if !isOpen { discard() }
        let storageError = error.storageError(keyColumns: result.flatMap { field($0, detail) }.flatMap(PostgresError.keyColumns(fromDetail:)))
        if error.sqlstate != PostgresError.inFailedTransaction { transactionFailure = storageError }
        throw storageError
    }

    private func makeError(_ result: OpaquePointer?, _ function: String, sql: String) -> PostgresError {
        guard let result, let state = field(result, sqlstate) else {
            // No SQLSTATE: libpq failed on its side (socket closed, out of memory).
            let message = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "no result"
            return PostgresError(sqlstate: "", message: message.trimmingCharacters(in: .whitespacesAndNewlines), function: function, sql: sql)
        }
        return PostgresError(
            sqlstate: state, message: field(result, primaryMessage) ?? "", constraint: field(result, constraintName),
            table: field(result, tableName), column: field(result, columnName), function: function, sql: sql
        )
    }

    private func field(_ result: OpaquePointer, _ code: Character) -> String? {
        guard let ascii = code.asciiValue else { return nil }
        return PQresultErrorField(result, Int32(ascii)).map { String(cString: $0) }
    }

    // The PG_DIAG_* codes are character macros, which Swift does not import (postgres_ext.h).
    private let sqlstate: Character = "C"
    private let primaryMessage: Character = "M"
    private let detail: Character = "D"
    private let tableName: Character = "t"
    private let columnName: Character = "c"
    private let constraintName: Character = "n"

    // MARK: Values

    /// Type OIDs the decoder distinguishes (pg_type.dat); every other type is read as text.
    private enum TypeOID {
        static let bool: Oid = 16
        static let bytea: Oid = 17
        static let int8: Oid = 20
        static let int2: Oid = 21
        static let int4: Oid = 23
        static let oid: Oid = 26
        static let float4: Oid = 700
        static let float8: Oid = 701
        static let numeric: Oid = 1700
    }

    /// The value of a column of a row of a text-format result.
    ///
    /// `boolean` becomes `.integer` 1 or 0, the form SQLite stores and `Bool` decodes;
    /// `numeric` (what `sum` of a bigint answers) becomes `.real`, which `Int64` accepts when
    /// it is whole.
    static func value(_ result: OpaquePointer, row: Int32, column: Int32) -> DatabaseValue {
        if PQgetisnull(result, row, column) != 0 { return .null }
        guard let pointer = PQgetvalue(result, row, column) else { return .null }
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: Int(PQgetlength(result, row, column))
        )
        switch PQftype(result, column) {
        case TypeOID.bool:
            return .integer(bytes.first == UInt8(ascii: "t") ? 1 : 0)
        case TypeOID.int8, TypeOID.int4, TypeOID.int2, TypeOID.oid:
            if let integer = parseInteger(bytes) { return .integer(integer) }
            return .text(String(decoding: bytes, as: UTF8.self))
        case TypeOID.float8, TypeOID.float4, TypeOID.numeric:
            if let double = Double(String(decoding: bytes, as: UTF8.self)) { return .real(double) }
            return .text(String(decoding: bytes, as: UTF8.self))
        case TypeOID.bytea:
            return decodeHex(bytes).map(DatabaseValue.blob) ?? .text(String(decoding: bytes, as: UTF8.self))
        default:
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// How `RowReader` reads a row of a result (`RowCursor`): text is decoded like any value,
    /// since a text-format result holds no text in the form the reader hands out.
    static let rowFunctions = RowCursor.Functions(
        value: { result, row, column in value(result, row: row, column: column) },
        text: { result, row, column in RowCursor.Functions.text(from: value(result, row: row, column: column)) },
        columnName: { result, column in columnName(result, column) }
    )

    static func columnName(_ result: OpaquePointer, _ index: Int32) -> String? {
        PQfname(result, index).map { String(cString: $0) }
    }

    /// A decimal integer as the server prints it (optional `-`, digits); nil on anything else
    /// or on overflow. Avoids building a String per integer column.
    private static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulate negatively so that Int64.min parses.
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// bytea's text output (`bytea_output = hex`, the default): `\x` then two hex digits a byte.
    private static func decodeHex(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

/// libpq's notice processor: discards the notice.
private func silenceNotices(_ context: UnsafeMutableRawPointer?, _ message: UnsafePointer<CChar>?) {}

/// Calls `body` with a C array of C strings (`const char *const *`), NULL-terminated, valid
/// only during the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: strings.count + 1)
    defer {
        array.deallocate()
        copies.forEach { free($0) }
    }
    for (index, copy) in copies.enumerated() { array[index] = copy.map { UnsafePointer($0) } }
    array[strings.count] = nil
    return body(array)
}
