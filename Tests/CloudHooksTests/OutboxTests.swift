import CloudHooks
import Schema
import Storage
import Synchronization
import Telemetry
import TestSupport
import XCTest

/// A clock the test moves by hand.
final class TestClock: WallClock {
    private let now = Mutex<Int64>(1_000_000)
    func nowMillis() -> Int64 { now.withLock { $0 } }
    func advance(_ millis: Int64) { now.withLock { $0 += millis } }
}

final class RetryPolicyTests: XCTestCase {
    func testBackoffDoublesUpToTheCapThenGivesUp() {
        var policy = RetryPolicy()
        policy.baseMillis = 1_000
        policy.maxDelayMillis = 10_000
        policy.maxAttempts = 6
        XCTAssertEqual(policy.decide(attempts: 1, now: 0), .retry(at: 1_000))
        XCTAssertEqual(policy.decide(attempts: 2, now: 0), .retry(at: 2_000))
        XCTAssertEqual(policy.decide(attempts: 4, now: 0), .retry(at: 8_000))
        XCTAssertEqual(policy.decide(attempts: 5, now: 0), .retry(at: 10_000), "capped")
        XCTAssertEqual(policy.decide(attempts: 6, now: 0), .dead)
    }
}

final class OutboxWorkerTests: XCTestCase {
    private func makeDatabase() throws -> TemporaryDatabase {
        let temp = try TemporaryDatabase.withHookTables()
        try Migrator(migrations: Schema.migrations(for: temp.dialect)).migrate(temp.database, now: 0)
        // `n`: the order effects were written in (rowid on SQLite, an identity column on PostgreSQL).
        let n = temp.dialect == .sqlite ? "n INTEGER PRIMARY KEY" : "n BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        try temp.database.write { c in try c.execute(SQL(unsafeSQL: "CREATE TABLE effects (\(n), job TEXT NOT NULL)")) }
        return temp
    }

    private func state(_ temp: TemporaryDatabase) throws -> [String] {
        try temp.database.read { c in try c.fetchAll("SELECT state FROM outbox ORDER BY seq").map { try $0.decode("state", as: String.self) } }
    }

