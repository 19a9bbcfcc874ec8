import Storage

/// What a change row is about.
package enum ChangeKind: String, Sendable, CaseIterable {
    case rally, video

    /// As stored and as the API names it; a literal, since the set is fixed.
    var sql: SQL {
        switch self {
        case .rally: "'rally'"
        case .video: "'video'"
        }
    }
}

/// A place in the change log: `(txid, seq)`, ordered as a pair. `txid` is 0 on SQLite
/// (`SQLDialect.writerStamp`).
package struct ChangePosition: Sendable, Equatable, Comparable {
    package let txid: Int64
    package let seq: Int64

    /// Before every row.
    package static let start = ChangePosition(txid: 0, seq: 0)

    package init(txid: Int64, seq: Int64) {
        self.txid = txid
        self.seq = seq
    }

    package static func < (a: ChangePosition, b: ChangePosition) -> Bool {
        (a.txid, a.seq) < (b.txid, b.seq)
    }
}

/// One row of the change log: an object and where its latest change sits.
package struct ChangeRow: Sendable, Equatable {
    package let kind: ChangeKind
    package let objectID: String
    package let position: ChangePosition
    /// A tombstone: the object was deleted (kept until the purge).
    package let deleted: Bool
}

/// How far the purge of tombstones has gone (`changes_horizon`).
package struct ChangeHorizon: Sendable, Equatable {
    /// The highest position a purge removed.
    package let purged: ChangePosition
    /// One past the newest `changed_at` a purge removed: every tombstone purged was written
    /// before it.
    package let purgedBefore: Int64

    /// Whether a reader at `position`, whose copy holds only what it read since `origin`
    /// (the time it last started without a token), may have missed a purged tombstone.
    ///
    /// A purged tombstone matters to it only if it lies past its position (otherwise it was
    /// read: rows never appear behind a position handed out) and was written after `origin`
    /// (an object deleted before the reader started was never in its copy).
    package func expired(position: ChangePosition, origin: Int64) -> Bool {
        position < purged && origin < purgedBefore
    }
}

