import Foundation
import Storage
import Telemetry

/// What one delivery attempt came to.
public enum DeliveryResult: Sendable, Equatable {
    /// The other side has it.
    case delivered
    /// Nothing to deliver any more (the content or the device is gone): done, not an error.
    case skipped(String)
    /// A failure worth another try: a timeout, a 5xx, a 429. `notBeforeMillis` is when the
    /// other side asked us to come back (`Retry-After`), if it did.
    case retry(String, notBeforeMillis: Int64? = nil)
    /// A failure no retry will fix (the service refused the message itself): dead at once.
    case failed(String)
}

/// Runs the jobs of one outbox lane whose work is a call to the outside world (a push, a
/// webhook, a mail): at-least-once, with retries and a dead state.
///
/// Unlike `OutboxWorker`, which runs database work inside its transaction, a delivery must
/// never hold the database while it waits on the network. So each pass: leases up to `batch`
/// due jobs in one short transaction (the lease outlasts the attempt's deadline); hands them
/// to `deliver` outside any transaction; records every result in a second short transaction.
/// A crash between the two leaves the jobs leased: when the lease runs out they are due again
/// and delivered again, with the same idempotency key (at-least-once; the services drop
/// duplicates by it). A result is recorded only under the lease that produced it
/// (`Outbox.settle`), so each job is marked delivered exactly once. Workers on several
/// servers sharing one PostgreSQL lease disjoint batches (`Outbox.leaseDue`).
public final class DeliveryWorker: Sendable {
    /// Delivers a batch; one result per job, in order. Called outside any transaction.
    public typealias Deliver = @Sendable ([OutboxJob]) -> [DeliveryResult]

    public struct Configuration: Sendable {
        public var lane = OutboxLane.push
        public var pollInterval: Double = 0.05
        /// Jobs leased and delivered together (HTTP/2 sends them side by side).
        public var batch = 500
        /// Threads taking batches: with two, one leases, prepares and records while the other
        /// waits on the network, so the database work of a batch hides behind the sending of
        /// the one before.
        public var workers = 2
        /// How long a leased job stays ours: more than `deliver` may take for a batch, so a
        /// live worker never loses its lease; a dead one's jobs come back after it.
        public var leaseMillis: Int64 = 60_000
        public var retry: RetryPolicy = {
            var policy = RetryPolicy()
            policy.maxAttempts = 8
            policy.jitter = 0.5
            return policy
        }()
        public init() {}
    }

    private let database: any Database
    private let deliver: Deliver
    private let clock: any WallClock
    private let configuration: Configuration
    private let observe: @Sendable (OutboxJob, DeliveryResult, OutboxWorker.Outcome) -> Void
    private let outbox = Outbox()
    private let loops: [WorkerLoop]

    public init(
        database: any Database, clock: any WallClock = SystemClock(), configuration: Configuration = .init(),
        deliver: @escaping Deliver,
        observe: @escaping @Sendable (OutboxJob, DeliveryResult, OutboxWorker.Outcome) -> Void = { _, _, _ in }
    ) {
        self.database = database
        self.clock = clock
        self.configuration = configuration
        self.deliver = deliver
        self.observe = observe
        loops = (0..<max(1, configuration.workers)).map { _ in WorkerLoop() }
    }

    public func start() {
        for (index, loop) in loops.enumerated() {
            loop.start(name: "pacenote.outbox.\(configuration.lane).\(index)", pollInterval: configuration.pollInterval) { [self] in
                ((try? runDueJobs()) ?? 0) < configuration.batch
            }
        }
    }

    /// Finishes the batches in hand (their results are recorded), then stops.
    public func stop() {
        for loop in loops { loop.stop() }
    }

    /// Asks the worker to look for due jobs now rather than at its next poll.
    public func wake() {
        for loop in loops { loop.wake() }
    }

    /// One pass: lease, deliver, record. Answers how many jobs it took. Public for tests and
    /// for commands that deliver once without a running server.
    @discardableResult
    public func runDueJobs() throws -> Int {
        // READ COMMITTED (SQLite ignores it): the lease skips rows other servers' workers have
        // locked, and the results are fenced single-row updates; neither needs serializability.
        let jobs = try database.write(isolation: .readCommitted) { connection in
            try outbox.leaseDue(lane: configuration.lane, limit: configuration.batch, now: clock.nowMillis(),
                                leaseMillis: configuration.leaseMillis, on: connection)
        }
        guard !jobs.isEmpty else { return 0 }
        let results = deliver(jobs)
        let settled = try database.write(isolation: .readCommitted) { connection in
            try zip(jobs, results).compactMap { job, result -> (OutboxJob, DeliveryResult, OutboxWorker.Outcome)? in
                let outcome = try record(result, of: job, on: connection)
                return outcome.map { (job, result, $0) }
            }
        }
        for (job, result, outcome) in settled { observe(job, result, outcome) }
        return jobs.count
    }

    /// Writes one result; nil when the lease was lost meanwhile (another worker owns the job now).
    private func record(_ result: DeliveryResult, of job: OutboxJob, on connection: any DatabaseConnection) throws -> OutboxWorker.Outcome? {
        let now = clock.nowMillis()
        let transition: OutboxTransition
        switch result {
        case .delivered:
            transition = .done()
        case .skipped(let reason):
            transition = .done(note: reason)
        case .failed(let reason):
            transition = .dead(reason)
        case .retry(let reason, let notBefore):
            transition = .failed(reason, attempts: job.attempts, policy: configuration.retry, now: now,
                                 random: Double.random(in: 0..<1), notBefore: notBefore)
        }
        return try outbox.settle(job, transition, now: now, on: connection) ? transition.outcome : nil
    }
}