    func testAJobRunsOnceWithItsEffectInTheSameTransaction() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in try Outbox().enqueue(kind: "effect", payload: "one", now: clock.nowMillis(), on: c) }
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))") },
        ], clock: clock)
        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(try worker.runDueJobs(), 0, "done jobs are not run again")
        XCTAssertEqual(try temp.count("effects"), 1)
        XCTAssertEqual(try state(temp), ["done"])
    }

    func testAFailingJobRollsBackItsWorkRetriesWithBackoffAndFinallyDies() throws {
        struct Boom: Error {}
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in try Outbox().enqueue(kind: "flaky", payload: "{}", now: clock.nowMillis(), on: c) }
        var configuration = OutboxWorker.Configuration()
        configuration.retry.baseMillis = 1_000
        configuration.retry.maxAttempts = 3
        let outcomes = Mutex<[OutboxWorker.Outcome]>([])
        let worker = OutboxWorker(database: temp.database, handlers: [
            "flaky": { _, connection in
                try connection.execute("INSERT INTO effects (job) VALUES ('half-done')")
                throw Boom()
            },
        ], clock: clock, configuration: configuration) { _, outcome, _ in outcomes.withLock { $0.append(outcome) } }

        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(try temp.count("effects"), 0, "the failed attempt's work was rolled back")
        XCTAssertEqual(try worker.runDueJobs(), 0, "not due before its backoff")
        clock.advance(1_000)
        XCTAssertEqual(try worker.runDueJobs(), 1)
        clock.advance(1_999)
        XCTAssertEqual(try worker.runDueJobs(), 0, "the second delay is twice the first")
        clock.advance(1)
        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(outcomes.withLock { $0 }, [.retry, .retry, .dead])
        XCTAssertEqual(try state(temp), ["dead"])
        let error = try temp.database.read { c in try c.fetchValue("SELECT last_error FROM outbox", as: String.self) }
        XCTAssertEqual(error, "Boom()")
    }

    func testOneBatchCommitsItsGoodJobsAndRollsBackOnlyTheFailingOne() throws {
        struct Boom: Error {}
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in
            for payload in ["one", "bad", "three"] { try Outbox().enqueue(kind: "effect", payload: payload, now: clock.nowMillis(), on: c) }
        }
        var configuration = OutboxWorker.Configuration()
        configuration.batchMillis = 10_000  // a stall of 10 ms (a loaded machine) must not end the batch early
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in
                try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))")
                if job.payload == "bad" { throw Boom() }
            },
        ], clock: clock, configuration: configuration)
        XCTAssertEqual(try worker.runDueJobs(), 3, "the three jobs run in one batch")
        let effects = try temp.database.read { c in try c.fetchAll("SELECT job FROM effects ORDER BY n").map { try $0.decode("job", as: String.self) } }
        XCTAssertEqual(effects, ["one", "three"], "the failing job's insert was rolled back to its savepoint; the others committed")
        XCTAssertEqual(try state(temp), ["done", "pending", "done"], "the failing job waits for its retry")
    }

    func testABatchStopsTakingJobsAfterItsTimeBudget() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in
            for n in 0..<5 { try Outbox().enqueue(kind: "slow", payload: "\(n)", now: clock.nowMillis(), on: c) }
        }
        var configuration = OutboxWorker.Configuration()
        configuration.batchMillis = 5
        let worker = OutboxWorker(database: temp.database, handlers: [
            "slow": { job, connection in
                usleep(20_000)  // a slow job, past the 5 ms budget (measured on the monotonic clock, not the injected one)
                try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))")
            },
        ], clock: clock, configuration: configuration)
        XCTAssertEqual(try worker.runDueJobs(), 1, "the first job overran the 5 ms budget: the batch ends there")
        XCTAssertEqual(try state(temp), ["done", "pending", "pending", "pending", "pending"], "the rest wait, unleased, for the next batch")
        XCTAssertEqual(try worker.runDueJobs(), 1)
    }

    func testAnExpiredLeaseMakesTheJobDueAgain() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in
            try Outbox().enqueue(kind: "effect", payload: "x", now: clock.nowMillis(), on: c)
            // A worker that leased the job and died.
            try c.execute("UPDATE outbox SET state = 'leased', leased_until = \(clock.nowMillis() + 5_000), attempts = 1")
        }
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))") },
        ], clock: clock)
        XCTAssertEqual(try worker.runDueJobs(), 0)
        clock.advance(5_000)
        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(try state(temp), ["done"])
    }

    func testIdempotencyKeysKeepOneJob() throws {
        let temp = try makeDatabase()
        try temp.database.write { c in
            try Outbox().enqueue(kind: "effect", payload: "a", idempotencyKey: "same", now: 0, on: c)
            try Outbox().enqueue(kind: "effect", payload: "b", idempotencyKey: "same", now: 0, on: c)
        }
        XCTAssertEqual(try temp.count("outbox"), 1)
    }

    func testAnUnknownKindIsRetriedThenBuried() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in try Outbox().enqueue(kind: "from-the-future", payload: "{}", now: clock.nowMillis(), on: c) }
        var configuration = OutboxWorker.Configuration()
        configuration.retry.maxAttempts = 1
        let worker = OutboxWorker(database: temp.database, handlers: [:], clock: clock, configuration: configuration)
        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(try state(temp), ["dead"])
    }

    /// Group handlers (SQLite): the jobs of a kind that has one run in one call, the other
    /// kinds one by one in order, every job done exactly once. PostgreSQL leases ahead and
    /// runs every job with its own handler, to the same effect.
    func testAGroupHandlerRunsItsKindAtOnceAndEveryJobOnce() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in
            for (kind, payload) in [("grouped", "g1"), ("single", "s1"), ("grouped", "g2"), ("single", "s2"), ("grouped", "g3")] {
                try Outbox().enqueue(kind: kind, payload: payload, now: clock.nowMillis(), on: c)
            }
        }
        let groupCalls = Mutex<[[String]]>([])
        let insert: OutboxWorker.Handler = { job, connection in try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))") }
        var configuration = OutboxWorker.Configuration()
        configuration.batchMillis = 10_000  // every group of the batch runs: the sizes grow 1, then all
        let worker = OutboxWorker(database: temp.database, handlers: ["grouped": insert, "single": insert], groupHandlers: [
            "grouped": { jobs, connection in
                groupCalls.withLock { $0.append(jobs.map(\.payload)) }
                for job in jobs { try insert(job, connection) }
            },
        ], clock: clock, configuration: configuration)
        XCTAssertEqual(try worker.runDueJobs(), 5, "one batch runs them all")
        XCTAssertEqual(try worker.runDueJobs(), 0, "done jobs are not run again")
        let effects = try temp.database.read { c in try c.fetchAll("SELECT job FROM effects ORDER BY n").map { try $0.decode("job", as: String.self) } }
        XCTAssertEqual(effects.sorted(), ["g1", "g2", "g3", "s1", "s2"], "every job's work, once")
        XCTAssertEqual(try state(temp), Array(repeating: "done", count: 5))
        let attempts = try temp.database.read { c in try c.fetchAll("SELECT attempts FROM outbox").map { try $0.decode("attempts", as: Int.self) } }
        XCTAssertEqual(attempts, Array(repeating: 1, count: 5), "each job counted one attempt")
        if temp.dialect == .sqlite {
            XCTAssertEqual(groupCalls.withLock { $0 }, [["g1"], ["g2", "g3"]], "the first group is one job; the second takes the rest, its grouped kind in one call")
            XCTAssertEqual(effects, ["g1", "s1", "g2", "g3", "s2"], "a grouped kind runs at its first job; the others in order")
        } else {
            XCTAssertEqual(groupCalls.withLock { $0 }, [], "PostgreSQL runs each job with its own handler")
        }
    }

    /// While no request writes, a batch may take `idleBatch` jobs instead of `batch`.
    func testAnIdleBatchTakesTheLargerLimit() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in
            for n in 0..<6 { try Outbox().enqueue(kind: "effect", payload: "\(n)", now: clock.nowMillis(), on: c) }
        }
        var configuration = OutboxWorker.Configuration()
        configuration.batch = 2
        configuration.idleBatch = 3
        configuration.batchMillis = 10_000
        configuration.idleBatchMillis = 10_000
        configuration.leaseBatch = 2  // PostgreSQL leases ahead: its batches keep the busy limit
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))") },
        ], clock: clock, configuration: configuration)
        XCTAssertEqual(try worker.runDueJobs(), 2)
        XCTAssertEqual(try worker.runDueJobs(idle: true), temp.dialect == .sqlite ? 3 : 2)
        XCTAssertEqual(try temp.count("effects"), temp.dialect == .sqlite ? 5 : 4)
    }

    /// A group that fails is rolled back and run again job by job, so the failing job fails
    /// alone (its retry recorded) and the others are done once.
    func testAFailingGroupFallsBackToOneJobAtATime() throws {
        struct Boom: Error {}
        let temp = try makeDatabase()
        let clock = TestClock()
        try temp.database.write { c in
            for payload in ["one", "two", "bad", "four"] { try Outbox().enqueue(kind: "grouped", payload: payload, now: clock.nowMillis(), on: c) }
        }
        let insert: OutboxWorker.Handler = { job, connection in
            try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))")
            if job.payload == "bad" { throw Boom() }
        }
        var configuration = OutboxWorker.Configuration()
        configuration.batchMillis = 10_000
        let outcomes = Mutex<[String: OutboxWorker.Outcome]>([:])
        let worker = OutboxWorker(database: temp.database, handlers: ["grouped": insert], groupHandlers: [
            "grouped": { jobs, connection in for job in jobs { try insert(job, connection) } },
        ], clock: clock, configuration: configuration) { job, outcome, _ in outcomes.withLock { $0[job.payload] = outcome } }
        XCTAssertEqual(try worker.runDueJobs(), 4)
        let effects = try temp.database.read { c in try c.fetchAll("SELECT job FROM effects ORDER BY n").map { try $0.decode("job", as: String.self) } }
        XCTAssertEqual(effects, ["one", "two", "four"], "the failed group's work was rolled back and each good job's work done once")
        XCTAssertEqual(try state(temp), ["done", "done", "pending", "done"], "only the failing job waits for its retry")
        XCTAssertEqual(outcomes.withLock { $0 }, ["one": .done, "two": .done, "bad": .retry, "four": .done])
        let attempts = try temp.database.read { c in try c.fetchAll("SELECT attempts FROM outbox ORDER BY seq").map { try $0.decode("attempts", as: Int.self) } }
        XCTAssertEqual(attempts, [1, 1, 1, 1], "the rolled-back group attempt is not counted")
    }

    func testTheThreadPicksUpJobsAndStopsCleanly() throws {
        let temp = try makeDatabase()
        var configuration = OutboxWorker.Configuration()
        configuration.pollInterval = 0.01
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))") },
        ], configuration: configuration)
        worker.start()
        try temp.database.write { c in try Outbox().enqueue(kind: "effect", payload: "bg", now: SystemClock().nowMillis(), on: c) }
        worker.wake()
        _ = try waitUntil(timeout: 5, interval: 0.005) { try temp.count("effects") > 0 }
        worker.stop()
        XCTAssertEqual(try temp.count("effects"), 1)
    }
}

