import CSQLite
import CSQLiteWAL
import CShims.SQLite
import Storage
import Synchronization

/// One `sqlite3*` handle with its prepared-statement cache.
///
/// Not Sendable: the pool lends it to one thread at a time, for one closure. The library
/// is opened with SQLITE_OPEN_NOMUTEX ("multi-thread" mode, https://sqlite.org/threadsafe.html):
/// safe as long as no two threads use the same connection at once, which the pool guarantees.
final class SQLiteConnection: DatabaseConnection {
    private var handle: OpaquePointer?

    /// A prepared statement with its result column names (read once: building Swift strings
    /// for them on every query showed up in profiles) and its text (for error messages).
    private struct Prepared {
        let statement: OpaquePointer
        let columns: [String]
        let text: String
    }

    /// Prepared statements by SQL text; these own the handles.
    private var statements: [String: Prepared] = [:]
    /// The same statements by `SQL.Shape` hash, each with the exact shape it was rendered
    /// from: a statement seen before is found without rendering its text.
    private var shapes: [UInt64: [(parts: [SQL.ShapePart], prepared: Prepared)]] = [:]
    let dialect = SQLDialect.sqlite

    // SQLITE_TRANSIENT is a cast macro Swift cannot import; -1 tells SQLite to copy the
    // bound bytes before the call returns, so Swift's buffers may go away right after.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Process-wide settings, applied once before the first connection opens (they must
    /// precede the library's initialization). A failure (someone else initialized SQLite
    /// first) only leaves SQLite's defaults in place.
    private static let libraryConfigured: Bool = pacenote_sqlite3_disable_memstatus() == SQLITE_OK

    /// The VFS connections open with unless told otherwise: the default one, with each
    /// transaction's WAL frames written in one call (Sources/CSQLiteWAL). Nil (SQLite's
    /// default) if it could not be registered.
    static let batchingVFS: String? = pn_wal_batching_vfs_register() == SQLITE_OK ? PN_WAL_BATCHING_VFS : nil

    /// `vfs`: the name of a registered VFS (tests put a fault-injecting one under the
    /// batching VFS); nil for `batchingVFS`.
    init(path: String, flags: Int32, vfs: String? = nil) throws(StorageError) {
        _ = Self.libraryConfigured
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, vfs ?? Self.batchingVFS)
        handle = db
        if rc != SQLITE_OK {
            let error = makeError(rc, "sqlite3_open_v2", sql: nil)
            sqlite3_close_v2(db)
            handle = nil
            throw error.storageError
        }
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    func close() {
        for (_, cached) in statements { sqlite3_finalize(cached.statement) }
        statements.removeAll()
        shapes.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    // MARK: DatabaseConnection

    @discardableResult
    func execute(_ sql: SQL) throws(StorageError) -> Int {
        let prepared = try bound(sql)
        let statement = prepared.statement
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            if rc != SQLITE_ROW { throw stepError(rc, sql: prepared.text) }
        }
        return Int(sqlite3_changes(handle))
    }

    func fetchAll(_ sql: SQL) throws(StorageError) -> [Row] {
        var rows: [Row] = []
        try query(sql) { row in rows.append(row); return true }
        return rows
    }

