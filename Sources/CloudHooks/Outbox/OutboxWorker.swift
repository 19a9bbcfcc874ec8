import Foundation
import Storage
import Synchronization
import Telemetry

/// Runs outbox jobs on one background thread.
///
/// Due jobs run in batches: one write transaction per batch, each job's work inside a
/// savepoint together with its completion (on SQLite a group of jobs per savepoint,
/// `runGroup`), so work that only touches the database happens exactly once, with workers on
/// several servers too (`runLeasedAhead`). A failing job's work is rolled back to its
/// savepoint and its retry (`RetryPolicy`) recorded in the same transaction; the other jobs
/// of the batch commit.
/// Batching is what makes write-time fan-out affordable: a fan-out writes a row into each
/// follower's timeline, and a batch writes each touched B-tree page to the WAL once
/// instead of once per job. A batch stops taking jobs after `batchMillis`, so in-process
/// writers, which share the one write connection, wait at most about that long (longer,
/// `idleBatchMillis`, while none of them has written since the last batch).
///
/// Its thread (`WorkerLoop`) runs at nice 10 and polls every `pollInterval` (`wake()` makes
/// it look at once).
public final class OutboxWorker: Sendable {
    /// A job's work, on the connection of the transaction that also completes it.
    public typealias Handler = @Sendable (OutboxJob, any DatabaseConnection) throws -> Void
    /// The work of several jobs of one kind at once (set-based SQL instead of a statement per
    /// job), on the connection of the transaction that also completes them. It must do what
    /// the kind's `Handler` would do for each job, in any order relative to the lane's other
    /// jobs; a group that throws is run again job by job with the `Handler`.
    public typealias GroupHandler = @Sendable ([OutboxJob], any DatabaseConnection) throws -> Void

    /// What happened to a job, for metrics.
    public enum Outcome: String, Sendable {
        case done, retry, dead
    }

    public struct Configuration: Sendable {
        /// The lane whose jobs this worker runs; every lane has a worker of its own.
        public var lane = OutboxLane.feed
        public var pollInterval: Double = 0.05
        /// Jobs per transaction, at most.
        public var batch = 500
        /// A batch takes no new job once it has run this long. 10 rather than 20 since group
        /// runs (issue 15): on SQLite request writes wait for the batch's writer, and halving
        /// its hold took comments +3 to +32% and their p99 from about 83 to 67 ms, at the
        /// price of a slower drain after a comment burst (BENCHMARKS.md "Issue 15").
        public var batchMillis: Int64 = 10
        /// The same two limits while no request has enqueued a job since the last batch
        /// (SQLite): a backlog left by a burst drains in larger transactions, each writing a
        /// timeline page once for more rows. A request that comes meanwhile waits for at most
        /// one such batch; the next batch is a short one again.
        public var idleBatch = 5_000
        public var idleBatchMillis: Int64 = 100
        public var leaseMillis: Int64 = 60_000
        /// Jobs leased at once where leases are taken ahead of the work (PostgreSQL), so that
        /// a budget of `batchMillis` gives few of them back.
        public var leaseBatch = 32
        /// Jobs per savepoint, at most, where the work and its record share one transaction
        /// (SQLite): a group is read, run and recorded done with one statement each, instead of
        /// a savepoint, a lease and a settle per job. The worker sizes its groups from the time
        /// the last one took, so a group ends near the batch's budget.
        public var group = 1_000
        public var retry = RetryPolicy()
        public init() {}
    }

    private let database: any Database
    private let handlers: [String: Handler]
    private let groupHandlers: [String: GroupHandler]
    private let clock: any WallClock
    private let configuration: Configuration
    private let observe: @Sendable (OutboxJob, Outcome, (any Error)?) -> Void
    private let outbox = Outbox()
    private let loop = WorkerLoop()

    public init(
        database: any Database, handlers: [String: Handler], groupHandlers: [String: GroupHandler] = [:], clock: any WallClock = SystemClock(),
        configuration: Configuration = .init(),
        observe: @escaping @Sendable (OutboxJob, Outcome, (any Error)?) -> Void = { _, _, _ in }
    ) {
        self.database = database
        self.handlers = handlers
        self.groupHandlers = groupHandlers
        self.clock = clock
        self.configuration = configuration
        self.observe = observe
    }

