import Dispatch
import Synchronization
import XCTest
@testable import HTTP

final class OffloadPoolTests: XCTestCase {
    func testFullQueueRefusesAndShutdownRunsQueuedJobs() throws {
        let pool = OffloadPool(threads: 1, capacity: 2, niceness: 10)
        let gate = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let ran = Mutex(0)
        try pool.start()
        // Bounded waits: a broken pool fails the test instead of hanging the suite.
        XCTAssertTrue(pool.trySubmit { running.signal(); _ = gate.wait(timeout: .now() + 10); ran.withLock { $0 += 1 } })
        XCTAssertEqual(running.wait(timeout: .now() + 10), .success, "the job starts")  // the only thread is now busy
        XCTAssertTrue(pool.trySubmit { ran.withLock { $0 += 1 } })
        XCTAssertTrue(pool.trySubmit { ran.withLock { $0 += 1 } })
        XCTAssertFalse(pool.trySubmit {}, "queue of 2 is full: the server answers 503 unavailable")
        XCTAssertEqual(pool.outstanding, 3)
        gate.signal()
        pool.shutdown()
        XCTAssertEqual(ran.withLock { $0 }, 3, "queued jobs finish before shutdown returns")
        XCTAssertFalse(pool.trySubmit {}, "closed")
    }

    func testOverloadedEnvelope() throws {
        let r = APIError.overloaded().response
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.header("Retry-After"), "1")
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"error":{"code":"unavailable","message":"The server is busy, try again shortly."}}"#)
    }
}
