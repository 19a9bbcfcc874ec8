import CloudHooks
import Storage
import Synchronization
import TestSupport
import XCTest

/// A clock the test moves by hand.
final class TestClock: Clock {
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
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in
                try connection.execute("INSERT INTO effects (job) VALUES (\(job.payload))")
                if job.payload == "bad" { throw Boom() }
            },
        ], clock: clock)
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
                usleep(20_000)
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
        let deadline = Date().addingTimeInterval(5)
        while try temp.count("effects") == 0, Date() < deadline { usleep(5_000) }
        worker.stop()
        XCTAssertEqual(try temp.count("effects"), 1)
    }
}
