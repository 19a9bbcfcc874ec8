import Foundation
import Storage

/// PostgreSQL over libpq: a pool of reader sessions and a pool of writer sessions, each
/// session with its own prepared statements.
///
/// Reads run in `REPEATABLE READ READ ONLY` transactions: one snapshot for every statement of
/// the closure, as SQLite's deferred read transaction gives, and never a serialization failure.
/// Writes run in `SERIALIZABLE` transactions, so concurrent writers behave as if they ran one
/// after another, as SQLite's single writer made them: a check-then-insert raced by another
/// request fails with a serialization failure (40001) instead of a duplicate, and `write`
/// runs the closure again, for up to `conflictRetryMillis`. Deadlocks (40P01) are retried the
/// same way. `write(isolation: .readCommitted)` is the outbox's and the migrator's exception
/// (WriteIsolation says why).
public final class PostgresDatabase: Database, @unchecked Sendable {
    // @unchecked: each connection is lent to one thread at a time by its pool, and every other
    // stored property is immutable.

    public struct Configuration: Sendable {
        /// A libpq connection URI (`postgres://user@host:5432/db?sslmode=disable`) or key=value string.
        public var url: String
        /// Reader sessions; a read past this many at once waits for one to come back.
        public var readers: Int = 4
        /// Writer sessions. Unlike SQLite's single writer, writes run side by side.
        public var writers: Int = 8
        /// `statement_timeout` of every session, in milliseconds (0: none). A statement past it
        /// is cancelled by the server and answers `StorageError.busy`. Migrations run without
        /// it (`Migrator` lifts it, and `lock_timeout`, for their own transactions).
        public var statementTimeoutMillis: Int = 30_000
        public var connectTimeoutSeconds: Int = 5
        /// How long a read or write waits for a free session before it answers `.busy`.
        public var acquireTimeoutMillis: Int = 5_000
        /// How long a write keeps running its closure again after serialization failures and
        /// deadlocks, from its first run; past it the write answers `StorageError.busy` (503),
        /// as a SQLite write does once its busy timeout has passed (the same 5 s). A count
        /// alone did not fit: of 40 likes of one video at once from 8 writer sessions, up to 3
        /// failed when 8 runs were allowed, none in 9 rounds with 10 (a thin margin), and
        /// every writer session more (a second server) means more conflicts.
        public var conflictRetryMillis: Int = 5_000
        /// At most this many runs of a write's closure after conflicts, whatever the time left
        /// (a backstop; tests set 1 to see a conflict).
        public var writeAttempts: Int = 1_000

        public init(url: String) { self.url = url }
    }

    public let dialect = SQLDialect.postgres
    private let configuration: Configuration
    private let readerPool: ConnectionPool<PostgresConnection>
    private let writerPool: ConnectionPool<PostgresConnection>
    /// Write attempts that ended in a serialization failure or deadlock and were run again.
    private let retries = RetryCounter()

    /// Opens one reader session at once, so that a wrong URL, a refused password or a server
    /// that is down fails here, at start; the other sessions open when first needed.
    public init(configuration: Configuration) throws(StorageError) {
        self.configuration = configuration
        let settings = PostgresConnection.Settings(
            url: configuration.url, connectTimeoutSeconds: configuration.connectTimeoutSeconds,
            statementTimeoutMillis: configuration.statementTimeoutMillis
        )
        let readers = (0..<max(1, configuration.readers)).map { _ in PostgresConnection(settings: settings) }
        let writers = (0..<max(1, configuration.writers)).map { _ in PostgresConnection(settings: settings) }
        try readers[0].open()
        readerPool = ConnectionPool(readers)
        writerPool = ConnectionPool(writers)
    }

