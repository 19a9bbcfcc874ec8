import Storage

/// Dead letters for the moderation console (admins): jobs that failed their last attempt,
/// paged newest first by `seq`, and one job looked up after a retry.
extension Outbox {
    /// Dead jobs older than `before` (a seq; nil: from the newest), newest first.
    public func dead(before: Int64?, limit: Int, on connection: any DatabaseConnection) throws -> [OutboxEntry] {
        let position: SQL = before.map { "AND seq < \($0)" } ?? ""
        return try connection.fetchAll("""
            SELECT \(Self.entryColumns) FROM outbox WHERE state = \(OutboxState.dead.sql) \(position) ORDER BY seq DESC LIMIT \(limit)
            """).map(Self.entry(row:))
    }

    /// The job numbered `seq`, in whatever state.
    public func entry(seq: Int64, on connection: any DatabaseConnection) throws -> OutboxEntry? {
        try connection.fetchOne("SELECT \(Self.entryColumns) FROM outbox WHERE seq = \(seq)").map(Self.entry(row:))
    }

    private static let entryColumns: SQL = "seq, lane, kind, state, attempts, available_at, last_error, created_at"

    private static func entry(row: Row) throws -> OutboxEntry {
        OutboxEntry(seq: try row.decode("seq"), lane: try row.decode("lane"), kind: try row.decode("kind"),
                    state: try OutboxState(rawValue: row.decode("state")).orThrow(column: "state", expected: "an outbox state"),
                    attempts: try row.decode("attempts"), availableAt: try row.decode("available_at"),
                    lastError: try row.decode("last_error"), createdAt: try row.decode("created_at"))
    }
}