    public func start() {
        let newest = Mutex<Int64?>(nil)
        let idle = Mutex(false)
        loop.start(name: "pacenote.outbox.\(configuration.lane)", pollInterval: configuration.pollInterval) { [self] in
            let ran = (try? runDueJobs(idle: idle.withLock { $0 })) ?? 0
            // While requests keep enqueueing (the newest job of any lane changes), a backlog drains one
            // batch per interval: a batch holds the write connection, which they need too.
            // Once they stop, it drains at full speed.
            let latest = try? database.read { try outbox.newest(on: $0) }
            let busy = newest.withLock { newest in
                defer { newest = latest }
                return latest != newest
            }
            idle.withLock { $0 = !busy }
            return ran == 0 || busy
        }
    }

    /// Finishes the job in hand, then stops; jobs not started stay in the outbox for the next run.
    public func stop() {
        loop.stop()
    }

    /// Asks the worker to look for due jobs now rather than at its next poll.
    public func wake() {
        loop.wake()
    }

    /// Runs one batch of due jobs; answers how many ran. Public for tests, which drive the
    /// worker by hand with an injected clock instead of its thread.
    /// `idle`: no request enqueued since the last batch, so the batch may take the larger
    /// `idleBatch` limits (SQLite).
    @discardableResult
    public func runDueJobs(idle: Bool = false) throws -> Int {
        let outcomes = switch database.dialect {
        case .sqlite: try runLeasingInside(limit: idle ? configuration.idleBatch : configuration.batch,
                                           budget: .milliseconds(idle ? configuration.idleBatchMillis : configuration.batchMillis))
        case .postgres: try runLeasedAhead()
        }
        for (job, outcome, error) in outcomes { observe(job, outcome, error) }
        return outcomes.count
    }

    /// SQLite, one writer: reading, work and outcome in one transaction, so a crash rolls all
    /// back and nothing waits for a lease to run out. The due jobs run in groups (`runGroup`);
    /// the first group is one job, and each next one is as large as the time left allows at the
    /// pace of the last, so the batch keeps to its budget whether a job costs 10 µs or 10 ms.
    private func runLeasingInside(limit: Int, budget: Duration) throws -> [(OutboxJob, Outcome, (any Error)?)] {
        try database.write { connection in
            var due = try outbox.due(lane: configuration.lane, limit: limit, now: clock.nowMillis(), on: connection)[...]
            // The budget starts after the look-up, so that a batch always runs its first group
            // (the look-up sorts the whole backlog: milliseconds for tens of thousands of jobs).
            let started = ContinuousClock.now
            var outcomes: [(OutboxJob, Outcome, (any Error)?)] = []
            var size = 1
            while !due.isEmpty {
                let groupStarted = ContinuousClock.now
                let left = budget - (groupStarted - started)
                guard left > .zero else { break }
                let group = try outbox.jobs(Array(due.prefix(size)), on: connection)
                due = due.dropFirst(size)
                outcomes += try runGroup(group, on: connection)
                let perJob = (ContinuousClock.now - groupStarted) / max(1, group.count)
                let fits = perJob > .zero ? Int((left - perJob * group.count) / perJob) : configuration.group
                size = max(1, min(configuration.group, fits))
            }
            return outcomes
        }
    }

    /// Jobs read by `Outbox.jobs`, in one savepoint: each kind with a group handler in one call
    /// (at its first job; such kinds commute with the others), the other jobs one by one in
    /// order, then all recorded done at once. If anything fails, the group is rolled back
    /// and its jobs run again one by one (`run`), so a failing job fails alone, with its
    /// retry recorded, and the others are done exactly once.
    private func runGroup(_ jobs: [OutboxJob], on connection: any DatabaseConnection) throws -> [(OutboxJob, Outcome, (any Error)?)] {
        guard !jobs.isEmpty else { return [] }
        try connection.execute("SAVEPOINT outbox_group")
        do {
            var grouped = Set<String>()
            for job in jobs {
                if let groupHandler = groupHandlers[job.kind] {
                    guard grouped.insert(job.kind).inserted else { continue }
                    try groupHandler(jobs.filter { $0.kind == job.kind }, connection)
                } else {
                    guard let handler = handlers[job.kind] else { throw UnknownJobKind(kind: job.kind) }
                    try handler(job, connection)
                }
            }
            guard try outbox.finishGroup(jobs, lane: configuration.lane, now: clock.nowMillis(), on: connection) else {
                throw GroupNoLongerDue()
            }
            try connection.execute("RELEASE outbox_group")
            return jobs.map { ($0, .done, nil) }
        } catch let error as StorageError where error.isTransactionConflict {
            throw error
        } catch {
            try connection.execute("ROLLBACK TO outbox_group")
            try connection.execute("RELEASE outbox_group")
            return try jobs.compactMap { job in
                guard let leased = try outbox.lease(job.seq, now: clock.nowMillis(), leaseMillis: configuration.leaseMillis, on: connection) else { return nil }
                return try run(leased, on: connection)
            }
        }
    }

