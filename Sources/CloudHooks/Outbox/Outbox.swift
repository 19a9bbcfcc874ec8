import JSON
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

/// A queue within the outbox with a worker of its own, so one kind of work never waits
/// behind a backlog of another (a push never waits for the feed fan-out).
public struct OutboxLane: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Feed timelines (`Timelines`): database work only.
    public static let feed = OutboxLane(rawValue: "feed")
    /// Notifications to many recipients (a new video's broadcast): database work only.
    public static let notify = OutboxLane(rawValue: "notify")
    /// Deliveries to push services and the webhook: network work, leased outside transactions.
    public static let push = OutboxLane(rawValue: "push")
    /// Verification and reset mails over SMTP: network work, like `push`, with a worker of its
    /// own so a mail server's outage never holds up pushes (nor the reverse).
    public static let mail = OutboxLane(rawValue: "mail")

    public static let all: [OutboxLane] = [.feed, .notify, .push, .mail]
}

/// An outbox row as an operator sees it (`pacenote outbox list`).
public struct OutboxEntry: Sendable, Equatable {
    public let seq: Int64
    public let lane: String
    public let kind: String
    public let state: OutboxState
    public let attempts: Int
    public let availableAt: Int64
    public let lastError: String?
    public let createdAt: Int64
}

/// The SQL of the `outbox` table: the durable queue written in the same transaction as the
/// change that needs the work, so a crash can neither lose it nor run it for a write that
/// rolled back (DESIGN.md "Hooks").
///
/// Row states and their transitions: `OutboxState`, `OutboxTransition`.
public struct Outbox: Sendable {
    public init() {}

