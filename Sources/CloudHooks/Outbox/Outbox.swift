import Storage

/// One unit of deferred work, as leased from the `outbox` table.
public struct OutboxJob: Sendable, Equatable {
    public let seq: Int64
    /// Which handler runs it (`fanout.home`, `fanout.following`, …).
    public let kind: String
    /// The handler's input, JSON text.
    public let payload: String
    /// Attempts so far, this one included.
    public let attempts: Int
}

/// The SQL of the `outbox` table: the durable queue written in the same transaction as the
/// change that needs the work, so a crash can neither lose it nor run it for a write that
/// rolled back (DESIGN.md "Hooks").
///
/// Row states: `pending` (due at `available_at`) -> `leased` (until `leased_until`) ->
/// `done`, back to `pending` for a retry, or `dead` after the last attempt. A lease that
/// expires (a worker died mid-job) makes the row due again.
public struct Outbox: Sendable {
    public init() {}

    /// Adds a job, due now. With an idempotency key, a second job with the same key is ignored.
    public func enqueue(kind: String, payload: String, idempotencyKey: String? = nil, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO outbox (kind, payload, state, attempts, available_at, idempotency_key, created_at)
            VALUES (\(kind), \(payload), 'pending', 0, \(now), \(idempotencyKey), \(now))
            ON CONFLICT (idempotency_key) DO NOTHING
            """)
    }

    /// Up to `limit` due jobs (pending and due, or leased with an expired lease), oldest first.
    func due(limit: Int, now: Int64, on connection: any DatabaseConnection) throws -> [Int64] {
        try connection.fetchAll("""
            SELECT seq FROM outbox
            WHERE (state = 'pending' AND available_at <= \(now)) OR (state = 'leased' AND leased_until <= \(now))
            ORDER BY seq LIMIT \(limit)
            """).map { try $0.decode("seq", as: Int64.self) }
    }

    /// Leases one job, counting an attempt.
    func lease(_ seq: Int64, now: Int64, leaseMillis: Int64, on connection: any DatabaseConnection) throws -> OutboxJob? {
        guard let row = try connection.fetchOne("""
            UPDATE outbox SET state = 'leased', leased_until = \(now + leaseMillis), attempts = attempts + 1
            WHERE seq = \(seq) RETURNING seq, kind, payload, attempts
            """) else { return nil }
        return OutboxJob(seq: try row.decode("seq"), kind: try row.decode("kind"), payload: try row.decode("payload"), attempts: try row.decode("attempts"))
    }

    func complete(_ seq: Int64, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE outbox SET state = 'done', finished_at = \(now), leased_until = NULL WHERE seq = \(seq)")
    }

    func retry(_ seq: Int64, at time: Int64, error: String, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE outbox SET state = 'pending', available_at = \(time), leased_until = NULL, last_error = \(error) WHERE seq = \(seq)")
    }

    func bury(_ seq: Int64, now: Int64, error: String, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE outbox SET state = 'dead', finished_at = \(now), leased_until = NULL, last_error = \(error) WHERE seq = \(seq)")
    }

    /// The seq of the newest job, whatever its state (nil: none yet).
    func newest(on connection: any DatabaseConnection) throws -> Int64? {
        try connection.fetchValue("SELECT MAX(seq) FROM outbox", as: Int64?.self) ?? nil
    }

    /// Jobs waiting or running (for metrics and tests).
    public func backlog(on connection: any DatabaseConnection) throws -> Int {
        try connection.fetchValue("SELECT COUNT(*) FROM outbox WHERE state IN ('pending', 'leased')", as: Int.self) ?? 0
    }

    /// Forgets finished jobs older than `before`; dead ones stay for an operator to look at.
    public func purgeDone(before: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM outbox WHERE state = 'done' AND finished_at < \(before)")
    }
}
