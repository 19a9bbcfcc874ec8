/// How a dialect tells the order in which writes became visible, for logs read by position
/// (the change log, `GET /v1/changes`): a stamp each write transaction puts on its rows, and
/// the bound below which every stamp belongs to a transaction that has ended.
///
/// SQLite has one writer and commits in the order transactions began (`BEGIN IMMEDIATE`), so
/// anything numbered inside a write transaction becomes visible in number order: the stamp is
/// a constant and there is no bound. PostgreSQL runs writers side by side and a number taken
/// earlier can commit later; there the stamp is the transaction's id and the bound the reader's
/// snapshot's xmin (every transaction with a smaller id has committed or aborted, so no row
/// stamped below it can still appear). Rows handed out only below the bound, in (stamp, n)
/// order, are never passed by a row that commits afterwards.
extension SQLDialect {
    /// The writing transaction's stamp, as a 64-bit integer expression: 0 on SQLite,
    /// `pg_current_xact_id()` on PostgreSQL (the top-level transaction's id, also inside a
    /// savepoint; it assigns one if the transaction has none yet).
    public var writerStamp: SQL {
        switch self {
        case .sqlite: "0"
        // xid8 is 64 bits of epoch and xid; its text is the integer (PostgreSQL 13+).
        case .postgres: "pg_current_xact_id()::text::bigint"
        }
    }

    /// The stamp below which every writer has ended, as seen by the current statement's
    /// snapshot; nil when stamps are committed in order anyway (SQLite). A transaction that
    /// stays open (a long import, a session idle in a transaction) holds the bound back, and
    /// with it what readers are handed, until it ends: late, never skipped.
    public var settledStampBound: SQL? {
        switch self {
        case .sqlite: nil
        case .postgres: "pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
        }
    }
}