    /// Adds a job, due now or at `availableAt` (a scheduled job: an announcement's send time,
    /// which lives here, in the database, rather than in a timer of one process). With an
    /// idempotency key, a second job with the same key is ignored.
    public func enqueue(kind: String, payload: String, idempotencyKey: String? = nil, lane: OutboxLane = .feed,
                        availableAt: Int64? = nil, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO outbox (kind, payload, state, attempts, available_at, idempotency_key, created_at, lane)
            VALUES (\(kind), \(payload), \(OutboxState.pending.sql), 0, \(availableAt ?? now), \(idempotencyKey), \(now), \(lane.rawValue))
            ON CONFLICT (idempotency_key) DO NOTHING
            """)
    }

    /// Adds one job per row of `rows` (a `FROM …` clause with its joins and filter), in one
    /// statement: `payload` and `idempotencyKey` are SQL expressions over those rows. For
    /// fan-outs whose recipients are already in the database (a notification's devices), so
    /// no row comes back to the program to be written again. Repeated keys are ignored.
    public func enqueue(kind: String, payload: SQL, idempotencyKey: SQL, lane: OutboxLane, from rows: SQL,
                        now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO outbox (kind, payload, state, attempts, available_at, idempotency_key, created_at, lane)
            SELECT \(kind), \(payload), \(OutboxState.pending.sql), 0, \(now), \(idempotencyKey), \(now), \(lane.rawValue)
            \(rows)
            ON CONFLICT (idempotency_key) DO NOTHING
            """)
    }

    /// Deletes the job enqueued with `idempotencyKey` if no worker has taken it yet (it is
    /// `pending`: on SQLite a job is run and recorded in one transaction, on PostgreSQL a
    /// taken job is `leased`); answers whether it did. For work the same transaction makes
    /// pointless, such as a like's fan-out when the like is taken back.
    public func withdraw(idempotencyKey: String, on connection: any DatabaseConnection) throws -> Bool {
        try connection.execute("DELETE FROM outbox WHERE idempotency_key = \(idempotencyKey) AND state = \(OutboxState.pending.sql)") > 0
    }

    /// The rows of `lane` a worker may take: pending and due, or leased with an expired lease.
    private func dueFilter(lane: OutboxLane, now: Int64) -> SQL {
        """
        lane = \(lane.rawValue)
          AND ((state = \(OutboxState.pending.sql) AND available_at <= \(now)) OR (state = \(OutboxState.leased.sql) AND leased_until <= \(now)))
        """
    }

    /// Up to `limit` due jobs of `lane`, oldest first (SQLite: the one writer reads, then leases).
    /// Two ranges of `outbox_lane_ready`, one per state: written as `dueFilter`'s OR, SQLite
    /// used the index for the lane alone and read every row of it, done ones included (6 ms
    /// a batch with 60,000 done jobs, growing with every job until the daily purge).
    func due(lane: OutboxLane, limit: Int, now: Int64, on connection: any DatabaseConnection) throws -> [Int64] {
        try connection.fetchAll("""
            SELECT seq FROM outbox WHERE lane = \(lane.rawValue) AND state = \(OutboxState.pending.sql) AND available_at <= \(now)
            UNION ALL
            SELECT seq FROM outbox WHERE lane = \(lane.rawValue) AND state = \(OutboxState.leased.sql) AND leased_until <= \(now)
            ORDER BY seq LIMIT \(limit)
            """).map { try $0.decode("seq", as: Int64.self) }
    }

    /// Leases up to `limit` due jobs of `lane` at once, counting an attempt for each, oldest
    /// first; the lease must outlast the work done under it.
    ///
    /// PostgreSQL: one statement that locks the rows it takes with `FOR UPDATE SKIP LOCKED`.
    /// Run in a READ COMMITTED write (`WriteIsolation`), workers on several servers each take
    /// rows the others have not, none waiting for another; a row leased and committed by another
    /// worker since the statement began is re-checked against the filter and left alone. SQLite
    /// has one writer, which reads and then leases.
    func leaseDue(lane: OutboxLane, limit: Int, now: Int64, leaseMillis: Int64, on connection: any DatabaseConnection) throws -> [OutboxJob] {
        switch connection.dialect {
        case .postgres:
            return try connection.fetchAll("""
                UPDATE outbox SET state = \(OutboxState.leased.sql), leased_until = \(now + leaseMillis), attempts = attempts + 1
                WHERE seq IN (
                    SELECT seq FROM outbox WHERE \(dueFilter(lane: lane, now: now))
                    ORDER BY seq LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING seq, kind, payload, attempts
                """).map(Self.job(row:)).sorted { $0.seq < $1.seq }
        case .sqlite:
            return try due(lane: lane, limit: limit, now: now, on: connection).compactMap { seq in
                try lease(seq, now: now, leaseMillis: leaseMillis, on: connection)
            }
        }
    }

    /// The jobs numbered `seqs` (from `due`), oldest first, as the attempt that would take
    /// them sees them (their attempt counted, not yet recorded): SQLite's one writer reads
    /// them, runs them and records the outcome in one transaction (`finishGroup`), so no
    /// lease is ever visible to anyone and none is written. Read a group at a time: `due`
    /// sorts every due seq of the lane, which the index covers, and reading the payloads of
    /// a backlog of 50,000 jobs for that sort made each batch cost more than its budget.
    func jobs(_ seqs: [Int64], on connection: any DatabaseConnection) throws -> [OutboxJob] {
        try connection.fetchAll("""
            SELECT seq, kind, payload, attempts + 1 AS attempts FROM outbox
            WHERE seq IN (SELECT value FROM json_each(\(JSONValue.arrayText(seqs)))) ORDER BY seq
            """).map(Self.job(row:))
    }

    /// Records a group of jobs read by `jobs` as done, in one statement, if every one of
    /// them is still due (answers false otherwise, and changes nothing it can keep: the caller
    /// rolls back to its savepoint). The seqs go in as one JSON array, so the statement has
    /// one shape whatever the group's size. SQLite only (`json_each`, `NOT INDEXED`): left to
    /// choose, SQLite read the rows through `outbox_lane_ready` for the lane alone, every done
    /// job of the lane included, so each group cost more with every job run since the last
    /// daily purge (91% of the worker's time in a third burst on the benchmark); NOT INDEXED
    /// leaves it the primary key, one look-up per seq.
    func finishGroup(_ jobs: [OutboxJob], lane: OutboxLane, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        try connection.execute("""
            UPDATE outbox NOT INDEXED SET state = \(OutboxState.done.sql), attempts = attempts + 1, finished_at = \(now), leased_until = NULL, last_error = NULL
            WHERE seq IN (SELECT value FROM json_each(\(JSONValue.arrayText(jobs.map(\.seq))))) AND \(dueFilter(lane: lane, now: now))
            """) == jobs.count
    }

    /// Leases one job, counting an attempt (SQLite's one writer: nothing else leases meanwhile).
    func lease(_ seq: Int64, now: Int64, leaseMillis: Int64, on connection: any DatabaseConnection) throws -> OutboxJob? {
        try connection.fetchOne("""
            UPDATE outbox SET state = \(OutboxState.leased.sql), leased_until = \(now + leaseMillis), attempts = attempts + 1
            WHERE seq = \(seq) RETURNING seq, kind, payload, attempts
            """).map(Self.job(row:))
    }

    private static func job(row: Row) throws -> OutboxJob {
        OutboxJob(seq: try row.decode("seq"), kind: try row.decode("kind"), payload: try row.decode("payload"), attempts: try row.decode("attempts"))
    }

    /// Records how an attempt ended (`transition`), only if the job is still under the lease
    /// that attempt took (its attempt count is the fence): a worker whose lease ran out and was
    /// taken over by another cannot mark the job a second time, and a job run inside a
    /// transaction rolls its work back when this answers false. Answers whether it recorded.
    func settle(_ job: OutboxJob, _ transition: OutboxTransition, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        let finished: Int64? = transition.finishes ? now : nil
        return try connection.execute("""
            UPDATE outbox SET state = \(transition.state.sql), available_at = COALESCE(\(transition.availableAt), available_at),
                finished_at = \(finished), leased_until = NULL, last_error = \(transition.note)
            WHERE seq = \(job.seq) AND state = \(OutboxState.leased.sql) AND attempts = \(job.attempts)
            """) == 1
    }

    /// Gives back a job leased but not worked on (its batch ran out of time, or the transaction
    /// that ran it failed): due again at once, its attempt not counted. Fenced like `settle`, so
    /// a lease that ran out meanwhile is not given back; the worker that releases never uses
    /// its lease again, so the next lease reusing its count is no risk.
    func release(_ job: OutboxJob, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            UPDATE outbox SET state = \(OutboxState.pending.sql), leased_until = NULL, attempts = attempts - 1
            WHERE seq = \(job.seq) AND state = \(OutboxState.leased.sql) AND attempts = \(job.attempts)
            """)
    }

    /// The seq of the newest job of any lane, whatever its state (nil: none yet): whether
    /// requests are still writing. The last row of the table, where the newest of one lane
    /// read every entry of the lane in its index.
    func newest(on connection: any DatabaseConnection) throws -> Int64? {
        try connection.fetchValue("SELECT MAX(seq) FROM outbox", as: Int64?.self) ?? nil
    }

    /// Jobs waiting or running, in one lane or all (for metrics and tests).
    public func backlog(lane: OutboxLane? = nil, on connection: any DatabaseConnection) throws -> Int {
        let filter: SQL = lane.map { "AND lane = \($0.rawValue)" } ?? ""
        return try connection.fetchValue("SELECT COUNT(*) FROM outbox WHERE state IN (\(OutboxState.pending.sql), \(OutboxState.leased.sql)) \(filter)", as: Int.self) ?? 0
    }

    // MARK: Operators

    /// The newest `limit` jobs, or only the dead ones, newest first.
    public func list(deadOnly: Bool, limit: Int, on connection: any DatabaseConnection) throws -> [OutboxEntry] {
        let filter: SQL = deadOnly ? "WHERE state = \(OutboxState.dead.sql)" : ""
        return try connection.fetchAll("""
            SELECT seq, lane, kind, state, attempts, available_at, last_error, created_at FROM outbox \(filter)
            ORDER BY seq DESC LIMIT \(limit)
            """).map { row in
            OutboxEntry(seq: try row.decode("seq"), lane: try row.decode("lane"), kind: try row.decode("kind"), state: try OutboxState(rawValue: row.decode("state")).orThrow(column: "state", expected: "an outbox state"),
                        attempts: try row.decode("attempts"), availableAt: try row.decode("available_at"),
                        lastError: try row.decode("last_error"), createdAt: try row.decode("created_at"))
        }
    }

    /// Makes dead jobs due again with a fresh count of attempts: the one numbered `seq`, or
    /// every dead job when nil. Answers how many.
    @discardableResult
    public func revive(seq: Int64?, now: Int64, on connection: any DatabaseConnection) throws -> Int {
        let which: SQL = seq.map { "AND seq = \($0)" } ?? ""
        return try connection.execute("""
            UPDATE outbox SET state = \(OutboxState.pending.sql), attempts = 0, available_at = \(now), finished_at = NULL
            WHERE state = \(OutboxState.dead.sql) \(which)
            """)
    }

    /// Forgets finished jobs older than `before`, `batch` at most a statement, each statement a
    /// write transaction of its own, until a batch finds fewer; dead ones stay for an operator
    /// to look at. Answers how many each batch deleted.
    ///
    /// In one transaction, a day's worth of jobs held the writer for as long as the delete took
    /// (every SQLite write waiting behind it) and could spill out of memory; a batch of 1,000
    /// is a few milliseconds. READ COMMITTED on PostgreSQL (outbox bookkeeping, `WriteIsolation`):
    /// a serializable scan would conflict with every write enqueueing a job meanwhile, and a
    /// finished job never changes again, so two servers purging at once only delete fewer.
    @discardableResult
    public func purgeDone(before: Int64, in database: any Database, batch: Int = 1_000) throws -> [Int] {
        var deleted: [Int] = []
        while true {
            let count = try database.write(isolation: .readCommitted) { connection in
                try purgeDone(before: before, limit: batch, on: connection)
            }
            deleted.append(count)
            if count < batch { return deleted }
        }
    }

    /// One batch of `purgeDone(before:in:batch:)`. The same walk as the single DELETE it
    /// replaced (SQLite: `SCAN outbox`, in seq order, where the oldest finished jobs come first;
    /// no index has `state` or `finished_at` first), stopped at `limit` rows, then each row
    /// deleted by its primary key.
    func purgeDone(before: Int64, limit: Int, on connection: any DatabaseConnection) throws -> Int {
        try connection.execute("""
            DELETE FROM outbox WHERE seq IN (
                SELECT seq FROM outbox WHERE state = \(OutboxState.done.sql) AND finished_at < \(before) LIMIT \(limit))
            """)
    }
}
