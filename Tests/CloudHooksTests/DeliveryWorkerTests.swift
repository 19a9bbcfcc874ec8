import CloudHooks
import Storage
import Synchronization
import TestSupport
import XCTest

/// The delivery lane: leased outside transactions, every result recorded once, under the lease
/// that produced it.
final class DeliveryWorkerTests: XCTestCase {
    private func makeDatabase() throws -> TemporaryDatabase {
        try TemporaryDatabase(migrated: true)
    }

    private func enqueue(_ temp: TemporaryDatabase, _ count: Int, clock: TestClock) throws {
        try temp.database.write { c in
            for n in 0..<count {
                try Outbox().enqueue(kind: "push.test", payload: "{\"n\":\(n)}", idempotencyKey: "k\(n)", lane: .push, now: clock.nowMillis(), on: c)
            }
        }
    }

    private func rows(_ temp: TemporaryDatabase) throws -> [(state: String, attempts: Int, availableAt: Int64)] {
        try temp.database.read { c in
            try c.fetchAll("SELECT state, attempts, available_at FROM outbox ORDER BY seq").map {
                (try $0.decode("state"), try $0.decode("attempts"), try $0.decode("available_at"))
            }
        }
    }

    func testResultsAreRecordedAndRetriesHonourRetryAfter() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try enqueue(temp, 4, clock: clock)
        let answers: [DeliveryResult] = [.delivered, .skipped("gone"), .retry("busy", notBeforeMillis: clock.nowMillis() + 60_000), .failed("refused")]
        let worker = DeliveryWorker(database: temp.database, clock: clock) { jobs in jobs.map { answers[Int($0.seq - 1)] } }
        XCTAssertEqual(try worker.runDueJobs(), 4)
        let after = try rows(temp)
        XCTAssertEqual(after.map(\.state), ["done", "done", "pending", "dead"])
        XCTAssertGreaterThanOrEqual(after[2].availableAt, clock.nowMillis() + 60_000, "not before the service's Retry-After")
        XCTAssertEqual(try worker.runDueJobs(), 0, "the retry is not due yet")
        clock.advance(60_000)
        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(try rows(temp)[2].attempts, 2)
    }

    func testALostLeaseCannotMarkTheJobAgain() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try enqueue(temp, 1, clock: clock)
        var configuration = DeliveryWorker.Configuration()
        configuration.leaseMillis = 1_000
        let delivered = Mutex(0)
        // The first worker is slow: while it "sends", its lease runs out and a second worker
        // takes the job over and delivers it. The first one's late result is not recorded.
        let second = DeliveryWorker(database: temp.database, clock: clock, configuration: configuration) { jobs in
            delivered.withLock { $0 += jobs.count }
            return jobs.map { _ in .delivered }
        }
        let first = DeliveryWorker(database: temp.database, clock: clock, configuration: configuration) { jobs in
            clock.advance(5_000)
            XCTAssertEqual(try? second.runDueJobs(), 1, "the expired lease is taken over")
            return jobs.map { _ in .failed("late") }
        }
        XCTAssertEqual(try first.runDueJobs(), 1)
        XCTAssertEqual(delivered.withLock { $0 }, 1)
        let row = try XCTUnwrap(try rows(temp).first)
        XCTAssertEqual(row.state, "done", "the taker's result stands; the late one was not recorded")
        XCTAssertEqual(row.attempts, 2)
    }

    func testGivesUpAfterTheLastAttempt() throws {
        let temp = try makeDatabase()
        let clock = TestClock()
        try enqueue(temp, 1, clock: clock)
        var configuration = DeliveryWorker.Configuration()
        configuration.retry.maxAttempts = 3
        let worker = DeliveryWorker(database: temp.database, clock: clock, configuration: configuration) { jobs in jobs.map { _ in .retry("503") } }
        for _ in 0..<3 {
            XCTAssertEqual(try worker.runDueJobs(), 1)
            clock.advance(3_600_000)
        }
        XCTAssertEqual(try rows(temp).first?.state, "dead")
        XCTAssertEqual(try temp.database.read { try Outbox().list(deadOnly: true, limit: 10, on: $0) }.map(\.kind), ["push.test"])
        XCTAssertEqual(try temp.database.write { try Outbox().revive(seq: nil, now: clock.nowMillis(), on: $0) }, 1, "an operator's retry")
        XCTAssertEqual(try rows(temp).first?.state, "pending")
    }
}