    public func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        // A read is run again once when the session turned out to be dead (the server
        // restarted since it was last used): nothing was read from it, and the retry opens
        // a new one.
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try readerPool.withConnection(waitingAtMost: acquireTimeout) { connection in
                    var commitSent = false
                    return try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", commitSent: &commitSent, body)
                }
            } catch StorageError.connectionLost(let why) where attempt < 2 {
                _ = why
            }
        }
    }

    /// `.readCommitted` writes (the outbox's leases) still retry deadlocks and sessions lost
    /// before COMMIT; they cannot fail serialization.
    public func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        let begin = switch isolation {
        case .serializable: "BEGIN ISOLATION LEVEL SERIALIZABLE"
        case .readCommitted: "BEGIN ISOLATION LEVEL READ COMMITTED"
        }
        let deadline = ContinuousClock.now + .milliseconds(configuration.conflictRetryMillis)
        var attempt = 0
        var lostSessions = 0
        while true {
            attempt += 1
            var commitSent = false
            do {
                return try writerPool.withConnection(waitingAtMost: acquireTimeout) { connection in
                    try transaction(on: connection, begin: begin, commitSent: &commitSent, body)
                }
            } catch let error as StorageError where isRetryable(error, commitSent: commitSent) {
                if error.isTransactionConflict {
                    // Out of time with writers still in the way: the server is busy, as a SQLite
                    // write past its busy timeout is, not broken.
                    guard attempt < configuration.writeAttempts, ContinuousClock.now < deadline else { throw StorageError.busy }
                    retries.increment()
                } else {
                    lostSessions += 1
                    if lostSessions >= Self.lostSessionAttempts { throw error }
                }
                backOff(attempt: attempt)
            }
        }
    }

    /// A conflict with a concurrent transaction, or a session lost before COMMIT was sent (the
    /// server rolled the transaction back). A session lost during COMMIT is not retried: the
    /// transaction may have committed, and running it again could apply it twice.
    private func isRetryable(_ error: StorageError, commitSent: Bool) -> Bool {
        switch error {
        case .connectionLost: return !commitSent
        case let conflict where conflict.isTransactionConflict: return true
        default: return false
        }
    }

    /// Runs of a write whose session was lost before COMMIT (the server restarting, or closed).
    private static let lostSessionAttempts = 10

    /// Sleeps a random 0..2^attempt milliseconds (at most 64): two transactions that conflicted
    /// should not collide again in lockstep.
    private func backOff(attempt: Int) {
        let ceiling = UInt32(1) << UInt32(min(attempt, 6))
        usleep(UInt32.random(in: 0...ceiling) * 1_000)
    }

    private var acquireTimeout: DispatchTimeInterval { .milliseconds(configuration.acquireTimeoutMillis) }

    /// Runs `body` between `begin` and COMMIT, rolling back when it throws. The error is
    /// rethrown unchanged, but for the transaction a failure had aborted (below).
    ///
    /// A failed statement aborts a PostgreSQL transaction: the statements after it fail with
    /// 25P02, and COMMIT rolls back, answering the tag `ROLLBACK` rather than an error. A body
    /// that caught the failure (`try?`) and returned would then be told its write committed,
    /// and one that went on would report the 25P02 instead of what went wrong. Both answer
    /// `abortedTransaction(cause:)` instead; a body that threw an error of its own after
    /// swallowing a conflict answers the conflict.
    private func transaction<T>(
        on connection: PostgresConnection, begin: String, commitSent: inout Bool, _ body: (any DatabaseConnection) throws -> T
    ) throws -> T {
        try connection.begin(begin)
        let result: T
        do {
            result = try body(connection)
        } catch {
            let aborted = connection.isInFailedTransaction
            // A dead session has nothing to roll back (the server did it); skip the round trip.
            if connection.isOpen { _ = try? connection.simple("ROLLBACK") }
            if case StorageError.driver(let driver as PostgresError) = error, driver.sqlstate == PostgresError.inFailedTransaction {
                throw Self.abortedTransaction(cause: connection.transactionFailure)
            }
            // Whatever the body threw after swallowing a conflict (a lookup under `try?` that
            // then answered "not found"), it decided on a read that failed: run it again.
            if aborted, let conflict = connection.transactionFailure, conflict.isTransactionConflict { throw conflict }
            throw error
        }
        commitSent = true
        let tag: String
        do {
            tag = try connection.simple("COMMIT")
        } catch {
            if connection.isOpen { _ = try? connection.simple("ROLLBACK") }
            throw error
        }
        if tag == "ROLLBACK" { throw Self.abortedTransaction(cause: connection.transactionFailure) }
        return result
    }

    /// The error of a transaction aborted by `cause`, a failure the body went on past. A
    /// conflict is answered as itself, so that `write` runs the body again from the start, as
    /// it would have had the body let the error through: nothing of the aborted run committed,
    /// and the runs are bounded as every conflict's are (`conflictRetryMillis`). A busy server
    /// (a statement or lock timeout) is answered as itself too (503). Anything else, or a
    /// cause the session did not see, is `.transactionAborted`, never run again: the body chose
    /// to go past a failure it did not expect, and running it again would do the same.
    private static func abortedTransaction(cause: StorageError?) -> StorageError {
        switch cause {
        case let conflict? where conflict.isTransactionConflict: return conflict
        case .busy?: return .busy
        default: return .transactionAborted(cause: cause)
        }
    }

    /// Write attempts run again after a serialization failure or deadlock, since start.
    public var conflictRetries: Int { retries.value }

    public var readerUsage: (inUse: Int, total: Int) {
        (readerPool.size - readerPool.idleCount, readerPool.size)
    }

    public func ping() -> Bool {
        (try? read { try $0.fetchValue("SELECT 1", as: Int.self) }) == 1
    }

    public func close() {
        readerPool.closeAll { $0.close() }
        writerPool.closeAll { $0.close() }
    }
}

/// A counter shared by the threads that write.
private final class RetryCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
