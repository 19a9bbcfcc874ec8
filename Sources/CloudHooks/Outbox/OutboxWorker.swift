import Foundation
import Storage

/// Runs outbox jobs on one background thread.
///
/// Each job runs in its own write transaction together with its completion, so work that
/// only touches the database happens exactly once; a failure rolls the job's work back and
/// schedules a retry (`RetryPolicy`), in a second transaction. The worker polls every
/// `pollInterval` and wakes at once when `wake()` is called after a commit that enqueued.
public final class OutboxWorker: @unchecked Sendable {
    // @unchecked: `running` and `thread` are only touched under `lock`; the rest is immutable.

    /// A job's work, on the connection of the transaction that also completes it.
    public typealias Handler = @Sendable (OutboxJob, any DatabaseConnection) throws -> Void

    /// What happened to a job, for metrics.
    public enum Outcome: String, Sendable {
        case done, retry, dead
    }

    public struct Configuration: Sendable {
        public var pollInterval: Double = 0.2
        public var batch = 16
        public var leaseMillis: Int64 = 60_000
        public var retry = RetryPolicy()
        public init() {}
    }

    private let database: any Database
    private let handlers: [String: Handler]
    private let clock: any Clock
    private let configuration: Configuration
    private let observe: @Sendable (OutboxJob, Outcome, (any Error)?) -> Void
    private let outbox = Outbox()
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var running = false

    public init(
        database: any Database, handlers: [String: Handler], clock: any Clock = SystemClock(),
        configuration: Configuration = .init(),
        observe: @escaping @Sendable (OutboxJob, Outcome, (any Error)?) -> Void = { _, _, _ in }
    ) {
        self.database = database
        self.handlers = handlers
        self.clock = clock
        self.configuration = configuration
        self.observe = observe
    }

    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !running else { return }
        running = true
        let thread = Thread { [self] in loop() }
        thread.name = "pacenote.outbox"
        thread.start()
    }

    /// Finishes the job in hand, then stops; jobs not started stay in the outbox for the next run.
    public func stop() {
        lock.lock()
        guard running else { lock.unlock(); return }
        running = false
        lock.unlock()
        signal.signal()
        stopped.wait()
    }

    /// Asks the worker to look for due jobs now rather than at its next poll.
    public func wake() {
        signal.signal()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func loop() {
        while isRunning {
            let worked = (try? runDueJobs()) ?? 0
            if worked == 0 { _ = signal.wait(timeout: .now() + configuration.pollInterval) }
        }
        stopped.signal()
    }

    /// Leases and runs one batch of due jobs; answers how many ran. Public for tests, which
    /// drive the worker by hand with an injected clock instead of its thread.
    @discardableResult
    public func runDueJobs() throws -> Int {
        let now = clock.nowMillis()
        let jobs = try database.write { connection in
            try outbox.lease(limit: configuration.batch, now: now, leaseMillis: configuration.leaseMillis, on: connection)
        }
        for job in jobs { run(job) }
        return jobs.count
    }

    private func run(_ job: OutboxJob) {
        do {
            guard let handler = handlers[job.kind] else { throw UnknownJobKind(kind: job.kind) }
            try database.write { connection in
                try handler(job, connection)
                try outbox.complete(job.seq, now: clock.nowMillis(), on: connection)
            }
            observe(job, .done, nil)
        } catch {
            let now = clock.nowMillis()
            let decision = configuration.retry.decide(attempts: job.attempts, now: now)
            // The error's type and description go to the row for an operator; handlers' errors
            // carry no secrets (they are about our own rows).
            let text = String(describing: error)
            _ = try? database.write { connection in
                switch decision {
                case .retry(let time): try outbox.retry(job.seq, at: time, error: text, on: connection)
                case .dead: try outbox.bury(job.seq, now: now, error: text, on: connection)
                }
            }
            if case .dead = decision { observe(job, .dead, error) } else { observe(job, .retry, error) }
        }
    }
}

/// A job whose kind no handler is registered for (a newer server enqueued it, or a typo).
public struct UnknownJobKind: Error, CustomStringConvertible {
    public let kind: String
    public var description: String { "no handler for outbox jobs of kind \(kind)" }
}