/// The SQL of the change log (`changes`, `changes_horizon`; migration 0020): recording a
/// change in the writer's transaction, reading a page in order, the purge of tombstones.
package struct ChangeLog: Sendable {
    package init() {}

    /// Moves the object's row to a new position (making it if it has none), as a tombstone
    /// when `deleted`. Called from the hooks, inside the write's transaction
    /// (`ChangeHooks`), so the row commits or rolls back with the change.
    package func record(_ kind: ChangeKind, id: String, deleted: Bool, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO changes (kind, object_id, txid, seq, changed_at, deleted)
            VALUES (\(kind.sql), \(id), \(connection.dialect.writerStamp), \(Self.nextSeq(connection.dialect)), \(now), \(deleted))
            ON CONFLICT (kind, object_id) DO UPDATE SET
                txid = excluded.txid, seq = excluded.seq, changed_at = excluded.changed_at, deleted = excluded.deleted
            """)
    }

    /// The rows after `position`, in order, at most `limit`, that no later commit can precede
    /// (`SQLDialect.settledStampBound`).
    package func rows(after position: ChangePosition, limit: Int, on connection: any DatabaseConnection) throws -> [ChangeRow] {
        let settled: SQL = connection.dialect.settledStampBound.map { "AND txid < \($0)" } ?? ""
        return try connection.fetchAll("""
            SELECT kind, object_id, txid, seq, deleted FROM changes
            WHERE (txid, seq) > (\(position.txid), \(position.seq)) \(settled)
            ORDER BY txid, seq LIMIT \(limit)
            """) { reader in
            let kindName: String = try reader.next()
            guard let kind = ChangeKind(rawValue: kindName) else { throw StorageError.decoding(column: "kind", expected: "rally or video") }
            let objectID: String = try reader.next()
            let txid: Int64 = try reader.next(), seq: Int64 = try reader.next()
            return ChangeRow(kind: kind, objectID: objectID, position: ChangePosition(txid: txid, seq: seq), deleted: try reader.next())
        }
    }

    package func horizon(on connection: any DatabaseConnection) throws -> ChangeHorizon {
        let found = try connection.fetchAll("SELECT purged_txid, purged_seq, purged_before FROM changes_horizon WHERE id = 1") { reader in
            let txid: Int64 = try reader.next(), seq: Int64 = try reader.next()
            return ChangeHorizon(purged: ChangePosition(txid: txid, seq: seq), purgedBefore: try reader.next())
        }
        // Migration 0020 writes the row; nothing deletes it.
        guard let horizon = found.first else { throw StorageError.decoding(column: "changes_horizon", expected: "its one row") }
        return horizon
    }

    /// Removes up to `batch` tombstones written before `cutoff`, oldest first, and moves the
    /// horizon past them, in the caller's write transaction; answers how many went.
    package func purgeTombstones(before cutoff: Int64, batch: Int, on connection: any DatabaseConnection) throws -> Int {
        // Ordered to the key, so the DELETE below picks exactly these rows.
        let oldest: SQL = """
            SELECT kind, object_id FROM changes WHERE deleted = TRUE AND changed_at < \(cutoff)
            ORDER BY changed_at, kind, object_id LIMIT \(batch)
            """
        let taken = try connection.fetchAll("""
            SELECT c.txid, c.seq, c.changed_at FROM changes c JOIN (\(oldest)) o ON o.kind = c.kind AND o.object_id = c.object_id
            """) { reader -> (ChangePosition, Int64) in
            let txid: Int64 = try reader.next(), seq: Int64 = try reader.next()
            return (ChangePosition(txid: txid, seq: seq), try reader.next())
        }
        guard let highest = taken.map(\.0).max(), let newest = taken.map(\.1).max() else { return 0 }
        try connection.execute("DELETE FROM changes WHERE (kind, object_id) IN (\(oldest))")
        // Never backwards: another server may have purged further meanwhile.
        try connection.execute("""
            UPDATE changes_horizon SET purged_txid = \(highest.txid), purged_seq = \(highest.seq)
            WHERE id = 1 AND (purged_txid, purged_seq) < (\(highest.txid), \(highest.seq))
            """)
        try connection.execute("UPDATE changes_horizon SET purged_before = \(newest + 1) WHERE id = 1 AND purged_before < \(newest + 1)")
        return taken.count
    }

    /// Rows for the rallies and videos that have none: objects written around the hooks (the
    /// Parse import), so a walk from the start still meets them. Answers how many were made.
    @discardableResult
    package func recordMissing(now: Int64, on connection: any DatabaseConnection) throws -> Int {
        var made = 0
        for (kind, table) in [(ChangeKind.rally, "rallies"), (.video, "videos")] {
            let ids = try connection.fetchAll("""
                SELECT t.id FROM \(unsafe: table) t
                WHERE NOT EXISTS (SELECT 1 FROM changes c WHERE c.kind = \(kind.sql) AND c.object_id = t.id)
                ORDER BY t.created_at, t.id
                """) { reader -> String in try reader.next() }
            for id in ids { try record(kind, id: id, deleted: false, now: now, on: connection) }
            made += ids.count
        }
        return made
    }

    /// The next seq: PostgreSQL's sequence; on SQLite one past the highest seq in the table
    /// or purged (the horizon, so a purge of the newest rows never lets a number come back),
    /// read inside the one writer's transaction.
    private static func nextSeq(_ dialect: SQLDialect) -> SQL {
        switch dialect {
        case .postgres: "nextval('changes_seq')"
        case .sqlite: """
            max(COALESCE((SELECT seq FROM changes WHERE txid = 0 ORDER BY seq DESC LIMIT 1), 0), \
            (SELECT purged_seq FROM changes_horizon WHERE id = 1)) + 1
            """
        }
    }
}
