import Foundation
import PostgresStorage
import Storage
import Synchronization
import Telemetry
import TestSupport
import XCTest
@testable import CloudHooks

/// One outbox on PostgreSQL shared by workers of several servers: each server is a `Database`
/// of its own (its own sessions) on one schema, as two `pacenote serve` processes are. Every
/// job is done exactly once, whichever worker takes it.
final class SharedOutboxTests: XCTestCase {
    private var temp: TemporaryPostgres!
    /// The second server's database: the same schema through sessions of its own.
    private var other: PostgresDatabase!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try TemporaryPostgres.requireCluster()
        temp = try TemporaryPostgres(migrated: true)
        other = try PostgresDatabase(configuration: .init(url: temp.url))
        try temp.database.write { c in
            try c.execute("CREATE TABLE effects (job BIGINT NOT NULL, node TEXT NOT NULL)")
            try c.execute("CREATE TABLE tally (n BIGINT NOT NULL)")
            try c.execute("INSERT INTO tally (n) VALUES (0)")
        }
    }

    override func tearDown() {
        other?.close()
        other = nil
        temp = nil
        super.tearDown()
    }

    private func enqueue(_ count: Int, lane: OutboxLane, now: Int64 = SystemClock().nowMillis()) throws {
        try temp.database.write { c in
            for n in 0..<count { try Outbox().enqueue(kind: "effect", payload: "\(n)", lane: lane, now: now, on: c) }
        }
    }

    private func rows() throws -> [(seq: Int64, state: String, attempts: Int)] {
        try temp.database.read { c in
            try c.fetchAll("SELECT seq, state, attempts FROM outbox ORDER BY seq").map {
                (try $0.decode("seq"), try $0.decode("state"), try $0.decode("attempts"))
            }
        }
    }

    /// Waits until no job of the outbox is pending or leased (at most `timeout` seconds).
    private func waitForEmptyBacklog(timeout: Double) throws -> Bool {
        try waitUntil(timeout: timeout, interval: 0.02) { try temp.database.read({ try Outbox().backlog(on: $0) }) == 0 }
    }

    /// Database work (the feed and notify lanes): two servers' workers on one backlog of 1,000
    /// jobs. Each job also adds one to a single shared row, so the two workers' transactions
    /// conflict all the time and are run again: the tally still counts every job once.
    func testTwoServersWorkersRunEveryDatabaseJobExactlyOnce() throws {
        try enqueue(1_000, lane: .feed)
        let done = Mutex([String: Int]())
        func worker(_ database: any Database, node: String) -> OutboxWorker {
            var configuration = OutboxWorker.Configuration()
            configuration.pollInterval = 0.005
            return OutboxWorker(database: database, handlers: [
                "effect": { job, connection in
                    try connection.execute("INSERT INTO effects (job, node) VALUES (\(job.seq), \(node))")
                    try connection.execute("UPDATE tally SET n = n + 1")
                    usleep(200)  // some work, so that the two workers' batches overlap
                },
            ], configuration: configuration) { _, outcome, _ in
                done.withLock { $0[outcome == .done ? node : "\(node) \(outcome)", default: 0] += 1 }
            }
        }
        let workers = [worker(temp.database, node: "a"), worker(other, node: "b")]
        for worker in workers { worker.start() }
        let drained = try waitForEmptyBacklog(timeout: 120)
        for worker in workers { worker.stop() }
        XCTAssertTrue(drained, "the two workers drained the outbox")

        let effects = try temp.database.read { c in
            try c.fetchAll("SELECT job, count(*) AS n FROM effects GROUP BY job").map { (try $0.decode("job", as: Int64.self), try $0.decode("n", as: Int.self)) }
        }
        XCTAssertEqual(effects.count, 1_000, "every job's work is there")
        XCTAssertEqual(effects.filter { $0.1 != 1 }.map(\.0), [], "no job's work is there twice")
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT n FROM tally", as: Int.self) }, 1_000)
        let after = try rows()
        XCTAssertEqual(Set(after.map(\.state)), ["done"])
        XCTAssertEqual(after.filter { $0.attempts != 1 }.map(\.seq), [], "each job was attempted once: conflicts and given-back batches do not count")
        let counts = done.withLock { $0 }
        XCTAssertEqual(counts.values.reduce(0, +), 1_000, "each completion reported once, every one done: \(counts)")
        XCTAssertGreaterThan(counts["a"] ?? 0, 0, "both servers took part: \(counts)")
        XCTAssertGreaterThan(counts["b"] ?? 0, 0, "both servers took part: \(counts)")
    }

    /// Deliveries (the push and mail lanes): four threads on two servers, 1,000 jobs, each sent
    /// once and recorded once.
    func testTwoServersDeliveryWorkersSendEveryJobOnce() throws {
        try enqueue(1_000, lane: .push)
        let sent = Mutex([(seq: Int64, node: String)]())
        func worker(_ database: any Database, node: String) -> DeliveryWorker {
            var configuration = DeliveryWorker.Configuration()
            configuration.pollInterval = 0.005
            configuration.batch = 25
            return DeliveryWorker(database: database, configuration: configuration) { jobs in
                usleep(2_000)  // the network: a delivery takes time, so the four threads' batches overlap
                sent.withLock { $0 += jobs.map { ($0.seq, node) } }
                return jobs.map { _ in .delivered }
            }
        }
        let workers = [worker(temp.database, node: "a"), worker(other, node: "b")]
        for worker in workers { worker.start() }
        let drained = try waitForEmptyBacklog(timeout: 120)
        for worker in workers { worker.stop() }
        XCTAssertTrue(drained, "the two servers drained the lane")

        let wire = sent.withLock { $0 }
        XCTAssertEqual(wire.count, 1_000, "nothing sent twice")
        XCTAssertEqual(Set(wire.map(\.seq)).count, 1_000, "nothing lost")
        XCTAssertGreaterThan(wire.filter { $0.node == "a" }.count, 0)
        XCTAssertGreaterThan(wire.filter { $0.node == "b" }.count, 0)
        let after = try rows()
        XCTAssertEqual(Set(after.map(\.state)), ["done"])
        XCTAssertEqual(Set(after.map(\.attempts)), [1])
    }

    /// While one server's lease transaction holds its rows, another server's lease takes the
    /// next ones at once: it neither waits for the first nor fails.
    func testALeaseSkipsRowsAnotherServerHoldsWithoutWaiting() throws {
        try enqueue(30, lane: .push)
        let now = SystemClock().nowMillis()
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let first = Mutex<[Int64]>([])
        let database = temp.database
        Thread.detachNewThread {
            _ = try? database.write(isolation: .readCommitted) { c in
                let jobs = try Outbox().leaseDue(lane: .push, limit: 10, now: now, leaseMillis: 60_000, on: c)
                first.withLock { $0 = jobs.map(\.seq) }
                holding.signal()
                _ = release.wait(timeout: .now() + 30)  // still uncommitted: its rows stay locked
            }
            finished.signal()
        }
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        let started = ContinuousClock.now
        let second = try other.write(isolation: .readCommitted) { c in
            try Outbox().leaseDue(lane: .push, limit: 10, now: now, leaseMillis: 60_000, on: c)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "the second lease did not wait for the first transaction")
        release.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)

        XCTAssertEqual(first.withLock { $0 }, Array(1...10), "the oldest ten")
        XCTAssertEqual(second.map(\.seq), Array(11...20), "the next ten: the first server's rows were skipped, not waited for")
        let third = try other.write(isolation: .readCommitted) { c in
            try Outbox().leaseDue(lane: .push, limit: 30, now: now, leaseMillis: 60_000, on: c)
        }
        XCTAssertEqual(third.map(\.seq), Array(21...30), "committed leases are not due again")
    }

    /// A server dies holding leased deliveries: another server sends them once the lease runs
    /// out, and the first one's late results (had it only been slow) are not recorded.
    func testAnotherServerTakesOverADeadServersLeaseWhenItRunsOut() throws {
        let clock = TestClock()
        try enqueue(3, lane: .push, now: clock.nowMillis())
        var configuration = DeliveryWorker.Configuration()
        configuration.leaseMillis = 9_000
        let wire = Mutex([String]())
        let survivor = DeliveryWorker(database: other, clock: clock, configuration: configuration) { jobs in
            wire.withLock { $0 += jobs.map { "b\($0.seq)" } }
            return jobs.map { _ in .delivered }
        }
        let dying = DeliveryWorker(database: temp.database, clock: clock, configuration: configuration) { jobs in
            wire.withLock { $0 += jobs.map { "a\($0.seq)" } }
            // Its connection to the world hangs: meanwhile the other server finds the jobs leased,
            // then takes them over once the lease has run out.
            XCTAssertEqual((try? survivor.runDueJobs()) ?? -1, 0, "leased by the first server")
            clock.advance(9_000)
            XCTAssertEqual((try? survivor.runDueJobs()) ?? -1, 3, "the lease ran out: the second server takes them")
            return jobs.map { _ in .delivered }
        }
        XCTAssertEqual(try dying.runDueJobs(), 3)
        XCTAssertEqual(wire.withLock { $0 }, ["a1", "a2", "a3", "b1", "b2", "b3"], "sent again after the lease (at-least-once on the wire)")
        let after = try rows()
        XCTAssertEqual(after.map(\.state), ["done", "done", "done"])
        XCTAssertEqual(after.map(\.attempts), [2, 2, 2], "recorded under the second lease only")
    }

    /// Leases taken ahead of the work: jobs a batch's time budget leaves unstarted go back at
    /// once, their attempt not counted.
    func testJobsABatchHadNoTimeForAreGivenBackUncounted() throws {
        let clock = TestClock()
        try enqueue(5, lane: .feed, now: clock.nowMillis())
        var configuration = OutboxWorker.Configuration()
        configuration.batchMillis = 5
        let worker = OutboxWorker(database: temp.database, handlers: [
            "effect": { job, connection in
                usleep(20_000)  // a slow job, past the 5 ms budget (measured on the monotonic clock, not the injected one)
                try connection.execute("INSERT INTO effects (job, node) VALUES (\(job.seq), 'a')")
            },
        ], clock: clock, configuration: configuration)
        XCTAssertEqual(try worker.runDueJobs(), 1, "the first job overran the 5 ms budget")
        XCTAssertEqual(try rows().map(\.state), ["done", "pending", "pending", "pending", "pending"])
        XCTAssertEqual(try rows().map(\.attempts), [1, 0, 0, 0, 0])
        XCTAssertEqual(try worker.runDueJobs(), 1, "due again at once, not after a lease")
    }

    /// A failure of the whole transaction (here a conflict with concurrent writers, on every
    /// try) is not the job's: nothing of the work is kept, no attempt is counted, and the batch
    /// is due again at once instead of staying leased.
    func testABatchWhoseTransactionFailsIsGivenBack() throws {
        let clock = TestClock()
        try enqueue(3, lane: .feed, now: clock.nowMillis())
        var settings = PostgresDatabase.Configuration(url: temp.url)
        settings.writeAttempts = 2
        let flaky = try PostgresDatabase(configuration: settings)
        defer { flaky.close() }
        let tries = Mutex(0)
        let worker = OutboxWorker(database: flaky, handlers: [
            "effect": { job, connection in
                try connection.execute("INSERT INTO effects (job, node) VALUES (\(job.seq), 'a')")
                tries.withLock { $0 += 1 }
                throw StorageError.driver(PostgresError(sqlstate: "40001", message: "could not serialize access", function: "test"))
            },
        ], clock: clock)
        XCTAssertThrowsError(try worker.runDueJobs())
        XCTAssertEqual(tries.withLock { $0 }, 2, "the write ran the batch twice (writeAttempts), stopping at the first job each time")
        XCTAssertEqual(try rows().map(\.state), ["pending", "pending", "pending"])
        XCTAssertEqual(try rows().map(\.attempts), [0, 0, 0])
        XCTAssertEqual(try temp.database.read { try $0.fetchValue("SELECT count(*) FROM effects", as: Int.self) }, 0)
    }
}