    func fetchAll<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> [T] {
        let prepared = try bound(sql)
        let statement = prepared.statement
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        var items: [T] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return items }
            guard rc == SQLITE_ROW else { throw stepError(rc, sql: prepared.text) }
            var reader = RowReader(RowCursor(handle: statement, count: prepared.columns.count, functions: Self.rowFunctions))
            items.append(try read(&reader))
        }
    }

    func fetchOne(_ sql: SQL) throws(StorageError) -> Row? {
        var first: Row?
        try query(sql) { row in first = row; return false }
        return first
    }

    func executeScript(_ sql: SQL) throws(StorageError) {
        let (text, binds) = sql.render(for: .sqlite)
        precondition(binds.isEmpty, "scripts take no bound values")
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, text, nil, nil, &message)
        if rc != SQLITE_OK {
            let detail = message.map { String(cString: $0) } ?? ""
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: detail, function: "sqlite3_exec", sql: nil).storageError
        }
    }

    /// Nothing: a write transaction (BEGIN IMMEDIATE) is already the only writer of the file, in
    /// any process, and SQLite has no statement timeout.
    func prepareForMigration(lock key: Int64) throws(StorageError) {}

    /// Copies this whole database into `target` in one backup step: the step reads one
    /// WAL snapshot, so the copy is consistent while writers carry on.
    func backup(into target: SQLiteConnection) throws(StorageError) {
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.makeError(sqlite3_errcode(target.handle), "sqlite3_backup_init", sql: nil).storageError
        }
        let rc = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc)), function: "sqlite3_backup_step", sql: nil).storageError
        }
    }

    /// What a checkpoint pass found: the frames in the WAL when it began, and how many of
    /// them are now in the database file. All of them, with no commit since, and the next
    /// write transaction starts the WAL over.
    struct CheckpointPass {
        var walFrames: Int
        var copiedFrames: Int
        var copiedAll: Bool { copiedFrames == walFrames }
    }

    /// Copies what it can from the WAL back into the database file without waiting for
    /// readers or the writer (SQLITE_CHECKPOINT_PASSIVE, https://sqlite.org/c3ref/wal_checkpoint_v2.html).
    @discardableResult
    func checkpointPassive() throws(StorageError) -> CheckpointPass {
        var walFrames: Int32 = 0, copiedFrames: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copiedFrames)
        if rc != SQLITE_OK && rc != SQLITE_BUSY {
            throw makeError(rc, "sqlite3_wal_checkpoint_v2", sql: nil).storageError
        }
        return CheckpointPass(walFrames: Int(walFrames), copiedFrames: Int(copiedFrames))
    }

    /// Flushes to disk what was written to the database file and the WAL so far, through
    /// this connection's own file handles (closing another descriptor of the file would drop
    /// SQLite's POSIX locks, https://sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_).
    /// It changes nothing SQLite relies on: a checkpoint still syncs both itself. It is done
    /// beforehand so that the checkpoint's own syncs find little left to write.
    func syncFiles() throws(StorageError) {
        try sync([SQLITE_FCNTL_FILE_POINTER, SQLITE_FCNTL_JOURNAL_POINTER])
    }

    /// Syncs the WAL file alone: the commits in it survive a power loss from then on.
    func syncWAL() throws(StorageError) {
        try sync([SQLITE_FCNTL_JOURNAL_POINTER])
    }

    private func sync(_ pointers: [Int32]) throws(StorageError) {
        for pointer in pointers {
            var file: UnsafeMutablePointer<sqlite3_file>?
            guard sqlite3_file_control(handle, "main", pointer, &file) == SQLITE_OK,
                  let file, let sync = file.pointee.pMethods?.pointee.xSync else { continue }
            let rc = sync(file, SQLITE_SYNC_NORMAL)
            if rc != SQLITE_OK { throw makeError(rc, "xSync", sql: nil).storageError }
        }
    }

    /// Keeps `frames` equal to the number of frames in the WAL after each commit (SQLite's
    /// WAL hook, https://sqlite.org/c3ref/wal_hook.html). This replaces `wal_autocheckpoint`,
    /// which uses the same hook: whoever watches the count decides when to checkpoint.
    func trackWAL(in counters: WALCounters) {
        sqlite3_wal_hook(handle, { context, _, _, count in
            guard let context else { return SQLITE_OK }
            let counters = Unmanaged<WALCounters>.fromOpaque(context).takeUnretainedValue()
            counters.frames.store(Int(count), ordering: .relaxed)
            counters.commits.add(1, ordering: .relaxed)
            return SQLITE_OK
        }, Unmanaged.passUnretained(counters).toOpaque())
    }

    // MARK: Statements

    /// Steps through a query, decoding each row; `body` returns false to stop early.
    private func query(_ sql: SQL, _ body: (Row) -> Bool) throws(StorageError) {
        let prepared = try bound(sql)
        let statement = prepared.statement
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        let count = prepared.columns.count
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw stepError(rc, sql: prepared.text) }
            var values: [DatabaseValue] = []
            values.reserveCapacity(count)
            for i in 0..<Int32(count) { values.append(Self.value(statement, i)) }
            if !body(Row(columns: prepared.columns, values: values)) { return }
        }
    }

    /// The prepared statement for `sql` with its values bound: found by its shape when seen
    /// before (and bound in the same walk over the fragments), else rendered, prepared (or
    /// found by its text), remembered under its shape, and bound.
    private func bound(_ sql: SQL) throws(StorageError) -> Prepared {
        if let candidates = shapes[sql.shape.hash] {
            for candidate in candidates {
                let statement = candidate.prepared.statement
                var rc = SQLITE_OK
                // A candidate that turns out not to match keeps the values bound so far; every
                // use binds all of a statement's values before stepping it.
                let same = sql.matches(candidate.parts) { position, value in
                    if rc == SQLITE_OK { rc = Self.bind(value, at: position, to: statement) }
                }
                guard same else { continue }
                guard rc == SQLITE_OK else { throw makeError(rc, "sqlite3_bind", sql: candidate.prepared.text).storageError }
                return candidate.prepared
            }
        }
        let prepared = try self.prepared(text: sql.render(for: .sqlite).text)
        shapes[sql.shape.hash, default: []].append((sql.shapeParts, prepared))
        try bind(sql, to: prepared)
        return prepared
    }

    private func prepared(text: String) throws(StorageError) -> Prepared {
        if let cached = statements[text] { return cached }
        guard let handle else { throw StorageError.connectionLost("connection closed") }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw makeError(rc, "sqlite3_prepare_v3", sql: text).storageError
        }
        let columns = (0..<sqlite3_column_count(statement)).map { index in
            sqlite3_column_name(statement, index).map { String(cString: $0) } ?? ""
        }
        let prepared = Prepared(statement: statement, columns: columns, text: text)
        statements[text] = prepared
        return prepared
    }

    /// Binds the values of `sql`, in order, to its prepared statement.
    private func bind(_ sql: SQL, to prepared: Prepared) throws(StorageError) {
        var position: Int32 = 0
        var rc = SQLITE_OK
        sql.forEachFragment { fragment in
            guard case .bind(let value) = fragment else { return true }
            position += 1
            rc = Self.bind(value, at: position, to: prepared.statement)
            return rc == SQLITE_OK
        }
        if rc != SQLITE_OK { throw makeError(rc, "sqlite3_bind", sql: prepared.text).storageError }
    }

    /// Binds one value at its 1-based position.
    private static func bind(_ value: DatabaseValue, at position: Int32, to statement: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, position)
        case .integer(let i):
            return sqlite3_bind_int64(statement, position, i)
        case .real(let d):
            return sqlite3_bind_double(statement, position, d)
        case .text(var s):
            // Bound with an explicit byte length, so a NUL inside the string is kept.
            return s.withUTF8 { buffer in
                sqlite3_bind_text(statement, position, buffer.baseAddress, Int32(buffer.count), transient)
            }
        case .blob(let bytes):
            return bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(statement, position, buffer.baseAddress, Int32(buffer.count), transient)
            }
        }
    }

    /// How `RowReader` reads the row a statement is on (`RowCursor`): the functions below, the
    /// row argument unused (a statement is on one row at a time).
    static let rowFunctions = RowCursor.Functions(
        value: { statement, _, column in value(statement, column) },
        text: { statement, _, column in text(statement, column) },
        columnName: { statement, column in columnName(statement, column) }
    )

    /// The value of a column of the row `statement` is on.
    static func value(_ statement: OpaquePointer, _ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let pointer = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let pointer = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            return .null
        }
    }

    /// The text of a column in place, valid until the statement moves on.
    static func text(_ statement: OpaquePointer, _ index: Int32) -> RowReader.Text {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            return .null
        case SQLITE_TEXT:
            // column_text before column_bytes, as SQLite documents: the count is then of the UTF-8 form.
            guard let pointer = sqlite3_column_text(statement, index) else { return .bytes(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return .bytes(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index))))
        default:
            return .notText
        }
    }

    /// The name of a result column of `statement` (for decoding errors).
    static func columnName(_ statement: OpaquePointer, _ index: Int32) -> String? {
        sqlite3_column_name(statement, index).map { String(cString: $0) }
    }

    private func stepError(_ rc: Int32, sql: String) -> StorageError {
        makeError(rc, "sqlite3_step", sql: sql).storageError
    }

    private func makeError(_ rc: Int32, _ function: String, sql: String?) -> SQLiteError {
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
        let code = handle.map { sqlite3_extended_errcode($0) } ?? rc
        return SQLiteError(code: code, message: message, function: function, sql: sql)
    }
}

/// What the writer's WAL hook counts, read by the checkpointer and the WAL sync timer. The
/// owner keeps it alive as long as the connection.
final class WALCounters: Sendable {
    /// Frames in the WAL after the last commit (0 once a checkpoint copied them all back).
    let frames = Atomic<Int>(0)
    /// Commits since the database opened, for the WAL sync timer.
    let commits = Atomic<Int>(0)
}