    /// PostgreSQL, workers on several servers: a READ COMMITTED transaction leases a batch with
    /// `FOR UPDATE SKIP LOCKED` and commits, so workers take disjoint batches without waiting on
    /// each other; then a SERIALIZABLE transaction runs them, as every domain write runs, each
    /// job's completion fenced by its lease. Jobs the time budget leaves unstarted, and every
    /// job of a run that fails as a whole, are given back at once rather than left leased.
    /// A server that dies in between leaves its batch leased until the lease runs out.
    private func runLeasedAhead() throws -> [(OutboxJob, Outcome, (any Error)?)] {
        let jobs = try database.write(isolation: .readCommitted) { connection in
            try outbox.leaseDue(lane: configuration.lane, limit: configuration.leaseBatch, now: clock.nowMillis(),
                                leaseMillis: configuration.leaseMillis, on: connection)
        }
        guard !jobs.isEmpty else { return [] }
        do {
            // A serialization failure runs this closure again from the start, budget included.
            return try database.write { connection in
                let started = ContinuousClock.now
                var outcomes: [(OutboxJob, Outcome, (any Error)?)] = []
                for job in jobs {
                    guard ContinuousClock.now - started < budget else {
                        try outbox.release(job, on: connection)
                        continue
                    }
                    if let outcome = try run(job, on: connection) { outcomes.append(outcome) }
                }
                return outcomes
            }
        } catch {
            _ = try? database.write(isolation: .readCommitted) { connection in
                for job in jobs { try outbox.release(job, on: connection) }
            }
            throw error
        }
    }

    private var budget: Duration { .milliseconds(configuration.batchMillis) }

    /// One job inside the batch's transaction: its work and its completion in one savepoint.
    /// Nil when the job's lease was lost (another worker took it after it ran out): its work
    /// is rolled back, since that worker does it. Throws only when the database itself fails
    /// (the savepoint or the bookkeeping) or the transaction conflicts with another, which
    /// rolls the whole batch back for a later try.
    private func run(_ job: OutboxJob, on connection: any DatabaseConnection) throws -> (OutboxJob, Outcome, (any Error)?)? {
        try connection.execute("SAVEPOINT outbox_job")
        do {
            guard let handler = handlers[job.kind] else { throw UnknownJobKind(kind: job.kind) }
            try handler(job, connection)
        } catch let error as StorageError where error.isTransactionConflict {
            // A conflict with a concurrent writer (PostgreSQL) is not the job's failure: the
            // savepoint cannot absorb it, and the driver runs the whole batch again.
            throw error
        } catch {
            try connection.execute("ROLLBACK TO outbox_job")
            let now = clock.nowMillis()
            // The error's type and description go to the row for an operator; handlers' errors
            // carry no secrets (they are about our own rows).
            let text = String(describing: error)
            let transition = OutboxTransition.failed(text, attempts: job.attempts, policy: configuration.retry, now: now)
            let recorded = try outbox.settle(job, transition, now: now, on: connection)
            try connection.execute("RELEASE outbox_job")
            return recorded ? (job, transition.outcome, error) : nil
        }
        guard try outbox.settle(job, .done(), now: clock.nowMillis(), on: connection) else {
            try connection.execute("ROLLBACK TO outbox_job")
            try connection.execute("RELEASE outbox_job")
            return nil
        }
        try connection.execute("RELEASE outbox_job")
        return (job, .done, nil)
    }
}

/// A group some job of which was no longer due when it finished (SQLite's one writer makes
/// this a bug, not a race); its jobs run again one by one.
struct GroupNoLongerDue: Error {}

/// A job whose kind no handler is registered for (a newer server enqueued it, or a typo).
public struct UnknownJobKind: Error, CustomStringConvertible {
    public let kind: String
    public var description: String { "no handler for outbox jobs of kind \(kind)" }
}