/// The daily purge of finished jobs, on the database `TestDatabase` chooses.
final class OutboxPurgeTests: XCTestCase {
    /// More finished jobs than a batch go in several statements, each in a write transaction of
    /// its own: one transaction deleting them all held the writer for as long as it took
    /// (every other write waiting on SQLite) and could outgrow memory.
    func testPurgeDeletesOldFinishedJobsInBoundedBatches() throws {
        let temp = try TemporaryDatabase(migrated: true)
        let before: Int64 = 1_000_000
        try temp.database.write { c in
            for n in 0..<2_500 {
                try c.execute("""
                    INSERT INTO outbox (kind, payload, state, attempts, available_at, created_at, finished_at, lane)
                    VALUES ('k', '{}', 'done', 1, 0, 0, \(Int64(n)), 'feed')
                    """)
            }
            // What stays: finished since `before`, dead (for an operator), not run yet.
            try c.execute("""
                INSERT INTO outbox (kind, payload, state, attempts, available_at, created_at, finished_at, lane) VALUES
                ('recent', '{}', 'done', 1, 0, 0, \(before), 'feed'),
                ('dead', '{}', 'dead', 9, 0, 0, 1, 'feed'),
                ('pending', '{}', 'pending', 0, 0, 0, NULL, 'feed')
                """)
        }
        let database = CountingDatabase(temp.database)
        let batches = try Outbox().purgeDone(before: before, in: database, batch: 1_000)
        XCTAssertEqual(batches, [1_000, 1_000, 500])
        XCTAssertEqual(database.transactions, [[1_000], [1_000], [500]], "one statement a transaction, none past the batch")
        let left = try temp.database.read { c in try c.fetchAll("SELECT kind FROM outbox ORDER BY kind").map { try $0.decode("kind", as: String.self) } }
        XCTAssertEqual(left, ["dead", "pending", "recent"])
        XCTAssertEqual(try Outbox().purgeDone(before: before, in: database, batch: 1_000), [0], "nothing left to purge: one empty batch")
    }
}

/// Forwards to a database and keeps, for each write transaction, the rows each of its
/// statements changed.
private final class CountingDatabase: ForwardingDatabase, Sendable {
    let base: any Database
    private let recorded = Mutex<[[Int]]>([])

    init(_ base: any Database) { self.base = base }

    var transactions: [[Int]] { recorded.withLock { $0 } }

    func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        let (result, changes) = try base.write(isolation: isolation) { connection in
            let counting = CountingConnection(connection)
            return (try body(counting), counting.changes)
        }
        recorded.withLock { $0.append(changes) }
        return result
    }
}

/// Forwards to a connection and keeps what each `execute` answered.
private final class CountingConnection: ForwardingConnection {
    let base: any DatabaseConnection
    private(set) var changes: [Int] = []

    init(_ base: any DatabaseConnection) { self.base = base }

    func execute(_ sql: SQL) throws(StorageError) -> Int {
        let changed = try base.execute(sql)
        changes.append(changed)
        return changed
    }
}
